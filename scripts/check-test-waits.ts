// No fixed wall-clock waits in tests: they fail on a busy machine, where everything takes several
// times longer and nothing is wrong. Finds, in test/**/*.ts:
//
// - a number literal as a timeout (`timeout: 20_000` for a test or an SDK request): use
//   `hangGuardMs(20_000)` from test/support/patience.ts, which scales with the machine's slowdown;
// - `setTimeout(..., 250)` with a number literal as its delay;
// - every call of `setTimeout` imported from `node:timers/promises` (`delay(3000)`, `sleep(ms)`):
//   wait for the event instead (a message, an exit, a line of output), or poll under a scaled
//   guard.
//
// A wait that is what a test is about (a client that answers slowly on purpose, a poll interval)
// is marked by a comment `// wait-ok: REASON` on its line or the line before.
//
//   node --import tsx scripts/check-test-waits.ts        (exit 1 and one line per finding)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One unmarked fixed wait. */
export interface FixedWait {
  file: string;
  line: number;
  text: string;
  why: string;
}

const MARK = /\/\/\s*wait-ok:\s*\S/;
const LITERAL_TIMEOUT = /\btimeout:\s*\d[\d_]*\s*(?:[,}]|$)/;
const LITERAL_SET_TIMEOUT = /\bsetTimeout\((?:[^()]|\([^()]*\))*,\s*\d[\d_]*\s*\)/;
const PROMISE_SLEEP_IMPORT =
  /import\s*\{[^}]*\bsetTimeout\s+as\s+(\w+)[^}]*\}\s*from\s*['"](?:node:)?timers\/promises['"]/g;

/**
 * The unmarked fixed waits of one test file's source.
 *
 * @example
 * findFixedWaits('a.test.ts', "it('x', { timeout: 5000 }, () => {});");
 * // [{ file: 'a.test.ts', line: 1, text: "it('x', { timeout: 5000 }, () => {});", why: 'a number as a timeout: use hangGuardMs(...)' }]
 */
export function findFixedWaits(file: string, source: string): FixedWait[] {
  const lines = source.split('\n');
  const sleeps = [...source.matchAll(PROMISE_SLEEP_IMPORT)].map((match) => match[1]!);
  const sleepCall = sleeps.length > 0 ? new RegExp(`\\b(?:${sleeps.join('|')})\\(`) : undefined;
  const found: FixedWait[] = [];
  lines.forEach((text, index) => {
    if (MARK.test(text) || MARK.test(lines[index - 1] ?? '')) return;
    const code = text.replace(/\/\/.*$/, '');
    let why: string | undefined;
    if (LITERAL_TIMEOUT.test(code)) why = 'a number as a timeout: use hangGuardMs(...)';
    else if (LITERAL_SET_TIMEOUT.test(code)) why = 'setTimeout with a fixed delay';
    else if (sleepCall?.test(code) && !/\bimport\b/.test(code))
      why = 'a sleep (timers/promises setTimeout): wait for the event';
    if (why !== undefined) found.push({ file, line: index + 1, text: text.trim(), why });
  });
  return found;
}

/** The TypeScript files under `dir`, recursively. */
function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return /\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });
}

/** Files not checked: the guards themselves, and this check's own test (its examples). */
const EXEMPT = [join('test', 'support', 'patience.ts'), join('test', 'repo', 'test-waits.test.ts')];

/**
 * Every unmarked fixed wait under `root`/test (test/support/patience.ts, the guards themselves,
 * and test/repo/test-waits.test.ts, whose examples are fixed waits on purpose, excepted).
 *
 * @example
 * checkTestWaits('/path/to/toonwire'); // [] when the tests wait for events only
 */
export function checkTestWaits(root: string): FixedWait[] {
  return typescriptFiles(join(root, 'test'))
    .map((path) => relative(root, path))
    .filter((file) => !EXEMPT.includes(file))
    .flatMap((file) => findFixedWaits(file, readFileSync(join(root, file), 'utf8')));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const found = checkTestWaits(root);
  for (const wait of found) console.log(`${wait.file}:${wait.line}: ${wait.why}\n    ${wait.text}`);
  console.log(
    found.length === 0
      ? 'check-test-waits: no unmarked fixed wait in test/'
      : `check-test-waits: ${found.length} unmarked fixed waits (wait for the event, scale with hangGuardMs, or mark a deliberate one with // wait-ok: REASON)`,
  );
  if (found.length > 0) process.exitCode = 1;
}
