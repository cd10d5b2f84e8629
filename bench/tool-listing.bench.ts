// What tool definitions on demand (`ToolCatalog` `{ lazy: true }`, the proxy's `--lazy-tools`)
// save: the o200k_base tokens of the tools/list result a client gets, full and lazy, for the real
// server-everything, server-filesystem and server-memory, and for the three together behind the
// proxy's gateway (tools named `server__tool`). Also the part a model API is sent
// (name, description, inputSchema per tool: clients keep outputSchema and annotations to
// themselves), and what a `toonwire_find_tools` answer costs, the price of each lookup.
//
// Sizes, not times: one run gives the same figures on any machine.
// Run: npm run bench:tool-listing

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { loadTokenizer } from '../src/compact/index.js';
import { FIND_TOOLS_NAME } from '../src/mcp/proxy/tools/lazy.js';
import {
  ChildProcessTransport,
  createResultPipeline,
  GatewayTransport,
  ToolCatalog,
} from '../src/mcp/proxy.js';
import { printTable } from './harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const serverBin = (name: string) =>
  join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

type Tool = Record<string, unknown> & { name: string };

/** Each server, how to start it, and a few things a model would look for in it. */
const SERVERS: Array<{ name: string; args: (folder: string) => string[]; queries: string[] }> = [
  {
    name: 'everything',
    args: () => [serverBin('server-everything'), 'stdio'],
    queries: ['echo a message', 'add two numbers', 'long running operation', 'tiny image'],
  },
  {
    name: 'filesystem',
    args: (folder) => [serverBin('server-filesystem'), folder],
    queries: ['read a file', 'list directory', 'search files by name', 'move a file'],
  },
  {
    name: 'memory',
    args: () => [serverBin('server-memory')],
    queries: ['create entities', 'search nodes', 'add observations', 'delete relations'],
  },
];

/** Every page of the upstream's tools/list, as it sent them, over a bare JSON-RPC exchange. */
async function listTools(upstream: Transport): Promise<Tool[]> {
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  upstream.onmessage = (message: JSONRPCMessage) => {
    const { id, result } = message as { id?: number; result?: Record<string, unknown> };
    if (id !== undefined && result !== undefined) waiting.get(id)?.(result);
  };
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) => {
    const id = nextId++;
    const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    void upstream.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    return answered;
  };
  await upstream.start();
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'tool-listing-bench', version: '1.0.0' },
  });
  await upstream.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  const tools: Tool[] = [];
  let cursor: unknown;
  do {
    const page = await request('tools/list', cursor === undefined ? {} : { cursor });
    tools.push(...(page.tools as Tool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  await upstream.close();
  return tools;
}

const count = await loadTokenizer('o200k_base');
const pipeline = await createResultPipeline({}, () => {});
const tokens = (value: unknown) => count(JSON.stringify(value));
/** The part of a listing a model API is sent: name, description and input schema per tool. */
const modelView = (tools: readonly Tool[]) =>
  tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** The full and the lazy listing of `tools`, and the find answers for `queries`. */
function measure(label: string, tools: Tool[], queries: string[]): string[] {
  const catalog = new ToolCatalog(pipeline, { lazy: true, log: () => {} });
  const lazy = catalog.list({ tools }, 'keep') as { tools: Tool[] };
  const full = tokens({ tools });
  const shown = tokens(lazy);
  const fullModel = tokens(modelView(tools));
  const shownModel = tokens(modelView(lazy.tools));
  const answers = (limit: number) =>
    queries.map((query) => {
      const plan = catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query, limit } });
      const result = (plan as unknown as { result: { content: Array<{ text: string }> } }).result;
      return count(result.content[0]!.text);
    });
  return [
    label,
    String(tools.length),
    String(full),
    String(shown),
    percent(shown, full),
    String(fullModel),
    String(shownModel),
    percent(shownModel, fullModel),
    String(median(answers(1))),
    String(median(answers(3))),
    String(median(answers(5))),
  ];
}

const folder = mkdtempSync(join(tmpdir(), 'toonwire-tool-listing-'));
try {
  const env = { ...process.env, MEMORY_FILE_PATH: join(folder, 'memory.jsonl') };
  const rows: string[][] = [];
  const together: Tool[] = [];
  const start = (server: (typeof SERVERS)[number]) =>
    new ChildProcessTransport({ command: process.execPath, args: server.args(folder), env });
  for (const server of SERVERS) {
    const tools = await listTools(start(server));
    rows.push(measure(server.name, tools, server.queries));
    together.push(...tools.map((tool) => ({ ...tool, name: `${server.name}__${tool.name}` })));
  }
  // The real gateway's listing (what `toonwire proxy --config` shows), next to the three
  // listings namespaced by hand.
  const gateway = new GatewayTransport(
    SERVERS.map((server) => ({
      name: server.name,
      transport: start(server),
      description: server.name,
    })),
    { log: () => {} },
  );
  const queries = SERVERS.flatMap((server) => server.queries);
  rows.push(measure('all three (server__tool)', together, queries));
  rows.push(
    measure('gateway of the three (toonwire proxy --config)', await listTools(gateway), queries),
  );
  console.log('tools/list and toonwire_find_tools answers in o200k_base tokens (compact JSON)\n');
  printTable(
    [
      'server',
      'tools',
      'tools/list full',
      'lazy',
      'lazy / full',
      'model view full',
      'lazy',
      'lazy / full',
      'find, limit 1 (median)',
      'limit 3 (default)',
      'limit 5',
    ],
    rows,
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
