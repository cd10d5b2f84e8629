// The proxy in front of real MCP servers (server-filesystem, server-memory, server-everything)
// and in the situations issue 13 found in the field: file contents that must stay verbatim,
// early server messages over HTTP, wrapped upstreams that must not outlive the proxy, a person
// answering an elicitation slowly, a banner on stdout, and abandoned --listen sessions.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { parseCompact } from '../../src/index.js';
import { hangGuardMs, withinHangGuard } from '../support/patience.js';
import {
  alive,
  proxyCli,
  ROOT,
  serveOverHttp,
  type ToolResult,
  UPSTREAM,
  UPSTREAM_SCRIPT,
  waitUntil,
} from './helpers.js';

type Result = ToolResult;

const serverBin = (name: string) =>
  join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

interface Connection {
  client: Client;
  stderr: () => string;
  exited: Promise<number | null>;
  close: () => Promise<void>;
}

/** The SDK's Client, over stdio, to `args` run with node (the proxy, or a server directly). */
async function connect(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    setup?: (client: Client) => void;
    elicitation?: boolean;
    /** Who the client says it is (default a test client the proxy knows nothing of). */
    clientName?: string;
  } = {},
): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...args],
    stderr: 'pipe',
    env: { ...(process.env as Record<string, string>), ...options.env },
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client(
    { name: options.clientName ?? 'toonwire-field-test', version: '1.0.0' },
    { capabilities: options.elicitation ? { elicitation: {} } : {} },
  );
  options.setup?.(client);
  const connecting = client.connect(transport);
  const child = (transport as unknown as { _process?: ChildProcess })._process!;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await connecting;
  return { client, stderr: () => stderr, exited, close: () => client.close() };
}

const proxy = (options: readonly string[], upstream: readonly string[]) => [
  proxyCli(),
  'proxy',
  ...options,
  '--',
  ...upstream,
];

/** {@link waitUntil} for a condition that must be awaited. */
async function waitUntilAsync(condition: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + hangGuardMs(ms);
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await delay(50); // wait-ok: the poll interval of a scaled guard
  }
  return condition();
}

describe('toonwire proxy in front of server-filesystem: file contents stay verbatim', () => {
  let folder: string;
  const file = `${JSON.stringify(
    {
      name: 'demo',
      version: '1.0.0',
      scripts: { test: 'node --test' },
      files: ['dist', 'README.md'],
      contributors: [
        { name: 'Ada', email: 'ada@example.com' },
        { name: 'Grace', email: 'grace@example.com' },
        { name: 'Linus', email: 'linus@example.com' },
      ],
    },
    null,
    2,
  )}\n`;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'toonwire-fs-'));
    writeFileSync(join(folder, 'package.json'), file);
    writeFileSync(join(folder, 'notes.txt'), 'hello\n');
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('reads a JSON file byte for byte, edits it with a line it read, and still compacts directory_tree', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const connection = await connect(
      proxy([], [process.execPath, serverBin('server-filesystem'), folder]),
    );
    try {
      await connection.client.listTools();
      const path = join(folder, 'package.json');
      const read = (await connection.client.callTool({
        name: 'read_text_file',
        arguments: { path },
      })) as Result;
      assert.equal(read.content[0]!.text, file);
      assert.equal(read._meta?.['toonwire/encodingStrategy'], undefined);
      // The edit flow: the model quotes a line it saw as oldText.
      const line = read.content[0]!.text.split('\n').find((text) => text.includes('"Grace"'))!;
      const edited = (await connection.client.callTool({
        name: 'edit_file',
        arguments: { path, edits: [{ oldText: line, newText: line.replace('Grace', 'Grace H.') }] },
      })) as Result;
      assert.notEqual(edited.isError, true, edited.content[0]?.text);
      assert.equal(readFileSync(path, 'utf8'), file.replace('"Grace"', '"Grace H."'));
      const multiple = (await connection.client.callTool({
        name: 'read_multiple_files',
        arguments: { paths: [path, join(folder, 'notes.txt')] },
      })) as Result;
      assert.equal(multiple._meta?.['toonwire/encodingStrategy'], undefined);

      const tree = (await connection.client.callTool({
        name: 'directory_tree',
        arguments: { path: folder },
      })) as Result;
      const strategy = tree._meta?.['toonwire/encodingStrategy'];
      assert.equal(typeof strategy, 'string');
      assert.deepEqual(
        parseCompact(tree.content[0]!.text, strategy as string),
        [
          { name: 'notes.txt', type: 'file' },
          { name: 'package.json', type: 'file' },
        ].sort((a, b) => a.name.localeCompare(b.name)),
      );
    } finally {
      await connection.close();
    }
  });
});

describe('toonwire proxy in front of server-memory', () => {
  it('compacts read_graph, and skips a banner line the upstream prints on stdout', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toonwire-memory-'));
    const memory = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(serverBin('server-memory'))}`;
    const connection = await connect(
      proxy(['--stats'], ['sh', '-c', `echo 'Memory server v1 ready'; ${memory}`]),
      { env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') } },
    );
    try {
      const entities = Array.from({ length: 8 }, (_, i) => ({
        name: `person-${i}`,
        entityType: 'person',
        observations: [`likes ${i % 2 === 0 ? 'tea' : 'coffee'}`],
      }));
      await connection.client.callTool({ name: 'create_entities', arguments: { entities } });
      const graph = (await connection.client.callTool({ name: 'read_graph' })) as Result;
      const strategy = graph._meta?.['toonwire/encodingStrategy'] as string;
      assert.equal(typeof strategy, 'string');
      const decoded = parseCompact(graph.content[0]!.text, strategy) as { entities: unknown[] };
      assert.equal(decoded.entities.length, 8);
      await connection.close();
      assert.equal(await connection.exited, 0);
      assert.match(
        connection.stderr(),
        /skipped a line that is not JSON: "Memory server v1 ready"/,
      );
      assert.match(connection.stderr(), /skipped 1 line of the upstream's stdout/);
    } finally {
      await connection.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('toonwire proxy in front of an MCP Apps server (server-basic-vanillajs)', () => {
  const appServer = [
    join(
      ROOT,
      'node_modules',
      '@modelcontextprotocol',
      'server-basic-vanillajs',
      'dist',
      'index.js',
    ),
    '--stdio',
  ];
  for (const [mode, clientName] of [
    ['auto', 'claude-code'],
    ['strip', 'toonwire-field-test'],
    ['keep', 'toonwire-field-test'],
  ] as const) {
    it(`keeps the UI tool's structuredContent and outputSchema (--structured-content ${mode}, client ${clientName})`, {
      timeout: hangGuardMs(60_000),
    }, async () => {
      const connection = await connect(proxy(['--structured-content', mode], appServer), {
        clientName,
      });
      try {
        const { tools } = await connection.client.listTools();
        const tool = tools.find((candidate) => candidate.name === 'get-time');
        assert.ok(tool, 'no get-time tool');
        assert.ok(tool.outputSchema !== undefined, 'outputSchema removed');
        assert.ok((tool._meta as { ui?: { resourceUri?: string } }).ui?.resourceUri);
        const result = (await connection.client.callTool({
          name: 'get-time',
          arguments: {},
        })) as Result;
        const time = (result.structuredContent as { time?: unknown } | undefined)?.time;
        assert.equal(typeof time, 'string', 'the widget renders structuredContent.time');
        assert.equal(result.content[0]!.text, time);
      } finally {
        await connection.close();
      }
    });
  }
});

describe('toonwire proxy process hygiene', () => {
  const wrapped = [
    'sh',
    '-c',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(UPSTREAM_SCRIPT)}; exit 0`,
  ];

  async function grandchildPid(connection: Connection): Promise<number> {
    const result = (await connection.client.callTool({ name: 'pid' })) as Result;
    const pid = Number(result.content[0]!.text);
    assert.ok(Number.isInteger(pid) && pid > 0);
    return pid;
  }

  it('ends the whole upstream tree on a timeout: nothing of a wrapped upstream survives', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const connection = await connect(proxy(['--timeout', String(hangGuardMs(3000))], wrapped), {
      env: { KEEP_ALIVE: '1' },
    });
    try {
      const pid = await grandchildPid(connection);
      const error = await connection.client.callTool({ name: 'hang' }).catch((caught) => caught);
      assert.ok(error instanceof McpError && error.code === -32001, String(error));
      assert.equal(await connection.exited, 1);
      assert.equal(await waitUntil(() => !alive(pid), 3000), true, `upstream ${pid} survived`);
    } finally {
      await connection.close();
    }
  });

  it('a client killed mid-call: the proxy cancels the call upstream and stops, not waiting for the answer', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonwire-killed-'));
    const rawInput = join(dir, 'upstream-input.log');
    // The call never answers and --timeout is long: only noticing the client's death ends it.
    const client = spawn(
      process.execPath,
      [
        join(ROOT, 'test', 'mcp', 'fixtures', 'killable-client.mjs'),
        proxyCli(),
        '--timeout',
        '120000',
        '--',
        ...wrapped,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, KEEP_ALIVE: '1', RAW_INPUT_LOG: rawInput },
      },
    );
    try {
      const line = await new Promise<string>((resolve) =>
        client.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))),
      );
      const { proxy: proxyPid, upstream } = JSON.parse(line) as { proxy: number; upstream: number };
      const killed = performance.now();
      client.kill('SIGKILL');
      // A hang guard far below --timeout: waiting for the call's answer would never end.
      assert.equal(
        await waitUntil(() => !alive(proxyPid) && !alive(upstream), 30_000),
        true,
        'still running',
      );
      const gone = performance.now() - killed;
      assert.match(readFileSync(rawInput, 'utf8'), /"method":"notifications\/cancelled"/);
      process.stderr.write(
        `# client killed mid-call: proxy and upstream gone after ${Math.round(gone)} ms\n`,
      );
    } finally {
      client.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ends the whole upstream tree when the client leaves', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const connection = await connect(proxy([], wrapped), { env: { KEEP_ALIVE: '1' } });
    const pid = await grandchildPid(connection);
    await connection.close();
    // (Its exit code is checked elsewhere: on a loaded machine the SDK client may lose patience
    // with the proxy's one-second grace for the upstream and signal it.)
    await connection.exited;
    assert.equal(await waitUntil(() => !alive(pid), 3000), true, `upstream ${pid} survived`);
  });
});

describe('toonwire proxy timeouts and server-to-client requests', () => {
  it('does not time out while the client takes its time over an elicitation (server-everything)', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const limit = hangGuardMs(3000); // the proxy's --timeout, scaled like every guard
    const connection = await connect(
      proxy(['--timeout', String(limit)], [process.execPath, serverBin('server-everything')]),
      {
        elicitation: true,
        setup: (client) =>
          client.setRequestHandler(ElicitRequestSchema, async () => {
            // wait-ok: what the test is about, a person reading the dialog longer than --timeout
            await delay(limit * 1.5);
            return { action: 'decline' };
          }),
      },
    );
    try {
      const { tools } = await connection.client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'trigger-elicitation-request'));
      const result = (await connection.client.callTool(
        { name: 'trigger-elicitation-request' },
        undefined,
        { timeout: hangGuardMs(10_000) },
      )) as Result;
      assert.match(JSON.stringify(result.content), /decline/i);
      // The clock runs again once the client has answered: a hang afterwards still times out.
    } finally {
      await connection.close();
    }
  });
});

describe('toonwire proxy --upstream-url: messages sent right after initialization', () => {
  let upstream: Awaited<ReturnType<typeof serveOverHttp>>;
  before(async () => {
    upstream = await serveOverHttp(() => {
      const mcp = new McpServer(
        { name: 'eager', version: '1.0.0' },
        { capabilities: { logging: {} } },
      );
      // Speaks on the standalone stream the moment the client says it is initialized.
      mcp.server.oninitialized = () =>
        void mcp.server.sendLoggingMessage({ level: 'info', data: 'hello early' });
      return mcp;
    });
  });
  after(async () => {
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  it('delivers a notification the server sends right after initialized, every time', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    for (let round = 0; round < 4; round++) {
      let received = () => {};
      const arrived = new Promise<void>((resolve) => (received = resolve));
      const connection = await connect([proxyCli(), 'proxy', '--upstream-url', upstream.url], {
        setup: (client) =>
          client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
            if (notification.params.data === 'hello early') received();
          }),
      });
      try {
        await withinHangGuard(arrived, 10_000, `round ${round}: the early notification`);
        await connection.client.ping(); // and the session goes on working
      } finally {
        await connection.close();
      }
    }
  });
});

/** `toonwire proxy --listen 127.0.0.1:0 <flags> -- <test upstream>`, its stderr collected. */
function listeningProxy(flags: string[], env: Record<string, string> = {}) {
  const proxyProcess = spawn(
    process.execPath,
    [proxyCli(), 'proxy', '--listen', '127.0.0.1:0', ...flags, '--', ...UPSTREAM],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, KEEP_ALIVE: '1', ...env } },
  );
  let stderr = '';
  let served: (url: URL) => void = () => {};
  const serving = new Promise<URL>((resolve) => (served = resolve));
  proxyProcess.stderr!.setEncoding('utf8');
  proxyProcess.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    const url = /serving MCP at (\S+)/.exec(stderr)?.[1];
    if (url !== undefined) served(new URL(url));
  });
  return {
    stderr: () => stderr,
    /** The URL the proxy serves MCP at, once it says so. */
    endpoint: (): Promise<URL> => withinHangGuard(serving, 30_000, '"serving MCP at" line'),
    stop: async () => {
      proxyProcess.kill('SIGTERM');
      await new Promise((resolve) => proxyProcess.once('exit', resolve));
    },
  };
}

describe('toonwire proxy --listen session lifecycle', () => {
  it('ends a session its client abandoned without DELETE after --idle-timeout, stopping its upstream', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const proxy = listeningProxy(['--idle-timeout', '1']);
    try {
      const endpoint = await proxy.endpoint();
      const client = new Client({ name: 'abandoning', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(endpoint));
      const result = (await client.callTool({ name: 'pid' })) as Result;
      const pid = Number(result.content[0]!.text);
      assert.ok(alive(pid));
      await client.close(); // sends no DELETE: the session is abandoned, not ended
      assert.equal(await waitUntil(() => !alive(pid), 6000), true, `upstream ${pid} still runs`);
      assert.match(proxy.stderr(), /ended a session idle for \d+ s \(--idle-timeout\)/);
    } finally {
      await proxy.stop();
    }
  });

  it('ends 10 sessions abandoned at once after --idle-timeout 5: no upstream process is left, and --stats counts them', {
    timeout: hangGuardMs(90_000),
  }, async () => {
    const proxy = listeningProxy(['--idle-timeout', '5', '--stats']);
    try {
      const endpoint = await proxy.endpoint();
      const pids = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const client = new Client({ name: `abandoning-${i}`, version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(endpoint));
          const pid = Number(((await client.callTool({ name: 'pid' })) as Result).content[0]!.text);
          await client.close(); // no DELETE, as the conformance suite's clients do
          return pid;
        }),
      );
      assert.equal(new Set(pids).size, 10);
      const abandoned = performance.now();
      // A hang guard well past 5 s of idleness plus a sweep: the sessions must go by themselves.
      assert.equal(
        await waitUntil(() => pids.every((pid) => !alive(pid)), 60_000),
        true,
        'an upstream still runs',
      );
      const gone = performance.now() - abandoned;
      process.stderr.write(
        `# 10 abandoned sessions: every upstream gone ${Math.round(gone)} ms after they were left\n`,
      );
    } finally {
      await proxy.stop();
    }
    assert.match(
      proxy.stderr(),
      /sessions: 10 ended after --idle-timeout, 0 refused at --max-sessions/,
    );
  });

  it('a --listen client that disconnects mid-call has the call cancelled upstream', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonwire-disconnect-'));
    const rawInput = join(dir, 'upstream-input.log');
    const proxy = listeningProxy([], { RAW_INPUT_LOG: rawInput });
    let client: Client | undefined;
    try {
      const endpoint = await proxy.endpoint();
      client = new Client({ name: 'disconnecting', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(endpoint);
      await client.connect(transport);
      void client.callTool({ name: 'hang' }).catch(() => {});
      assert.equal(
        await waitUntil(() => readFileSync(rawInput, 'utf8').includes('"hang"'), 20_000),
        true,
      );
      // Gone without a word: the HTTP connection drops (not a notifications/cancelled of its own).
      (transport as unknown as { _abortController?: AbortController })._abortController?.abort();
      assert.equal(
        await waitUntil(
          () => /"method":"notifications\/cancelled"/.test(readFileSync(rawInput, 'utf8')),
          20_000,
        ),
        true,
        'no notifications/cancelled reached the upstream',
      );
      assert.match(
        readFileSync(rawInput, 'utf8'),
        /the HTTP client disconnected before the answer/,
      );
    } finally {
      // The abandoned call's own timer (the SDK's 60 s request timeout) would keep this file's
      // process alive for a minute after its last test: closing the client settles it.
      await client?.close();
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps at most --max-sessions: a new session ends an abandoned one, or is refused while all are busy', {
    timeout: hangGuardMs(20_000),
  }, async () => {
    const proxy = listeningProxy(['--max-sessions', '1']);
    const clients: Client[] = [];
    try {
      const endpoint = await proxy.endpoint();
      const connectClient = async (name: string): Promise<number> => {
        const client = new Client({ name, version: '1.0.0' });
        clients.push(client);
        await client.connect(new StreamableHTTPClientTransport(endpoint));
        return Number(((await client.callTool({ name: 'pid' })) as Result).content[0]!.text);
      };
      const first = await connectClient('abandoning');
      await clients[0]!.close(); // no DELETE: its session stays, idle
      // Refused while the proxy has not yet seen the first stream close (busy, not idle).
      let second: number | undefined;
      assert.equal(
        await waitUntilAsync(async () => {
          second = await connectClient('second').catch((error: Error) => {
            if (/Too many sessions/.test(error.message)) return undefined;
            throw error;
          });
          return second !== undefined;
        }, 20_000),
        true,
        'the second session was refused',
      );
      assert.equal(
        await waitUntil(() => !alive(first), 6000),
        true,
        'the first upstream still runs',
      );
      assert.ok(alive(second!));
      assert.match(proxy.stderr(), /ended the session idle the longest, to stay within 1 sessions/);
      // The second client is connected (its stream is open): a third is refused, not let in.
      await assert.rejects(connectClient('third'), /Too many sessions: all 1 are busy/);
    } finally {
      for (const client of clients) await client.close();
      await proxy.stop();
    }
  });
});
