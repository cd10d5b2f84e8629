// Large tool results through `toonwire proxy` (issue 20): the same result read directly from the
// upstream and through the built proxy, alternating, with the proxy's peak resident memory
// (Linux: VmHWM in /proc/<pid>/status). The client reads lines as buffers in linear time; the
// SDK's stdio client refuses lines over 10 MiB and the Python client's reader is quadratic.
//
// Run: npm run build && npm run bench:large   (SIZES=10,50 ROUNDS=3 to change)

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'big-upstream.mjs');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const SIZES = (process.env.SIZES ?? '10,50').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

/** One call of `rows` (mb) through `args`; the time to the whole answer, and the answer's size. */
async function callOnce(
  args: string[],
  mb: number,
): Promise<{ ms: number; bytes: number; hwm: number | undefined; strategy: unknown }> {
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: Buffer[] = [];
  let partial: Buffer[] = [];
  let wake: (() => void) | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      partial.push(chunk.subarray(start, end));
      lines.push(Buffer.concat(partial));
      partial = [];
      start = end + 1;
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
    wake?.();
  });
  const next = async (): Promise<Buffer> => {
    while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return lines.shift()!;
  };
  const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'large-bench', version: '1' },
    },
  });
  await next();
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const started = performance.now();
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'rows', arguments: { mb } },
  });
  const answer = await next();
  const ms = performance.now() - started;
  const strategy = (
    JSON.parse(answer.toString('utf8')) as { result?: { _meta?: Record<string, unknown> } }
  ).result?._meta?.['toonwire/encodingStrategy'];
  const hwm = peakKiB(child.pid);
  child.stdin!.end();
  await new Promise((resolve) => child.once('close', resolve));
  return { ms, bytes: answer.length, hwm, strategy };
}

/** Peak resident memory of a process, in KiB (Linux), or undefined. */
function peakKiB(pid: number | undefined): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

if (!existsSync(CLI)) throw new Error('build first: npm run build');
const rows: string[][] = [];
for (const mb of SIZES) {
  for (const [label, flags] of [
    ['default (--max-compact-mb 16)', []],
    ['--max-compact-mb 64 (compacted)', ['--max-compact-mb', '64']],
  ] as const) {
    const direct: number[] = [];
    const proxied: number[] = [];
    const ratios: number[] = [];
    const peaks: number[] = [];
    let outcome: unknown;
    for (let round = 0; round < ROUNDS; round++) {
      const before = await callOnce([UPSTREAM], mb);
      const through = await callOnce(
        [CLI, 'proxy', ...flags, '--', process.execPath, UPSTREAM],
        mb,
      );
      direct.push(before.ms);
      proxied.push(through.ms);
      ratios.push(through.ms / before.ms);
      if (through.hwm !== undefined) peaks.push(through.hwm / 1024);
      outcome = through.strategy ?? 'verbatim';
    }
    rows.push([
      `${mb} MB`,
      label,
      String(outcome),
      `${(median(direct) / 1000).toFixed(2)} s`,
      `${(median(proxied) / 1000).toFixed(2)} s`,
      `${median(ratios).toFixed(2)}x`,
      peaks.length === 0
        ? '-'
        : `${median(peaks).toFixed(0)} MiB (${(median(peaks) / mb).toFixed(1)}x)`,
    ]);
  }
}
printTable(
  ['result', 'proxy', 'shipped as', 'direct', 'proxied', 'ratio (median)', 'proxy peak RSS'],
  rows,
);
