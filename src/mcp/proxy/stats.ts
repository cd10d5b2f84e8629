// Per-tool savings of a proxy run, for `--stats`: how many bytes of tool-result text the model
// was spared, and which encoding won how often.

import { byteLength } from '../../compact/index.js';
import type { TextBlockOutcome } from './rewrite.js';

/** The counts for one tool. Sizes are UTF-8 bytes of tool-result text. */
export interface ToolStats {
  calls: number;
  /** Calls whose result text was rewritten. */
  compacted: number;
  bytesBefore: number;
  bytesAfter: number;
  /** How often each strategy shipped, over rewritten text contents. */
  strategies: Record<string, number>;
}

/**
 * Collects per-tool counts from the proxy's sessions.
 *
 * @example
 * const stats = new ProxyStats();
 * await runStdioProxy({ upstream, stats });
 * process.stderr.write(stats.format());
 */
export class ProxyStats {
  private readonly tools = new Map<string, ToolStats>();

  /** Records one answered tools/call. */
  record(toolName: string, changed: boolean, blocks: readonly TextBlockOutcome[]): void {
    let entry = this.tools.get(toolName);
    if (entry === undefined) {
      entry = { calls: 0, compacted: 0, bytesBefore: 0, bytesAfter: 0, strategies: {} };
      this.tools.set(toolName, entry);
    }
    entry.calls += 1;
    if (changed) entry.compacted += 1;
    for (const block of blocks) {
      const before = byteLength(block.before);
      entry.bytesBefore += before;
      entry.bytesAfter += block.after === block.before ? before : byteLength(block.after);
      if (block.strategy !== undefined)
        entry.strategies[block.strategy] = (entry.strategies[block.strategy] ?? 0) + 1;
    }
  }

  /** A copy of the counts, by tool name. */
  snapshot(): Record<string, ToolStats> {
    const copy: Record<string, ToolStats> = {};
    for (const [name, entry] of this.tools)
      copy[name] = { ...entry, strategies: { ...entry.strategies } };
    return copy;
  }

  /** A table for stderr, one line per tool plus a total. */
  format(): string {
    const header = [
      'tool',
      'calls',
      'compacted',
      'bytes before',
      'bytes after',
      'saved',
      'strategies',
    ];
    const rows: string[][] = [];
    const total: ToolStats = {
      calls: 0,
      compacted: 0,
      bytesBefore: 0,
      bytesAfter: 0,
      strategies: {},
    };
    for (const [name, entry] of [...this.tools].sort(([a], [b]) => a.localeCompare(b))) {
      rows.push(row(name, entry));
      total.calls += entry.calls;
      total.compacted += entry.compacted;
      total.bytesBefore += entry.bytesBefore;
      total.bytesAfter += entry.bytesAfter;
      for (const [strategy, count] of Object.entries(entry.strategies)) {
        total.strategies[strategy] = (total.strategies[strategy] ?? 0) + count;
      }
    }
    if (rows.length === 0) return 'toonwire proxy stats: no tool calls\n';
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
    return `toonwire proxy stats (UTF-8 bytes of tool-result text):\n${[header, ...rows].map(line).join('\n')}\n`;
  }
}

function row(name: string, entry: ToolStats): string[] {
  const saved =
    entry.bytesBefore === 0 ? 0 : (entry.bytesBefore - entry.bytesAfter) / entry.bytesBefore;
  const strategies = Object.entries(entry.strategies)
    .sort(([, a], [, b]) => b - a)
    .map(([strategy, count]) => `${strategy} ${count}`)
    .join(', ');
  return [
    name,
    String(entry.calls),
    String(entry.compacted),
    String(entry.bytesBefore),
    String(entry.bytesAfter),
    `${(saved * 100).toFixed(1)}%`,
    strategies || '-',
  ];
}
