// Shared plumbing of the proxy tests: where the built CLI and the test upstream are, and small
// clients that talk to them over real stdio processes.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hangGuardMs } from '../support/patience.js';

const here = dirname(fileURLToPath(import.meta.url));

/** A tools/call result as the proxy tests read it. */
export type ToolResult = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};
export const ROOT = join(here, '..', '..');
export const UPSTREAM_SCRIPT = join(here, 'fixtures', 'upstream-server.mjs');
export const UPSTREAM = [process.execPath, UPSTREAM_SCRIPT] as const;
/** The upstream of the team tests (issue 30): tools that log, report progress, hold, or list rows. */
export const TEAM_UPSTREAM = [
  process.execPath,
  join(here, 'fixtures', 'team-upstream.mjs'),
] as const;

const MAIN = join(ROOT, 'dist', 'cli', 'main.js');

/** A client's `initialize` request (id 1, protocol 2025-06-18), for tests that speak raw JSON-RPC. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'toonwire-test', version: '1.0.0' },
  },
} as const;

/** The built `toonwire` bin, which the proxy tests run as a real process. */
export function proxyCli(): string {
  if (!existsSync(MAIN))
    throw new Error('dist/cli/main.js is missing: build first with `npx tsc -p tsconfig.json`');
  return MAIN;
}

/** `node <cli> proxy <options> -- node upstream-server.mjs`. */
export function proxyArgs(
  options: readonly string[] = [],
  upstream: readonly string[] = UPSTREAM,
): string[] {
  return [proxyCli(), 'proxy', ...options, '--', ...upstream];
}

/** A running process whose stdout is read line by line and whose stderr is kept. */
export class LineProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private buffer = '';
  private waiters: Array<() => void> = [];

  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline = this.buffer.indexOf('\n');
      while (newline !== -1) {
        this.lines.push(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
        newline = this.buffer.indexOf('\n');
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => (this.stderr += chunk));
    // 'close', not 'exit': stdout and stderr may still hold data when 'exit' fires.
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  write(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Waits for a stdout line that `matches`, at or after index `from`, and returns its index. */
  async waitFor(matches: (line: string) => boolean, from = 0): Promise<number> {
    for (;;) {
      const index = this.lines.findIndex((line, i) => i >= from && matches(line));
      if (index !== -1) return index;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Ends stdin and waits for the exit code, with all of stdout and stderr read. */
  async close(): Promise<number | null> {
    this.child.stdin!.end();
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** An SDK client connected to a command over stdio, with the command's stderr kept. */
export interface StdioConnection {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** The exit code of the command, once it exits. */
  exited: Promise<number | null>;
}

/**
 * Connects the SDK's real Client to `command args` over stdio, as `clientInfo` (a client such as
 * Claude Code is told apart by it). The client can sample (it answers "hi"), so server-to-client
 * requests can be tested.
 */
export async function connectStdio(
  command: string,
  args: readonly string[],
  clientInfo = { name: 'toonwire-test-client', version: '1.0.0' },
): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command,
    args: [...args],
    stderr: 'pipe',
    env: process.env as Record<string, string>,
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client(clientInfo, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: 'hi' },
  }));
  let resolveExit!: (code: number | null) => void;
  const exited = new Promise<number | null>((resolve) => (resolveExit = resolve));
  const connecting = client.connect(transport);
  // The SDK's transport does not expose the exit code; the process object does.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (child === undefined) throw new Error('the stdio transport did not start a process');
  child.once('exit', (code) => resolveExit(code));
  await connecting;
  return { client, transport, stderr: () => stderr, exited };
}

/**
 * MCP servers made by `factory` (one per session) served over Streamable HTTP on 127.0.0.1,
 * with the Authorization header of every request kept.
 */
export async function serveOverHttp(factory: () => McpServer): Promise<{
  url: string;
  server: Server;
  authorizations: string[];
}> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: string[] = [];
  const server = createServer(async (request, response) => {
    authorizations.push(request.headers.authorization ?? '');
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, transport!),
      });
      await factory().connect(transport);
    }
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, server, authorizations };
}

/** `toonwire proxy --listen 127.0.0.1:0 <args>`, once it serves: the process and its MCP URL. */
export async function startListening(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ proxy: LineProcess; url: string }> {
  const proxy = new LineProcess(
    process.execPath,
    [proxyCli(), 'proxy', '--listen', '127.0.0.1:0', ...args],
    env,
  );
  const url = await new Promise<string>((resolve, reject) => {
    // LineProcess's own listener runs first, so `proxy.stderr` already holds the chunk.
    proxy.child.stderr!.on('data', () => {
      const match = /serving MCP at (http:\/\/\S+)/.exec(proxy.stderr);
      if (match !== null) resolve(match[1]!);
    });
    void proxy.exited.then(() => reject(new Error(`the proxy exited: ${proxy.stderr}`)));
  });
  return { proxy, url };
}

/**
 * Stops a `--listen` proxy with SIGTERM and resolves with its exit code and everything it (and
 * its stdio upstreams, whose stderr it shares) wrote to stderr.
 */
export async function stopListening(
  proxy: LineProcess,
): Promise<{ code: number | null; stderr: string }> {
  proxy.child.kill('SIGTERM');
  const code = await proxy.exited;
  return { code, stderr: proxy.stderr };
}

// ---- MCP 2026-07-28 over HTTP

/** The 2026-07-28 protocol version. */
export const MODERN = '2026-07-28';

/** The `_meta` envelope of a 2026-07-28 request, as the Python SDK's client writes it. */
export function envelope(client = 'modern-client') {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** A 2026-07-28 request and the headers that go with it over HTTP. */
export function modernRequest(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  client?: string,
) {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { ...envelope(client), ...(params._meta as object) } },
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return { body, headers };
}

export interface Posted {
  status: number;
  headers: Headers;
  /** The JSON body, or the data of each event of an event stream. */
  messages: Array<Record<string, any>>;
}

/** POSTs `body` to an MCP endpoint and reads the answer, JSON or event stream, to its end. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Posted> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const messages = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)))
    : text === ''
      ? []
      : [JSON.parse(text)];
  return { status: response.status, headers: response.headers, messages };
}

/** Polls `condition` until it holds or a hang guard of `ms` (scaled: hangGuardMs) has passed. */
export async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + hangGuardMs(ms);
  while (Date.now() < deadline) {
    if (condition()) return true;
    await delay(50); // wait-ok: the poll interval of a scaled guard
  }
  return condition();
}

/**
 * Whether `pid` runs: a zombie (dead, not yet reaped by an init that is slow to) does not.
 *
 * @example
 * assert.equal(alive(upstreamPid), false, 'the upstream was stopped');
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/**
 * The pids the team upstreams (fixtures/team-upstream.mjs) a proxy started wrote to its stderr,
 * in the order they started.
 *
 * @example
 * const [first] = teamUpstreamPids(proxy);
 */
export function teamUpstreamPids(proxy: LineProcess): number[] {
  return [...proxy.stderr.matchAll(/team-upstream: pid (\d+)/g)].map((match) => Number(match[1]));
}
