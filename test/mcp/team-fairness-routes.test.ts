// `--max-sessions` across both routes of `--listen`: handshake sessions (initialize,
// Mcp-Session-Id) and the 2026-07-28 route's shared sessions are one count, made room for by one
// fair rule. The 2026-07-28 route used to count its sessions apart (so the proxy held up to twice
// the bound in upstream processes) and, at its own bound, ended whichever of its sessions was
// not busy, another caller's included. Every proxy is the built CLI, a real process, in front
// of the team upstream; the callers send plain HTTP with tokens from a tokens file.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hangGuardMs, withinHangGuard } from '../support/patience.js';
import {
  alive,
  INITIALIZE,
  type LineProcess,
  modernRequest,
  type Posted,
  post,
  startListening,
  stopListening,
  TEAM_UPSTREAM,
  teamUpstreamPids,
  waitUntil,
} from './helpers.js';

type Name = 'alice' | 'bob';

/** Waits until `proxy` has started `count` upstreams, and returns their pids. */
async function started(proxy: LineProcess, count: number): Promise<number[]> {
  assert.equal(
    await waitUntil(() => teamUpstreamPids(proxy).length >= count, 30_000),
    true,
    proxy.stderr,
  );
  return teamUpstreamPids(proxy);
}

/**
 * Waits until exactly `count` of the upstreams `proxy` started still run (an ended session's
 * process takes a moment to exit after its session is ended).
 */
async function runningUpstreams(proxy: LineProcess, count: number): Promise<void> {
  const running = () => teamUpstreamPids(proxy).filter(alive).length;
  assert.equal(
    await waitUntil(() => running() === count, 30_000),
    true,
    `${running()} upstreams run, not ${count} (--max-sessions): ${proxy.stderr}`,
  );
}

/** Waits until `count` calls are held by the upstreams (each writes "holding N"). */
async function holding(proxy: LineProcess, count: number): Promise<void> {
  const held = () => [...proxy.stderr.matchAll(/team-upstream: holding \d+\n/g)].length;
  assert.equal(await waitUntil(() => held() >= count, 30_000), true, proxy.stderr);
}

/** Releases every held call: SIGUSR2 to each upstream the proxy started. */
function release(proxy: LineProcess): void {
  for (const pid of teamUpstreamPids(proxy))
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      // that session's upstream has ended already
    }
}

async function stop(proxy: LineProcess): Promise<void> {
  release(proxy);
  const { code, stderr } = await stopListening(proxy);
  assert.equal(code, 0, stderr);
}

describe('toonwire proxy --listen --max-sessions across the handshake and 2026-07-28 routes', () => {
  let dir: string;
  let file: string;
  const tokens: Record<Name, string> = {
    alice: randomBytes(24).toString('hex'),
    bob: randomBytes(24).toString('hex'),
  };
  const bearer = (name?: Name): Record<string, string> =>
    name === undefined ? {} : { authorization: `Bearer ${tokens[name]}` };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toonwire-fair-routes-'));
    file = join(dir, 'tokens');
    writeFileSync(file, `alice:${tokens.alice}\nbob:${tokens.bob}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A handshake session opened with plain HTTP (no GET stream): the headers of its requests. */
  async function handshake(url: string, name?: Name): Promise<Record<string, string>> {
    const opened = await post(url, INITIALIZE, bearer(name));
    assert.equal(opened.status, 200, JSON.stringify(opened.messages));
    const headers = {
      ...bearer(name),
      'mcp-session-id': opened.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-06-18',
    };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    return headers;
  }

  /** Calls `tool` in a handshake session. */
  function call(url: string, headers: Record<string, string>, tool: string, label: string) {
    return post(
      url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: { label } } },
      headers,
    );
  }

  /** Calls `tool` on the 2026-07-28 route, as `client` (a kind of client: its own session). */
  function modernCall(
    url: string,
    tool: string,
    label: string,
    name?: Name,
    client?: string,
  ): Promise<Posted> {
    const { body, headers } = modernRequest(
      3,
      'tools/call',
      { name: tool, arguments: { label } },
      client,
    );
    return post(url, body, { ...headers, ...bearer(name) });
  }

  const textOf = (answer: Posted) => answer.messages.at(-1)?.result?.content?.[0]?.text;

  it('one count for both routes: with every handshake session busy, a 2026-07-28 request is refused 503 with Retry-After, and no upstream starts', {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening(['--max-sessions', '2', '--', ...TEAM_UPSTREAM]);
    try {
      const first = await handshake(url);
      const second = await handshake(url);
      const calls = [call(url, first, 'hold', 'one'), call(url, second, 'hold', 'two')];
      await holding(proxy, 2);
      const refused = await modernCall(url, 'echo', 'modern');
      assert.equal(refused.status, 503, JSON.stringify(refused.messages));
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(
        String(refused.messages[0]?.error?.message),
        /Too many sessions: all 2 are busy/,
      );
      assert.equal(teamUpstreamPids(proxy).length, 2, proxy.stderr);
      release(proxy);
      const answers = await withinHangGuard(Promise.all(calls), 30_000, 'the held calls');
      assert.deepEqual(answers.map(textOf), ['one', 'two']);
      // Idle now: the 2026-07-28 request ends the session idle the longest and is served.
      const served = await modernCall(url, 'echo', 'modern');
      assert.equal(textOf(served), 'modern', JSON.stringify(served.messages));
      assert.match(proxy.stderr, /ended the session idle the longest, to stay within 2 sessions/);
      await started(proxy, 3);
      await runningUpstreams(proxy, 2);
    } finally {
      await stop(proxy);
    }
  });

  it("a caller at its share on the 2026-07-28 route gets 429 on the handshake route, and the other caller's session goes on", {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--max-sessions',
      '2',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    try {
      const bob = await handshake(url, 'bob');
      assert.equal(textOf(await call(url, bob, 'echo', 'bob-before')), 'bob-before');
      const held = modernCall(url, 'hold', 'alice-held', 'alice');
      await holding(proxy, 1);
      // Alice holds her share (1 of 2), busy: refused, bob's session is not ended.
      const refused = await post(url, INITIALIZE, bearer('alice'));
      assert.equal(refused.status, 429, JSON.stringify(refused.messages));
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(String(refused.messages[0]?.error?.message), /Too many sessions for alice/);
      // And on her route too, as another kind of client (a session of its own).
      const refusedModern = await modernCall(url, 'echo', 'alice-2', 'alice', 'claude-code');
      assert.equal(refusedModern.status, 429, JSON.stringify(refusedModern.messages));
      assert.equal(refusedModern.headers.get('retry-after'), '5');
      assert.equal(textOf(await call(url, bob, 'echo', 'bob-after')), 'bob-after');
      assert.equal(teamUpstreamPids(proxy).length, 2, proxy.stderr);
      release(proxy);
      assert.equal(textOf(await withinHangGuard(held, 30_000, 'the held call')), 'alice-held');
      assert.doesNotMatch(proxy.stderr, /ended a session of bob/);
    } finally {
      await stop(proxy);
    }
  });

  it("a caller flooding the 2026-07-28 route ends only its own session there, never the other caller's", {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--max-sessions',
      '2',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    try {
      assert.equal(textOf(await modernCall(url, 'echo', 'bob-1', 'bob')), 'bob-1');
      const [bobPid] = await started(proxy, 1);
      // Bob's session is now the one idle the longest; alice alternates two kinds of client,
      // each a session of its own.
      for (let index = 0; index < 6; index++) {
        const client = index % 2 === 0 ? 'modern-client' : 'claude-code';
        const answer = await modernCall(url, 'echo', `alice-${index}`, 'alice', client);
        assert.equal(textOf(answer), `alice-${index}`, JSON.stringify(answer.messages));
      }
      assert.ok(alive(bobPid!), "bob's upstream was stopped");
      assert.doesNotMatch(proxy.stderr, /ended a session of bob/);
      assert.match(proxy.stderr, /ended a session of alice/);
      assert.equal(textOf(await modernCall(url, 'echo', 'bob-2', 'bob')), 'bob-2');
      // Bob's second call reached the upstream his first did: no upstream started for it.
      assert.equal(teamUpstreamPids(proxy).at(0), bobPid);
      await runningUpstreams(proxy, 2);
    } finally {
      await stop(proxy);
    }
  });

  it("a caller flooding the handshake route cannot take the 2026-07-28 route's room: the proxy never holds more upstreams than --max-sessions", {
    timeout: hangGuardMs(60_000),
  }, async () => {
    const { proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--max-sessions',
      '3',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    try {
      assert.equal(textOf(await modernCall(url, 'echo', 'bob-1', 'bob')), 'bob-1');
      const [bobPid] = await started(proxy, 1);
      for (let index = 0; index < 8; index++) await handshake(url, 'alice');
      assert.ok(alive(bobPid!), "bob's upstream was stopped");
      assert.doesNotMatch(proxy.stderr, /ended a session of bob/);
      assert.equal(textOf(await modernCall(url, 'echo', 'bob-2', 'bob')), 'bob-2');
      await runningUpstreams(proxy, 3);
    } finally {
      await stop(proxy);
    }
  });
});
