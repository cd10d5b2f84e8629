// npm run bench:startup: what a fresh process pays before its first TOON call (issue 34). Each
// round spawns one `node` per contender, interleaved, and each child reports, from
// `performance.now()` (milliseconds since its process started): when its script began (node's
// own start-up), how long `import()` of the package root took, and when the first `decode` of a
// 2 KB document (a real GitHub organization object, as TOON) and the first `encode` were done.
// Medians over the rounds; the ratio column is toonwire's import time over the reference's.
//
// toonwire is measured as built (dist/index.js: run `npm run build` first), the reference
// (@toon-format/toon) as installed. `npm run bench:startup -- --rounds 40` for more rounds;
// `-- --baseline FILE` adds another build's root module (say tsc's output alone, unbundled:
// `npx tsc -p tsconfig.json --outDir /tmp/unbundled`, then `--baseline /tmp/unbundled/index.js`).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { encode } from '@toon-format/toon';
import { formatTime, printTable } from './harness.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt < 0 ? 20 : Number(process.argv[roundsAt + 1]);

const built = path.join(root, 'dist/index.js');
if (!fs.existsSync(built)) {
  console.error('dist/index.js is missing: run `npm run build` first');
  process.exit(1);
}

// The 2 KB document: GitHub's answer to GET /orgs/:org, recorded in @octokit/fixtures.
const organization = (
  JSON.parse(
    fs.readFileSync(
      path.join(
        path.dirname(require.resolve('@octokit/fixtures/package.json')),
        'scenarios/api.github.com/get-organization/normalized-fixture.json',
      ),
      'utf8',
    ),
  ) as { response: unknown }[]
)[0]!.response;
const document = encode(organization);

interface Contender {
  name: string;
  /** The module to import, as a URL; none for node alone. */
  url?: string;
}

const contenders: Contender[] = [
  { name: 'node alone' },
  { name: 'toonwire', url: pathToFileURL(built).href },
  {
    name: '@toon-format/toon',
    url: pathToFileURL(require.resolve('@toon-format/toon')).href,
  },
];

interface Sample {
  begun: number;
  imported: number;
  decoded: number;
  encoded: number;
}

/** The child's script: every time is `performance.now()`, milliseconds since process start. */
function script(url: string | undefined): string {
  if (url === undefined) {
    return 'const begun = performance.now(); console.log(JSON.stringify({ begun, imported: 0, decoded: begun, encoded: begun }));';
  }
  return `const begun = performance.now();
const toon = await import(${JSON.stringify(url)});
const imported = performance.now() - begun;
const value = toon.decode(process.argv[1]);
const decoded = performance.now();
toon.encode(value);
const encoded = performance.now();
console.log(JSON.stringify({ begun, imported, decoded, encoded }));`;
}

// NODE_EXTRA_CA_CERTS makes node read a certificate bundle before any script runs (a quarter of
// a second on a busy machine), which no library can help: the children start without it.
const childEnv = { ...process.env };
delete childEnv['NODE_EXTRA_CA_CERTS'];

const baselineAt = process.argv.indexOf('--baseline');
if (baselineAt >= 0) {
  contenders.push({
    name: 'baseline',
    url: pathToFileURL(path.resolve(process.argv[baselineAt + 1]!)).href,
  });
}

const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < contenders.length; i++) {
    // Rotate the order each round, so that no contender always runs first.
    const contender = contenders[(i + round) % contenders.length]!;
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', script(contender.url), document],
      { encoding: 'utf8', env: childEnv },
    );
    samples.get(contender.name)!.push(JSON.parse(out) as Sample);
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ms = (value: number) => formatTime(value * 1e6);
const referenceImport = median(samples.get('@toon-format/toon')!.map((s) => s.imported));

console.log(
  `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}; ${rounds} fresh processes per contender, interleaved; the first decode is of ${document.length} characters of TOON\n`,
);
printTable(
  [
    'contender',
    'script begins',
    'import()',
    'import / reference',
    'first decode done',
    'import + first decode',
    'first encode done',
  ],
  contenders.map(({ name, url }) => {
    const own = samples.get(name)!;
    const imported = median(own.map((s) => s.imported));
    return [
      name,
      ms(median(own.map((s) => s.begun))),
      url === undefined ? '' : ms(imported),
      url === undefined ? '' : `${(imported / referenceImport).toFixed(2)}x`,
      url === undefined ? '' : ms(median(own.map((s) => s.decoded))),
      url === undefined ? '' : ms(median(own.map((s) => s.decoded - s.begun))),
      url === undefined ? '' : ms(median(own.map((s) => s.encoded))),
    ];
  }),
);
// Issue 34's limits: import() within 2x the reference's, and the first decode done within 15 ms
// of the script's start (node's own start-up, before the script, is no library's to cut).
const ours = samples.get('toonwire')!;
const importRatio = median(ours.map((s) => s.imported)) / referenceImport;
const firstDecode = median(ours.map((s) => s.decoded - s.begun));
console.log(
  `\ngoal: import() within 2x the reference's: ${importRatio.toFixed(2)}x, ${importRatio <= 2 ? 'met' : 'missed'}`,
);
console.log(
  `goal: import + first decode within 15 ms: ${ms(firstDecode)}, ${firstDecode <= 15 ? 'met' : 'missed'}`,
);
console.log(`load average ${os.loadavg()[0]!.toFixed(1)} at the end`);
// Keep the document's JSON out of the figures' way: the decode is checked once, here.
execFileSync(process.execPath, [
  '--input-type=module',
  '-e',
  `const t = await import(${JSON.stringify(pathToFileURL(built).href)}); if (JSON.stringify(t.decode(process.argv[1])) !== process.argv[2]) process.exit(1);`,
  document,
  JSON.stringify(organization),
]);
