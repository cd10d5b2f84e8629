// ProxySession between in-memory transports: the proxy's core without processes.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ProblemLog } from '../../src/mcp/proxy/telemetry/problem-log.js';
import {
  createResultPipeline,
  JsonLineTransport,
  ProxySession,
  type ProxySessionEnd,
  ProxyStats,
} from '../../src/mcp/proxy.js';
import { hangGuardMs } from '../support/patience.js';

/** Sleeps `ms`, or less when the request is aborted (the session ended), so no timer outlives a test. */
// wait-ok: the test server's work, which takes this long on purpose
const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => {});

/** An upstream whose `work` tool takes `ms`, reporting progress every `every` ms when asked. */
function slowServer(): McpServer {
  const server = new McpServer({ name: 'slow', version: '1.0.0' });
  server.registerTool(
    'work',
    { inputSchema: { ms: z.number(), every: z.number().optional() } },
    async ({ ms, every }, extra) => {
      const token = extra._meta?.progressToken;
      for (let elapsed = 0; elapsed < ms; elapsed += every ?? ms) {
        await sleep(every ?? ms, extra.signal);
        if (extra.signal.aborted) break;
        if (every !== undefined && token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: elapsed },
          });
        }
      }
      return {
        content: [
          {
            type: 'text',
            // Enough rows for TOON to win: the picker keeps JSON for the smallest lists.
            text: JSON.stringify({
              items: Array.from({ length: 8 }, (_, i) => ({ a: 2 * i + 1, b: 2 * i + 2 })),
            }),
          },
        ],
      };
    },
  );
  return server;
}

async function proxied(
  timeoutMs: number,
  stats?: ProxyStats,
): Promise<{ client: Client; session: ProxySession; logs: string[] }> {
  const [clientSide, proxyDownstream] = InMemoryTransport.createLinkedPair();
  const [proxyUpstream, serverSide] = InMemoryTransport.createLinkedPair();
  await slowServer().connect(serverSide);
  const logs: string[] = [];
  const session = new ProxySession(proxyDownstream, proxyUpstream, {
    pipeline: await createResultPipeline({ stats }, () => {}),
    timeoutMs,
    log: (message) => logs.push(message),
  });
  await session.start();
  const client = new Client({ name: 'client', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, session, logs };
}

/**
 * A session whose client side is stdio framing over in-memory streams: the client writes
 * `messages` and ends its input at once. `answers()` parses what the session wrote back.
 */
async function stdioClientEnds(
  timeoutMs: number,
  messages: readonly object[],
): Promise<{ session: ProxySession; answers: () => Answer[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const [proxyUpstream, serverSide] = InMemoryTransport.createLinkedPair();
  await slowServer().connect(serverSide);
  const session = new ProxySession(new JsonLineTransport({ input, output }), proxyUpstream, {
    pipeline: await createResultPipeline({}, () => {}),
    // No initialize comes first here, so the calls are also the first the upstream hears of.
    timeoutMs,
    initTimeoutMs: timeoutMs,
    log: () => {},
  });
  await session.start();
  input.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  const answers = () =>
    written
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Answer);
  return { session, answers };
}

type Answer = { id: number; result?: { _meta?: object }; error?: { code: number } };

describe('ProxySession', () => {
  it('compacts results between any two SDK transports and records stats', async () => {
    const stats = new ProxyStats();
    const { client, session } = await proxied(0, stats);
    const result = (await client.callTool({ name: 'work', arguments: { ms: 1 } })) as {
      _meta?: Record<string, unknown>;
    };
    assert.equal(result._meta?.['toonwire/encodingStrategy'], 'toon');
    assert.equal(stats.snapshot().work?.compacted, 1);
    await client.close();
    assert.deepEqual(await session.ended, { reason: 'client-closed' } satisfies ProxySessionEnd);
  });

  it('lets a request that reports progress run past the timeout', async () => {
    const limit = hangGuardMs(1000); // the proxy's timeout: progress every 30 ms keeps it off
    const { client, session } = await proxied(limit);
    const result = await client.callTool(
      { name: 'work', arguments: { ms: limit * 1.5, every: 30 } },
      undefined,
      { onprogress: () => {}, timeout: hangGuardMs(10_000) },
    );
    assert.equal(result.isError, undefined);
    await client.close();
    assert.equal((await session.ended).reason, 'client-closed');
  });

  it('ends with upstream-failed and a timeout error when a request goes quiet past the timeout', async () => {
    const { client, session, logs } = await proxied(300);
    const error = await client
      .callTool({ name: 'work', arguments: { ms: 5000 } }, undefined, {
        timeout: hangGuardMs(10_000),
      })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof McpError);
    assert.equal(error.code, -32001);
    const end = await session.ended;
    assert.equal(end.reason, 'upstream-failed');
    assert.match(end.message!, /did not answer 'tools\/call work' \(id \d+\) within 300 ms/);
    assert.deepEqual(logs, [`toonwire proxy: ${end.message}`]);
  });

  it('ends with closed when closed from outside', async () => {
    const { session } = await proxied(0);
    await session.close();
    assert.deepEqual(await session.ended, { reason: 'closed' });
  });

  it('answers what a stdio client asked before it ended its input, then ends (MCP stdio shutdown)', async () => {
    const { session, answers } = await stdioClientEnds(hangGuardMs(10_000), [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'work', arguments: { ms: 300 } },
      },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    assert.deepEqual(await session.ended, { reason: 'client-closed' });
    const answered = answers();
    assert.deepEqual(answered.map((answer) => answer.id).sort(), [1, 2]);
    const work = answered.find((answer) => answer.id === 1);
    assert.deepEqual(work?.result?._meta, { 'toonwire/encodingStrategy': 'toon' });
  });

  it('answers with an error what a stdio client asked before it ended its input when the upstream then hangs', async () => {
    const { session, answers } = await stdioClientEnds(200, [
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'work', arguments: { ms: 5000 } },
      },
    ]);
    assert.equal((await session.ended).reason, 'upstream-failed');
    const [answer] = answers();
    assert.equal(answer?.id, 7);
    assert.equal(answer?.error?.code, -32001);
  });

  it('learns input schemas from tools/list: a read verb with a path argument is passed through', async () => {
    const notes = JSON.stringify(
      Array.from({ length: 8 }, (_, i) => ({ id: i, title: `note ${i}`, done: i % 2 === 0 })),
      null,
      2,
    );
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool('open_note', { inputSchema: { path: z.string() } }, async () => ({
      content: [{ type: 'text', text: notes }],
    }));
    server.registerTool('list_notes', {}, async () => ({
      content: [{ type: 'text', text: notes }],
    }));
    const [clientSide, proxyDownstream] = InMemoryTransport.createLinkedPair();
    const [proxyUpstream, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const stats = new ProxyStats();
    const session = new ProxySession(proxyDownstream, proxyUpstream, {
      pipeline: await createResultPipeline({ stats }),
    });
    await session.start();
    const client = new Client({ name: 'client', version: '1.0.0' });
    await client.connect(clientSide);
    await client.listTools();
    type Text = { content: Array<{ text: string }>; _meta?: Record<string, unknown> };
    const opened = (await client.callTool({
      name: 'open_note',
      arguments: { path: 'a.json' },
    })) as Text;
    assert.equal(opened.content[0]!.text, notes);
    const listed = (await client.callTool({ name: 'list_notes' })) as Text;
    assert.equal(listed._meta?.['toonwire/encodingStrategy'], 'toon');
    assert.deepEqual(stats.snapshot().open_note?.verbatim, { content: 1 });
    await client.close();
    await session.ended;
  });
});

describe('ProblemLog: one line per problem', () => {
  it('logs each distinct problem once, then how often it recurred', () => {
    const lines: string[] = [];
    const problems = new ProblemLog((line) => lines.push(line));
    const dump = `toonwire proxy: the upstream reported: [\n  {\n    "code": "invalid_union"\n  }\n]`;
    for (let i = 0; i < 140; i++) problems.report(dump);
    problems.report('toonwire proxy: skipped a line that is not JSON: "Starting"');
    assert.deepEqual(lines, [
      'toonwire proxy: the upstream reported: [ { "code": "invalid_union" } ]',
      'toonwire proxy: skipped a line that is not JSON: "Starting"',
    ]);
    problems.flush();
    assert.equal(
      lines[2],
      'toonwire proxy: 139 more times: the upstream reported: [ { "code": "invalid_union" } ]',
    );
    assert.equal(lines.length, 3);
  });

  it('logs every occurrence in full when verbose', () => {
    const lines: string[] = [];
    const problems = new ProblemLog((line) => lines.push(line), true);
    problems.report('a\nb');
    problems.report('a\nb');
    problems.flush();
    assert.deepEqual(lines, ['a\nb', 'a\nb']);
  });
});
