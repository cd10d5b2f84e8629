// Per-tool savings of a proxy run, for `--stats`: how much tool-result text the model was spared,
// in UTF-8 bytes and, when the proxy counts tokens, in tokens; which encoding shipped how often,
// and why the rest went out verbatim.

import {
  type ResultStrategy,
  VERBATIM_REASONS,
  type VerbatimReason,
} from '../telemetry/outcome.js';

/** The counts for one tool. */
export interface ToolStats {
  calls: number;
  /** Calls whose result text was rewritten: `calls` less the verbatim ones (derived). */
  compacted: number;
  /** How often each strategy shipped, one per call (`'verbatim'` included). */
  strategies: Partial<Record<ResultStrategy, number>>;
  /** Calls whose text went out verbatim, by reason. */
  verbatim: Partial<Record<VerbatimReason, number>>;
  bytesBefore: number;
  bytesAfter: number;
  /** Tokens, when the proxy counted them (see {@link ProxyStats.countTokensWith}). */
  tokensBefore: number;
  tokensAfter: number;
}

/** What is counted per tool; `compacted` is derived from it. */
type Counts = Omit<ToolStats, 'compacted'>;

/** What one answered call contributes, sizes measured once by the proxy. */
export interface CallSizes {
  strategy: ResultStrategy;
  verbatim: VerbatimReason | undefined;
  bytesIn: number;
  bytesOut: number;
  tokensIn: number | undefined;
  tokensOut: number | undefined;
}

const REASON_TEXT: Readonly<Record<VerbatimReason, string>> = {
  config: 'compact: false',
  excluded: 'excluded',
  content: 'file/document contents',
  error: 'error results',
  'no-content': 'no content',
  'no-text': 'no text',
  'not-json': 'not JSON',
  string: 'string values',
  mixed: 'mixed content',
  'unsafe-numbers': 'unsafe numbers',
  'too-large': 'too large to read',
  'not-smaller': 'not smaller',
  failed: 'proxy failures',
};

/**
 * Collects per-tool counts from the proxy's sessions: UTF-8 bytes always, and tokens once
 * {@link countTokensWith} has been called (the proxy does it when it starts with stats).
 *
 * @example
 * const stats = new ProxyStats();
 * await runStdioProxy({ upstream, stats });
 * process.stderr.write(stats.format());
 */
export class ProxyStats {
  private readonly tools = new Map<string, Counts>();
  private skipped = 0;
  private readonly sessions = { reaped: 0, refused: 0 };
  private tokenizer: string | undefined;
  private observing = false;

  /** The tokenizer's name, once the proxy counts tokens for these stats. */
  get countsTokensWith(): string | undefined {
    return this.tokenizer;
  }

  /** Lines the upstream wrote to stdout that were no message (not JSON, or JSON without `jsonrpc`), skipped. */
  get skippedLines(): number {
    return this.skipped;
  }

  /**
   * Says that tokens are counted from now on, with the tokenizer `name` (for the table's title),
   * and whether the proxy only observes (the sizes "after" are what it would have shipped).
   */
  countTokensWith(name: string, observing = false): void {
    this.tokenizer = name;
    this.observing = observing;
  }

  /** `--listen` sessions ended for idleness (`reaped`) and refused at the session cap. */
  get sessionCounts(): { reaped: number; refused: number } {
    return { ...this.sessions };
  }

  /** Counts a `--listen` session ended for idleness, or refused because all were busy. */
  recordSession(what: 'reaped' | 'refused'): void {
    this.sessions[what] += 1;
  }

  /** Counts one line the upstream wrote to stdout that was no message (and was skipped). */
  recordSkippedLine(): void {
    this.skipped += 1;
  }

  /** Records one answered tools/call of `tool`. */
  record(tool: string, call: CallSizes): void {
    let entry = this.tools.get(tool);
    if (entry === undefined) {
      entry = emptyStats();
      this.tools.set(tool, entry);
    }
    add(entry, {
      calls: 1,
      strategies: { [call.strategy]: 1 },
      verbatim: call.verbatim === undefined ? {} : { [call.verbatim]: 1 },
      bytesBefore: call.bytesIn,
      bytesAfter: call.bytesOut,
      tokensBefore: call.tokensIn ?? 0,
      tokensAfter: call.tokensOut ?? 0,
    });
  }

  /** A copy of the counts, by tool name. */
  snapshot(): Record<string, ToolStats> {
    const copy: Record<string, ToolStats> = {};
    for (const [name, entry] of this.tools) {
      const clone = emptyStats();
      add(clone, entry);
      copy[name] = { ...clone, compacted: compactedCalls(clone) };
    }
    return copy;
  }

  /** A table for stderr, one line per tool plus a total, then the count of skipped lines. */
  format(): string {
    const tokens = this.tokenizer !== undefined;
    const header = ['tool', 'calls', 'compacted', 'bytes before', 'bytes after', 'saved'];
    if (tokens) header.push('tokens before', 'tokens after', 'saved');
    header.push('strategies');
    const rows: string[][] = [];
    const total = emptyStats();
    for (const [name, entry] of [...this.tools].sort(([a], [b]) => a.localeCompare(b))) {
      rows.push(row(name, entry, tokens));
      add(total, entry);
    }
    const skipped =
      this.skipped === 0
        ? ''
        : `skipped ${this.skipped} line${this.skipped === 1 ? '' : 's'} of the upstream's stdout that ${this.skipped === 1 ? 'was' : 'were'} no MCP message\n`;
    const { reaped, refused } = this.sessions;
    const sessions =
      reaped + refused === 0
        ? ''
        : `sessions: ${reaped} ended after --idle-timeout, ${refused} refused at --max-sessions\n`;
    if (rows.length === 0) return `toonwire proxy stats: no tool calls\n${skipped}${sessions}`;
    rows.push(row('(all tools)', total, tokens));
    const widths = header.map((title, column) =>
      Math.max(title.length, ...rows.map((cells) => cells[column]!.length)),
    );
    const line = (cells: readonly string[]): string =>
      cells
        .map((cell, column) =>
          column === 0 || column === cells.length - 1
            ? cell.padEnd(widths[column]!)
            : cell.padStart(widths[column]!),
        )
        .join('  ')
        .trimEnd();
    const what = tokens ? `UTF-8 bytes and ${this.tokenizer} tokens` : 'UTF-8 bytes';
    const observed = this.observing
      ? '; --observe: nothing was changed, "after" is what compaction would have shipped'
      : '';
    return `toonwire proxy stats (${what} of tool-result text${observed}):\n${[header, ...rows].map(line).join('\n')}\n${skipped}${sessions}`;
  }
}

function emptyStats(): Counts {
  return {
    calls: 0,
    strategies: {},
    verbatim: {},
    bytesBefore: 0,
    bytesAfter: 0,
    tokensBefore: 0,
    tokensAfter: 0,
  };
}

function add(into: Counts, from: Counts): void {
  into.calls += from.calls;
  into.bytesBefore += from.bytesBefore;
  into.bytesAfter += from.bytesAfter;
  into.tokensBefore += from.tokensBefore;
  into.tokensAfter += from.tokensAfter;
  for (const [key, count] of Object.entries(from.strategies) as [ResultStrategy, number][])
    into.strategies[key] = (into.strategies[key] ?? 0) + count;
  for (const [key, count] of Object.entries(from.verbatim) as [VerbatimReason, number][])
    into.verbatim[key] = (into.verbatim[key] ?? 0) + count;
}

/** An integer with thousands separators, the same under every locale (as the report's tables). */
const count = (value: number): string => value.toLocaleString('en-US');

function saved(before: number, after: number): string {
  return `${((before === 0 ? 0 : (before - after) / before) * 100).toFixed(1)}%`;
}

/** Calls whose text was rewritten: every call but the verbatim ones. */
function compactedCalls(entry: Counts): number {
  return entry.calls - (entry.strategies.verbatim ?? 0);
}

function row(name: string, entry: Counts, tokens: boolean): string[] {
  const encodings = (Object.entries(entry.strategies) as [ResultStrategy, number][])
    .filter(([strategy]) => strategy !== 'verbatim')
    .sort(([, a], [, b]) => b - a)
    .map(([strategy, count]) => `${strategy} ${count}`);
  const reasons = VERBATIM_REASONS.filter((reason) => entry.verbatim[reason] !== undefined).map(
    (reason) => `${entry.verbatim[reason]} ${REASON_TEXT[reason]}`,
  );
  if (reasons.length > 0)
    encodings.push(`verbatim ${entry.strategies.verbatim} (${reasons.join(', ')})`);
  const cells = [
    name,
    count(entry.calls),
    count(compactedCalls(entry)),
    count(entry.bytesBefore),
    count(entry.bytesAfter),
    saved(entry.bytesBefore, entry.bytesAfter),
  ];
  if (tokens)
    cells.push(
      count(entry.tokensBefore),
      count(entry.tokensAfter),
      saved(entry.tokensBefore, entry.tokensAfter),
    );
  cells.push(encodings.join(', ') || '-');
  return cells;
}
