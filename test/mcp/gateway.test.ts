// Several servers behind one proxy: server-memory, server-filesystem and server-everything (the
// real npm servers) through `toonwire proxy --config gateway.json`, driven by the SDK's Client.
// Every tool answers through the gateway by its namespaced name as it does directly; a server
// that dies takes only its own tools with it.

import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { loadTokenizer, parseCompact } from '../../src/index.js';
import { checkServerNames, parseProxyConfig } from '../../src/mcp/proxy.js';
import { hangGuardMs } from '../support/patience.js';
import { proxyCli, ROOT, type ToolResult } from './helpers.js';

const serverBin = (name: string) =>
  join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

const dir = mkdtempSync(join(tmpdir(), 'toonwire-gateway-'));
const files = join(dir, 'files');
const memoryFile = join(dir, 'memory.jsonl');
/** A 1x1 PNG, for read_media_file. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The same files every run starts from. */
function resetState(): void {
  rmSync(files, { recursive: true, force: true });
  rmSync(memoryFile, { force: true });
  mkdirSync(join(files, 'sub'), { recursive: true });
  writeFileSync(
    join(files, 'notes.json'),
    `${JSON.stringify({ owner: 'Ada', tags: ['a', 'b'] }, null, 2)}\n`,
  );
  writeFileSync(join(files, 'a.txt'), 'alpha\nbeta\n');
  writeFileSync(join(files, 'sub', 'b.txt'), 'gamma\n');
  writeFileSync(join(files, 'dot.png'), PNG);
}

const SERVERS = {
  memory: {
    command: process.execPath,
    args: [serverBin('server-memory')],
    env: { MEMORY_FILE_PATH: memoryFile },
  },
  files: { command: process.execPath, args: [serverBin('server-filesystem'), files] },
  everything: { command: process.execPath, args: [serverBin('server-everything'), 'stdio'] },
};

/** Every tool of the three servers, with arguments, in an order whose side effects fit together. */
const CALLS: Array<[server: keyof typeof SERVERS, tool: string, args: Record<string, unknown>]> = [
  [
    'memory',
    'create_entities',
    {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['math'] },
        { name: 'Bob', entityType: 'person', observations: ['music'] },
      ],
    },
  ],
  [
    'memory',
    'create_relations',
    { relations: [{ from: 'Ada', to: 'Bob', relationType: 'knows' }] },
  ],
  ['memory', 'add_observations', { observations: [{ entityName: 'Ada', contents: ['poetry'] }] }],
  ['memory', 'read_graph', {}],
  ['memory', 'search_nodes', { query: 'Ada' }],
  ['memory', 'open_nodes', { names: ['Ada', 'Bob'] }],
  [
    'memory',
    'delete_observations',
    { deletions: [{ entityName: 'Ada', observations: ['poetry'] }] },
  ],
  [
    'memory',
    'delete_relations',
    { relations: [{ from: 'Ada', to: 'Bob', relationType: 'knows' }] },
  ],
  ['memory', 'delete_entities', { entityNames: ['Bob'] }],
  ['files', 'list_allowed_directories', {}],
  ['files', 'read_text_file', { path: join(files, 'notes.json') }],
  ['files', 'read_file', { path: join(files, 'a.txt') }],
  ['files', 'read_media_file', { path: join(files, 'dot.png') }],
  ['files', 'read_multiple_files', { paths: [join(files, 'a.txt'), join(files, 'sub', 'b.txt')] }],
  ['files', 'write_file', { path: join(files, 'new.txt'), content: 'new file\n' }],
  [
    'files',
    'edit_file',
    { path: join(files, 'a.txt'), edits: [{ oldText: 'beta', newText: 'BETA' }] },
  ],
  ['files', 'create_directory', { path: join(files, 'made') }],
  ['files', 'list_directory', { path: files }],
  ['files', 'list_directory_with_sizes', { path: files }],
  ['files', 'directory_tree', { path: files }],
  [
    'files',
    'move_file',
    { source: join(files, 'new.txt'), destination: join(files, 'made', 'new.txt') },
  ],
  ['files', 'search_files', { path: files, pattern: 'txt' }],
  ['files', 'get_file_info', { path: join(files, 'notes.json') }],
  ['everything', 'echo', { message: 'hello' }],
  ['everything', 'get-annotated-message', { messageType: 'success', includeImage: true }],
  ['everything', 'get-env', {}],
  ['everything', 'get-resource-links', { count: 2 }],
  ['everything', 'get-resource-reference', { resourceType: 'Text', resourceId: 2 }],
  ['everything', 'get-structured-content', { location: 'Chicago' }],
  ['everything', 'get-sum', { a: 2, b: 40 }],
  ['everything', 'get-tiny-image', {}],
  [
    'everything',
    'gzip-file-as-resource',
    { name: 'hello.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=' },
  ],
  ['everything', 'toggle-simulated-logging', {}],
  ['everything', 'toggle-simulated-logging', {}],
  ['everything', 'toggle-subscriber-updates', {}],
  ['everything', 'toggle-subscriber-updates', {}],
  ['everything', 'trigger-long-running-operation', { duration: 0.2, steps: 2 }],
  ['everything', 'simulate-research-query', { topic: 'tides' }],
];

/**
 * A tools/call as the wire carries it: the Client's own callTool refuses tools that ask for task
 * execution (server-everything's simulate-research-query) once it has listed them.
 */
function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return client
    .request({ method: 'tools/call', params: { name, arguments: args } }, z.looseObject({}))
    .then(
      (result) => result as unknown as ToolResult,
      (error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }),
    );
}

/** What a result says, whatever encoding the proxy shipped its data in. */
function meaning(tool: string, result: ToolResult): unknown {
  const strategy = result._meta?.['toonwire/encodingStrategy'] as string | undefined;
  const content = (result.content ?? []).map((block) => {
    if (block.type === 'resource')
      return JSON.parse(JSON.stringify(block).replace(/\d{1,2}:\d\d:\d\d [AP]M/g, '<time>'));
    if (block.type !== 'text') return block;
    let value: unknown = block.text;
    if (strategy !== undefined) value = parseCompact(block.text, strategy);
    else
      try {
        value = JSON.parse(block.text);
      } catch {
        // prose stays prose
      }
    // File times and the environment are not the same from one run to the next.
    if (tool === 'get_file_info' && typeof value === 'string')
      value = value.replace(/^(created|modified|accessed): .*$/gm, '$1: <time>');
    if (tool === 'get-env') value = typeof value;
    if (typeof value === 'string') value = value.replace(/\d{1,2}:\d\d:\d\d [AP]M/g, '<time>');
    return { type: 'text', value };
  });
  return {
    content,
    isError: result.isError ?? false,
    structuredContent:
      tool === 'get-env' || tool === 'get_file_info' ? undefined : result.structuredContent,
  };
}

async function connect(
  args: string[],
  env?: Record<string, string>,
): Promise<{ client: Client; child: ChildProcess; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...env },
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(transport);
  const child = (transport as unknown as { _process: ChildProcess })._process;
  return { client, child, stderr: () => stderr };
}

/** The pids of the processes whose parent is `pid` (Linux). */
function childrenOf(pid: number): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid)
        found.push({
          pid: Number(entry),
          command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '),
        });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('toonwire proxy as a gateway over server-memory, server-filesystem and server-everything', () => {
  const config = join(dir, 'gateway.json');
  before(() => writeFileSync(config, JSON.stringify({ servers: SERVERS })));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers every tool of the three servers by its namespaced name as the server does directly', {
    timeout: hangGuardMs(240_000),
  }, async () => {
    resetState();
    const direct: Record<string, Client> = {};
    for (const [name, server] of Object.entries(SERVERS))
      direct[name] = (
        await connect(server.args, (server as { env?: Record<string, string> }).env)
      ).client;
    const expected: unknown[] = [];
    try {
      for (const [server, tool, args] of CALLS)
        expected.push(meaning(tool, await call(direct[server]!, tool, args)));
    } finally {
      for (const client of Object.values(direct)) await client.close();
    }
    resetState();
    const gateway = await connect([proxyCli(), 'proxy', '--config', config]);
    try {
      const { tools } = await gateway.client.listTools();
      const named = new Set(tools.map((tool) => tool.name));
      for (const [server, tool] of CALLS)
        assert.ok(named.has(`${server}__${tool}`), `${server}__${tool} not listed`);
      let compacted = 0;
      for (const [index, [server, tool, args]] of CALLS.entries()) {
        const result = await call(gateway.client, `${server}__${tool}`, args);
        if (result._meta?.['toonwire/encodingStrategy'] !== undefined) compacted += 1;
        assert.deepEqual(
          meaning(tool, result),
          expected[index],
          `${server}__${tool}: ${JSON.stringify(result).slice(0, 600)}\n${JSON.stringify(expected[index]).slice(0, 600)}`,
        );
      }
      assert.ok(compacted >= 3, `${compacted} results compacted`);
      // File contents stay byte for byte: the content policy judges a tool by its own name.
      const read = (await gateway.client.callTool({
        name: 'files__read_text_file',
        arguments: { path: join(files, 'notes.json') },
      })) as ToolResult;
      assert.equal(read.content[0]!.text, readFileSync(join(files, 'notes.json'), 'utf8'));
    } finally {
      await gateway.client.close();
    }
  });

  it("follows each server's list cursor to its last page, and lists every tool once", {
    timeout: hangGuardMs(120_000),
  }, async () => {
    const paged = join(dir, 'paged.json');
    writeFileSync(
      paged,
      JSON.stringify({
        servers: {
          paged: {
            command: process.execPath,
            args: [join(ROOT, 'test/mcp/fixtures/paged-upstream.mjs')],
          },
          memory: SERVERS.memory,
        },
      }),
    );
    const gateway = await connect([proxyCli(), 'proxy', '--config', paged]);
    try {
      const { tools, nextCursor } = await gateway.client.listTools();
      assert.equal(nextCursor, undefined);
      const own = tools.map((tool) => tool.name).filter((name) => name.startsWith('paged__'));
      assert.deepEqual(
        own,
        ['one', 'two', 'three', 'four', 'five'].map((name) => `paged__${name}`),
      );
      assert.ok(tools.some((tool) => tool.name === 'memory__create_entities'));
    } finally {
      await gateway.client.close();
    }
  });

  it('a server that dies takes only its own tools: the others go on, and the client is told the list changed', {
    timeout: hangGuardMs(120_000),
  }, async () => {
    resetState();
    const gateway = await connect([proxyCli(), 'proxy', '--config', config]);
    try {
      let changed = 0;
      gateway.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed += 1;
      });
      await gateway.client.listTools();
      const memory = childrenOf(gateway.child.pid!).find((child) =>
        child.command.includes('server-memory'),
      );
      assert.ok(memory, 'no server-memory process under the proxy');
      process.kill(memory.pid, 'SIGKILL');
      // Calls to its tools get a clear error (a call in flight as it died, a JSON-RPC error)...
      for (;;) {
        const result = (await gateway.client
          .callTool({ name: 'memory__read_graph', arguments: {} })
          .catch((error: Error) => ({
            isError: true,
            content: [{ type: 'text', text: error.message }],
          }))) as ToolResult;
        if (result.isError !== true) continue; // answered before the death was seen
        assert.match(result.content[0]!.text, /the server "memory" is not running/);
        break;
      }
      // ...its tools leave the list, and the others work.
      const { tools } = await gateway.client.listTools();
      assert.ok(!tools.some((tool) => tool.name.startsWith('memory__')));
      assert.ok(tools.some((tool) => tool.name === 'files__list_directory'));
      const echo = (await gateway.client.callTool({
        name: 'everything__echo',
        arguments: { message: 'still here' },
      })) as ToolResult;
      assert.equal(echo.content[0]!.text, 'Echo: still here');
      const listed = (await gateway.client.callTool({
        name: 'files__list_directory',
        arguments: { path: files },
      })) as ToolResult;
      assert.match(listed.content[0]!.text, /notes\.json/);
      assert.ok(changed >= 1, 'no notifications/tools/list_changed');
      assert.match(
        gateway.stderr(),
        /the server "memory" .* (closed the connection|stopped taking messages)/,
      );
    } finally {
      await gateway.client.close();
    }
  });

  it('--lazy-tools over the gateway: a list at most 15% of the full one, exact definitions found, calls checked before they go', {
    timeout: hangGuardMs(120_000),
  }, async () => {
    resetState();
    const count = await loadTokenizer('o200k_base');
    const full = await connect([proxyCli(), 'proxy', '--config', config]);
    const lazy = await connect([
      proxyCli(),
      'proxy',
      '--config',
      config,
      '--lazy-tools',
      '--stats',
    ]);
    try {
      const [all, shown] = await Promise.all([full.client.listTools(), lazy.client.listTools()]);
      const tokens = (listing: object) => count(JSON.stringify(listing));
      assert.ok(tokens(shown) <= tokens(all) * 0.15, `${tokens(shown)} of ${tokens(all)} tokens`);
      assert.deepEqual(
        shown.tools.map((tool) => tool.name),
        ['toonwire_find_tools', 'toonwire_call_tool'],
      );
      // Found: the definitions exactly as the gateway lists them (each server's, name namespaced).
      const byName = new Map(all.tools.map((tool) => [tool.name, tool]));
      for (const [query, expected] of [
        ['read the knowledge graph', 'memory__read_graph'],
        ['list a directory', 'files__list_directory'],
        ['add two numbers', 'everything__get-sum'],
      ] as const) {
        const found = await call(lazy.client, 'toonwire_find_tools', { query });
        const definitions = JSON.parse(found.content[0]!.text) as Array<Record<string, unknown>>;
        const definition = definitions.find((tool) => tool.name === expected);
        assert.ok(definition, `${query}: ${definitions.map((tool) => tool.name).join(', ')}`);
        const listed = byName.get(expected)!;
        for (const [key, value] of Object.entries(definition))
          assert.deepEqual(value, (listed as Record<string, unknown>)[key], `${expected}.${key}`);
        assert.deepEqual(definition.inputSchema, listed.inputSchema);
      }
      // Called, through the normal pipeline.
      const sum = await call(lazy.client, 'toonwire_call_tool', {
        name: 'everything__get-sum',
        arguments: { a: 2, b: 40 },
      });
      assert.match(sum.content[0]!.text, /42/);
      const created = await call(lazy.client, 'toonwire_call_tool', {
        name: 'memory__create_entities',
        arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['math'] }] },
      });
      assert.notEqual(created.isError, true, created.content[0]?.text);
      // Refused before reaching the server: entities must be an array.
      const refused = await call(lazy.client, 'toonwire_call_tool', {
        name: 'memory__create_entities',
        arguments: { entities: 'Ada' },
      });
      assert.equal(refused.isError, true);
      assert.match(
        refused.content[0]!.text,
        /do not match its inputSchema, so the call was not sent/,
      );
      const graph = await call(lazy.client, 'toonwire_call_tool', {
        name: 'memory__read_graph',
        arguments: {},
      });
      const strategy = graph._meta?.['toonwire/encodingStrategy'] as string | undefined;
      const text = graph.content[0]!.text;
      const entities = (
        strategy === undefined ? JSON.parse(text) : parseCompact(text, strategy)
      ) as {
        entities: Array<{ name: string }>;
      };
      assert.deepEqual(
        entities.entities.map((entity) => entity.name),
        ['Ada'],
        'the refused call created nothing',
      );
    } finally {
      await Promise.all([full.client.close(), lazy.client.close()]);
    }
    if (lazy.child.exitCode === null)
      await new Promise((resolve) => lazy.child.once('exit', resolve));
    // --stats counts what reached the servers: one create_entities, not the refused one.
    assert.match(lazy.stderr(), /^memory__create_entities\s+1\s/m);
  });

  it('refuses server names that could make two tools one name, and unknown keys, before starting', () => {
    assert.throws(() => checkServerNames(['my__files'], '__'), /holds the separator "__"/);
    assert.throws(() => checkServerNames(['a b'], '__'), /may hold only letters/);
    assert.throws(
      () => parseProxyConfig('{"servers":{"memory":{"comand":"npx"}}}', 'gateway.json'),
      /unknown key "servers\.memory\.comand"; a server's keys are/,
    );
    assert.throws(
      () =>
        parseProxyConfig(
          '{"servers":{"memory":{"command":"npx","url":"http://x"}}}',
          'gateway.json',
        ),
      /needs either a "command" \(stdio\) or a "url" \(Streamable HTTP\), not both/,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"servers":{"my__files":{"command":"x"}}}');
    const refused = spawnSync(process.execPath, [proxyCli(), 'proxy', '--config', bad], {
      encoding: 'utf8',
    });
    assert.equal(refused.status, 2);
    assert.match(
      refused.stderr,
      /bad\.json: gateway: the server name "my__files" holds the separator/,
    );
  });
});
