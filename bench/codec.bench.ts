// npm run bench:codec: encode and decode throughput of toonwire beside the reference TOON
// implementation (@toon-format/toon) and the platform's JSON, on every corpus document.
// Prints the ratios the README quotes; targets (issue #2): encode >= 5x the reference and within
// 4x of JSON.stringify, decode >= 5x the reference and within 6x of JSON.parse.
import os from 'node:os';
import { decode as referenceDecode, encode as referenceEncode } from '@toon-format/toon';
import { decode } from '../src/codec/decode.js';
import { encode } from '../src/codec/encode.js';
import { loadDocuments } from './corpus.js';
import { compare, formatTime, printTable } from './harness.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const rows: string[][] = [];
let allTargetsMet = true;

console.log(
  `# bench:codec on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}, ${rounds} interleaved rounds\n`,
);

for (const { name, value } of loadDocuments()) {
  const json = JSON.stringify(value);
  const toon = encode(value);
  if (toon !== referenceEncode(value))
    console.error(`note: ${name}: toonwire and the reference encode differently`);
  if (JSON.stringify(decode(toon)) !== json)
    throw new Error(`${name}: decode(encode(x)) differs from x`);

  const encoding = await compare(
    [
      { name: 'JSON.stringify', fn: () => JSON.stringify(value) },
      { name: 'toonwire', fn: () => encode(value) },
      { name: 'reference', fn: () => referenceEncode(value) },
    ],
    'toonwire',
    { rounds },
  );
  const decoding = await compare(
    [
      { name: 'JSON.parse', fn: () => JSON.parse(json) },
      { name: 'toonwire', fn: () => decode(toon) },
      { name: 'reference', fn: () => referenceDecode(toon) },
    ],
    'toonwire',
    { rounds },
  );
  const encodeSpeedup = encoding.ratioToBaseline.reference!;
  const encodeVsJson = 1 / encoding.ratioToBaseline['JSON.stringify']!;
  const decodeSpeedup = decoding.ratioToBaseline.reference!;
  const decodeVsJson = 1 / decoding.ratioToBaseline['JSON.parse']!;
  const met = encodeSpeedup >= 5 && encodeVsJson <= 4 && decodeSpeedup >= 5 && decodeVsJson <= 6;
  allTargetsMet &&= met;
  rows.push([
    `${name} (${(json.length / 1024).toFixed(0)} KB JSON)`,
    formatTime(encoding.nanoseconds.toonwire!),
    `${encodeSpeedup.toFixed(1)}x faster`,
    `${encodeVsJson.toFixed(2)}x slower`,
    formatTime(decoding.nanoseconds.toonwire!),
    `${decodeSpeedup.toFixed(1)}x faster`,
    `${decodeVsJson.toFixed(2)}x slower`,
    met ? 'yes' : 'no',
  ]);
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
    'targets met',
  ],
  rows,
);
console.log(`\nall targets met: ${allTargetsMet ? 'yes' : 'no'}`);
