// The latency `toonwire proxy` adds to a tool call: the SDK's real Client calls the same
// 100-row tool of the same upstream MCP server (the official SDK's McpServer over stdio)
// directly and through the proxy, alternating call by call in one run, and the ratio of the
// medians is the price of the extra hop plus the picker. Target: under 1.2x.
//
// Run: npm run build && npm run bench:proxy   (ROUNDS=400 to change the number of call pairs)
//
// A second table: a 20,000-row SQL-style result through `--max-tokens 20000` (issue 14): how long
// the first page takes, and the proxy's resident memory (Linux: /proc/<pid>/status).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cpuMsOf, formatTime, printTable } from './harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'upstream-server.mjs');
const ROUNDS = Number(process.env.ROUNDS ?? 300);
const WARMUP = 40;
const ROWS = 100;

/** The built `toonwire` bin. */
function proxyCli(): string {
  const main = join(ROOT, 'dist', 'cli', 'main.js');
  if (!existsSync(main)) throw new Error('build first: npm run build');
  return main;
}

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: 'proxy-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' }),
  );
  await client.listTools();
  return client;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface Scenario {
  label: string;
  tool: string;
  args: Record<string, unknown>;
}

async function timeCall(
  client: Client,
  scenario: Scenario,
): Promise<{ ms: number; textBytes: number }> {
  const start = performance.now();
  const result = (await client.callTool({ name: scenario.tool, arguments: scenario.args })) as {
    content: Array<{ text: string }>;
  };
  const ms = performance.now() - start;
  return { ms, textBytes: Buffer.byteLength(result.content[0]!.text) };
}

const direct = await connect([UPSTREAM]);
const proxied = await connect([proxyCli(), 'proxy', '--', process.execPath, UPSTREAM]);

const scenarios: Scenario[] = [
  { label: `list_rows: ${ROWS} rows, pretty JSON text`, tool: 'list_rows', args: { count: ROWS } },
  {
    label: `typed_rows: ${ROWS} rows, JSON text + structuredContent`,
    tool: 'typed_rows',
    args: { count: ROWS },
  },
  { label: 'prose: one line, forwarded as is', tool: 'prose', args: {} },
  // What a real tool does first: an API call or a query. 5 ms is a fast one.
  {
    label: `list_rows: ${ROWS} rows after 5 ms of upstream I/O`,
    tool: 'list_rows',
    args: { count: ROWS, delayMs: 5 },
  },
];
const rows: string[][] = [];
try {
  for (const scenario of scenarios) {
    for (let i = 0; i < WARMUP; i++) {
      await timeCall(direct, scenario);
      await timeCall(proxied, scenario);
    }
    const directMs: number[] = [];
    const proxiedMs: number[] = [];
    let directBytes = 0;
    let proxiedBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first, so neither always follows the other's garbage.
      const order = round % 2 === 0 ? [direct, proxied] : [proxied, direct];
      for (const client of order) {
        const { ms, textBytes } = await timeCall(client, scenario);
        if (client === direct) {
          directMs.push(ms);
          directBytes = textBytes;
        } else {
          proxiedMs.push(ms);
          proxiedBytes = textBytes;
        }
      }
    }
    const ratio = median(proxiedMs) / median(directMs);
    rows.push([
      scenario.label,
      formatTime(median(directMs) * 1e6),
      formatTime(median(proxiedMs) * 1e6),
      formatTime((median(proxiedMs) - median(directMs)) * 1e6),
      `${ratio.toFixed(2)}x`,
      `${formatTime(percentile(directMs, 0.95) * 1e6)} / ${formatTime(percentile(proxiedMs, 0.95) * 1e6)}`,
      `${directBytes} → ${proxiedBytes} (${(((proxiedBytes - directBytes) / directBytes) * 100).toFixed(1)}%)`,
    ]);
  }
} finally {
  await direct.close();
  await proxied.close();
}

console.log(
  `toonwire proxy: added latency per tools/call, ${ROUNDS} alternating call pairs per scenario (node ${process.version})\n`,
);
printTable(
  ['scenario', 'direct p50', 'proxied p50', 'added', 'ratio', 'p95 direct / proxied', 'text bytes'],
  rows,
);

// --max-tokens: the first page of a 20,000-row query, and the proxy's memory.
const LEVERS_UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'levers-upstream.mjs');
const BUDGET_ROUNDS = Number(process.env.BUDGET_ROUNDS ?? 10);

/** VmRSS and VmHWM (peak) of a process, in MiB, where /proc exists. */
function memoryOf(pid: number | null): { rss: string; peak: string } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      `${(Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024).toFixed(0)} MiB`;
    return { rss: field('VmRSS'), peak: field('VmHWM') };
  } catch {
    return { rss: 'n/a', peak: 'n/a' };
  }
}

async function budgetRow(label: string, proxyOptions: string[] | undefined): Promise<string[]> {
  const args =
    proxyOptions === undefined
      ? [LEVERS_UPSTREAM]
      : [proxyCli(), 'proxy', ...proxyOptions, '--', process.execPath, LEVERS_UPSTREAM];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'proxy-bench', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  const times: number[] = [];
  let shipped = '';
  try {
    for (let round = 0; round < BUDGET_ROUNDS + 2; round++) {
      const start = performance.now();
      const result = (await client.callTool({
        name: 'query',
        arguments: { sql: 'select * from orders', limit: 20000 },
      })) as { content: Array<{ text: string }> };
      if (round >= 2) times.push(performance.now() - start); // two warm-up calls
      shipped = result.content.map((block) => block.text).join('');
    }
    const memory = proxyOptions === undefined ? { rss: '-', peak: '-' } : memoryOf(transport.pid);
    return [
      label,
      formatTime(median(times) * 1e6),
      formatTime(percentile(times, 0.95) * 1e6),
      `${Buffer.byteLength(shipped)}`,
      memory.rss,
      memory.peak,
    ];
  } finally {
    await client.close();
  }
}

const budgetRows = [
  await budgetRow('direct: the whole result (pretty JSON)', undefined),
  await budgetRow('proxy: the whole result compacted', []),
  await budgetRow('proxy --max-tokens 20000: first page', ['--max-tokens', '20000']),
];
console.log(
  `\nA 20,000-row query result (test/mcp/fixtures/levers-upstream.mjs), ${BUDGET_ROUNDS} calls each after 2 warm-up calls\n`,
);
printTable(['scenario', 'p50', 'p95', 'text bytes', 'proxy RSS', 'proxy peak RSS'], budgetRows);

// A small call on a real npm server (issue 29): server-memory's search_nodes over a 5-entity
// graph (about 1 KB of pretty JSON), direct, through `--observe` and compacting, interleaved
// call by call; with the proxy's own CPU time per call, from /proc (Linux), over the same calls.
const MEMORY_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);
const SMALL_ROUNDS = Number(process.env.SMALL_ROUNDS ?? 300);

if (existsSync(MEMORY_SERVER)) {
  const graphFile = join(
    (await import('node:os')).tmpdir(),
    `toonwire-bench-memory-${process.pid}.jsonl`,
  );
  const env = { ...process.env, MEMORY_FILE_PATH: graphFile } as Record<string, string>;
  const variants = [
    { label: 'direct', args: [MEMORY_SERVER] },
    {
      label: 'proxy --observe',
      args: [proxyCli(), 'proxy', '--observe', '--', process.execPath, MEMORY_SERVER],
    },
    {
      label: 'proxy (compacting)',
      args: [proxyCli(), 'proxy', '--', process.execPath, MEMORY_SERVER],
    },
  ];
  const clients = [];
  for (const variant of variants) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: variant.args,
      env,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'proxy-bench', version: '1.0.0' });
    await client.connect(transport);
    clients.push({ ...variant, client, transport, ms: [] as number[], cpuStart: 0 });
  }
  try {
    await clients[0]!.client.callTool({
      name: 'create_entities',
      arguments: {
        entities: Array.from({ length: 5 }, (_, i) => ({
          name: `Person ${i}`,
          entityType: 'person',
          observations: [`works at Company ${i}`, 'likes "tea"\nand coffee'],
        })),
      },
    });
    const call = (client: Client) =>
      client.callTool({ name: 'search_nodes', arguments: { query: 'Person' } });
    for (let i = 0; i < WARMUP; i++) for (const { client } of clients) await call(client);
    for (const entry of clients) entry.cpuStart = cpuMsOf(entry.transport.pid ?? null);
    for (let round = 0; round < SMALL_ROUNDS; round++) {
      const order = round % 2 === 0 ? clients : [...clients].reverse();
      for (const entry of order) {
        const start = performance.now();
        await call(entry.client);
        entry.ms.push(performance.now() - start);
      }
    }
    const directP50 = median(clients[0]!.ms);
    const smallRows = clients.map((entry) => [
      entry.label,
      formatTime(median(entry.ms) * 1e6),
      `${(median(entry.ms) / directP50).toFixed(2)}x`,
      `${((cpuMsOf(entry.transport.pid ?? null) - entry.cpuStart) / SMALL_ROUNDS).toFixed(3)} ms`,
    ]);
    const { loadavg } = await import('node:os');
    console.log(
      `\nA small call on server-memory (search_nodes, 5 entities), ${SMALL_ROUNDS} interleaved rounds; load average ${loadavg()
        .map((load) => load.toFixed(1))
        .join(
          ' ',
        )}\n(CPU per call: the process the client talks to, i.e. the server directly, or the proxy alone)\n`,
    );
    printTable(['path', 'p50', 'vs direct', 'CPU per call'], smallRows);
    // Issue 29's goal for this table (on a quiet machine): compacting within 1.5x of direct at
    // p50, and at most 1 ms of the proxy's own CPU per call.
    const compacting = clients[2]!;
    const ratio = median(compacting.ms) / directP50;
    const cpuPerCall =
      (cpuMsOf(compacting.transport.pid ?? null) - compacting.cpuStart) / SMALL_ROUNDS;
    console.log(
      `\nGoal (issue 29): compacting p50 <= 1.5x direct: ${ratio.toFixed(2)}x, ${ratio <= 1.5 ? 'met' : 'NOT met'}; proxy CPU per call <= 1 ms: ${cpuPerCall.toFixed(3)} ms, ${cpuPerCall <= 1 ? 'met' : 'NOT met'} (wall-clock figures are noise on a loaded machine; CPU is /proc utime+stime in 10 ms ticks)`,
    );
  } finally {
    for (const { client } of clients) await client.close();
    (await import('node:fs')).rmSync(graphFile, { force: true });
  }
} else {
  console.log('\n(server-memory not installed: the small-call table is skipped)');
}
