// Side-by-side measurement for a shared, noisy machine: each round measures every contender once
// (mitata's measure), rounds interleave the contenders, and ratios are taken per round before
// taking the median, so a slow minute hits all contenders alike instead of skewing one of them.
import { readFileSync } from 'node:fs';
import { measure } from 'mitata';

export interface Contender {
  name: string;
  fn: () => unknown;
}

export interface Comparison {
  /** Median over rounds of each contender's median time per call, in nanoseconds. */
  nanoseconds: Record<string, number>;
  /** Median over rounds of (contender time / baseline time). */
  ratioToBaseline: Record<string, number>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** mitata's median wall time per call of `fn`, in nanoseconds, over about `cpuTimeMs`. */
async function wallTimePerCall(fn: () => unknown, cpuTimeMs: number): Promise<number> {
  const stats = await measure(fn, { min_cpu_time: cpuTimeMs * 1e6, max_samples: 1e6 });
  return stats.p50;
}

/**
 * Measures `contenders` side by side over `rounds` interleaved rounds; ratios are relative to
 * the contender named `baseline`. `timePerCall` measures one contender once (default: mitata's
 * median wall time).
 *
 * @example
 * const result = await compare([{ name: 'JSON', fn: () => JSON.stringify(x) }, { name: 'toon', fn: () => encode(x) }], 'JSON');
 * result.ratioToBaseline.toon; // e.g. 2.1 (toon takes 2.1x JSON's time)
 */
export async function compare(
  contenders: readonly Contender[],
  baseline: string,
  {
    rounds = 5,
    cpuTimeMs = 150,
    timePerCall = wallTimePerCall,
  }: {
    rounds?: number;
    cpuTimeMs?: number;
    timePerCall?: (fn: () => unknown, cpuTimeMs: number) => number | Promise<number>;
  } = {},
): Promise<Comparison> {
  const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const ratios = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    const thisRound = new Map<string, number>();
    // Rotate the order each round so no contender always runs right after a GC-heavy one.
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + round) % contenders.length]!;
      thisRound.set(contender.name, await timePerCall(contender.fn, cpuTimeMs));
    }
    const base = thisRound.get(baseline)!;
    for (const [name, ns] of thisRound) {
      times.get(name)!.push(ns);
      ratios.get(name)!.push(ns / base);
    }
  }
  return {
    nanoseconds: Object.fromEntries([...times].map(([name, values]) => [name, median(values)])),
    ratioToBaseline: Object.fromEntries(
      [...ratios].map(([name, values]) => [name, median(values)]),
    ),
  };
}

/** Formats nanoseconds for a table cell. */
export function formatTime(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** Prints a markdown table (so the output can be pasted into the README as is). */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

/**
 * The CPU milliseconds (user + system) the process `pid` has used so far, from /proc (Linux), in
 * clock ticks of 10 ms; `NaN` when it cannot be read.
 *
 * @example
 * const before = cpuMsOf(child.pid); // ... calls ...
 * const perCall = (cpuMsOf(child.pid) - before) / calls;
 */
export function cpuMsOf(pid: number | null | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
