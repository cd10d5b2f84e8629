// What the adaptive picker costs next to JSON.stringify alone (the TOON adoption proposal for Apify's MCP server measured +0.7 ms per
// 100-item response at depth 9, +1.6 ms at depth 20). Run: npm run bench:picker
//
// Each payload is measured side by side in one run (bench/harness.ts: interleaved mitata rounds,
// ratios per round, then the median): JSON.stringify (the baseline, what a server does today),
// pick() with the default candidates, and pick() with toon-tab as well.
//
// Before and after: `npm run bench:picker -- --baseline DIR`, with DIR a copy of an older
// checkout's src/ (say `git archive <commit> src | tar -x -C DIR`), measures that pick() in the
// same rounds too, and adds its ratio and the texts it ships. `-- --only depth` measures only the
// payloads whose name holds that text (here the three generated lists).
//
// Issue 31's targets, printed per payload with whether each is met: pick() at most 2.5x
// JSON.stringify on the depth-9 table, and elsewhere at most 3x (2x where JSON ships). It
// measures the build (dist/index.js, as users run it): run `npm run build` first.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JsonValue } from '../src/codec/types.js';
import { loadDocuments } from './corpus.js';
import { compare, formatTime, printTable } from './harness.js';

/**
 * A 100-item list response like the proposal's actor-run lists, whose rows nest so that the deepest
 * value sits `depth` levels below the root (the root array is depth 0 and each row depth 1, the
 * depth flatten's maxDepth counts). Uniform rows are the case where the TOON candidates beat JSON
 * and so cannot stop early. `mixed` gives every other row no `schema`, like the proposal's
 * schema-bearing storage lists: no table, so toon-flatten has to be flattened and encoded.
 */
function listPayload(depth: number, mixed = false): JsonValue[] {
  return Array.from({ length: 100 }, (_, i) => {
    // Objects at levels 2..depth-2 with two fields each, then one holding the leaf at `depth`.
    let nested: JsonValue = { leaf: i % 3 === 0 ? null : `value ${i}` };
    for (let level = depth - 2; level >= 2; level--) {
      nested = { level, name: `level ${level}`, next: nested };
    }
    const row: Record<string, JsonValue> = {
      id: `Xh3kQ${i.toString(36).padStart(6, '0')}`,
      actId: 'apify~google-maps-scraper',
      status: i % 9 === 0 ? 'FAILED' : 'SUCCEEDED',
      startedAt: new Date(Date.UTC(2026, 4, 12, 9, i % 60)).toISOString(),
      usageTotalUsd: Math.round(i * 8311) / 1e8,
      stats: { restartCount: i % 2, durationMillis: 1000 + i * 37, computeUnits: i / 400 },
      schema: nested,
    };
    if (mixed && i % 2 === 1) delete row['schema'];
    return row;
  });
}

interface Payload {
  name: string;
  value: unknown;
}

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt < 0 ? '' : process.argv[onlyAt + 1]!;
const payloads: Payload[] = [
  { name: '100 rows, depth 9', value: listPayload(9) },
  { name: '100 rows, depth 20', value: listPayload(20) },
  { name: '100 mixed rows, depth 9', value: listPayload(9, true) },
  ...(only === '' ? loadDocuments() : []),
].filter(({ name }) => name.includes(only));

// The built package, as users run it: under tsx every function made at run time is wrapped to
// keep its name, which costs small picks more than the pick.
const builtAt = new URL('../dist/index.js', import.meta.url);
const { pick } = (await import(builtAt.href).catch(() => {
  console.error('dist/index.js is missing: run `npm run build` first');
  process.exit(1);
})) as typeof import('../src/index.js');

/** Issue 31's target for pick() / JSON.stringify on a payload. */
function target(name: string, strategy: string): number {
  if (name === '100 rows, depth 9') return 2.5;
  return strategy === 'json' ? 2 : 3;
}

const withTab = { candidates: ['toon', 'toon-flatten', 'toon-tab'] } as const;
const baselineAt = process.argv.indexOf('--baseline');
const basePick: typeof pick | undefined =
  baselineAt < 0
    ? undefined
    : (
        (await import(
          pathToFileURL(path.resolve(process.argv[baselineAt + 1]!, 'src/compact/index.ts')).href
        )) as { pick: typeof pick }
      ).pick;
const ratio = (value: number | undefined): string => `${(value ?? Number.NaN).toFixed(2)}x`;

console.log(
  `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}; sizes in UTF-8 bytes\n`,
);
const rows: string[][] = [];
let misses = 0;
for (const { name, value } of payloads) {
  const contenders = [
    { name: 'json', fn: () => JSON.stringify(value) },
    { name: 'pick', fn: () => pick(value) },
    { name: 'pickTab', fn: () => pick(value, withTab) },
  ];
  if (basePick !== undefined) contenders.push({ name: 'before', fn: () => basePick(value) });
  const { nanoseconds, ratioToBaseline } = await compare(contenders, 'json');
  const picked = pick(value);
  const before =
    basePick === undefined
      ? []
      : (() => {
          const old = basePick(value);
          const same = old.text === picked.text ? 'same text' : `was ${old.strategy} ${old.size}`;
          return [ratio(ratioToBaseline['before']), same];
        })();
  const goal = target(name, picked.strategy);
  const met = ratioToBaseline['pick']! <= goal;
  if (!met) misses++;
  rows.push([
    name,
    String(picked.sizes['json']),
    picked.strategy,
    String(picked.size),
    formatTime(nanoseconds['json']!),
    formatTime(nanoseconds['pick']!),
    ratio(ratioToBaseline['pick']),
    `${met ? 'within' : 'over'} ${goal}x`,
    formatTime(nanoseconds['pick']! - nanoseconds['json']!),
    ratio(ratioToBaseline['pickTab']),
    ...before,
  ]);
}
printTable(
  [
    'payload',
    'JSON bytes',
    'picked',
    'picked bytes',
    'JSON.stringify',
    'pick()',
    'pick() / JSON',
    'target',
    'pick() extra',
    'pick(+toon-tab) / JSON',
    ...(basePick === undefined ? [] : ['before: pick() / JSON', 'before: shipped']),
  ],
  rows,
);
console.log(`\n${payloads.length - misses} of ${payloads.length} payloads within their target`);
console.log(`\nload average ${os.loadavg()[0]!.toFixed(1)} at the end`);
