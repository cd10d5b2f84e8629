// MCP client configurations in the docs, run as the client would run them.
//
// A client snippet is a `json` block with `mcpServers` (Claude Desktop, Cursor) or `servers`
// (VS Code), a `toml` block with `[mcp_servers.NAME]` tables (Codex's ~/.codex/config.toml), or a
// `sh` block that is one `claude mcp add NAME -- COMMAND ...` line (Claude Code). Each server of
// it is started with its exact `command` and `args` (the placeholder tarball path replaced by the
// packed one, the placeholder upstream URL by a local MCP server over HTTP), in the user's
// environment plus the snippet's `env`, and an MCP client goes through `initialize`,
// `tools/list` and a `tools/call` with it.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { hangGuardMs, withinHangGuard } from '../../test/support/patience.js';
import type { CodeBlock } from './blocks.js';

/** One server of a client configuration, as the client would start it. */
export interface ClientServer {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The tarball path every snippet names, for the docs test to replace with the packed one. */
export const TARBALL_PLACEHOLDER = '/absolute/path/to/toonwire-0.1.0.tgz';
/** The upstream URL the remote snippets name, replaced by a local MCP server over HTTP. */
export const REMOTE_PLACEHOLDER = 'https://example.com/mcp';

/**
 * The servers of a client snippet, or undefined when the block is not one.
 *
 * @example
 * clientServers({ kind: 'shell', code: 'claude mcp add m -- npx -y s\n' } as CodeBlock);
 * // [{ name: 'm', command: 'npx', args: ['-y', 's'] }]
 */
export function clientServers(block: CodeBlock): ClientServer[] | undefined {
  if (block.kind === 'json') {
    const parsed = JSON.parse(block.code) as Record<string, unknown>;
    const table = (parsed['mcpServers'] ?? parsed['servers']) as
      | Record<string, Omit<ClientServer, 'name'>>
      | undefined;
    if (table === undefined || typeof table !== 'object') return undefined;
    const servers = Object.entries(table).map(([name, server]) => ({ name, ...server }));
    // A proxy's own gateway file has `servers` too, but none of them runs toonwire.
    return servers.some((server) => server.args?.includes('toonwire')) ? servers : undefined;
  }
  if (block.kind === 'toml' && /^\[mcp_servers\./m.test(block.code))
    return codexServers(block.code);
  if (block.kind === 'shell' && /^claude mcp add /.test(block.code.trim())) {
    const words = shellWords(block.code.trim());
    const dashes = words.indexOf('--');
    if (dashes < 0) throw new Error('`claude mcp add` without `--` before the command');
    return [{ name: words[3]!, command: words[dashes + 1]!, args: words.slice(dashes + 2) }];
  }
  return undefined;
}

/** The `[mcp_servers.NAME]` tables of a Codex config: `command`, `args`, `env` (inline table). */
function codexServers(toml: string): ClientServer[] {
  const servers: ClientServer[] = [];
  let current: ClientServer | undefined;
  let pending = '';
  for (const raw of toml.split('\n')) {
    const line = pending + raw.replace(/^\s*#.*$/, '');
    const table = /^\s*\[mcp_servers\.([\w-]+)\]\s*$/.exec(line);
    if (table) {
      current = { name: table[1]!, command: '', args: [] };
      servers.push(current);
      continue;
    }
    const pair = /^\s*(\w+)\s*=\s*(.+)$/.exec(line);
    if (!pair || current === undefined) continue;
    const [, key, value] = pair;
    if (value!.startsWith('[') && !value!.trimEnd().endsWith(']')) {
      pending = `${line} `; // an array over several lines
      continue;
    }
    pending = '';
    if (key === 'command') current.command = JSON.parse(value!) as string;
    else if (key === 'args') current.args = JSON.parse(value!.replace(/,\s*]$/, ']')) as string[];
    else if (key === 'env')
      current.env = JSON.parse(value!.replace(/([\w]+)\s*=/g, '"$1":')) as Record<string, string>;
  }
  return servers;
}

/** Words of a one-line command, with '...' and "..." quoting. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/**
 * Starts `server` as a client would, goes through initialize, tools/list and tools/call of
 * server-memory's `create_entities` and `read_graph`, and returns what the model would read
 * (the text of `read_graph`). Rejects with what went wrong, the server's stderr included.
 *
 * @example
 * await talkTo({ name: 'memory', command: 'npx', args: [...] }, { cwd, env, limitMs: 180_000 });
 */
export async function talkTo(
  server: ClientServer,
  options: { cwd: string; env: NodeJS.ProcessEnv; baseMs: number },
): Promise<string> {
  const env = { ...options.env, ...server.env } as Record<string, string>;
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env,
    cwd: options.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'docs-test', version: '1.0.0' });
  // The SDK's own request timeout (60 s) is no hang guard: a cold npx install takes longer.
  const request = { timeout: hangGuardMs(options.baseMs) };
  try {
    await withinHangGuard(
      client.connect(transport, request),
      options.baseMs,
      'initialize response',
    );
    const { tools } = await withinHangGuard(
      client.listTools(undefined, request),
      options.baseMs,
      'tools/list',
    );
    const names = tools.map((tool) => tool.name);
    if (!names.includes('create_entities') || !names.includes('read_graph'))
      throw new Error(`not server-memory's tools: ${names.join(', ')}`);
    const entities = Array.from({ length: 6 }, (_, i) => ({
      name: `entity-${i}`,
      entityType: 'docs-test',
      observations: [`observation ${i}`],
    }));
    await withinHangGuard(
      client.callTool({ name: 'create_entities', arguments: { entities } }, undefined, request),
      options.baseMs,
      'tools/call create_entities',
    );
    const graph = await withinHangGuard(
      client.callTool({ name: 'read_graph', arguments: {} }, undefined, request),
      options.baseMs,
      'tools/call read_graph',
    );
    const content = graph.content as { type: string; text?: string }[];
    const text = content.map((part) => part.text ?? '').join('\n');
    if (graph.isError || !text.includes('entity-5'))
      throw new Error(`read_graph answered ${JSON.stringify(graph).slice(0, 400)}`);
    return text;
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr.slice(-3000)}`);
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * A local MCP server over Streamable HTTP for the remote snippets: this checkout's built
 * `toonwire proxy --listen 127.0.0.1:0` in front of server-memory. Resolves with its URL and a
 * way to stop it.
 *
 * @example
 * const remote = await startRemote('/path/to/toonwire', env, 60_000);
 * remote.url; // 'http://127.0.0.1:40123/mcp'
 * remote.stop();
 */
export async function startRemote(
  root: string,
  env: NodeJS.ProcessEnv,
  baseMs: number,
): Promise<{ url: string; stop: () => void }> {
  const { spawn } = await import('node:child_process');
  const { join } = await import('node:path');
  const child = spawn(
    process.execPath,
    [
      join(root, 'dist/cli/main.js'),
      'proxy',
      '--listen',
      '127.0.0.1:0',
      '--',
      process.execPath,
      join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /serving MCP at (\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) =>
      reject(new Error(`the local MCP server exited (${code}): ${stderr}`)),
    );
  });
  try {
    return {
      url: await withinHangGuard(url, baseMs, 'local MCP server'),
      stop: () => child.kill(),
    };
  } catch (error) {
    child.kill();
    throw error;
  }
}
