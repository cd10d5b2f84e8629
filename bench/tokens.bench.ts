// How the picker's default token guard compares with the exact tokenizer on real data: for each
// dataset, JSON and every default candidate in UTF-8 bytes, exact o200k_base tokens and the
// estimate, what the default pick ships, and whether that ever costs more tokens than JSON.
// Run: npm run bench:tokens
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { estimateTokens } from '../src/compact/estimate.js';
import { loadTokenizer, measureCandidates, pick } from '../src/compact/index.js';
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
    cells.push(
      `${pct(candidate.size!, json.size!)} b, ${pct(count(candidate.text), jsonTokens)} t, ${pct(estimateTokens(candidate.text), jsonEstimate)} e`,
    );
  }
  rows.push([
    name,
    String(json.size),
    String(jsonTokens),
    ...cells,
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
    'by bytes ships (tokens)',
    'default ships (tokens)',
  ],
  rows,
);
console.log(`\ndefault pick above JSON in o200k tokens on ${worse} of ${datasets.length} datasets`);
