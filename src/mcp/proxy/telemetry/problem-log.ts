// One line per problem: a session that meets the same upstream or client problem a thousand
// times (an HTTP upstream replaying events, a chatty server's banner) logs it once, then how
// often it recurred when the session ends. `--verbose` logs every occurrence in full.

import { excerpt } from '../../../codec/excerpt.js';

/** How long a problem's key is: enough to tell problems apart, short enough to bound memory. */
const KEY_LENGTH = 160;
/** How long a logged problem may be, unless verbose. */
const LINE_LENGTH = 300;
/** At most this many distinct problems are counted; later new ones are logged without a count. */
const MAX_KINDS = 100;

/**
 * Logs each distinct problem once, on one line, and counts the repeats; {@link flush} writes the
 * counts. Two occurrences are the same problem when their messages agree on their first
 * {@link KEY_LENGTH} characters, white space collapsed.
 *
 * @example
 * const problems = new ProblemLog((line) => process.stderr.write(`${line}\n`));
 * problems.report('toonwire proxy: the upstream reported: Bad Request');
 * problems.report('toonwire proxy: the upstream reported: Bad Request'); // counted, not logged
 * problems.flush(); // 'toonwire proxy: 1 more time: the upstream reported: Bad Request'
 */
export class ProblemLog {
  private readonly seen = new Map<string, { line: string; repeats: number }>();

  constructor(
    private readonly log: (message: string) => void,
    private readonly verbose = false,
  ) {}

  /** Logs `message` if it is new (or in full, when verbose), else counts it. */
  report(message: string): void {
    if (this.verbose) {
      this.log(message);
      return;
    }
    const flat = message.replace(/\s+/g, ' ').trim();
    const key = flat.slice(0, KEY_LENGTH);
    const known = this.seen.get(key);
    if (known !== undefined) {
      known.repeats += 1;
      return;
    }
    const line = excerpt(flat, LINE_LENGTH, '… (--verbose for all of it)');
    if (this.seen.size < MAX_KINDS) this.seen.set(key, { line, repeats: 0 });
    this.log(line);
  }

  /** Logs how often each problem recurred since it was logged, and starts counting afresh. */
  flush(): void {
    for (const [key, entry] of this.seen) {
      if (entry.repeats === 0) continue;
      const times = entry.repeats === 1 ? '1 more time' : `${entry.repeats} more times`;
      this.log(`toonwire proxy: ${times}: ${entry.line.replace(/^toonwire proxy: /, '')}`);
      this.seen.set(key, { ...entry, repeats: 0 });
    }
  }
}
