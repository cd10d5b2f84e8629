// npm run bench:decode: decode cost on the shapes of issues 31 and 34, side by side in one
// process with JSON.parse (of each document's JSON twin) and the reference implementation
// (@toon-format/toon), interleaved rounds, medians of per-round ratios (bench/harness.ts).
//
// Shapes: documents of strings with quotes and newlines at 100, 1,000 and 5,000 characters and of
// plain 5,000-character strings; wide objects of 1,000, 10,000 and 70,000 keys; a table whose
// header names 80,000 fields; real GitHub API objects (an organization, a repository, from
// @octokit/fixtures) and webhook payloads (@octokit/webhooks-examples); every corpus document
// (../shared/corpus and the repository's corpus/).
//
// `-- --only NAME` runs the shapes whose name contains NAME; BENCH_ROUNDS (default 5) the rounds.
// The machine's load average is printed first: figures from a busy machine are noisy.
//
// Time is CPU time of this process (process.cpuUsage), not wall time: on a shared machine a
// process waits for a core for most of the wall time (at a load of 25 on 2 cores, a decode's wall
// time swung 10x between calls), and CPU time is what the issues' limits are about (server CPU
// per request). `-- --wall` measures wall time with mitata instead (bench/harness.ts).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode as referenceDecode } from '@toon-format/toon';
import { decode } from '../src/codec/decode.js';
import { encode } from '../src/codec/encode.js';
import { loadDocuments } from './corpus.js';
import { compare, formatTime, printTable } from './harness.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1];
const wall = process.argv.includes('--wall');
const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Shape {
  name: string;
  /** Which limit of the issues the shape is held to (printed beside it). */
  goal: string;
  /** The goal as numbers: the most toonwire / JSON.parse, and the least speed over the reference. */
  maxRatio: number;
  minVsReference?: number;
  value: unknown;
  /** Whether the reference can decode it in reasonable time (it is quadratic on some). */
  reference: boolean;
}

/** Deterministic text with quotes, backslashes and newlines every few words. */
function proseWithQuotes(length: number, seed: number): string {
  const words = ['the', 'review', 'said', '"great"', 'value', 'C:\\path', 'line\nbreak', 'ok,'];
  let text = '';
  let s = seed;
  while (text.length < length) {
    s = (s * 1103515245 + 12345) % 2147483648;
    text += `${words[s % words.length]} `;
  }
  return text.slice(0, length);
}

function plainText(length: number, seed: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];
  let text = '';
  let s = seed;
  while (text.length < length) {
    s = (s * 1103515245 + 12345) % 2147483648;
    text += `${words[s % words.length]} `;
  }
  return `${text.slice(0, length - 1)}.`;
}

function stringDocument(length: number, quoted: boolean): unknown {
  const count = Math.max(4, Math.floor(200_000 / length));
  return {
    reviews: Array.from({ length: count }, (_, i) => ({
      id: i,
      text: quoted ? proseWithQuotes(length, i + 1) : plainText(length, i + 1),
    })),
  };
}

function wideObject(keys: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys; i++) out[`field_${i.toString(36)}_${i}`] = i % 3 ? i : `v${i}`;
  return out;
}

function wideTable(fields: number): unknown {
  const row = (r: number) => {
    const out: Record<string, number> = {};
    for (let i = 0; i < fields; i++) out[`f${i}`] = r;
    return out;
  };
  return { rows: [row(1), row(2)] };
}

function octokitResponse(scenario: string): unknown {
  const fixture = require(
    `@octokit/fixtures/scenarios/api.github.com/${scenario}/normalized-fixture.json`,
  ) as { response: unknown }[];
  return fixture[0]!.response;
}

function webhookExamples(): { name: string; value: unknown }[] {
  const events = require('@octokit/webhooks-examples') as {
    name: string;
    examples: unknown[];
  }[];
  const picked = ['push', 'pull_request', 'issues', 'issue_comment', 'release', 'star'];
  return picked.map((name) => ({
    name: `webhook ${name}`,
    value: events.find((event) => event.name === name)!.examples[0],
  }));
}

function repositoryCorpus(): { name: string; value: unknown }[] {
  const dir = path.join(root, 'corpus');
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json') && entry.name !== 'manifest.json') files.push(full);
    }
  };
  walk(dir);
  return files.sort().map((file) => ({
    name: `corpus/${path.relative(dir, file).replace(/\.json$/, '')}`,
    value: JSON.parse(fs.readFileSync(file, 'utf8')),
  }));
}

function shapes(): Shape[] {
  const within4 = 'within 4x JSON.parse';
  const list: Shape[] = [];
  for (const length of [100, 1_000, 5_000]) {
    list.push({
      name: `strings with quotes, ${length} chars`,
      goal: within4,
      maxRatio: 4,
      value: stringDocument(length, true),
      reference: true,
    });
  }
  list.push({
    name: 'plain strings, 5000 chars',
    goal: within4,
    maxRatio: 4,
    value: stringDocument(5_000, false),
    reference: true,
  });
  for (const keys of [1_000, 10_000]) {
    list.push({
      name: `wide object, ${keys} keys`,
      goal: keys === 10_000 ? 'within 4x JSON.parse, 3x the reference' : within4,
      maxRatio: 4,
      ...(keys === 10_000 ? { minVsReference: 3 } : {}),
      value: wideObject(keys),
      reference: true,
    });
  }
  list.push({
    name: 'wide object, 70000 keys',
    goal: 'at most 2x JSON.parse',
    maxRatio: 2,
    value: wideObject(70_000),
    reference: false,
  });
  list.push({
    name: 'table header, 80000 fields',
    goal: 'at most 2x JSON.parse',
    maxRatio: 2,
    value: wideTable(80_000),
    reference: false,
  });
  list.push({
    name: 'github organization',
    goal: within4,
    maxRatio: 4,
    value: octokitResponse('get-organization'),
    reference: true,
  });
  list.push({
    name: 'github repository',
    goal: within4,
    maxRatio: 4,
    value: octokitResponse('get-repository'),
    reference: true,
  });
  for (const hook of webhookExamples()) {
    list.push({ ...hook, goal: within4, maxRatio: 4, reference: true });
  }
  for (const document of [...loadDocuments(), ...repositoryCorpus()]) {
    list.push({ ...document, goal: within4, maxRatio: 4, reference: true });
  }
  return list.filter((shape) => only === undefined || shape.name.includes(only));
}

/** Whether a shape's figures meet its goal: `yes`, or `no` and by what. */
function met(shape: Shape, ratio: number, vsReference: number | undefined): string {
  if (ratio > shape.maxRatio) return `no (over ${shape.maxRatio}x)`;
  if (shape.minVsReference !== undefined && vsReference !== undefined) {
    if (vsReference < shape.minVsReference)
      return `no (under ${shape.minVsReference}x the reference)`;
  }
  return 'yes';
}

function cpuMilliseconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU time per call of `fn` in nanoseconds: calls in batches until `cpuTimeMs` are spent. */
function cpuTimePerCall(fn: () => unknown, cpuTimeMs: number): number {
  let calls = 0;
  let batch = 1;
  const start = cpuMilliseconds();
  let spent = 0;
  while (spent < cpuTimeMs) {
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    spent = cpuMilliseconds() - start;
    if (spent < cpuTimeMs / 10) batch *= 2;
  }
  return (spent * 1e6) / calls;
}

console.log(
  `load average: ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} (${os.cpus().length} cores)`,
);
console.log(
  `rounds: ${rounds}; ${wall ? 'wall' : 'CPU'} time, medians per call; ratios are medians of per-round ratios`,
);
const rows: string[][] = [];
for (const shape of shapes()) {
  const json = JSON.stringify(shape.value);
  const toon = encode(shape.value);
  const contenders = [
    { name: 'JSON.parse', fn: () => JSON.parse(json) },
    { name: 'toonwire', fn: () => decode(toon) },
  ];
  if (shape.reference) contenders.push({ name: 'reference', fn: () => referenceDecode(toon) });
  const small = json.length < 20_000;
  const budget = { rounds, cpuTimeMs: small ? 100 : 200 };
  // Warm every contender up first: CPU-time rounds, unlike mitata's, have no warm-up of their own.
  if (!wall) for (const contender of contenders) cpuTimePerCall(contender.fn, budget.cpuTimeMs / 2);
  const result = await compare(
    contenders,
    'JSON.parse',
    wall ? budget : { ...budget, timePerCall: cpuTimePerCall },
  );
  const ours = result.ratioToBaseline.toonwire!;
  const reference = result.ratioToBaseline.reference;
  rows.push([
    shape.name,
    `${(toon.length / 1024).toFixed(1)} KB`,
    formatTime(result.nanoseconds['JSON.parse']!),
    formatTime(result.nanoseconds.toonwire!),
    `${ours.toFixed(2)}x`,
    reference === undefined ? 'n/a' : `${(reference / ours).toFixed(1)}x`,
    shape.goal,
    met(shape, ours, reference === undefined ? undefined : reference / ours),
  ]);
  console.error(`${shape.name}: ${ours.toFixed(2)}x JSON.parse`);
}
printTable(
  [
    'document',
    'TOON size',
    'JSON.parse',
    'toonwire',
    'toonwire / JSON.parse',
    'speed vs reference',
    'goal',
    'met',
  ],
  rows,
);
const missed = rows.filter((row) => row.at(-1) !== 'yes').map((row) => row[0]);
console.log(
  missed.length === 0
    ? `every shape met its goal (${rows.length})`
    : `${missed.length} of ${rows.length} shapes missed their goal: ${missed.join(', ')}`,
);
console.log(
  `load average after: ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
