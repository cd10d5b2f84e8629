// How the picker's default (by: 'auto', bytes with a token guard) does on tokens, counted by
// eight real tokenizers (test/compact/tokenizers.ts) on the real datasets: per dataset, each
// default candidate's change against JSON in bytes and in tokens (the range over the
// tokenizers), whether it is *safe* (fewer tokens than JSON on every tokenizer), and what the
// default ships. Then, per tokenizer: inversions (the default shipping more tokens than JSON)
// and the share of the safe savings the default captures (tokens saved by what it ships, over
// the tokens the best safe candidate of each dataset would have saved). Last, the o200k
// estimate's error, which the guard relies on. Run: npm run bench:tokens
//
// Only candidates smaller than JSON in bytes are counted: the default measure compares bytes
// first, so a larger text never ships (canada, twitter, citm and the Instagram items, whose
// TOON texts are 7% to 40% larger, are then not tokenized at all; counted once, none was safe).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { estimateTokens } from '../src/compact/estimate.js';
import { measureCandidates, pick } from '../src/compact/index.js';
import { loadRealTokenizers } from '../test/compact/tokenizers.js';
import { loadDocuments } from './corpus.js';
import { type Dataset, loadNpmDatasets } from './datasets.js';
import { printTable } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The generated corpus of Apify-shaped tool results (corpus/manifest.json). */
function corpusDatasets(): Dataset[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'corpus/manifest.json'), 'utf8')) as {
    fixtures: Array<{ file: string }>;
  };
  return manifest.fixtures.map(({ file }) => ({
    name: `corpus/${file}`,
    value: JSON.parse(fs.readFileSync(path.join(root, 'corpus', file), 'utf8')),
  }));
}

const tokenizers = await loadRealTokenizers();
const datasets = [
  ...loadNpmDatasets(),
  ...corpusDatasets(),
  ...loadDocuments().map((d) => ({ name: `shared/${d.name}`, value: d.value })),
];
const pct = (value: number, base: number) => `${(((value - base) / base) * 100).toFixed(1)}%`;
const range = (values: readonly number[], bases: readonly number[]) => {
  const changes = values.map((value, i) => (value - bases[i]!) / bases[i]!);
  const low = Math.min(...changes) * 100;
  const high = Math.max(...changes) * 100;
  return low.toFixed(1) === high.toFixed(1)
    ? `${low.toFixed(1)}%`
    : `${low.toFixed(1)}..${high.toFixed(1)}%`;
};
const counts = (text: string) => tokenizers.map(({ count }) => count(text));

// Before and after: `npm run bench:tokens -- --baseline DIR`, with DIR a copy of an older
// checkout's src/ (`git archive <commit> src | tar -x -C DIR`), counts what that build's default
// pick ships too: its inversions and its share of the same safe savings.
const baselineAt = process.argv.indexOf('--baseline');
const basePick: typeof pick | undefined =
  baselineAt < 0
    ? undefined
    : (
        await import(
          pathToFileURL(path.resolve(process.argv[baselineAt + 1]!, 'src/compact/index.ts')).href
        )
      ).pick;

/** Per tokenizer: inversions, tokens the safe candidates could save, tokens the default saves. */
const totals = tokenizers.map(() => ({
  inversions: 0,
  safe: 0,
  captured: 0,
  bytePick: 0,
  baseInversions: 0,
  baseCaptured: 0,
}));
const rows: string[][] = [];
/** The o200k estimate's error on whole texts, and its worst undershoot of a change vs JSON. */
let lowest = Infinity;
let highest = -Infinity;
let undershoot = { points: Infinity, at: '' };
const started = performance.now();
for (const { name, value } of datasets) {
  const measured = measureCandidates(value, { by: 'bytes' });
  const json = measured[0]!;
  const smaller = measured.slice(1).filter((c) => c.size !== undefined && c.size < json.size!);
  if (smaller.length === 0) {
    // JSON ships under every measure that compares bytes: nothing to count.
    rows.push([
      name,
      String(json.size),
      '-',
      ...measured
        .slice(1)
        .map((c) => (c.size === undefined ? '-' : `${pct(c.size, json.size!)} b`)),
      'json',
      'json',
    ]);
    continue;
  }
  const jsonTokens = counts(json.text!);
  const jsonEstimate = estimateTokens(json.text!);
  const cells: string[] = [];
  // The best safe candidate per tokenizer (the one that saves the most on that tokenizer).
  const safeBest = tokenizers.map(() => 0);
  const texts = new Map<string, number[]>([[json.text!, jsonTokens]]);
  for (const candidate of measured.slice(1)) {
    if (candidate.text === undefined) {
      cells.push('-');
      continue;
    }
    if (!smaller.includes(candidate)) {
      cells.push(`${pct(candidate.size!, json.size!)} b`);
      continue;
    }
    const tokens = counts(candidate.text);
    texts.set(candidate.text, tokens);
    const safe = tokens.every((t, i) => t < jsonTokens[i]!);
    if (safe) {
      for (let i = 0; i < tokens.length; i++) {
        safeBest[i] = Math.max(safeBest[i]!, jsonTokens[i]! - tokens[i]!);
      }
    }
    const estimate = estimateTokens(candidate.text);
    const error = estimate / tokens[0]! - 1;
    lowest = Math.min(lowest, error, jsonEstimate / jsonTokens[0]! - 1);
    highest = Math.max(highest, error, jsonEstimate / jsonTokens[0]! - 1);
    const under = estimate / jsonEstimate - tokens[0]! / jsonTokens[0]!;
    if (under < undershoot.points) undershoot = { points: under, at: `${name} ${candidate.name}` };
    cells.push(
      `${pct(candidate.size!, json.size!)} b, ${range(tokens, jsonTokens)} t${safe ? ', safe' : ''}`,
    );
  }
  const chosen = pick(value);
  const byBytes = pick(value, { by: 'bytes' });
  const shipped = texts.get(chosen.text) ?? counts(chosen.text);
  const bytePicked = texts.get(byBytes.text) ?? counts(byBytes.text);
  const baseText = basePick?.(value).text;
  const baseShipped =
    baseText === undefined ? undefined : (texts.get(baseText) ?? counts(baseText));
  shipped.forEach((t, i) => {
    const total = totals[i]!;
    if (t > jsonTokens[i]!) total.inversions++;
    total.safe += safeBest[i]!;
    // Savings count where the shipped text is safe; an unsafe text ships no safe saving.
    if (shipped.every((s, j) => s < jsonTokens[j]!)) total.captured += jsonTokens[i]! - t;
    if (bytePicked.every((s, j) => s < jsonTokens[j]!))
      total.bytePick += jsonTokens[i]! - bytePicked[i]!;
    if (baseShipped === undefined) return;
    if (baseShipped[i]! > jsonTokens[i]!) total.baseInversions++;
    if (baseShipped.every((s, j) => s < jsonTokens[j]!))
      total.baseCaptured += jsonTokens[i]! - baseShipped[i]!;
  });
  const worst = Math.max(...shipped.map((t, i) => t - jsonTokens[i]!));
  rows.push([
    name,
    String(json.size),
    String(jsonTokens[0]),
    ...cells,
    `${byBytes.strategy} ${range(bytePicked, jsonTokens)}`,
    `${chosen.strategy} ${range(shipped, jsonTokens)}${worst > 0 ? ' INVERSION' : ''}`,
  ]);
}
const seconds = ((performance.now() - started) / 1000).toFixed(0);
console.log(
  `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, load ${os.loadavg()[0]!.toFixed(1)}; ${datasets.length} datasets, ${tokenizers.length} tokenizers, ${seconds} s\n`,
);
printTable(
  [
    'dataset',
    'JSON bytes',
    'JSON o200k',
    'toon: bytes, tokens (all tokenizers)',
    'toon-flatten',
    'by bytes ships',
    'default ships',
  ],
  rows,
);
console.log('');
const share = (captured: number, safe: number) =>
  safe === 0 ? '-' : `${((captured / safe) * 100).toFixed(1)}%`;
printTable(
  [
    'tokenizer',
    'inversions (default)',
    'safe savings (tokens)',
    'default captures',
    'share',
    'by bytes captures',
    ...(basePick === undefined ? [] : ['before: inversions', 'before: share']),
  ],
  tokenizers.map(({ name }, i) => {
    const t = totals[i]!;
    return [
      name,
      String(t.inversions),
      String(t.safe),
      String(t.captured),
      share(t.captured, t.safe),
      share(t.bytePick, t.safe),
      ...(basePick === undefined ? [] : [String(t.baseInversions), share(t.baseCaptured, t.safe)]),
    ];
  }),
);
const all = totals.reduce(
  (sum, t) => ({ safe: sum.safe + t.safe, captured: sum.captured + t.captured }),
  { safe: 0, captured: 0 },
);
const inversions = totals.reduce((sum, t) => sum + t.inversions, 0);
console.log(
  `\ndefault: ${share(all.captured, all.safe)} of the safe savings captured over all tokenizers; ${inversions} inversions`,
);
console.log(
  `o200k estimate / exact on whole texts: ${(lowest * 100).toFixed(1)}% to +${(highest * 100).toFixed(1)}%; estimated change against JSON below the exact one by at most ${(-undershoot.points * 100).toFixed(1)} points (${undershoot.at})`,
);
