// A gateway server that dies while a fan-out is out: every order of a slow `url` server (its send
// is an HTTP POST the test holds open) and a stdio server that is killed, before or after the
// slow server answers, at `initialize` and at `tools/list`. Every request must be answered with
// what the live server said, and the proxy must go on (it ends only when every server is down).
//
// Deterministic: nothing sleeps. The slow server's answer is held until the test has seen the
// other server die (the proxy logs it), or the other server is killed once the answer is out.
// TOONWIRE_RACE_RUNS=20 runs each case 20 times (3 by default).

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LineProcess, proxyCli, ROOT } from './helpers.js';

const RUNS = Number(process.env['TOONWIRE_RACE_RUNS'] ?? 3);
const REPORTING = join(ROOT, 'test', 'mcp', 'fixtures', 'reporting-upstream.mjs');

/** A promise and its resolver. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** One run's view of the slow HTTP server and the stdio server's pid. */
interface Run {
  /** The method whose answer is held. */
  hold: string;
  /** Resolves with the held request's arrival. */
  arrived: ReturnType<typeof deferred<void>>;
  /** Resolve to send the held answer. */
  release: ReturnType<typeof deferred<void>>;
  /** Resolves once the held answer has been written. */
  answered: ReturnType<typeof deferred<void>>;
  pid: ReturnType<typeof deferred<number>>;
}

const runs = new Map<string, Run>();

async function body(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

/**
 * The slow server: a Streamable HTTP MCP server answering in plain JSON, with one tool, `steady`;
 * its answer to the run's held method waits for the test. `/pid/<run>` takes the stdio server's pid.
 */
async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const [, kind, key] = (request.url ?? '').split('?')[0]!.split('/');
  const run = runs.get(key ?? '');
  if (run === undefined) return void response.writeHead(404).end();
  if (kind === 'pid') {
    run.pid.resolve(Number(new URL(request.url!, 'http://x').searchParams.get('pid')));
    return void response.writeHead(200).end();
  }
  if (request.method !== 'POST') return void response.writeHead(405).end();
  const message = JSON.parse(await body(request)) as {
    id?: number | string;
    method: string;
    params?: { protocolVersion?: string };
  };
  if (message.id === undefined) return void response.writeHead(202).end();
  let result: Record<string, unknown>;
  if (message.method === 'initialize')
    result = {
      protocolVersion: message.params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'slow', version: '1.0.0' },
    };
  else if (message.method === 'tools/list')
    result = { tools: [{ name: 'steady', inputSchema: { type: 'object' } }] };
  else result = { content: [{ type: 'text', text: 'steady answer' }] };
  if (message.method === run.hold) {
    run.arrived.resolve();
    await run.release.promise;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  if (message.method === run.hold) {
    await once(response, 'finish');
    run.answered.resolve();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'toonwire-gateway-race-'));
const server = createServer((request, response) => {
  void handle(request, response).catch((error: Error) => response.destroy(error));
});
let base = '';

before(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits until the proxy's stderr says `text`. */
async function stderrSays(proxy: LineProcess, text: string): Promise<void> {
  while (!proxy.stderr.includes(text)) await once(proxy.child.stderr!, 'data');
}

/** The answer to request `id` (a JSON-RPC response line). */
async function answer(proxy: LineProcess, id: number): Promise<Record<string, unknown>> {
  const at = await proxy.waitFor((line) => {
    try {
      return (JSON.parse(line) as { id?: unknown }).id === id;
    } catch {
      return false;
    }
  });
  return JSON.parse(proxy.lines[at]!) as Record<string, unknown>;
}

type Case = { at: 'initialize' | 'tools/list'; first: 'slow' | 'dying'; dies: 'during' | 'after' };

async function race({ at, first, dies }: Case, index: number): Promise<void> {
  const key = `${at.replace('/', '-')}-${first}-${dies}-${index}`;
  const run: Run = {
    hold: at,
    arrived: deferred(),
    release: deferred(),
    answered: deferred(),
    pid: deferred<number>(),
  };
  runs.set(key, run);
  const servers = {
    slow: { url: `${base}/mcp/${key}` },
    dying: { command: process.execPath, args: [REPORTING, `${base}/pid/${key}`] },
  };
  const ordered = first === 'slow' ? ['slow', 'dying'] : ['dying', 'slow'];
  const config = join(dir, `${key}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      servers: Object.fromEntries(ordered.map((name) => [name, servers[name as 'slow']])),
    }),
  );
  const proxy = new LineProcess(process.execPath, [proxyCli(), 'proxy', '--config', config]);
  try {
    const pid = await run.pid.promise;
    const send = (id: number, method: string, params: Record<string, unknown> = {}) =>
      proxy.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const initialize = () =>
      send(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'race', version: '1' },
      });
    const kill = async () => {
      process.kill(pid, 'SIGKILL');
      await stderrSays(proxy, 'the server "dying"');
    };
    /** The held request is out to both servers: the dying one is killed before or after. */
    const orchestrate = async () => {
      await run.arrived.promise;
      if (dies === 'during') {
        await kill();
        run.release.resolve();
      } else {
        run.release.resolve();
        await run.answered.promise;
        await kill();
      }
    };
    if (at === 'initialize') {
      initialize();
      await orchestrate();
    } else {
      run.release.resolve(); // nothing held at initialize
      initialize();
    }
    const init = await answer(proxy, 1);
    assert.ok(init.result, `${key}: initialize answered with ${JSON.stringify(init)}`);
    proxy.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    if (at === 'tools/list') {
      run.release = deferred();
      send(2, 'tools/list');
      await orchestrate();
    } else send(2, 'tools/list');
    const listed = (await answer(proxy, 2)).result as { tools: Array<{ name: string }> };
    const names = listed.tools.map((tool) => tool.name);
    assert.ok(names.includes('slow__steady'), `${key}: ${names.join(', ')}`);
    // The dying server's tools are gone; the next listing shows that whatever the timing was.
    send(3, 'tools/list');
    const again = (await answer(proxy, 3)).result as { tools: Array<{ name: string }> };
    assert.deepEqual(
      again.tools.map((tool) => tool.name),
      ['slow__steady'],
    );
    send(4, 'tools/call', { name: 'slow__steady', arguments: {} });
    const called = (await answer(proxy, 4)).result as { content: Array<{ text: string }> };
    assert.equal(called.content[0]!.text, 'steady answer');
    assert.equal(proxy.child.exitCode, null, `${key}: the proxy exited`);
    assert.equal(await proxy.close(), 0, `${key}: ${proxy.stderr}`);
  } finally {
    proxy.kill();
    runs.delete(key);
  }
}

describe('a gateway server dying while a fan-out is out', () => {
  for (const at of ['initialize', 'tools/list'] as const)
    for (const first of ['slow', 'dying'] as const)
      for (const dies of ['during', 'after'] as const)
        it(`at ${at}, ${first === 'slow' ? 'the slow url server first' : 'the dying server first'}, killed ${dies === 'during' ? 'while the slow answer is held' : 'once the slow server answered'}: ${RUNS} runs, every request answered, the proxy goes on`, {
          timeout: 60_000 * RUNS,
        }, async () => {
          for (let index = 0; index < RUNS; index++) await race({ at, first, dies }, index);
        });
});
