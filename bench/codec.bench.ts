// npm run bench:codec: encode and decode throughput of toonwire beside the reference TOON
// implementation (@toon-format/toon) and the platform's JSON, on every corpus document.
// Prints the ratios the README quotes and checks the targets of issue 22: decode within 4x of
// JSON.parse on every document, decode >= 10x the reference and encode >= 7x the reference in
// geometric mean over the documents; and issue 31's: encode within 2.5x JSON.stringify on every
// document.
//
// Before and after, side by side: BENCH_BASELINE=<dist folder of another build> adds that build's
// encode and decode as a fourth contender in the same interleaved rounds, and prints how long
// this build takes relative to it (for example a build of the base commit:
// `git archive <base> | tar -x -C /tmp/base`, `npx tsc` there, then
// `BENCH_BASELINE=/tmp/base/dist npm run bench:codec`).
//
// Memory of an escape-heavy string: `npm run bench:codec -- --escapes 200` decodes a document
// holding one quoted string of 200 MB of text, a third of it escapes, in a child process per
// build (this one, and the baseline's when BENCH_BASELINE is set), and prints each one's time and
// peak RSS against the document's size (issue 22's goal: at most 3x).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decode as referenceDecode, encode as referenceEncode } from '@toon-format/toon';
import { decode } from '../src/codec/decode.js';
import { encode } from '../src/codec/encode.js';
import { loadDocuments } from './corpus.js';
import { type Contender, compare, formatTime, printTable } from './harness.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const baselineDir = process.env.BENCH_BASELINE;

interface Codec {
  encode: (value: unknown) => string;
  decode: (text: string) => unknown;
}

/** The codec of another build's `dist/` folder, for the before/after columns. */
async function loadBaseline(dir: string): Promise<Codec> {
  const load = (file: string) => import(pathToFileURL(path.resolve(dir, 'codec', file)).href);
  const [encoder, decoder] = await Promise.all([load('encode.js'), load('decode.js')]);
  return { encode: encoder.encode, decode: decoder.decode };
}

const escapesAt = process.argv.indexOf('--escapes');
if (process.env.BENCH_ESCAPES_CHILD !== undefined) {
  await escapeHeavyChild(Number(process.env.BENCH_ESCAPES_CHILD));
  process.exit(0);
}
if (escapesAt !== -1) {
  escapeHeavyReport(Number(process.argv[escapesAt + 1] ?? 200));
  process.exit(0);
}

/** The child's side of `--escapes`: decode the document, report time and peak RSS as JSON. */
async function escapeHeavyChild(megabytes: number): Promise<void> {
  const decodeWith: (text: string) => unknown =
    baselineDir === undefined ? decode : (await loadBaseline(baselineDir)).decode;
  const unit = 'ab\\n\\"\\\\c\\t'; // 12 characters of text, 4 of them escapes
  const text = `s: "${unit.repeat(Math.ceil((megabytes * 1024 * 1024) / unit.length))}"`;
  if (process.env.BENCH_ESCAPES_SETUP_ONLY !== undefined) {
    // The document made and read through once, but not decoded: what setup alone costs.
    const read = text.lastIndexOf('"');
    const peakRss = process.resourceUsage().maxRSS * 1024;
    console.log(JSON.stringify({ textBytes: text.length, valueLength: 0, ms: 0, peakRss, read }));
    return;
  }
  const startedAt = performance.now();
  const value = (decodeWith(text) as { s: string }).s;
  // Read the middle and the end, as any consumer would (this flattens a rope).
  const read = value.charCodeAt(value.length >> 1) + value.lastIndexOf('\t');
  const ms = performance.now() - startedAt;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  console.log(
    JSON.stringify({ textBytes: text.length, valueLength: value.length, ms, peakRss, read }),
  );
}

/** `--escapes MB`: one child process per build, side by side. */
function escapeHeavyReport(megabytes: number): void {
  const self = fileURLToPath(import.meta.url);
  const builds: [string, string | undefined, boolean][] = [
    ['document only, not decoded', undefined, true],
    ['this build', undefined, false],
    ...(baselineDir ? [['baseline', baselineDir, false] as [string, string, boolean]] : []),
  ];
  // The same process with nothing decoded in it (the loader of this script included).
  const bare = Number(
    execFileSync(process.execPath, [
      ...process.execArgv,
      '-e',
      'console.log(process.resourceUsage().maxRSS * 1024)',
    ]),
  );
  const rows = builds.map(([name, dir, setupOnly]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, BENCH_ESCAPES_CHILD: String(megabytes) };
    if (dir === undefined) delete env.BENCH_BASELINE;
    else env.BENCH_BASELINE = dir;
    if (setupOnly) env.BENCH_ESCAPES_SETUP_ONLY = '1';
    const out = execFileSync(process.execPath, [...process.execArgv, self], { env }).toString();
    const run = JSON.parse(out.trim().split('\n').pop()!);
    const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
    return [
      name,
      mb(run.textBytes),
      setupOnly ? '' : mb(run.valueLength),
      setupOnly ? '' : formatTime(run.ms * 1e6),
      mb(run.peakRss),
      `${(run.peakRss / run.textBytes).toFixed(2)}x`,
    ];
  });
  console.log(
    `# bench:codec --escapes ${megabytes}: one quoted string, a third of its text escapes; Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; the same process decoding nothing peaks at ${(bare / 1048576).toFixed(0)} MB\n`,
  );
  printTable(
    ['build', 'document', 'value (UTF-16 units)', 'decode', 'peak RSS', 'peak / document'],
    rows,
  );
}

const baseline = baselineDir === undefined ? undefined : await loadBaseline(baselineDir);

function geomean(values: readonly number[]): number {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}

console.log(
  `# bench:codec on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}, ${rounds} interleaved rounds, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}${baselineDir === undefined ? '' : `, baseline ${baselineDir}`}\n`,
);

const rows: string[][] = [];
const encodeSpeedups: number[] = [];
const decodeSpeedups: number[] = [];
const decodeVsJsonAll: number[] = [];
const encodeVsJsonAll: number[] = [];
const encodeVsBaseline: number[] = [];
const decodeVsBaseline: number[] = [];

/** Reads `text` in the middle, which flattens it if it is a rope, and returns it. */
function touched(text: string): string {
  text.charCodeAt(text.length >> 1);
  return text;
}

/**
 * `text` as a decoder meets it when it comes from a file or a socket: one flat string. encode's
 * result is a rope (many pieces joined), which costs each character read a detour in V8, while
 * JSON.stringify's is flat already; reading both through UTF-8 puts them on an equal footing.
 */
function asReceived(text: string): string {
  return new TextDecoder().decode(new TextEncoder().encode(text));
}

for (const { name, value } of loadDocuments()) {
  const json = asReceived(JSON.stringify(value));
  const toon = asReceived(encode(value));
  if (toon !== referenceEncode(value))
    console.error(`note: ${name}: toonwire and the reference encode differently`);
  if (JSON.stringify(decode(toon)) !== json)
    throw new Error(`${name}: decode(encode(x)) differs from x`);

  // Every encoder's text is read in the middle, which flattens a string the engine holds as a
  // rope of pieces: a writer that returned an unflattened rope looked a third faster here while
  // whoever used its text paid the difference (measured, issue 22).
  const encoders: Contender[] = [
    { name: 'JSON.stringify', fn: () => touched(JSON.stringify(value)) },
    { name: 'toonwire', fn: () => touched(encode(value)) },
    { name: 'reference', fn: () => touched(referenceEncode(value)) },
  ];
  const decoders: Contender[] = [
    { name: 'JSON.parse', fn: () => JSON.parse(json) },
    { name: 'toonwire', fn: () => decode(toon) },
    { name: 'reference', fn: () => referenceDecode(toon) },
  ];
  if (baseline !== undefined) {
    encoders.push({ name: 'baseline', fn: () => touched(baseline.encode(value)) });
    decoders.push({ name: 'baseline', fn: () => baseline.decode(toon) });
  }
  const encoding = await compare(encoders, 'toonwire', { rounds });
  const decoding = await compare(decoders, 'toonwire', { rounds });
  const encodeSpeedup = encoding.ratioToBaseline.reference!;
  const encodeVsJson = 1 / encoding.ratioToBaseline['JSON.stringify']!;
  const decodeSpeedup = decoding.ratioToBaseline.reference!;
  const decodeVsJson = 1 / decoding.ratioToBaseline['JSON.parse']!;
  encodeSpeedups.push(encodeSpeedup);
  decodeSpeedups.push(decodeSpeedup);
  decodeVsJsonAll.push(decodeVsJson);
  encodeVsJsonAll.push(encodeVsJson);
  const row = [
    `${name} (${(json.length / 1024).toFixed(0)} KB JSON)`,
    formatTime(encoding.nanoseconds.toonwire!),
    `${encodeSpeedup.toFixed(1)}x faster`,
    `${encodeVsJson.toFixed(2)}x slower`,
    formatTime(decoding.nanoseconds.toonwire!),
    `${decodeSpeedup.toFixed(1)}x faster`,
    `${decodeVsJson.toFixed(2)}x slower`,
  ];
  if (baseline !== undefined) {
    // This build's time relative to the baseline's, measured in the same rounds.
    const encodeRatio = 1 / encoding.ratioToBaseline.baseline!;
    const decodeRatio = 1 / decoding.ratioToBaseline.baseline!;
    encodeVsBaseline.push(encodeRatio);
    decodeVsBaseline.push(decodeRatio);
    row.push(`${encodeRatio.toFixed(2)}x`, `${decodeRatio.toFixed(2)}x`);
  }
  rows.push(row);
  console.error(`done: ${name}`);
}

console.log('');
printTable(
  [
    'document',
    'encode',
    'vs reference',
    'vs JSON.stringify',
    'decode',
    'vs reference',
    'vs JSON.parse',
    ...(baseline === undefined ? [] : ['encode time vs baseline', 'decode time vs baseline']),
  ],
  rows,
);

const encodeGeomean = geomean(encodeSpeedups);
const decodeGeomean = geomean(decodeSpeedups);
const worstVsJson = Math.max(...decodeVsJsonAll);
const worstEncodeVsJson = Math.max(...encodeVsJsonAll);
const targets = [
  [
    'encode vs reference, geomean',
    `${encodeGeomean.toFixed(1)}x faster`,
    '>= 7x',
    encodeGeomean >= 7,
  ],
  [
    'encode vs JSON.stringify, worst document',
    `${worstEncodeVsJson.toFixed(2)}x slower`,
    '<= 2.5x',
    worstEncodeVsJson <= 2.5,
  ],
  [
    'decode vs reference, geomean',
    `${decodeGeomean.toFixed(1)}x faster`,
    '>= 10x',
    decodeGeomean >= 10,
  ],
  [
    'decode vs JSON.parse, worst document',
    `${worstVsJson.toFixed(2)}x slower`,
    '<= 4x',
    worstVsJson <= 4,
  ],
] as const;
console.log('');
printTable(
  ['target', 'measured', 'goal', 'met'],
  targets.map(([what, measured, goal, met]) => [what, measured, goal, met ? 'yes' : 'no']),
);
if (baseline !== undefined) {
  console.log(
    `\nthis build's time against the baseline's, geomean: encode ${geomean(encodeVsBaseline).toFixed(2)}x, decode ${geomean(decodeVsBaseline).toFixed(2)}x`,
  );
}
console.log(`\nall targets met: ${targets.every(([, , , met]) => met) ? 'yes' : 'no'}`);
