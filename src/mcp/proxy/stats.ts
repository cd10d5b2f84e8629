// Per-tool savings of a proxy run, for `--stats`: how much tool-result text the model was spared,
// in the unit the picker compared by (UTF-8 bytes, or tokens under `--by tokens`), which encoding
// won how often, and which calls were passed through without a look and why.

import { byteLength } from '../../compact/index.js';
import type { CompactionOutcome, PassThroughReason } from './rewrite.js';

/** The counts for one tool. Sizes are of tool-result text, in {@link ProxyStats.unit}. */
export interface ToolStats {
  calls: number;
  /** Calls whose result text was rewritten. */
  compacted: number;
  /** Calls passed through without a look, by reason. */
  passedThrough: Partial<Record<PassThroughReason, number>>;
  sizeBefore: number;
  sizeAfter: number;
  /** How often each strategy shipped, over rewritten text contents. */
  strategies: Record<string, number>;
}

/** How {@link ProxyStats} measures text. */
export interface StatsMeasure {
  unit: 'bytes' | 'tokens';
  measure: (text: string) => number;
  /** The tokenizer's name, for the table's title. */
  tokenizer?: string;
}

const REASONS: Readonly<Record<PassThroughReason, string>> = {
  excluded: 'excluded',
  content: 'file/document contents',
  error: 'error results',
  'no-content': 'no content',
};

/**
 * Collects per-tool counts from the proxy's sessions. Sizes are measured in the unit the
 * proxy's picker uses: the proxy sets it when a session starts (`useMeasure`), bytes until then.
 *
 * @example
 * const stats = new ProxyStats();
 * await runStdioProxy({ upstream, stats, by: 'tokens' });
 * process.stderr.write(stats.format()); // sizes in o200k_base tokens
 */
export class ProxyStats {
  private readonly tools = new Map<string, ToolStats>();
  private measureWith: StatsMeasure = { unit: 'bytes', measure: byteLength };
  private skipped = 0;

  /** The unit sizes are counted in. */
  get unit(): 'bytes' | 'tokens' {
    return this.measureWith.unit;
  }

  /** Lines the upstream wrote to stdout that were not JSON, skipped. */
  get skippedLines(): number {
    return this.skipped;
  }

  /**
   * Counts in `measure`'s unit from now on (the proxy calls it with its compactor's measure).
   *
   * @example
   * stats.useMeasure({ unit: 'tokens', measure: await loadTokenizer(), tokenizer: 'o200k_base' });
   */
  useMeasure(measure: StatsMeasure): void {
    this.measureWith = measure;
  }

  /** Counts one line the upstream wrote to stdout that was not JSON (and was skipped). */
  recordSkippedLine(): void {
    this.skipped += 1;
  }

  /** Records one answered tools/call. */
  record(
    toolName: string,
    outcome: Pick<CompactionOutcome, 'changed' | 'blocks' | 'passedThrough' | 'unit'>,
  ): void {
    let entry = this.tools.get(toolName);
    if (entry === undefined) {
      entry = emptyStats();
      this.tools.set(toolName, entry);
    }
    entry.calls += 1;
    if (outcome.passedThrough !== undefined)
      entry.passedThrough[outcome.passedThrough] =
        (entry.passedThrough[outcome.passedThrough] ?? 0) + 1;
    else if (outcome.changed && outcome.blocks.some((block) => block.strategy !== undefined))
      entry.compacted += 1;
    const { measure, unit } = this.measureWith;
    // A tool of its own `by` (--config) has sizes in another unit: those are measured again.
    const known = outcome.unit === unit;
    for (const block of outcome.blocks) {
      const before = (known ? block.beforeSize : undefined) ?? measure(block.before);
      entry.sizeBefore += before;
      entry.sizeAfter +=
        block.after === block.before
          ? before
          : ((known ? block.afterSize : undefined) ?? measure(block.after));
      if (block.strategy !== undefined)
        entry.strategies[block.strategy] = (entry.strategies[block.strategy] ?? 0) + 1;
    }
  }

  /** A copy of the counts, by tool name. */
  snapshot(): Record<string, ToolStats> {
    const copy: Record<string, ToolStats> = {};
    for (const [name, entry] of this.tools)
      copy[name] = {
        ...entry,
        passedThrough: { ...entry.passedThrough },
        strategies: { ...entry.strategies },
      };
    return copy;
  }

  /** A table for stderr, one line per tool plus a total, then the count of skipped lines. */
  format(): string {
    const { unit, tokenizer } = this.measureWith;
    const header = [
      'tool',
      'calls',
      'compacted',
      `${unit} before`,
      `${unit} after`,
      'saved',
      'strategies',
    ];
    const rows: string[][] = [];
    const total = emptyStats();
    for (const [name, entry] of [...this.tools].sort(([a], [b]) => a.localeCompare(b))) {
      rows.push(row(name, entry));
      total.calls += entry.calls;
      total.compacted += entry.compacted;
      total.sizeBefore += entry.sizeBefore;
      total.sizeAfter += entry.sizeAfter;
      for (const [strategy, count] of Object.entries(entry.strategies))
        total.strategies[strategy] = (total.strategies[strategy] ?? 0) + count;
      for (const [reason, count] of Object.entries(entry.passedThrough) as [
        PassThroughReason,
        number,
      ][])
        total.passedThrough[reason] = (total.passedThrough[reason] ?? 0) + count;
    }
    const skipped =
      this.skipped === 0
        ? ''
        : `skipped ${this.skipped} line${this.skipped === 1 ? '' : 's'} of the upstream's stdout that ${this.skipped === 1 ? 'was' : 'were'} not JSON\n`;
    if (rows.length === 0) return `toonwire proxy stats: no tool calls\n${skipped}`;
    rows.push(row('(all tools)', total));
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
    const what = unit === 'tokens' ? `${tokenizer ?? 'tokenizer'} tokens` : 'UTF-8 bytes';
    return `toonwire proxy stats (${what} of tool-result text):\n${[header, ...rows].map(line).join('\n')}\n${skipped}`;
  }
}

function emptyStats(): ToolStats {
  return { calls: 0, compacted: 0, passedThrough: {}, sizeBefore: 0, sizeAfter: 0, strategies: {} };
}

function row(name: string, entry: ToolStats): string[] {
  const saved =
    entry.sizeBefore === 0 ? 0 : (entry.sizeBefore - entry.sizeAfter) / entry.sizeBefore;
  const strategies = Object.entries(entry.strategies)
    .sort(([, a], [, b]) => b - a)
    .map(([strategy, count]) => `${strategy} ${count}`);
  for (const [reason, count] of Object.entries(entry.passedThrough) as [
    PassThroughReason,
    number,
  ][])
    strategies.push(`passed through ${count} (${REASONS[reason]})`);
  return [
    name,
    String(entry.calls),
    String(entry.compacted),
    String(entry.sizeBefore),
    String(entry.sizeAfter),
    `${(saved * 100).toFixed(1)}%`,
    strategies.join(', ') || '-',
  ];
}
