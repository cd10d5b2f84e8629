// npm run bench:stream: the line and stream APIs on a large document (STREAM_MB, default 100),
// toonwire beside the reference implementation (@toon-format/toon), side by side in one run.
// Every measurement runs in its own child process, so each side's peak RSS is its own:
//   encodeLines → sink   lines written to a counting sink as they come (what streaming is for)
//   encodeLines joined   [...encodeLines(value)].join('\n')
//   decodeStream (lines) both fed the same lines from node:readline over the file
//   decodeStream (bytes) toonwire fed the file's raw chunks (UTF-8 decoded fatally, strict)
// The value is generated in each child (deterministic), so every child starts alike. The
// baseline row is a child that only loads the modules (tsx included), to read the others by.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as reference from '@toon-format/toon';
import * as toonwire from '../src/index.js';
import { printTable } from './harness.js';

const megabytes = Number(process.env.STREAM_MB ?? 100);
const here = fileURLToPath(import.meta.url);
/** About 71 bytes of TOON per row: a table with a nested field group. */
const rowCount = Math.round((megabytes * 1e6) / 71);
// Named by row count, so a file written for another size is never read by mistake.
const file = path.join(os.tmpdir(), `toonwire-stream-bench-${rowCount}-rows.toon`);

function generate(): { rows: unknown[] } {
  const rows = new Array(rowCount);
  for (let i = 0; i < rowCount; i++) {
    rows[i] = {
      id: i,
      name: `user ${i}`,
      email: `user${i}@example.com`,
      score: (i % 1000) / 8,
      active: i % 3 === 0,
      team: { name: `team ${i % 97}`, region: i % 2 ? 'eu-west' : 'us-east' },
    };
  }
  return { rows };
}

type Library = typeof toonwire | typeof reference;
const libraries: Record<string, Library> = { toonwire, reference };

async function child(task: string, side: string): Promise<void> {
  const library = libraries[side]!;
  let work: () => Promise<number> | number;
  if (task === 'idle') {
    work = () => 0;
  } else if (task === 'encode-sink' || task === 'encode-joined') {
    const value = generate();
    work =
      task === 'encode-sink'
        ? () => {
            let bytes = 0;
            for (const line of library.encodeLines(value)) bytes += line.length + 1;
            return bytes;
          }
        : () => [...library.encodeLines(value)].join('\n').length;
  } else {
    work = async () => {
      const source =
        task === 'decode-bytes'
          ? fs.createReadStream(file)
          : readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: 1 });
      let events = 0;
      for await (const _ of library.decodeStream(source as AsyncIterable<string>)) events++;
      return events;
    };
  }
  const start = performance.now();
  const result = await work();
  const seconds = (performance.now() - start) / 1000;
  const rss = process.resourceUsage().maxRSS / 1024; // KB to MB
  console.log(JSON.stringify({ seconds, rss, result }));
}

function run(task: string, side: string): { seconds: number; rss: number; result: number } {
  const out = spawnSync(process.execPath, ['--import', 'tsx', here, '--child', task, side], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (out.status !== 0) throw new Error(`${task} ${side} failed:\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!);
}

async function main(): Promise<void> {
  const sample = { rows: generate().rows.slice(0, 500) };
  if (toonwire.encode(sample) !== reference.encode(sample))
    throw new Error('the two encoders disagree on the benchmark shape');
  if (!fs.existsSync(file)) {
    const fd = fs.openSync(`${file}.part`, 'w');
    let buffer = '';
    for (const line of toonwire.encodeLines(generate())) {
      buffer += `${line}\n`;
      if (buffer.length > 1 << 20) {
        fs.writeSync(fd, buffer);
        buffer = '';
      }
    }
    fs.writeSync(fd, buffer.slice(0, -1));
    fs.closeSync(fd);
    fs.renameSync(`${file}.part`, file);
  }
  const size = fs.statSync(file).size / 1e6;
  console.log(
    `# bench:stream on ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), Node ${process.version}: a ${size.toFixed(0)} MB tabular document, one child process per cell\n`,
  );
  const rows: string[][] = [];
  const tasks: [string, string, boolean][] = [
    ['idle', 'process baseline (modules loaded, nothing done)', true],
    ['encode-sink', 'encodeLines → sink', true],
    ['encode-joined', 'encodeLines joined', true],
    ['decode-lines', 'decodeStream (readline lines)', true],
    ['decode-bytes', 'decodeStream (byte chunks)', false],
  ];
  for (const [index, [task, label, both]] of tasks.entries()) {
    // Alternate which side goes first, so a busy moment of a shared machine hits both alike.
    const referenceFirst = both && index % 2 === 1;
    const early = referenceFirst ? run(task, 'reference') : undefined;
    const ours = run(task, 'toonwire');
    const theirs = both ? (early ?? run(task, 'reference')) : undefined;
    if (theirs !== undefined && theirs.result !== ours.result)
      throw new Error(`${task}: the two sides produced different results`);
    console.error(`done: ${label}`);
    const speed = (seconds: number) =>
      task === 'idle' ? '-' : `${seconds.toFixed(2)} s (${(size / seconds).toFixed(0)} MB/s)`;
    rows.push([
      label,
      speed(ours.seconds),
      `${ours.rss.toFixed(0)} MB`,
      theirs ? speed(theirs.seconds) : '-',
      theirs ? `${theirs.rss.toFixed(0)} MB` : '-',
      theirs && task !== 'idle' ? `${(theirs.seconds / ours.seconds).toFixed(1)}x faster` : '-',
      theirs && task !== 'idle' ? `${(theirs.rss / ours.rss).toFixed(1)}x less` : '-',
    ]);
  }
  console.log('');
  printTable(
    [
      'operation',
      'toonwire',
      'toonwire peak RSS',
      'reference',
      'reference peak RSS',
      'time',
      'memory',
    ],
    rows,
  );
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
else await main();
