// The Python SDK client (`mcp` 2.x) in its default mode through each of the proxy's four set-ups:
// stdio or --listen in front, a command or --upstream-url behind; against a server that speaks
// MCP 2026-07-28 (the Python fixture, where the client skips initialize) and one that does not
// (server-everything, where the client's server/discover is refused and it falls back to
// initialize). Through every set-up the client must negotiate what it negotiates directly and
// get the same results (compacted texts decode to what the upstream sent).

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parseCompact } from '../../src/index.js';
import {
  EVERYTHING_SERVER,
  type PythonClientRun,
  type PythonToolResult,
  pythonServerCommand,
  pythonWithMcp,
  runPythonClient,
  startPythonHttpServer,
} from '../support/python.js';
import { proxyCli, startListening, stopListening } from './helpers.js';

const setup = await pythonWithMcp();
const skip = setup.skip;
const python = () => setup.python!;

/** A server over Streamable HTTP, for `--upstream-url` and the client's direct HTTP run. */
interface HttpServer {
  url: string;
  close(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (server-everything takes its port from $PORT and says no more). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over Streamable HTTP, once it listens. */
async function startEverythingHttp(): Promise<HttpServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    EVERYTHING_SERVER[0],
    [EVERYTHING_SERVER[1], 'streamableHttp'],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('listening on port')) resolve();
    });
    void exited.then(() => reject(new Error(`server-everything exited: ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** One upstream server, reachable as a command and over HTTP, and the calls made to it. */
interface Upstream {
  name: string;
  command: () => string[];
  startHttp: () => Promise<HttpServer>;
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** What the client negotiates with it directly (checked, so the comparison means something). */
  era: 'modern' | 'handshake';
  /** Notifications whose counts must match direct (others are time-driven or transport-bound). */
  counted: string[];
}

const UPSTREAMS: Upstream[] = [
  {
    name: 'the Python fixture server',
    command: () => pythonServerCommand(python()),
    startHttp: () => startPythonHttpServer(python()),
    calls: [
      { name: 'list_orders', arguments: { count: 200 } },
      { name: 'config_contents', arguments: {} },
      { name: 'count_with_progress', arguments: { steps: 3 } },
    ],
    era: 'modern',
    counted: ['notifications/progress', 'notifications/message'],
  },
  {
    name: 'server-everything',
    command: () => [...EVERYTHING_SERVER],
    startHttp: startEverythingHttp,
    calls: [
      { name: 'echo', arguments: { message: 'hi' } },
      { name: 'get-structured-content', arguments: { location: 'New York' } },
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    ],
    era: 'handshake',
    counted: ['notifications/progress'],
  },
];

/** The data a result's texts hold, as the upstream sent it (several texts: one list item each). */
function upstreamData(result: PythonToolResult): unknown {
  const texts = result.content!.map((block) => JSON.parse(block.text!) as unknown);
  return texts.length === 1 ? texts[0] : texts;
}

/**
 * Checks a proxied run against the direct one: version, tools, results, notifications (but those
 * in `shared`, which the caller counts over several clients).
 */
function assertSameAsDirect(
  proxied: PythonClientRun,
  direct: PythonClientRun,
  upstream: Upstream,
  shared: readonly string[] = [],
) {
  const { report } = proxied;
  assert.deepEqual(report.errors, [], proxied.stderr);
  assert.equal(report.ok, true);
  assert.equal(direct.report.era, upstream.era);
  assert.equal(report.era, direct.report.era);
  assert.equal(report.protocolVersion, direct.report.protocolVersion);
  assert.deepEqual(report.sent, direct.report.sent);
  assert.deepEqual(
    report.tools.map((tool) => tool.name),
    direct.report.tools.map((tool) => tool.name),
  );
  assert.equal(report.results.length, upstream.calls.length);
  for (const [index, result] of report.results.entries()) {
    const original = direct.report.results[index]!;
    assert.equal(result.error, undefined, `${result.name}: ${result.error}`);
    assert.equal(result.isError ?? false, original.isError ?? false, result.name);
    assert.deepEqual(result.structuredContent, original.structuredContent, result.name);
    const strategy = result._meta?.['toonwire/encodingStrategy'];
    if (typeof strategy === 'string')
      assert.deepEqual(
        parseCompact(result.content![0]!.text!, strategy),
        upstreamData(original),
        result.name,
      );
    else assert.deepEqual(result.content, original.content, result.name);
  }
  for (const method of upstream.counted.filter((counted) => !shared.includes(counted)))
    assert.equal(
      report.notifications[method] ?? 0,
      direct.report.notifications[method] ?? 0,
      `${method}: ${JSON.stringify(report.notifications)} vs ${JSON.stringify(direct.report.notifications)}`,
    );
}

/** Runs `use` against `toonwire proxy --listen <args>`, then stops the proxy. */
async function throughListen<T>(
  args: readonly string[],
  use: (url: string) => Promise<T>,
): Promise<{ value: T; code: number | null; stderr: string }> {
  const { proxy, url } = await startListening(args);
  try {
    const value = await use(url);
    return { value, ...(await stopListening(proxy)) };
  } catch (error) {
    await stopListening(proxy);
    throw error;
  }
}

/** The proxy's own complaints in a stderr it shared with upstreams and clients. */
function proxyComplaints(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => /^toonwire proxy: .*(error|could not|reported|failed)/i.test(line));
}

for (const upstream of UPSTREAMS) {
  describe(`the Python SDK client (default mode) through the proxy's four set-ups, ${upstream.name}`, {
    skip,
  }, () => {
    let http: HttpServer;
    let directStdio: PythonClientRun;
    let directHttp: PythonClientRun;
    const options = () => ({ calls: upstream.calls });

    before(async () => {
      http = await upstream.startHttp();
      [directStdio, directHttp] = await Promise.all([
        runPythonClient(python(), { command: upstream.command() }, options()),
        runPythonClient(python(), { url: http.url }, options()),
      ]);
      assert.deepEqual(directStdio.report.errors, [], directStdio.stderr);
      assert.deepEqual(directHttp.report.errors, [], directHttp.stderr);
    });
    after(async () => {
      await http?.close();
    });

    it('A: stdio proxy in front of the command', async () => {
      const run = await runPythonClient(
        python(),
        { command: [process.execPath, proxyCli(), 'proxy', '--', ...upstream.command()] },
        options(),
      );
      assertSameAsDirect(run, directStdio, upstream);
      assert.deepEqual(proxyComplaints(run.stderr), []);
    });

    it('B: stdio proxy in front of --upstream-url', async () => {
      const run = await runPythonClient(
        python(),
        { command: [process.execPath, proxyCli(), 'proxy', '--upstream-url', http.url] },
        options(),
      );
      assert.equal(run.exitCode, 0, run.stderr);
      assertSameAsDirect(run, directHttp, upstream);
      assert.deepEqual(proxyComplaints(run.stderr), []);
    });

    it('C: --listen in front of the command (two clients: one upstream start for the probes)', async () => {
      const {
        value: runs,
        code,
        stderr,
      } = await throughListen(['--', ...upstream.command()], (url) =>
        Promise.all([
          runPythonClient(python(), { url }, options()),
          runPythonClient(python(), { url }, options()),
        ]),
      );
      // Progress names its call by token, so each client gets its own. A log message over
      // stdio names nothing: with two clients on one upstream the proxy relates it to the call
      // whose progress came last, a guess that is right for this server's tool, though the
      // two calls' steps may interleave. So log messages are counted over both clients: none
      // lost, none doubled.
      const shared = ['notifications/message'];
      for (const run of runs) assertSameAsDirect(run, directStdio, upstream, shared);
      for (const method of shared.filter((name) => upstream.counted.includes(name)))
        assert.equal(
          runs.reduce((sum, run) => sum + (run.report.notifications[method] ?? 0), 0),
          2 * (directStdio.report.notifications[method] ?? 0),
          method,
        );
      assert.equal(code, 0, stderr);
      assert.deepEqual(proxyComplaints(stderr), []);
      if (upstream.era === 'handshake') {
        // One process answered both probes; then one per handshake session.
        const starts = stderr.split('Starting default (STDIO) server').length - 1;
        assert.equal(starts, 3, stderr);
      }
    });

    it('D: --listen in front of --upstream-url', async () => {
      const {
        value: run,
        code,
        stderr,
      } = await throughListen(['--upstream-url', http.url], (url) =>
        runPythonClient(python(), { url }, options()),
      );
      assertSameAsDirect(run, directHttp, upstream);
      assert.equal(code, 0, stderr);
      assert.deepEqual(proxyComplaints(stderr), []);
    });
  });
}
