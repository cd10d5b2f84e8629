// How the picker's default token guard compares with the exact tokenizer on real data: for each
// dataset, JSON and every default candidate in UTF-8 bytes, exact o200k_base tokens and the
// estimate, the estimate's error, what the default pick ships, and whether that ever costs more
// tokens than JSON. Run: npm run bench:tokens
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { estimateTokens } from '../src/compact/estimate.js';
import {
  loadTokenizer,
  measureCandidates,
  pick,
  TOKEN_GUARD_MARGIN,
} from '../src/compact/index.js';
import { loadDocuments } from './corpus.js';
import { type Dataset, loadNpmDatasets } from './datasets.js';
import { printTable } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function corpusDatasets(): Dataset[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'corpus/manifest.json'), 'utf8')) as {
    fixtures: Array<{ file: string }>;
  };
  return manifest.fixtures.map(({ file }) => ({
    name: `corpus/${file}`,
    value: JSON.parse(fs.readFileSync(path.join(root, 'corpus', file), 'utf8')),
  }));
}

const count = await loadTokenizer('o200k_base');
const pct = (value: number, base: number) => `${(((value - base) / base) * 100).toFixed(1)}%`;
const rows: string[][] = [];
let worse = 0;
/** The estimate's error on whole texts (estimate / exact - 1), JSON and TOON candidates alike. */
let lowest = Infinity;
let highest = -Infinity;
/**
 * How far the estimated change of a candidate against JSON undershoots the exact change
 * (percentage points; negative is in TOON's favour): over all candidates, and over those the
 * estimate puts at least the guard's margin below JSON, where an undershoot above the margin
 * would ship more tokens than JSON.
 */
const undershoots = { all: Infinity, allAt: '', shipped: Infinity, shippedAt: '' };
const error = (estimate: number, exact: number) => (exact === 0 ? 0 : estimate / exact - 1);
const points = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}`;
const datasets = [
  ...loadNpmDatasets(),
  ...corpusDatasets(),
  ...loadDocuments().map((d) => ({ name: `shared/${d.name}`, value: d.value })),
];
for (const { name, value } of datasets) {
  const measured = measureCandidates(value, { by: 'bytes' });
  const json = measured[0]!;
  const jsonTokens = count(json.text!);
  const jsonEstimate = estimateTokens(json.text!);
  const errors = [error(jsonEstimate, jsonTokens)];
  const byBytes = pick(value, { by: 'bytes' });
  const chosen = pick(value);
  const chosenTokens = count(chosen.text);
  if (chosenTokens > jsonTokens) worse++;
  const cells: string[] = [];
  for (const candidate of measured.slice(1)) {
    if (candidate.text === undefined) {
      cells.push('-');
      continue;
    }
    const tokens = count(candidate.text);
    const estimate = estimateTokens(candidate.text);
    errors.push(error(estimate, tokens));
    const undershoot = estimate / jsonEstimate - tokens / jsonTokens;
    const at = `${name} ${candidate.name}`;
    if (undershoot < undershoots.all) Object.assign(undershoots, { all: undershoot, allAt: at });
    if (estimate <= jsonEstimate * (1 - TOKEN_GUARD_MARGIN) && undershoot < undershoots.shipped) {
      Object.assign(undershoots, { shipped: undershoot, shippedAt: at });
    }
    cells.push(
      `${pct(candidate.size!, json.size!)} b, ${pct(tokens, jsonTokens)} t, ${pct(estimate, jsonEstimate)} e`,
    );
  }
  lowest = Math.min(lowest, ...errors);
  highest = Math.max(highest, ...errors);
  rows.push([
    name,
    String(json.size),
    String(jsonTokens),
    ...cells,
    errors.map(points).join(' / '),
    `${byBytes.strategy} ${pct(count(byBytes.text), jsonTokens)}`,
    `${chosen.strategy} ${pct(chosenTokens, jsonTokens)}`,
  ]);
}
printTable(
  [
    'dataset',
    'JSON bytes',
    'JSON tokens',
    'toon: bytes, tokens, estimate',
    'toon-flatten',
    'estimate error % (json / toon / toon-flatten)',
    'by bytes ships (tokens)',
    'default ships (tokens)',
  ],
  rows,
);
console.log(`\ndefault pick above JSON in o200k tokens on ${worse} of ${datasets.length} datasets`);
console.log(`estimate / exact on whole texts: ${points(lowest)}% to ${points(highest)}%`);
console.log(
  `estimated change against JSON below the exact one by at most ${(-undershoots.all * 100).toFixed(1)} points (${undershoots.allAt}); where the estimate is ${TOKEN_GUARD_MARGIN * 100}% or more below JSON, by at most ${(-undershoots.shipped * 100).toFixed(1)} points (${undershoots.shippedAt}), against the guard's margin of ${TOKEN_GUARD_MARGIN * 100} points`,
);

// The estimate's speed next to JSON.stringify's, on the texts the guard scans (both measured
// here in CPU time, interleaved, median of rounds).
const timing: string[][] = [];
for (const { name, value } of datasets) {
  const json = JSON.stringify(value);
  if (json.length < 20_000) continue;
  const toon = measureCandidates(value, { candidates: ['toon'] })[1]!.text ?? '';
  const repeat = Math.max(3, Math.round(2e6 / json.length));
  const ratios: number[] = [];
  const perChar: number[] = [];
  for (let round = 0; round < 5; round++) {
    const stringify = cpuMicroseconds(() => JSON.stringify(value), repeat);
    const estimate = cpuMicroseconds(() => {
      estimateTokens(json);
      estimateTokens(toon);
    }, repeat);
    ratios.push(estimate / stringify);
    perChar.push((estimate * 1000) / (json.length + toon.length));
  }
  timing.push([
    name,
    String(json.length + toon.length),
    `${median(perChar).toFixed(1)} ns`,
    `${median(ratios).toFixed(2)}x`,
  ]);
}
console.log('');
printTable(
  [
    'dataset',
    'characters (JSON + toon)',
    'estimate per character',
    'estimate of both / JSON.stringify',
  ],
  timing,
);

function cpuMicroseconds(fn: () => unknown, repeat: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < repeat; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / repeat;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
