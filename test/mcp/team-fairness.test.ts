// The proxy as a team's gateway: `--max-sessions` shared fairly between callers. A caller who
// opens sessions in a loop used to end the sessions idle the longest, which were the other
// callers': one caller denied service to all. Every proxy is the built CLI, a real process; the
// callers are the SDK's Client over Streamable HTTP with tokens from a tokens file.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type OpenSession, roomFor } from '../../src/mcp/proxy/serve/listen.js';
import type { ProxySession } from '../../src/mcp/proxy/session/session.js';
import { withinHangGuard } from '../support/patience.js';
import {
  INITIALIZE,
  type LineProcess,
  post,
  startListening,
  stopListening,
  TEAM_UPSTREAM,
  waitUntil,
} from './helpers.js';

type Name = 'alice' | 'bob';

describe('toonwire proxy --listen --max-sessions with callers', () => {
  let dir: string;
  let file: string;
  const tokens: Record<Name, string> = {
    alice: randomBytes(24).toString('hex'),
    bob: randomBytes(24).toString('hex'),
  };
  const bearer = (name: Name) => ({ authorization: `Bearer ${tokens[name]}` });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toonwire-fair-'));
    file = join(dir, 'tokens');
    writeFileSync(file, `alice:${tokens.alice}\nbob:${tokens.bob}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A connected SDK client of `name`. */
  async function clientOf(name: Name, url: string): Promise<Client> {
    const client = new Client({ name: `${name}-client`, version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(name) } }),
    );
    return client;
  }

  const echo = async (client: Client, label: string) =>
    (await client.callTool({ name: 'echo', arguments: { label } })).content;

  /** Releases every held call: SIGUSR2 to each upstream the proxy started. */
  function release(proxy: LineProcess): void {
    for (const [, pid] of proxy.stderr.matchAll(/team-upstream: pid (\d+)/g)) {
      try {
        process.kill(Number(pid), 'SIGUSR2');
      } catch {
        // that session's upstream has ended already
      }
    }
  }

  /** Stops the proxy, its held calls released first (a drain waits for them). */
  async function stop(proxy: LineProcess): Promise<void> {
    release(proxy);
    const { code, stderr } = await stopListening(proxy);
    assert.equal(code, 0, stderr);
  }

  /** A session opened with raw requests: a client that never opens a GET stream (idle between calls). */
  async function rawSession(url: string, name?: Name): Promise<string> {
    const auth = name === undefined ? {} : bearer(name);
    const opened = await post(url, INITIALIZE, auth);
    assert.equal(opened.status, 200, JSON.stringify(opened.messages));
    const id = opened.headers.get('mcp-session-id')!;
    const headers = { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    return id;
  }

  /** Calls echo in a raw session: the text, or the HTTP status when there was no answer. */
  async function rawEcho(url: string, id: string, label: string, name?: Name) {
    const auth = name === undefined ? {} : bearer(name);
    const headers = { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { label } },
    };
    const answer = await post(url, call, headers);
    return answer.status === 200
      ? answer.messages.at(-1)?.result?.content?.[0]?.text
      : answer.status;
  }

  it("a caller who opens sessions in a loop ends only its own: the other caller's idle session lives on", async () => {
    const { proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--max-sessions',
      '3',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    try {
      const bob = await rawSession(url, 'bob');
      assert.equal(await rawEcho(url, bob, 'bob-before', 'bob'), 'bob-before');
      // Bob's session is now the one idle the longest; alice floods the proxy.
      const flood: string[] = [];
      for (let index = 0; index < 10; index++) flood.push(await rawSession(url, 'alice'));
      assert.equal(await rawEcho(url, bob, 'bob-after', 'bob'), 'bob-after');
      // Alice's newest sessions work; her first ones were ended to make room for them.
      assert.equal(await rawEcho(url, flood.at(-1)!, 'alice-last', 'alice'), 'alice-last');
      assert.equal(await rawEcho(url, flood[0]!, 'alice-first', 'alice'), 404);
      assert.match(
        proxy.stderr,
        /ended a session of alice .*to keep alice within its share of 1 of the 3 sessions/,
      );
      assert.doesNotMatch(proxy.stderr, /ended a session of bob/);
    } finally {
      await stop(proxy);
    }
  });

  it('SDK clients (each holds a GET stream): the flooding caller gets 429 with Retry-After at its share, the other caller still gets sessions', async () => {
    const { proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--max-sessions',
      '4',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    const clients: Client[] = [];
    try {
      const bob = await clientOf('bob', url);
      clients.push(bob);
      const refusals: string[] = [];
      for (let index = 0; index < 6; index++)
        try {
          clients.push(await clientOf('alice', url));
        } catch (error) {
          refusals.push((error as Error).message);
        }
      // Alice got the 3 free sessions; at the bound her share is floor(4 / 2) = 2.
      assert.equal(refusals.length, 3, refusals.join('\n'));
      for (const message of refusals) assert.match(message, /Too many sessions for alice/);
      const refused = await post(url, INITIALIZE, bearer('alice'));
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.deepEqual(await echo(bob, 'bob-still'), [{ type: 'text', text: 'bob-still' }]);
      // Bob, under his share, gets a second session: alice's first, only listening, makes room.
      const bobAgain = await clientOf('bob', url);
      clients.push(bobAgain);
      assert.deepEqual(await echo(bobAgain, 'bob-again'), [{ type: 'text', text: 'bob-again' }]);
      assert.deepEqual(await echo(bob, 'bob-first'), [{ type: 'text', text: 'bob-first' }]);
      assert.match(proxy.stderr, /ended a session of alice/);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await stop(proxy);
    }
  });

  it('refuses a caller whose share is all busy with 429 and Retry-After, and never ends a call in flight', async () => {
    const { proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--max-sessions',
      '2',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    const clients: Client[] = [];
    try {
      const alice = await clientOf('alice', url);
      clients.push(alice);
      const held = alice.callTool({ name: 'hold', arguments: { label: 'held' } });
      held.catch(() => undefined);
      assert.equal(
        await waitUntil(() => /holding 1\n/.test(proxy.stderr), 30_000),
        true,
        proxy.stderr,
      );
      const bob = await clientOf('bob', url);
      clients.push(bob);
      // At the bound, alice holds her share (1 of 2), busy: she is refused, bob's stays.
      const refused = await post(url, INITIALIZE, bearer('alice'));
      assert.equal(refused.status, 429, JSON.stringify(refused.messages));
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.match(String(refused.messages[0]?.error?.message), /Too many sessions for alice/);
      assert.deepEqual(await echo(bob, 'bob-still'), [{ type: 'text', text: 'bob-still' }]);
      release(proxy);
      assert.deepEqual((await withinHangGuard(held, 30_000, 'the held call')).content, [
        { type: 'text', text: 'held' },
      ]);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await stop(proxy);
    }
  });

  it('without authentication one caller has every session, as before: the session idle the longest ends, else 503', async () => {
    const { proxy, url } = await startListening(['--max-sessions', '2', '--', ...TEAM_UPSTREAM]);
    const clients: Client[] = [];
    try {
      const sessions: string[] = [];
      for (let index = 0; index < 4; index++) sessions.push(await rawSession(url));
      assert.equal(await rawEcho(url, sessions[3]!, 'newest'), 'newest');
      assert.equal(await rawEcho(url, sessions[0]!, 'oldest'), 404);
      assert.match(
        proxy.stderr,
        /ended the session idle the longest, to stay within 2 sessions; its upstream is stopped/,
      );
      // SDK clients listen on a GET stream: never idle, so the third is refused with 503.
      for (let index = 0; index < 2; index++) {
        const client = new Client({ name: `anonymous-${index}`, version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        clients.push(client);
      }
      const refused = await post(url, INITIALIZE);
      assert.equal(refused.status, 503);
      assert.match(String(refused.messages[0]?.error?.message), /all 2 are busy/);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await stop(proxy);
    }
  });
});

describe('roomFor: which session makes room at the --max-sessions bound', () => {
  /** Open sessions from `[caller, idleMs, working]`, each session named `caller#index`. */
  const sessions = (...specs: Array<[string, number, boolean?]>): OpenSession[] =>
    specs.map(([caller, idleMs, working = false], index) => ({
      session: { name: `${caller}#${index}` } as unknown as ProxySession,
      caller,
      idleMs,
      working,
    }));
  const ended = (room: ReturnType<typeof roomFor>) =>
    room.kind === 'end' ? (room.session as unknown as { name: string }).name : room.kind;

  it('is free below the bound, whoever asks', () => {
    assert.equal(ended(roomFor(sessions(['alice', 10]), 'alice', 2)), 'free');
  });
  it('one caller: its session idle the longest, else busy (503), as without callers', () => {
    const open = sessions(['anonymous', 10], ['anonymous', 30], ['anonymous', -1]);
    assert.equal(ended(roomFor(open, 'anonymous', 3)), 'anonymous#1');
    assert.equal(
      ended(roomFor(sessions(['anonymous', -1], ['anonymous', -1]), 'anonymous', 2)),
      'busy',
    );
  });
  it("a caller at its share ends only its own, however idle the others' are; all busy: over-share (429)", () => {
    const open = sessions(['bob', 99_000], ['alice', 10], ['alice', 20], ['alice', -1]);
    assert.equal(ended(roomFor(open, 'alice', 4)), 'alice#2');
    const busy = sessions(['bob', 99_000], ['alice', -1, true], ['alice', -1]);
    assert.deepEqual(roomFor(busy, 'alice', 3), { kind: 'over-share', held: 2, callers: 2 });
  });
  it("a caller under its share ends an over-share caller's session: idle first, then only listening, never one working", () => {
    const idle = sessions(['alice', -1], ['alice', 5], ['alice', -1], ['bob', 50_000]);
    assert.equal(ended(roomFor(idle, 'carol', 4)), 'alice#1');
    const listening = sessions(['alice', -1, true], ['alice', -1], ['alice', -1], ['bob', 50_000]);
    assert.equal(ended(roomFor(listening, 'carol', 4)), 'alice#1');
    const working = sessions(['alice', -1, true], ['alice', -1, true], ['bob', -1], ['bob', -1]);
    assert.equal(ended(roomFor(working, 'bob', 4)), 'over-share');
    assert.equal(ended(roomFor(working, 'carol', 4)), 'bob#2');
    const allWorking = sessions(['alice', -1, true], ['alice', -1, true], ['bob', -1, true]);
    assert.equal(ended(roomFor(allWorking, 'carol', 3)), 'busy');
  });
  it('more callers than sessions: a share of 1 each; a newcomer ends nothing when each holds one', () => {
    const open = sessions(['a', 10], ['b', 20], ['c', 30]);
    assert.equal(ended(roomFor(open, 'd', 3)), 'busy');
    assert.equal(ended(roomFor(open, 'a', 3)), 'a#0');
  });
});
