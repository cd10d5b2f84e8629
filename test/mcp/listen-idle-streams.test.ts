// `--idle-timeout` against sessions whose client only listens. The SDK's client opens the
// standalone GET stream of its session and keeps it; an open stream used to count as activity,
// so a client that connected and then went quiet (or whose peer vanished without closing its TCP
// connection) kept its session and its upstream process forever. Now idle means "no call": no
// request but the GET stream began or ended for --idle-timeout, and none is in flight. Every
// proxy is the built CLI, a real process, in front of the team upstream (a stdio server that
// writes its pid), driven by the SDK's client and by plain HTTP.

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

describe('toonwire proxy --listen --idle-timeout with a listening client', () => {
  it('ends an SDK client session with a GET stream and no calls, stopping its upstream', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    const client = await connect(url, 'quiet');
    try {
      const pid = await upstreamPid(proxy, 0);
      assert.equal(await waitUntil(() => !alive(pid), 30_000), true, `upstream ${pid} still runs`);
      assert.match(
        proxy.stderr,
        /ended a session idle for \d+ s \(--idle-timeout\), its GET stream closed; its upstream is stopped/,
      );
      // The client comes back: its session is gone, as after any idle timeout.
      await assert.rejects(
        client.callTool({ name: 'echo', arguments: { label: 'late' } }),
        /404|Session not found/,
      );
    } finally {
      await client.close();
      await stop(proxy);
    }
  });

  it('closes the GET stream of a plain HTTP session that only listens, and its upstream goes', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    try {
      const headers = await rawSession(url);
      const pid = await upstreamPid(proxy, 0);
      const stream = await listen(url, headers);
      assert.equal(stream.status, 200);
      // The stream's end is the event: the body is read to its end (or its connection cut).
      await withinHangGuard(
        stream.text().catch(() => ''),
        30_000,
        'the end of the idle session’s GET stream',
      );
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

  it('a client that reopens its GET stream again and again, calling nothing, is ended all the same', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--idle-timeout', '1', '--', ...TEAM_UPSTREAM]);
    try {
      const headers = await rawSession(url);
      const pid = await upstreamPid(proxy, 0);
      let reopened = 0;
      // A hang guard: an unfixed proxy keeps answering 200 to the reopened stream forever.
      const deadline = Date.now() + hangGuardMs(30_000);
      for (;;) {
        assert.ok(
          Date.now() < deadline,
          `the session lived on through ${reopened} reopened streams`,
        );
        const stream = await listen(url, headers);
        if (stream.status === 404) break;
        // 409: the proxy has not yet seen the last one go (one GET stream per session).
        assert.ok(stream.status === 200 || stream.status === 409, String(stream.status));
        if (stream.status === 200) reopened += 1;
        // Cut it at once and open the next: a reconnecting client, never a call.
        await stream.body?.cancel();
      }
      assert.ok(reopened > 0);
      assert.equal(await waitUntil(() => !alive(pid), 30_000), true, `upstream ${pid} still runs`);
    } finally {
      await stop(proxy);
    }
  });

  it('never ends a session with a call in flight, while a listening one beside it is ended', {
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
      // Opened after the call began: once it is ended, the held session has been idle-checked
      // for longer than --idle-timeout.
      const quiet = await connect(url, 'quiet');
      clients.push(quiet);
      const quietPid = await upstreamPid(proxy, 1);
      assert.equal(
        await waitUntil(() => !alive(quietPid), 30_000),
        true,
        `upstream ${quietPid} still runs`,
      );
      assert.ok(alive(busyPid), 'the session with a call in flight was ended');
      assert.equal((proxy.stderr.match(/ended a session idle/g) ?? []).length, 1, proxy.stderr);
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
    } finally {
      await stop(proxy);
    }
  });
});
