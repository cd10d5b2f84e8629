// npm run bench:cli-encode: `toonwire encode` of a large JSON array through the real CLI process
// (issue 31's goal: 50 MB/s on 200 MB). The input is generated here, in the temporary directory,
// as realistic rows: a dozen fields, strings with quotes, newlines and a few non-ASCII letters,
// numbers, booleans, nulls and nested objects. Each run is `node dist/cli/main.js encode FILE`
// with its output to a file, under GNU time (/usr/bin/time): wall time, CPU time (user +
// system) and peak RSS.
// The first run's output is compared byte for byte with the non-streaming `encode` of the same
// value, so a fast but wrong stream cannot pass.
//
// Run: npm run build && npm run bench:cli-encode (the streaming path, `--stream`, the default
// above 64 MB)
//   CLI_MB=200 (input size), ROUNDS=3 (runs, medians reported),
//   BASE_CLI=/path/to/other/dist/cli/main.js (runs that build too, interleaved, and prints ratios)
// The goal is judged on MB/s of CPU time and of wall time; on a shared machine the wall figure
// is noise (the load average is printed), the CPU figure is the one to compare.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli/main.js');
const baseCli = process.env['BASE_CLI'];
const megabytes = Number(process.env['CLI_MB'] ?? 200);
const rounds = Number(process.env['ROUNDS'] ?? 3);
/** Issue 31: the CLI encodes a 200 MB JSON array at 50 MB/s or more. */
const GOAL_MB_S = 50;
const MB = 1_000_000;

const words = ['alpha', 'beta', 'gamma', 'delta', 'épsilon', 'zeta', 'eta', 'théta', 'iota'];

/** One row: about 600 bytes of JSON, its strings holding quotes, newlines and backslashes. */
export function benchRow(i: number): unknown {
  const word = (k: number) => words[(i * 7 + k) % words.length]!;
  return {
    id: i,
    sku: `SKU-${i.toString(36).padStart(7, '0')}`,
    title: `${word(1)} "${word(2)}" ${i % 1000}`,
    description: `Line one of ${word(3)}.\nShe said "it works", then left.\n\tIndented: C:\\temp\\${i}`,
    price: Math.round(i * 7919) / 100,
    quantity: i % 50,
    rating: (i % 5) + 0.5,
    active: i % 3 !== 0,
    discontinued: i % 97 === 0 ? null : false,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    seller: {
      name: `${word(4)} & Co.`,
      email: `seller${i % 977}@example.com`,
      verified: i % 2 === 0,
    },
    dimensions: { width: (i % 40) + 0.25, height: (i % 30) + 1, unit: 'cm' },
    review: `"${word(5)}" — 5/5\nWould buy again.`,
  };
}

/** Writes a JSON array of rows until `bytes`; returns the size written. */
function generate(file: string, bytes: number): number {
  const fd = fs.openSync(`${file}.part`, 'w');
  let written = 0;
  let i = 0;
  let parts: string[] = ['[\n'];
  let pending = 2;
  while (written + pending < bytes) {
    const text = `${i === 0 ? '' : ',\n'}${JSON.stringify(benchRow(i))}`;
    parts.push(text);
    pending += Buffer.byteLength(text);
    i++;
    if (pending > 8 * MB) {
      fs.writeSync(fd, parts.join(''));
      written += pending;
      parts = [];
      pending = 0;
    }
  }
  parts.push('\n]\n');
  fs.writeSync(fd, parts.join(''));
  fs.closeSync(fd);
  fs.renameSync(`${file}.part`, file);
  return fs.statSync(file).size;
}

interface Run {
  wall: number;
  cpu: number;
  rssMb: number;
  digest: string;
}

/** Runs `node CLI encode FILE` under GNU time with stdout to `output`: wall, CPU, peak RSS. */
function runEncode(cliPath: string, input: string, output: string): Run {
  const timeFile = `${output}.time`;
  const fd = fs.openSync(output, 'w');
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %U %S %M', '-o', timeFile, process.execPath, cliPath, 'encode', '--stream', input],
    { stdio: ['ignore', fd, 'pipe'], maxBuffer: 16 * MB },
  );
  fs.closeSync(fd);
  if (result.status !== 0) throw new Error(`encode with ${cliPath} failed:\n${result.stderr}`);
  const [wall, user, system, kb] = fs
    .readFileSync(timeFile, 'utf8')
    .trim()
    .split('\n')
    .pop()!
    .split(' ')
    .map(Number);
  fs.rmSync(timeFile, { force: true });
  return { wall: wall!, cpu: user! + system!, rssMb: kb! / 1000, digest: digestOf(output) };
}

function digestOf(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  const file = path.join(os.tmpdir(), `toonwire-cli-encode-${megabytes}mb.json`);
  if (!fs.existsSync(file)) generate(file, megabytes * MB);
  const size = fs.statSync(file).size / MB;
  const output = path.join(os.tmpdir(), `toonwire-cli-encode-${process.pid}.toon`);
  console.log(
    `# bench:cli-encode on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}: toonwire encode of a ${size.toFixed(0)} MB JSON array, ${rounds} rounds\n`,
  );
  try {
    // The expected text: the codec's encode of the whole parsed file. Its CPU time is the floor
    // a streaming CLI cannot go below on this machine (the CLI reads, splits and writes too).
    const { encode } = (await import(path.join(root, 'dist/index.js'))) as {
      encode: (value: unknown) => string;
    };
    const text = fs.readFileSync(file, 'utf8');
    const before = process.cpuUsage();
    const toon = encode(JSON.parse(text));
    const used = process.cpuUsage(before);
    const floor = (used.user + used.system) / 1e6;
    const expected = createHash('sha256').update(`${toon}\n`).digest('hex');
    console.log(
      `In process, JSON.parse + encode of the whole file: ${floor.toFixed(1)} s CPU (${(size / floor).toFixed(1)} MB/s), the floor on this machine now.\n`,
    );
    const sides: [string, string][] = [['this build', cli]];
    if (baseCli !== undefined) sides.push(['BASE_CLI', baseCli]);
    const runs = new Map<string, Run[]>(sides.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      // Alternate which side goes first, so a busy moment of a shared machine hits both alike.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const [name, cliPath] of order) {
        const run = runEncode(cliPath, file, output);
        if (run.digest !== expected)
          throw new Error(`${name}: the streamed output differs from encode() of the whole file`);
        runs.get(name)!.push(run);
        console.error(
          `round ${round + 1} ${name}: ${run.wall.toFixed(1)} s wall, ${run.cpu.toFixed(1)} s CPU`,
        );
      }
    }
    const rows = sides.map(([name]) => {
      const list = runs.get(name)!;
      const wall = median(list.map((r) => r.wall));
      const cpu = median(list.map((r) => r.cpu));
      return [
        name,
        `${wall.toFixed(1)} s (${(size / wall).toFixed(1)} MB/s)`,
        `${cpu.toFixed(1)} s (${(size / cpu).toFixed(1)} MB/s)`,
        `${Math.max(...list.map((r) => r.rssMb)).toFixed(0)} MB`,
      ];
    });
    console.log('');
    printTable(['CLI', 'wall (median)', 'CPU user+sys (median)', 'peak RSS (most)'], rows);
    const ours = runs.get('this build')!;
    const base = runs.get('BASE_CLI');
    if (base !== undefined) {
      const ratio = (pick: (run: Run) => number) =>
        (median(base.map(pick)) / median(ours.map(pick))).toFixed(2);
      console.log(
        `\nBASE_CLI / this build: CPU ${ratio((r) => r.cpu)}x, wall ${ratio((r) => r.wall)}x (medians).`,
      );
    }
    const cpuSpeed = size / median(ours.map((r) => r.cpu));
    const wallSpeed = size / median(ours.map((r) => r.wall));
    console.log(
      `\nGoal: ${GOAL_MB_S} MB/s. By CPU time ${cpuSpeed.toFixed(1)} MB/s: ${cpuSpeed >= GOAL_MB_S ? 'met' : 'NOT met'}; by wall time ${wallSpeed.toFixed(1)} MB/s: ${wallSpeed >= GOAL_MB_S ? 'met' : 'NOT met'} (load ${os.loadavg()[0]!.toFixed(1)}).`,
    );
  } finally {
    fs.rmSync(output, { force: true });
  }
}

await main();
