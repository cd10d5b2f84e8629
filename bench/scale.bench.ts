// The CLI at scale (not a test: it takes minutes and gigabytes). Generates, in a temporary
// directory that is deleted afterwards, 1 GB of JSON Lines, a 1 GB JSON array and a folder of
// 40 files of 10 MB, then runs encode, decode, pick and report on them with /usr/bin/time and
// prints wall time, MB/s (input megabytes per wall second) and peak RSS beside
// @toon-format/cli (node_modules/.bin/toon) on the same files.
// Run: npm run build && npm run bench:scale [-- --scale 0.1 for a quick smaller run]
// `-- --no-reference` skips @toon-format/cli (its runs are stopped after 180 s anyway).
// `-- --tasks encode,decode,pick,report` runs only some tasks (all by default) and generates only
// the files they read; `report` is both reports, `report-folder` (the 40 files alone, ~10 minutes)
// and `report-file` (the 700 MB array) each one of them; `decode` runs encode too, for its input.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// SCALE_CLI points at another build (a private copy, while others rebuild dist/ meanwhile).
const cli = process.env['SCALE_CLI'] ?? path.join(root, 'dist/cli/main.js');
const tasksArg = process.argv.indexOf('--tasks');
/** Which tasks to run (`--tasks encode,decode,pick,report`), all by default. */
const tasks = new Set(
  (tasksArg > 0 ? process.argv[tasksArg + 1]! : 'encode,decode,pick,report')
    .split(',')
    .flatMap((task) => (task === 'report' ? ['report-folder', 'report-file'] : [task])),
);
// decode reads what encode wrote.
if (tasks.has('decode')) tasks.add('encode');
const KNOWN_TASKS = ['encode', 'decode', 'pick', 'report-folder', 'report-file'];
for (const task of tasks)
  if (!KNOWN_TASKS.includes(task)) throw new Error(`unknown task ${task}; use ${KNOWN_TASKS}`);
const reference = path.join(root, 'node_modules/.bin/toon');
const withReference = !process.argv.includes('--no-reference');
const scaleArg = process.argv.indexOf('--scale');
const scale = scaleArg > 0 ? Number(process.argv[scaleArg + 1]) : 1;
const MB = 1_000_000;
/** The reference CLI is stopped after this long (its decode ran at ~30 KB/s in a trial). */
const REFERENCE_SECONDS = 180;

if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
if (!fs.existsSync('/usr/bin/time')) throw new Error('this script needs GNU time at /usr/bin/time');

/** One row of an API-like export: ~200 bytes of JSON, nested stats, a short tag list. */
function row(i: number): string {
  return JSON.stringify({
    id: `run_${i.toString(36).padStart(8, '0')}`,
    actId: 'apify~google-maps-scraper',
    status: i % 11 === 0 ? 'FAILED' : 'SUCCEEDED',
    startedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    usageTotalUsd: Math.round(i * 7919) / 1e6,
    stats: { restarts: i % 3, durationMillis: 1000 + (i % 9973), computeUnits: (i % 400) / 400 },
    title: `Item ${i}, page ${i % 97}`,
  });
}

/** Writes rows until `bytes`, as JSON Lines or one JSON array; returns the size written. */
function generate(file: string, bytes: number, array: boolean): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let i = 0;
  const parts: string[] = [];
  let pending = 0;
  const flush = () => {
    const chunk = parts.join('');
    fs.writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
    parts.length = 0;
    pending = 0;
  };
  if (array) parts.push('[\n');
  while (written + pending < bytes) {
    const line = row(i);
    parts.push(array ? `${i === 0 ? '' : ',\n'}${line}` : `${line}\n`);
    pending += line.length + 2;
    i++;
    if (pending > 8 * MB) flush();
  }
  if (array) parts.push('\n]\n');
  flush();
  fs.closeSync(fd);
  return written;
}

interface Run {
  seconds: number;
  peakMb: number;
  code: number | null;
  error: string;
  /** The input's size in bytes, for MB/s. */
  input?: number;
}

/** Runs `command args` for `task` under GNU time with stdout to `out`; wall seconds and peak RSS. */
function timed(task: string, command: string, args: string[], out: string): Run {
  if (!tasks.has(task) || (command === reference && !withReference)) {
    return { seconds: 0, peakMb: 0, code: null, error: '' };
  }
  const timeFile = path.join(dir, 'time.txt');
  const fd = fs.openSync(out, 'w');
  const limit = command === reference ? ['timeout', String(REFERENCE_SECONDS)] : [];
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %M', '-o', timeFile, ...limit, command, ...args],
    {
      stdio: ['ignore', fd, 'pipe'],
      maxBuffer: 64 * MB,
    },
  );
  fs.closeSync(fd);
  const [seconds, kb] = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ');
  const stderr = result.stderr
    .toString()
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim();
  return {
    seconds: Number(seconds),
    peakMb: Number(kb) / 1000,
    code: result.status,
    error: result.status === 0 ? '' : (stderr.split('\n').find((l) => l.trim() !== '') ?? ''),
  };
}

const speed = (run: Run): string =>
  run.input === undefined || run.seconds === 0
    ? ''
    : `, ${(run.input / MB / run.seconds).toFixed(1)} MB/s`;
const show = (run: Run | undefined): string =>
  run === undefined || (run.code === null && run.seconds === 0)
    ? 'n/a'
    : run.code === 0
      ? `${run.seconds.toFixed(1)} s${speed(run)}, peak RSS ${Math.round(run.peakMb)} MB`
      : run.code === 124
        ? `stopped after ${run.seconds.toFixed(0)} s (${Math.round(run.peakMb)} MB peak)`
        : `failed after ${run.seconds.toFixed(1)} s (${Math.round(run.peakMb)} MB): ${run.error.slice(0, 80)}`;

const sizeOf = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toonwire-scale-'));
try {
  const jsonl = path.join(dir, 'rows.jsonl');
  const json = path.join(dir, 'rows.json');
  const folder = path.join(dir, 'folder');
  fs.mkdirSync(folder);
  const needs = (...some: string[]) => some.some((task) => tasks.has(task));
  const sizes = {
    jsonl: needs('encode', 'decode', 'pick') ? generate(jsonl, 1000 * MB * scale, false) : 0,
    json: needs('encode', 'decode', 'pick', 'report-file')
      ? generate(json, 1000 * MB * scale, true)
      : 0,
  };
  if (needs('report-folder')) {
    for (let i = 0; i < 40; i++)
      generate(path.join(folder, `part-${String(i).padStart(2, '0')}.json`), 10 * MB * scale, true);
  }
  const node = process.execPath;
  const nul = '/dev/null';
  const toonOfJsonl = path.join(dir, 'rows-jsonl.toon');
  const toonOfJson = path.join(dir, 'rows-json.toon');
  const refToon = path.join(dir, 'reference.toon');
  const rows: string[][] = [];
  const add = (task: string, ours: Run, theirs?: Run, input?: string) => {
    if (ours.code === null && ours.seconds === 0) return; // skipped
    if (input !== undefined) {
      ours.input = sizeOf(input);
      if (theirs !== undefined) theirs.input = ours.input;
    }
    rows.push([task, show(ours), show(theirs)]);
    console.error(`${task}: ${show(ours)} | ${show(theirs)}`);
  };
  const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;
  add(
    `encode ${mb(sizes.jsonl)} JSON Lines`,
    timed('encode', node, [cli, 'encode', jsonl], toonOfJsonl),
    undefined,
    jsonl,
  );
  add(
    `encode ${mb(sizes.json)} JSON array`,
    timed('encode', node, [cli, 'encode', json], toonOfJson),
    timed('encode', reference, ['--encode', json, '-o', refToon], nul),
    json,
  );
  const toonSize = sizeOf(toonOfJsonl);
  add(
    `decode ${mb(toonSize)} TOON (from the JSON Lines) to indented JSON`,
    timed('decode', node, [cli, 'decode', toonOfJsonl], nul),
    timed('decode', reference, ['--decode', toonOfJsonl, '-o', nul], nul),
    toonOfJsonl,
  );
  add(
    `decode ${mb(sizeOf(toonOfJson))} TOON (from the array), --compact`,
    timed('decode', node, [cli, 'decode', '--compact', toonOfJson], nul),
    undefined,
    toonOfJson,
  );
  fs.rmSync(toonOfJsonl, { force: true });
  fs.rmSync(refToon, { force: true });
  add(
    `pick ${mb(sizes.jsonl)} JSON Lines`,
    timed('pick', node, [cli, 'pick', jsonl], nul),
    undefined,
    jsonl,
  );
  add(
    `pick ${mb(sizes.json)} JSON array`,
    timed('pick', node, [cli, 'pick', json], nul),
    undefined,
    json,
  );
  add(
    `report on a folder of 40 x ${mb(10 * MB * scale)}`,
    timed('report-folder', node, [cli, 'report', folder], nul),
  );
  add(
    `report ${mb(sizes.json)} JSON array`,
    timed('report-file', node, [cli, 'report', json], nul),
    undefined,
    json,
  );
  console.log(
    `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)} at the end; wall time, input MB per second and peak RSS (GNU time)\n`,
  );
  printTable(['task', 'toonwire', '@toon-format/cli 4.1.1'], rows);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
