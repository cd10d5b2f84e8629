// The Python MCP test kit works: its venv, the Python fixture server (FastMCP-style tools) and
// the Python SDK client in its default mode, against each other and against the TypeScript SDK
// and server-everything, with no proxy in between. The proxy's own Python tests build on this.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  EVERYTHING_SERVER,
  type PythonClientReport,
  type PythonHttpServer,
  pythonServerCommand,
  pythonWithMcp,
  runPythonClient,
  startPythonHttpServer,
  VENV_DIR,
} from '../support/python.js';
import { connectStdio, ROOT, type ToolResult } from './helpers.js';

const setup = await pythonWithMcp();
const skip = setup.skip;
/**
 * The kit's own checks beyond the first: the proxy's Python tests (python-proxy, python-setups)
 * compare every set-up with direct runs anyway, so these run only when the kit itself changes:
 * TOONWIRE_TEST_KIT=1.
 */
const kitSkip =
  skip ??
  (process.env['TOONWIRE_TEST_KIT'] === '1'
    ? undefined
    : "the kit's own checks: set TOONWIRE_TEST_KIT=1");
/** The venv's interpreter; only read inside tests that do not skip. */
const python = () => setup.python!;

const CONFIG_TEXT = () =>
  readFile(join(ROOT, 'test', 'mcp', 'fixtures', 'python', 'config.json'), 'utf8');

/** The calls every Python-client test makes, and what each must bring back. */
const CALLS = [
  { name: 'list_orders', arguments: { count: 200 } },
  { name: 'get_customer', arguments: { customer_id: 7 } },
  { name: 'order_stats', arguments: {} },
  { name: 'config_contents', arguments: {} },
  { name: 'count_with_progress', arguments: { steps: 4 } },
  { name: 'big_json', arguments: { megabytes: 0.5 } },
];

/** What the Python server returns, as seen by any client, checked call by call. */
async function assertFixtureResults(results: PythonClientReport['results']): Promise<void> {
  const [orders, customer, stats, config, counted, big] = results;
  // list[Model]: one pretty-printed text block per item, and the list in structuredContent.result.
  assert.equal(orders!.content!.length, 200);
  const rows = (orders!.structuredContent as { result: Array<{ id: number }> }).result;
  assert.equal(rows.length, 200);
  assert.deepEqual(
    orders!.content!.map((block) => JSON.parse(block.text!)),
    rows,
  );
  assert.match(orders!.content![0]!.text!, /^\{\n {2}"id": 1,/);
  // A nested model: one block, and the same object in structuredContent.
  assert.equal(customer!.content!.length, 1);
  assert.deepEqual(JSON.parse(customer!.content![0]!.text!), customer!.structuredContent);
  assert.equal((customer!.structuredContent as { address: { city: string } }).address.city, 'Lyon');
  // A dict.
  assert.deepEqual(JSON.parse(stats!.content![0]!.text!), stats!.structuredContent);
  // A str: the file's text as it is, and the same string in structuredContent.result.
  const text = await CONFIG_TEXT();
  assert.equal(config!.content![0]!.text, text);
  assert.deepEqual(config!.structuredContent, { result: text });
  // Progress.
  assert.deepEqual(counted!.content, [{ type: 'text', text: 'counted to 4' }]);
  // Big JSON: one compact block of at least the size asked for, no structuredContent.
  assert.equal(big!.content!.length, 1);
  assert.ok(big!.content![0]!.text!.length >= 512 * 1024);
  assert.ok(Array.isArray((JSON.parse(big!.content![0]!.text!) as { rows: unknown[] }).rows));
  assert.equal(big!.structuredContent, undefined);
}

describe('the Python test kit', { skip }, () => {
  it('gives a venv whose Python imports mcp 2.x', async () => {
    const check = spawn(python(), [
      '-c',
      'import mcp, importlib.metadata as m; print(m.version("mcp"))',
    ]);
    let out = '';
    check.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise((resolve) => check.once('close', resolve));
    assert.equal(code, 0);
    assert.match(out.trim(), /^2\./);
    assert.ok(python().startsWith(VENV_DIR));
  });

  it('installs once when two processes ask at the same time, rebuilding a half-made venv', {
    skip: kitSkip,
  }, async () => {
    const scratch = join(ROOT, '.tmp', 'python-venv-kit-test');
    // A venv left half-made by a killed run: an interpreter path, no ready marker.
    await rm(scratch, { recursive: true, force: true });
    await mkdir(join(scratch, 'bin'), { recursive: true });
    await writeFile(join(scratch, 'bin', 'python'), '');
    const kit = join(ROOT, 'test', 'support', 'python.ts');
    const ask = () =>
      new Promise<{ stdout: string; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            `const { pythonWithMcp } = await import(${JSON.stringify(kit)});
             console.log(JSON.stringify(await pythonWithMcp()));`,
          ],
          { cwd: ROOT, env: { ...process.env, TOONWIRE_PYTHON_VENV: scratch } },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('close', () => resolve({ stdout, stderr }));
      });
    try {
      const both = await Promise.all([ask(), ask()]);
      for (const { stdout, stderr } of both) {
        assert.deepEqual(JSON.parse(stdout), { python: join(scratch, 'bin', 'python') }, stderr);
      }
      const installs = both.filter(({ stderr }) => stderr.includes('installing mcp'));
      assert.equal(installs.length, 1);
      // A third process finds it ready and installs nothing.
      const again = await ask();
      assert.doesNotMatch(again.stderr, /installing/);
      assert.deepEqual(JSON.parse(again.stdout), { python: join(scratch, 'bin', 'python') });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('the Python SDK client (default mode) and the Python server, directly', { skip }, () => {
  it('over stdio: negotiates 2026-07-28 through server/discover and gets every kind of result', async () => {
    const { report, stderr } = await runPythonClient(
      python(),
      { command: pythonServerCommand(python()) },
      { calls: CALLS },
    );
    assert.deepEqual(report.errors, [], stderr);
    assert.equal(report.era, 'modern');
    assert.equal(report.protocolVersion, '2026-07-28');
    assert.deepEqual(report.serverInfo, { name: 'toonwire-python-fixture', version: '1.0.0' });
    assert.deepEqual(report.sent.slice(0, 2), ['server/discover', 'tools/list']);
    assert.deepEqual(
      report.tools.map((tool) => tool.name),
      CALLS.map((call) => call.name),
    );
    await assertFixtureResults(report.results);
    assert.equal(report.notifications['notifications/progress'], 4);
    assert.equal(report.notifications['notifications/message'], 4);
  });

  it('over Streamable HTTP: the same results', { skip: kitSkip }, async () => {
    const server = await startPythonHttpServer(python());
    try {
      const { report, stderr } = await runPythonClient(
        python(),
        { url: server.url },
        { calls: CALLS },
      );
      assert.deepEqual(report.errors, [], `${stderr}\n${server.stderr()}`);
      assert.equal(report.protocolVersion, '2026-07-28');
      await assertFixtureResults(report.results);
      assert.equal(report.notifications['notifications/progress'], 4);
    } finally {
      await server.close();
    }
  });

  it('in legacy mode: initialize and 2025-11-25, the same results', { skip: kitSkip }, async () => {
    const { report } = await runPythonClient(
      python(),
      { command: pythonServerCommand(python()) },
      { calls: CALLS, mode: 'legacy' },
    );
    assert.deepEqual(report.errors, []);
    assert.equal(report.era, 'handshake');
    assert.equal(report.protocolVersion, '2025-11-25');
    assert.deepEqual(report.sent.slice(0, 2), ['initialize', 'notifications/initialized']);
    await assertFixtureResults(report.results);
  });

  it('starts the server late when TOONWIRE_PY_START_DELAY says so; texts as digests', {
    skip: kitSkip,
  }, async () => {
    const started = performance.now();
    const server = await startPythonHttpServer(python(), { TOONWIRE_PY_START_DELAY: '1' });
    try {
      // A lower bound only: a busy machine makes it later, never earlier.
      assert.ok(performance.now() - started >= 1000);
      // With digestTexts, a text comes back as its length and hash (for results of many MB).
      const { report } = await runPythonClient(
        python(),
        { url: server.url },
        { calls: [{ name: 'config_contents' }], digestTexts: true },
      );
      assert.deepEqual(report.errors, []);
      const text = await CONFIG_TEXT();
      assert.deepEqual(report.results[0]!.content, [
        {
          type: 'text',
          length: text.length,
          sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
        },
      ]);
    } finally {
      await server.close();
    }
  });
});

/** The TypeScript SDK's view of a Python tools/call result. */
async function assertTsClientResults(client: Client): Promise<void> {
  const tools = await client.listTools();
  assert.deepEqual(
    tools.tools.map((tool) => tool.name),
    CALLS.map((call) => call.name),
  );
  const orders = (await client.callTool({
    name: 'list_orders',
    arguments: { count: 3000 },
  })) as ToolResult;
  assert.equal(orders.content.length, 3000);
  assert.equal((orders.structuredContent as { result: unknown[] }).result.length, 3000);
  const config = (await client.callTool({ name: 'config_contents', arguments: {} })) as ToolResult;
  assert.equal(config.content[0]!.text, await CONFIG_TEXT());
  // The SDK runs notification handlers a microtask late but settles a response at once: a
  // progress notification that arrives in the same chunk as its response reaches onerror as "an
  // unknown token" instead of onprogress (sdk/dist/esm/shared/protocol.js, _onnotification).
  let progress = 0;
  let late = 0;
  client.onerror = (error) => {
    if (/progress notification for an unknown token/.test(String(error))) late += 1;
  };
  const counted = (await client.callTool(
    { name: 'count_with_progress', arguments: { steps: 3 } },
    undefined,
    {
      onprogress: () => {
        progress += 1;
      },
    },
  )) as ToolResult;
  assert.equal(counted.content[0]!.text, 'counted to 3');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(progress + late, 3);
}

describe('the TypeScript SDK Client and the Python server, directly', { skip: kitSkip }, () => {
  it('over stdio', async () => {
    const [command, ...args] = pythonServerCommand(python());
    const connection = await connectStdio(command!, args);
    try {
      assert.equal(connection.client.getServerVersion()?.name, 'toonwire-python-fixture');
      await assertTsClientResults(connection.client);
    } finally {
      await connection.client.close();
    }
  });

  describe('over Streamable HTTP', () => {
    let server: PythonHttpServer;
    before(async () => (server = await startPythonHttpServer(python())));
    after(() => server.close());

    it('lists and calls', async () => {
      const client = new Client({ name: 'toonwire-test-client', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(server.url));
      await client.connect(transport);
      try {
        assert.equal(transport.protocolVersion, '2025-11-25');
        await assertTsClientResults(client);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    });
  });
});

const SUBSCRIBED = 'demo://resource/static/document/architecture.md';

describe('the Python SDK client (default mode) and server-everything, directly', {
  skip: kitSkip,
}, () => {
  it('falls back from server/discover (Method not found) to initialize and calls a tool', async () => {
    const { report, stderr } = await runPythonClient(
      python(),
      { command: EVERYTHING_SERVER },
      {
        calls: [{ name: 'echo', arguments: { message: 'hello' } }],
        subscribe: [SUBSCRIBED],
        recordNotifications: true,
      },
    );
    assert.deepEqual(report.errors, [], stderr);
    assert.deepEqual(report.sent.slice(0, 3), [
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    assert.deepEqual(report.rpcErrors, [
      { method: 'server/discover', code: -32601, message: 'Method not found' },
    ]);
    assert.equal(report.era, 'handshake');
    assert.equal(report.protocolVersion, '2025-11-25');
    assert.equal(report.serverInfo?.name, 'mcp-servers/everything');
    assert.deepEqual(report.results[0]!.content, [{ type: 'text', text: 'Echo: hello' }]);
    // server-everything acknowledges a subscription with a log message.
    assert.ok(report.sent.includes('resources/subscribe'));
    assert.ok(
      report.notificationLog!.some(
        ({ method, params }) =>
          method === 'notifications/message' &&
          String(params?.['data']).startsWith(
            `Received Subscribe Resource request for URI: ${SUBSCRIBED}`,
          ),
      ),
      JSON.stringify(report.notificationLog),
    );
  });
});
