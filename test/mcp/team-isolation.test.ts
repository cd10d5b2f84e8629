// The proxy as a team's gateway (issue 30): callers kept apart on the 2026-07-28 route, and a
// drain on SIGTERM. Every proxy is the built CLI, a real process, in front of a stdio upstream
// whose tools log and report progress.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withinHangGuard } from '../support/patience.js';
import {
  type LineProcess,
  modernRequest,
  type Posted,
  post,
  startListening,
  stopListening,
  TEAM_UPSTREAM,
} from './helpers.js';

/** The labels a message names: a log line's data, a progress message, a result's text. */
function labelsOf(message: Record<string, any>): string[] {
  if (message.method === 'notifications/message') return [String(message.params.data)];
  if (message.method === 'notifications/progress') return [String(message.params.message)];
  return (message.result?.content ?? []).map((part: { text: string }) => part.text);
}

/** Resolves once `pid` is no longer a process (polled: a process gone sends no event). */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    // wait-ok: polls the process table; a process exit of another process group has no event here
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once `proxy`'s stderr matches `pattern`. */
function stderrMatches(proxy: LineProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const match = pattern.exec(proxy.stderr);
      if (match === null) return false;
      proxy.child.stderr!.off('data', look);
      resolve(match);
      return true;
    };
    if (look()) return;
    proxy.child.stderr!.on('data', look);
    void proxy.exited.then(() => reject(new Error(`the proxy exited: ${proxy.stderr}`)));
  });
}

describe('toonwire proxy --listen: callers kept apart on the 2026-07-28 route', () => {
  it('two callers, 500 concurrent calls each of a tool that logs and reports progress: no message reaches the other caller', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonwire-team-'));
    const tokens = { alice: randomBytes(24).toString('hex'), bob: randomBytes(24).toString('hex') };
    const file = join(dir, 'tokens');
    writeFileSync(file, `alice:${tokens.alice}\nbob:${tokens.bob}\n`);
    const { proxy, url } = await startListening(['--auth-tokens', file, '--', ...TEAM_UPSTREAM]);
    try {
      const calls = (caller: 'alice' | 'bob') =>
        Array.from({ length: 500 }, (_, index) => {
          const label = `${caller}-${index}`;
          const { body, headers } = modernRequest(
            index, // both callers use the same ids and progress tokens
            'tools/call',
            { name: 'echo', arguments: { label }, _meta: { progressToken: index } },
          );
          return post(url, body, { ...headers, authorization: `Bearer ${tokens[caller]}` }).then(
            (answer) => ({ caller, label, answer }),
          );
        });
      const answers = await withinHangGuard(
        Promise.all([...calls('alice'), ...calls('bob')]),
        120_000,
        'answers to 1,000 calls',
      );
      let wrongCaller = 0;
      let logs = 0;
      let progress = 0;
      for (const { caller, label, answer } of answers as Array<{
        caller: string;
        label: string;
        answer: Posted;
      }>) {
        assert.equal(answer.status, 200);
        const last = answer.messages.at(-1)!;
        assert.deepEqual(labelsOf(last), [label], 'each answer is its own call');
        for (const message of answer.messages) {
          if (message.method === 'notifications/message') logs += 1;
          if (message.method === 'notifications/progress') {
            progress += 1;
            assert.equal(message.params.message, label, 'progress goes to its own call');
          }
          for (const named of labelsOf(message))
            if (!named.startsWith(`${caller}-`)) wrongCaller += 1;
        }
      }
      assert.equal(wrongCaller, 0);
      assert.equal(progress, 1000);
      // Log lines are related to a request of their caller's upstream; they must reach someone.
      assert.ok(logs > 0, 'log messages were delivered');
    } finally {
      const { code, stderr } = await stopListening(proxy);
      assert.equal(code, 0, stderr);
      // One upstream per caller.
      assert.equal(stderr.split('team-upstream: pid').length - 1, 2, stderr);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toonwire proxy --listen: drain on SIGTERM', () => {
  it('answers all 20 calls in flight when SIGTERM comes, then exits 0 with no upstream left', async () => {
    const { proxy, url } = await startListening(['--', ...TEAM_UPSTREAM]);
    const call = (index: number) => {
      const { body, headers } = modernRequest(index, 'tools/call', {
        name: 'hold',
        arguments: { label: `call-${index}` },
      });
      return post(url, body, headers);
    };
    const pending = Array.from({ length: 20 }, (_, index) => call(index));
    const [, pid] = await withinHangGuard(
      stderrMatches(proxy, /team-upstream: pid (\d+)/),
      30_000,
      'the upstream',
    );
    await withinHangGuard(stderrMatches(proxy, /holding 20\n/), 30_000, '20 calls held');
    proxy.child.kill('SIGTERM');
    await withinHangGuard(stderrMatches(proxy, /stopping: no new requests/), 30_000, 'the drain');
    // Only now may the upstream answer: the calls were in flight when SIGTERM came.
    process.kill(Number(pid), 'SIGUSR2');
    const answers = await withinHangGuard(Promise.all(pending), 30_000, 'the 20 answers');
    answers.forEach((answer, index) => {
      assert.equal(answer.status, 200);
      assert.deepEqual(labelsOf(answer.messages.at(-1)!), [`call-${index}`]);
    });
    const code = await withinHangGuard(proxy.exited, 30_000, 'the exit');
    assert.equal(code, 0, proxy.stderr);
    await withinHangGuard(gone(Number(pid)), 30_000, 'the upstream to end');
    assert.doesNotMatch(proxy.stderr, /still in flight/);
  });

  it('answers the calls still in flight when --drain-timeout runs out with an error, on both routes, then exits 0', async () => {
    const { proxy, url } = await startListening(['--drain-timeout', '0.2', '--', ...TEAM_UPSTREAM]);
    // A 2026-07-28 request, and a call in a session of the SDK's own client (the older route).
    const modern = modernRequest(1, 'tools/call', { name: 'hold', arguments: { label: 'modern' } });
    const modernAnswer = post(url, modern.body, modern.headers);
    const client = new Client({ name: 'drained', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const sessionAnswer = client.callTool({ name: 'hold', arguments: { label: 'session' } }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    // One upstream per route, each holding its call.
    await withinHangGuard(
      stderrMatches(proxy, /holding 1\n[\s\S]*holding 1\n/),
      30_000,
      'both calls held',
    );
    const pids = [...proxy.stderr.matchAll(/team-upstream: pid (\d+)/g)].map((m) => Number(m[1]));
    assert.equal(pids.length, 2, proxy.stderr);
    proxy.child.kill('SIGTERM');
    const [posted, sessionMessage] = await withinHangGuard(
      Promise.all([modernAnswer, sessionAnswer]),
      30_000,
      'the answers to the calls in flight',
    );
    assert.match(
      String(posted.messages.at(-1)?.error?.message),
      /the proxy is shutting down, so 'tools\/call hold' \(id 1\) got no answer/,
    );
    assert.match(sessionMessage, /-32000: toonwire proxy: the proxy is shutting down/);
    const code = await withinHangGuard(proxy.exited, 30_000, 'the exit');
    assert.equal(code, 0, proxy.stderr);
    assert.match(proxy.stderr, /still in flight after --drain-timeout 0.2 s are ended/);
    for (const pid of pids) await withinHangGuard(gone(pid), 30_000, 'the upstreams to end');
    await client.close();
  });
});
