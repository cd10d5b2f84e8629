// `--idle-timeout` against sessions whose client only listens. The SDK's client opens the
// standalone GET stream of its session and keeps it, and it does not start a new session when a
// call is answered 404: a listening client keeps its session while its stream's connection lives,
// which TCP keepalive checks, and idles out once the stream closes. A session with a call in
// flight is never ended. Every proxy is the built CLI, a real process, in front of the team
// upstream (a stdio server that writes its pid), driven by the SDK's client and by plain HTTP;
// that time has passed is shown by an event (a session beside it, with no stream, idling out),
// not by a sleep.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { hangGuardMs, withinHangGuard } from '../support/patience.js';
import {
  alive,
  INITIALIZE,
  type LineProcess,
  modernRequest,
  post,
  ROOT,
  startListening,
  stopListening,
  TEAM_UPSTREAM,
  teamUpstreamPids,
  waitUntil,
} from './helpers.js';

/** Holds a `subscriptions/listen` open while it is the only request waiting (BATCH=2). */
const MODERN_UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'modern-upstream.mjs');

/** The pids of the processes `parent` started (the proxy's upstreams). */
function childrenOf(parent: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
}

/** The `index`-th upstream's pid, once it has written it. */
async function upstreamPid(proxy: LineProcess, index: number): Promise<number> {
  assert.equal(
    await waitUntil(() => teamUpstreamPids(proxy).length > index, 30_000),
    true,
    proxy.stderr,
  );
  return teamUpstreamPids(proxy)[index]!;
}

/** Stops the proxy, each upstream's held calls released first (a drain waits for them). */
async function stop(proxy: LineProcess): Promise<void> {
  for (const pid of teamUpstreamPids(proxy))
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      // that session's upstream has ended already
    }
  const { code, stderr } = await stopListening(proxy);
  assert.equal(code, 0, stderr);
}

async function connect(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A session opened with plain HTTP: its id and the headers of its later requests. */
async function rawSession(url: string): Promise<Record<string, string>> {
  const opened = await post(url, INITIALIZE);
  assert.equal(opened.status, 200, JSON.stringify(opened.messages));
  const headers = {
    'mcp-session-id': opened.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-06-18',
  };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

/** Opens the session's standalone GET stream. */
async function listen(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { headers: { ...headers, accept: 'text/event-stream' } });
}

/**
 * Opens a plain HTTP session with no stream and waits until `--idle-timeout` has ended it (its
 * upstream, the `index`-th, gone): the event that shows the sweep has run past the timeout.
 */
async function idledOut(url: string, proxy: LineProcess, index: number): Promise<void> {
  await rawSession(url);
  const pid = await upstreamPid(proxy, index);
  assert.equal(await waitUntil(() => !alive(pid), 30_000), true, `upstream ${pid} still runs`);
}

describe('toonwire proxy --listen --idle-timeout with a listening client', () => {
  it('keeps an SDK client session whose GET stream is open past --idle-timeout, and answers its next call', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    const client = await connect(url, 'quiet');
    try {
      const pid = await upstreamPid(proxy, 0);
      await idledOut(url, proxy, 1);
      assert.ok(alive(pid), 'the listening client lost its session');
      // The SDK's client would not start a new session on a 404: this call must be answered.
      const result = await client.callTool({ name: 'echo', arguments: { label: 'later' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'later' }]);
    } finally {
      await client.close();
      await stop(proxy);
    }
  });

  it('ends a plain HTTP session once its client closes its GET stream, and its upstream goes', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    try {
      const headers = await rawSession(url);
      const pid = await upstreamPid(proxy, 0);
      const stream = await listen(url, headers);
      assert.equal(stream.status, 200);
      await idledOut(url, proxy, 1);
      assert.ok(alive(pid), 'the session was ended while its client listened');
      await stream.body?.cancel();
      assert.equal(await waitUntil(() => !alive(pid), 30_000), true, `upstream ${pid} still runs`);
      const after = await post(
        url,
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        headers,
      );
      assert.equal(after.status, 404);
    } finally {
      await stop(proxy);
    }
  });

  it("probes a GET stream's connection with TCP keepalive, so a peer gone without closing it is found", {
    timeout: hangGuardMs(60_000),
    skip: process.platform === 'linux' ? false : 'reads the socket table with ss (Linux)',
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    const client = await connect(url, 'listening');
    try {
      await upstreamPid(proxy, 0);
      const port = new URL(url).port;
      // The proxy's end of each established connection; the GET stream's carries a keepalive timer.
      const sockets = (): string =>
        execFileSync('ss', ['-tnoH', 'state', 'established', `( sport = :${port} )`], {
          encoding: 'utf8',
        });
      assert.equal(
        await waitUntil(() => /timer:\(keepalive/.test(sockets()), 30_000),
        true,
        sockets(),
      );
    } finally {
      await client.close();
      await stop(proxy);
    }
  });

  it('never ends a session with a call in flight', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    const clients: Client[] = [];
    try {
      const busy = await connect(url, 'busy');
      clients.push(busy);
      const busyPid = await upstreamPid(proxy, 0);
      const held = busy.callTool({ name: 'hold', arguments: { label: 'held' } });
      held.catch(() => undefined);
      assert.equal(
        await waitUntil(() => /holding 1\n/.test(proxy.stderr), 30_000),
        true,
        proxy.stderr,
      );
      await idledOut(url, proxy, 1);
      assert.ok(alive(busyPid), 'the session with a call in flight was ended');
      process.kill(busyPid, 'SIGUSR2');
      assert.deepEqual((await withinHangGuard(held, 30_000, 'the held call')).content, [
        { type: 'text', text: 'held' },
      ]);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await stop(proxy);
    }
  });

  it('ends a 2026-07-28 session whose client only listens (an open subscriptions/listen), answering the stream and stopping its upstream', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(
      ['--idle-timeout', '1', '--', process.execPath, MODERN_UPSTREAM],
      { ...process.env, MODERN_UPSTREAM_BATCH: '2' },
    );
    try {
      const listen = modernRequest('L1', 'subscriptions/listen', { notifications: {} }, 'listener');
      const stream = post(url, listen.body, listen.headers);
      assert.equal(
        await waitUntil(() => childrenOf(proxy.child.pid!).length === 1, 30_000),
        true,
        proxy.stderr,
      );
      const [pid] = childrenOf(proxy.child.pid!);
      // The stream's end is the event: ended with the session, with an error answer.
      const ended = await withinHangGuard(stream, 30_000, 'the end of the listening stream');
      assert.equal(ended.messages.at(-1)?.id, 'L1');
      assert.match(String(ended.messages.at(-1)?.error?.message), /the upstream session ended/);
      assert.equal(await waitUntil(() => !alive(pid!), 30_000), true, `upstream ${pid} still runs`);
      // Said and counted as a handshake session's end is.
      assert.match(
        proxy.stderr,
        /ended a session idle for \d+ s \(--idle-timeout\); its upstream is stopped/,
      );
    } finally {
      await stop(proxy);
    }
  });
});
