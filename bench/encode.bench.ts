// npm run bench:encode: encode on the shapes issues 31 and 34 named, side by side with
// JSON.stringify and the reference implementation (@toon-format/toon) in one process,
// interleaved rounds, medians (see harness.ts): strings with quotes and newlines at 100, 1,000
// and 5,000 characters, plain strings of the same lengths, string-heavy nested records, wide
// objects (1,000 and 10,000 keys), GeoJSON-like coordinate arrays, and real recorded GitHub REST
// responses (@octokit/fixtures) and webhook payloads (@octokit/webhooks-examples). Prints each
// shape's time, its ratio to JSON.stringify and its speed against the reference, and checks the
// targets: strings with quotes and newlines within 2x JSON.stringify and at least 2x the
// reference, plain strings within 1.5x, every other shape within 3x JSON.stringify.
// BENCH_ROUNDS (default 5) sets the rounds; BENCH_ONLY=<substring> runs the matching shapes.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { encode as referenceEncode } from '@toon-format/toon';
import { encode } from '../src/codec/encode.js';
import { compare, formatTime, printTable } from './harness.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const only = process.env.BENCH_ONLY;
const require = createRequire(import.meta.url);

/** A deterministic generator, so every run encodes the same text. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const WORDS =
  'the quick brown fox jumps over a lazy dog while reviews code logs and descriptions say'
    .split(' ')
    .concat(['it', 'works', 'fails', 'again', 'returns', 'value', 'error', 'line']);

/**
 * Text like a review, a code snippet or a log: words with quoted phrases, line breaks, a tab now
 * and then, a backslash in a path (`special`); or the same words with none of those and no
 * commas or colons, which TOON writes bare (`plain`).
 */
function prose(length: number, special: boolean, next: () => number): string {
  let text = '';
  while (text.length < length) {
    const word = WORDS[Math.floor(next() * WORDS.length)]!;
    const roll = next();
    if (!special) text += `${word} `;
    else if (roll < 0.08) text += `"${word}" `;
    else if (roll < 0.12) text += `${word}.\n`;
    else if (roll < 0.13) text += `C:\\${word}\t`;
    else text += `${word} `;
  }
  return `${text.slice(0, length - 1)}.`;
}

interface Shape {
  name: string;
  value: unknown;
  /** At most this many times JSON.stringify's time. */
  maxVsJson: number;
  /** At least this many times the reference's speed, where the issue sets one. */
  minVsReference?: number;
}

function stringDocument(length: number, special: boolean): unknown {
  const next = random(length + (special ? 1 : 0));
  // About 200 KB of text whatever the length, in a list of records.
  const count = Math.max(8, Math.round(200_000 / length));
  return {
    reviews: Array.from({ length: count }, (_, i) => ({
      id: i,
      body: prose(length, special, next),
    })),
  };
}

/** Nested records whose leaves are mostly strings: issues with a user, labels and comments. */
function stringHeavyNested(): unknown {
  const next = random(7);
  return Array.from({ length: 100 }, (_, i) => ({
    id: i,
    title: prose(60, true, next),
    user: { login: `user${i}`, bio: prose(120, true, next) },
    labels: [prose(12, false, next), prose(12, false, next)],
    body: prose(600, true, next),
    comments: Array.from({ length: 3 }, (_, k) => ({
      author: { login: `c${k}`, association: 'CONTRIBUTOR' },
      body: prose(200, true, next),
    })),
  }));
}

function wideObject(keys: number): unknown {
  const next = random(keys);
  const object: Record<string, unknown> = {};
  for (let i = 0; i < keys; i++) {
    const roll = next();
    object[`key_${i.toString(36)}_${Math.floor(next() * 1e6)}`] =
      roll < 0.4 ? Math.floor(next() * 1e6) : roll < 0.8 ? prose(20, false, next) : roll < 0.9;
  }
  return object;
}

/** A FeatureCollection of polygons, as GeoJSON files are. */
function geoJson(): unknown {
  const next = random(3);
  return {
    type: 'FeatureCollection',
    features: Array.from({ length: 60 }, (_, i) => ({
      type: 'Feature',
      properties: { name: `region ${i}`, population: Math.floor(next() * 1e7) },
      geometry: {
        type: 'Polygon',
        coordinates: [
          Array.from({ length: 200 }, () => [
            Math.round((next() * 360 - 180) * 1e6) / 1e6,
            Math.round((next() * 180 - 90) * 1e6) / 1e6,
          ]),
        ],
      },
    })),
  };
}

/** A recorded REST response body from @octokit/fixtures. */
function restFixture(scenario: string, index = 0): unknown {
  const file = path.join(
    path.dirname(require.resolve('@octokit/fixtures/package.json')),
    'scenarios/api.github.com',
    scenario,
    'normalized-fixture.json',
  );
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { response: unknown }[])[index]!.response;
}

/** The first example payload of a webhook event from @octokit/webhooks-examples. */
function webhook(event: string): unknown {
  const all = require('@octokit/webhooks-examples') as { name: string; examples: unknown[] }[];
  return all.find((entry) => entry.name === event)!.examples[0];
}

const shapes: Shape[] = [
  ...[100, 1000, 5000].flatMap((length): Shape[] => [
    {
      name: `strings with quotes and newlines, ${length} chars`,
      value: stringDocument(length, true),
      maxVsJson: 2,
      minVsReference: 2,
    },
    {
      name: `plain strings, ${length} chars`,
      value: stringDocument(length, false),
      maxVsJson: 1.5,
    },
  ]),
  { name: 'string-heavy nested records', value: stringHeavyNested(), maxVsJson: 3 },
  { name: 'wide object, 1,000 keys', value: wideObject(1000), maxVsJson: 3 },
  { name: 'wide object, 10,000 keys', value: wideObject(10_000), maxVsJson: 3 },
  { name: 'GeoJSON polygons (12,000 points)', value: geoJson(), maxVsJson: 3 },
  { name: 'GitHub REST: organization', value: restFixture('get-organization'), maxVsJson: 3 },
  { name: 'GitHub REST: repository', value: restFixture('get-repository'), maxVsJson: 3 },
  { name: 'GitHub REST: issues page', value: restFixture('paginate-issues'), maxVsJson: 3 },
  { name: 'GitHub REST: issue search', value: restFixture('search-issues'), maxVsJson: 3 },
  ...['push', 'pull_request', 'issues', 'issue_comment', 'release', 'workflow_run'].map(
    (event): Shape => ({ name: `GitHub webhook: ${event}`, value: webhook(event), maxVsJson: 3 }),
  ),
].filter((shape) => only === undefined || shape.name.includes(only));

console.log(
  `# bench:encode on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}, ${rounds} interleaved rounds, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);

/** Reads `text` in the middle, which flattens a rope, as whoever uses the text will. */
function touched(text: string): string {
  text.charCodeAt(text.length >> 1);
  return text;
}

/**
 * Runs `fn` for about `ms` milliseconds. Every shape's contenders run so once before any is
 * measured: the first shape measured otherwise paid for the garbage the generators left and for
 * compiling the encoders (strings of 100 characters measured 4.2x JSON.stringify first in the
 * run and 1.7x alone, at load 6-10).
 */
function warmUp(fn: () => unknown, ms: number): void {
  const end = performance.now() + ms;
  do fn();
  while (performance.now() < end);
}
for (const { value } of shapes) {
  warmUp(() => touched(JSON.stringify(value)), 50);
  warmUp(() => touched(encode(value)), 50);
  warmUp(() => touched(referenceEncode(value)), 50);
}

const rows: string[][] = [];
let met = true;
for (const { name, value, maxVsJson, minVsReference } of shapes) {
  if (encode(value) !== referenceEncode(value)) throw new Error(`${name}: the texts differ`);
  const result = await compare(
    [
      { name: 'JSON.stringify', fn: () => touched(JSON.stringify(value)) },
      { name: 'toonwire', fn: () => touched(encode(value)) },
      { name: 'reference', fn: () => touched(referenceEncode(value)) },
    ],
    'toonwire',
    { rounds },
  );
  const vsJson = 1 / result.ratioToBaseline['JSON.stringify']!;
  const vsReference = result.ratioToBaseline.reference!;
  const ok = vsJson <= maxVsJson && (minVsReference === undefined || vsReference >= minVsReference);
  met &&= ok;
  rows.push([
    `${name} (${(JSON.stringify(value).length / 1024).toFixed(0)} KB JSON)`,
    formatTime(result.nanoseconds.toonwire!),
    `${vsJson.toFixed(2)}x`,
    `${vsReference.toFixed(1)}x faster`,
    `<= ${maxVsJson}x${minVsReference === undefined ? '' : `, >= ${minVsReference}x faster`}`,
    ok ? 'yes' : 'no',
  ]);
  console.error(`done: ${name}`);
}
console.log('');
printTable(['shape', 'encode', 'time vs JSON.stringify', 'vs reference', 'goal', 'met'], rows);
console.log(
  `\nall targets met: ${met ? 'yes' : 'no'} (load average at the end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})`,
);
