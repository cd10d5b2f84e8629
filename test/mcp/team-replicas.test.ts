// The proxy as a team's gateway (issue 30): replicas. Two proxy processes keep page rests in a
// real Redis (Debian's redis-server, started here on a free port) behind a round-robin relay
// written here (no stickiness), on the 2026-07-28 route: a 20,000-row result paged across both
// reassembles exactly, a replica killed mid-paging leaves the other to serve the rest, a
// Redis stopped mid-paging gives a clear error without a hang while other calls go on, and a
// result cut while Redis was down pages on from the other replica once Redis is back.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCompact } from '../../src/index.js';
import { withinHangGuard } from '../support/patience.js';
import {
  type LineProcess,
  modernRequest,
  post,
  startListening,
  stopListening,
  TEAM_UPSTREAM,
  waitUntil,
} from './helpers.js';
import { skipWithoutRedis as skip, startRedis } from './redis-server.js';

const ROWS = 20_000;
/** The rows team-upstream's `rows` tool returns. */
const expectedRows = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `row-${index + 1}`,
    status: index % 3 === 0 ? 'open' : 'closed',
  }));

/**
 * A round-robin relay in front of `backends`: each request goes to the next one, no stickiness;
 * a backend that refuses the connection is skipped (as a load balancer's health check would).
 */
async function startRelay(backends: string[]): Promise<{
  url: string;
  served: number[];
  server: Server;
}> {
  let next = 0;
  const served = backends.map(() => 0);
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const attempt = (tries: number): void => {
      const index = next++ % backends.length;
      const target = new URL(backends[index]!);
      const forward = httpRequest(
        target,
        { method: request.method, headers: { ...request.headers, host: target.host } },
        (answer) => {
          served[index]! += 1;
          response.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', () => {
        if (tries + 1 < backends.length) attempt(tries + 1);
        else response.writeHead(502).end();
      });
      forward.end(body);
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, served, server };
}

interface Page {
  rows: unknown[];
  cursor: string | undefined;
  error: string | undefined;
}

/** Calls a tool on the 2026-07-28 route and reads the page (or error) it answers. */
async function callTool(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<Page> {
  const { body, headers } = modernRequest(1, 'tools/call', { name, arguments: args });
  const answer = await post(url, body, { ...headers, authorization: `Bearer ${token}` });
  assert.equal(answer.status, 200, JSON.stringify(answer.messages));
  const result = answer.messages.at(-1)!.result;
  if (result.isError) return { rows: [], cursor: undefined, error: result.content[0].text };
  const strategy = result._meta?.['toonwire/encodingStrategy'] ?? 'json';
  const value = parseCompact(result.content[0].text, strategy) as unknown;
  const rows = Array.isArray(value) ? value : [];
  const cursor = result._meta?.['toonwire/page']?.nextCursor as string | undefined;
  return { rows, cursor, error: undefined };
}

describe('toonwire proxy replicas with --page-store redis://', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonwire-team-'));
  const tokens = { alice: randomBytes(24).toString('hex'), bob: randomBytes(24).toString('hex') };
  const file = join(dir, 'tokens');
  writeFileSync(file, `alice:${tokens.alice}\nbob:${tokens.bob}\n`);
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let proxies: Array<{ proxy: LineProcess; url: string }> = [];
  let relay: Awaited<ReturnType<typeof startRelay>>;

  const startReplicas = async () => {
    proxies = await Promise.all(
      [0, 1].map(() =>
        startListening([
          '--auth-tokens',
          file,
          '--max-tokens',
          '8000',
          '--page-store',
          redis.url,
          '--',
          ...TEAM_UPSTREAM,
        ]),
      ),
    );
    relay = await startRelay(proxies.map(({ url }) => url));
  };
  const stopReplicas = async () => {
    relay?.server.closeAllConnections();
    await new Promise((resolve) => relay?.server.close(resolve));
    for (const { proxy } of proxies) {
      if (proxy.child.exitCode !== null || proxy.child.signalCode !== null) continue;
      const { code, stderr } = await stopListening(proxy);
      assert.equal(code, 0, stderr);
    }
  };

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pages a 20,000-row result across both replicas; it reassembles exactly; another caller cannot use the cursor', async () => {
    await startReplicas();
    try {
      let page = await callTool(relay.url, tokens.alice, 'rows', { count: ROWS });
      const rows = [...page.rows];
      assert.ok(page.cursor !== undefined, 'the result is paged');
      const stolen = await callTool(relay.url, tokens.bob, 'toonwire_more', {
        cursor: page.cursor,
      });
      assert.match(stolen.error ?? '', /expired or is unknown/);
      let pages = 1;
      while (page.cursor !== undefined) {
        page = await callTool(relay.url, tokens.alice, 'toonwire_more', { cursor: page.cursor });
        assert.equal(page.error, undefined);
        rows.push(...page.rows);
        pages += 1;
      }
      assert.ok(pages > 4, `${pages} pages`);
      assert.deepEqual(rows, expectedRows(ROWS));
      assert.ok(
        relay.served.every((count) => count >= 2),
        `both replicas served pages: ${relay.served}`,
      );
    } finally {
      await stopReplicas();
    }
  });

  it('serves the rest from the other replica when one is killed mid-paging', async () => {
    await startReplicas();
    try {
      let page = await callTool(relay.url, tokens.alice, 'rows', { count: ROWS });
      const rows = [...page.rows];
      page = await callTool(relay.url, tokens.alice, 'toonwire_more', { cursor: page.cursor });
      rows.push(...page.rows);
      const victim = proxies[0]!.proxy;
      victim.child.kill('SIGKILL');
      await victim.exited;
      while (page.cursor !== undefined) {
        page = await callTool(relay.url, tokens.alice, 'toonwire_more', { cursor: page.cursor });
        assert.equal(page.error, undefined);
        rows.push(...page.rows);
      }
      assert.deepEqual(rows, expectedRows(ROWS));
    } finally {
      await stopReplicas();
    }
  });

  it('answers toonwire_more with an error naming the store when Redis stops mid-paging, without a hang, and goes on serving', async () => {
    await startReplicas();
    try {
      const first = await callTool(relay.url, tokens.alice, 'rows', { count: ROWS });
      assert.ok(first.cursor !== undefined);
      assert.equal((await fetch(new URL('/readyz', proxies[0]!.url))).status, 200);
      await redis.stop();
      for (let attempt = 0; attempt < 2; attempt++) {
        const more = await withinHangGuard(
          callTool(relay.url, tokens.alice, 'toonwire_more', { cursor: first.cursor }),
          30_000,
          'the answer to toonwire_more without Redis',
        );
        assert.match(
          more.error ?? '',
          /page store \(Redis at redis:\/\/127\.0\.0\.1:\d+\) cannot be reached/,
        );
      }
      const ready = await fetch(new URL('/readyz', proxies[0]!.url));
      assert.equal(ready.status, 503);
      assert.match(
        await ready.text(),
        /page store Redis at redis:\/\/127\.0\.0\.1:\d+ unreachable/,
      );
      const small = await withinHangGuard(
        callTool(relay.url, tokens.alice, 'rows', { count: 5 }),
        30_000,
        'an unpaged call without Redis',
      );
      assert.deepEqual(small.rows, expectedRows(5));
      // A long result still ships its first page.
      const paged = await withinHangGuard(
        callTool(relay.url, tokens.alice, 'rows', { count: ROWS }),
        30_000,
        'a paged call without Redis',
      );
      assert.deepEqual(paged.rows, expectedRows(paged.rows.length));
      assert.ok(paged.rows.length > 0 && paged.cursor !== undefined);
    } finally {
      await stopReplicas();
      redis = await startRedis();
    }
  });

  it('pages a result cut while Redis was down from the other replica once Redis is back (the rest is written back)', async () => {
    await startReplicas();
    try {
      const [cutter, other] = proxies as [(typeof proxies)[0], (typeof proxies)[0]];
      await redis.stop();
      assert.equal(
        await waitUntil(() => /ECONNREFUSED/.test(cutter.proxy.stderr), 30_000),
        true,
        cutter.proxy.stderr,
      );
      let page = await callTool(cutter.url, tokens.alice, 'rows', { count: ROWS });
      const rows = [...page.rows];
      assert.ok(page.cursor !== undefined, 'the first page ships without Redis');
      assert.match(cutter.proxy.stderr, /kept in this process's memory/);
      redis = await startRedis([], redis.port);
      assert.equal(
        await waitUntil(() => /wrote back 1 rest/.test(cutter.proxy.stderr), 30_000),
        true,
        cutter.proxy.stderr,
      );
      // The other replica is ready again (its client reconnected).
      let status = 0;
      assert.equal(
        await waitUntil(() => {
          void fetch(new URL('/readyz', other.url)).then((answer) => (status = answer.status));
          return status === 200;
        }, 30_000),
        true,
      );
      // Every next page from the replica that did not cut it.
      while (page.cursor !== undefined) {
        page = await withinHangGuard(
          callTool(other.url, tokens.alice, 'toonwire_more', { cursor: page.cursor }),
          30_000,
          'a page from the other replica',
        );
        assert.equal(page.error, undefined, other.proxy.stderr);
        rows.push(...page.rows);
      }
      assert.deepEqual(rows, expectedRows(ROWS));
    } finally {
      await stopReplicas();
    }
  });
});
