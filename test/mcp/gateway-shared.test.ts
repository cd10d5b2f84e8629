// `"shared": true` on a gateway server (issue 29, item 7): `--listen` sessions share one process
// of it instead of starting one each, and what one session asks never reaches another.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { parseProxyConfig } from '../../src/mcp/proxy.js';
import { withinHangGuard } from '../support/patience.js';
import {
  alive,
  INITIALIZE,
  type LineProcess,
  post,
  startListening,
  stopListening,
  type ToolResult,
  UPSTREAM_SCRIPT,
  waitUntil,
} from './helpers.js';

const SESSIONS = 30;

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  logs: unknown[];
  samplingAsked: number;
}

async function connect(url: string, name: string): Promise<Connected> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } });
  const connected: Connected = {
    client,
    transport: new StreamableHTTPClientTransport(new URL(url)),
    logs: [],
    samplingAsked: 0,
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    connected.logs.push(notification.params);
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    connected.samplingAsked += 1;
    return { role: 'assistant', model: 'test', content: { type: 'text', text: 'hi' } };
  });
  await withinHangGuard(client.connect(connected.transport), 60_000, `${name}'s initialize`);
  return connected;
}

async function disconnect(connected: Connected): Promise<void> {
  await connected.transport.terminateSession().catch(() => {});
  await connected.client.close();
}

async function pidOf(connected: Connected): Promise<number> {
  const result = (await connected.client.callTool({
    name: 'mem__pid',
    arguments: {},
  })) as ToolResult;
  return Number(result.content[0]!.text);
}

describe('a shared gateway server behind --listen', () => {
  let folder: string;
  let pidLog: string;
  let proxy: LineProcess;
  let url: string;

  const started = (): number[] =>
    readFileSync(pidLog, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toonwire-shared-'));
    pidLog = join(folder, 'pids');
    writeFileSync(pidLog, '');
    const config = join(folder, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        servers: {
          mem: {
            command: process.execPath,
            args: [UPSTREAM_SCRIPT],
            env: { PID_LOG: pidLog },
            shared: true,
          },
        },
      }),
    );
    ({ proxy, url } = await startListening(['--config', config, '--max-sessions', '40']));
  });

  after(async () => {
    if (proxy !== undefined) await stopListening(proxy);
    rmSync(folder, { recursive: true, force: true });
  });

  it(`starts one process for ${SESSIONS} sessions, and stops it when the last one ends`, async () => {
    const clients: Connected[] = [];
    try {
      for (let index = 0; index < SESSIONS; index++)
        clients.push(await connect(url, `client-${index}`));
      const pids = await Promise.all(clients.map(pidOf));
      const processes = started();
      assert.equal(processes.length, 1, `processes started: ${processes.join(', ')}`);
      assert.deepEqual(new Set(pids), new Set(processes), 'every session reached that process');
      assert.equal(alive(processes[0]!), true);
      // Half the sessions gone: the others still use it.
      for (const connected of clients.splice(0, SESSIONS / 2)) await disconnect(connected);
      assert.equal(await pidOf(clients[0]!), processes[0]);
    } finally {
      for (const connected of clients.splice(0)) await disconnect(connected);
    }
    const [pid] = started();
    assert.equal(
      await waitUntil(() => !alive(pid!), 10_000),
      true,
      `shared server ${pid} survived`,
    );
  });

  it("sends each session its own answers and progress, and nobody else's log or sampling", async () => {
    const first = await connect(url, 'first');
    const second = await connect(url, 'second');
    try {
      const progress: Record<string, number[]> = { first: [], second: [] };
      // Both sessions' SDK clients number their requests alike: the same ids at once.
      const [a, b] = await Promise.all(
        [
          ['first', first],
          ['second', second],
        ].map(([name, connected]) =>
          (connected as Connected).client.callTool(
            { name: 'mem__with_progress', arguments: {} },
            undefined,
            { onprogress: (event) => progress[name as string]!.push(event.progress) },
          ),
        ),
      );
      assert.deepEqual(progress, { first: [1, 2, 3], second: [1, 2, 3] });
      assert.equal((a as ToolResult).isError, undefined);
      assert.deepEqual(a, b);
      // The server was offered no client capability: it cannot ask any session to sample.
      const asked = (await first.client.callTool({
        name: 'mem__ask_client',
        arguments: {},
      })) as ToolResult;
      assert.equal(asked.isError, true, JSON.stringify(asked));
      assert.equal(first.samplingAsked + second.samplingAsked, 0);
      // A log line names no session over stdio: it reaches none.
      assert.deepEqual([...first.logs, ...second.logs], []);
    } finally {
      await disconnect(first);
      await disconnect(second);
    }
  });

  it('loses the server for every session when it dies, and starts a new one for the next', async () => {
    const before = started().length;
    const first = await connect(url, 'first');
    const second = await connect(url, 'second');
    try {
      const pid = await pidOf(first);
      assert.equal(await pidOf(second), pid);
      process.kill(pid, 'SIGKILL');
      // The gateway's only server is gone: each session's call is answered with an error (the
      // gateway's, or the session's once the gateway, with no server left, has closed).
      for (const connected of [first, second])
        await assert.rejects(
          connected.client.callTool({ name: 'mem__pid', arguments: {} }),
          /the server "mem" is not running|the gateway of mem closed the connection/,
        );
    } finally {
      await disconnect(first);
      await disconnect(second);
    }
    const third = await connect(url, 'third');
    try {
      const pid = await pidOf(third);
      assert.equal(started().length, before + 2);
      assert.equal(started().at(-1), pid);
    } finally {
      await disconnect(third);
    }
  });

  it('answers each session the protocol version it asked for, though a newer client started the server', async () => {
    const newer = await connect(url, 'newer');
    const opened: string[] = [];
    try {
      // The pool initialized the server with the SDK client's (latest) version; a client that
      // speaks only an older one must hear that one back, or it disconnects.
      for (const version of ['2025-03-26', '2024-11-05']) {
        const answer = await post(url, {
          ...INITIALIZE,
          params: { ...INITIALIZE.params, protocolVersion: version },
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.messages));
        opened.push(answer.headers.get('mcp-session-id')!);
        assert.equal(answer.messages[0]!.result.protocolVersion, version);
        assert.equal(answer.messages[0]!.result.serverInfo.name, 'toonwire-gateway');
      }
      // The newer session still speaks its own version with the same process.
      assert.equal(newer.transport.protocolVersion, LATEST_PROTOCOL_VERSION);
      assert.equal(started().length > 0 && alive(await pidOf(newer)), true);
    } finally {
      for (const session of opened)
        await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
      await disconnect(newer);
    }
  });
});

describe('the "shared" key of a gateway server', () => {
  it('is true or false, on a command server', () => {
    assert.deepEqual(
      parseProxyConfig(
        '{ "servers": { "time": { "command": "mcp-server-time", "shared": true } } }',
      ).servers?.time?.shared,
      true,
    );
    assert.throws(
      () => parseProxyConfig('{ "servers": { "time": { "command": "t", "shared": "yes" } } }'),
      /"servers\.time\.shared" must be true or false/,
    );
    assert.throws(
      () =>
        parseProxyConfig(
          '{ "servers": { "web": { "url": "http://127.0.0.1:9/mcp", "shared": true } } }',
        ),
      /applies to a "command" server/,
    );
  });
});

describe('a shared gateway server behind --listen with --auth-tokens', () => {
  const folder = mkdtempSync(join(tmpdir(), 'toonwire-shared-auth-'));
  const tokens = { alice: randomBytes(24).toString('hex'), bob: randomBytes(24).toString('hex') };
  let proxy: LineProcess;
  let url: string;

  before(async () => {
    const tokensFile = join(folder, 'tokens');
    writeFileSync(tokensFile, `alice:${tokens.alice}\nbob:${tokens.bob}\n`);
    const config = join(folder, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        servers: { mem: { command: process.execPath, args: [UPSTREAM_SCRIPT], shared: true } },
      }),
    );
    ({ proxy, url } = await startListening([
      '--config',
      config,
      '--auth-tokens',
      tokensFile,
      '--max-tokens',
      '400',
    ]));
  });

  after(async () => {
    if (proxy !== undefined) await stopListening(proxy);
    rmSync(folder, { recursive: true, force: true });
  });

  async function connectAs(token: string): Promise<Client> {
    const client = new Client({ name: 'pager', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await withinHangGuard(client.connect(transport), 60_000, 'initialize');
    return client;
  }

  async function firstPageCursor(client: Client): Promise<string> {
    const result = (await client.callTool({
      name: 'mem__array_rows',
      arguments: { count: 300 },
    })) as ToolResult & { _meta?: Record<string, { nextCursor?: string }> };
    const cursor = result._meta?.['toonwire/page']?.nextCursor;
    assert.ok(cursor !== undefined, 'a first page with a cursor');
    return cursor;
  }

  it("binds each session's pages to its own caller, though the process was started by another", async () => {
    const alice = await connectAs(tokens.alice); // starts the shared process
    const bob = await connectAs(tokens.bob); // leases it
    try {
      const alicesCursor = await firstPageCursor(alice);
      const bobsCursor = await firstPageCursor(bob);
      const more = (client: Client, cursor: string) =>
        client.callTool({ name: 'toonwire_more', arguments: { cursor } }) as Promise<ToolResult>;
      assert.notEqual((await more(bob, bobsCursor)).isError, true, 'bob reads on in his pages');
      assert.equal((await more(bob, alicesCursor)).isError, true, "alice's cursor is not bob's");
      assert.notEqual((await more(alice, alicesCursor)).isError, true, 'alice reads on in hers');
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
