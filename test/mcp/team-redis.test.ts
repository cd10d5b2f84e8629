// The Redis page store (`--page-store redis://…`) against a real redis-server, in process: what
// its size reports once Redis has dropped expired rests (the page cache gauges of --metrics),
// why a store it cannot use is unusable (/readyz and toonwire_more quote it: a refused
// connection, a wrong password, a database index out of range, not just "offline"), and one log
// line per outage, not one per long result.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { PageCache } from '../../src/mcp/proxy/paging/pages.js';
import { RedisPageStore } from '../../src/mcp/proxy/paging/redis-store.js';
import type { Continuation, PageEncoder } from '../../src/mcp/proxy/paging/store.js';
import { waitUntil } from './helpers.js';
import { commandCalls, freePort, skipWithoutRedis as skip, startRedis } from './redis-server.js';

const encoder: PageEncoder = {
  encode: (value) => ({ text: JSON.stringify(value), strategy: 'json' }),
  countTokens: (text) => text.length,
};

const rest = (rows: number): Continuation => {
  const value = Array.from({ length: rows }, (_, index) => ({ id: index }));
  return { tool: 'rows', value, list: { key: undefined, rows: value }, budget: 100, encoder };
};

/**
 * A store of `url` whose log lines are kept; with `connected`, once its client is ready
 * (`RedisPageStore.connect` does not wait for it, so that a proxy starts while Redis is away: a
 * write before then is kept in memory, "The client is offline").
 */
async function storeOf(url: string, ttlMs = 60_000, connected = true) {
  const lines: string[] = [];
  const store = await RedisPageStore.connect({
    url,
    ttlMs,
    maxBytes: 2 ** 20,
    encoderFor: () => encoder,
    log: (line) => lines.push(line),
  });
  if (connected) {
    let why: string | undefined = 'not asked yet';
    const ready = await waitUntil(() => {
      void store.unready().then((reason) => (why = reason));
      return why === undefined;
    }, 20_000);
    assert.equal(ready, true, `the store of ${url} connects: ${why}`);
  }
  return { store, lines };
}

describe('the in-memory page cache', () => {
  it('reports no entries once they have expired, though nothing was added since', () => {
    let now = 0;
    const cache = new PageCache<string>({ ttlMs: 1000, maxBytes: 100, now: () => now });
    cache.add('a', 10);
    cache.add('b', 20);
    assert.deepEqual(cache.size, { entries: 2, bytes: 30 });
    now = 1000;
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
  });
});

describe('the Redis page store', { skip }, () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  before(async () => {
    redis = await startRedis(['--requirepass', 'team-secret']);
  });
  after(async () => {
    await redis?.stop();
  });
  const url = (auth = 'team-secret', path = '') =>
    `redis://:${auth}@127.0.0.1:${redis.port}${path}`;

  it('counts only the rests Redis still holds: expired ones leave its size (the cache gauges)', async () => {
    // 5 s: long enough for the checks before it passes on a busy machine.
    const { store } = await storeOf(url('team-secret', '/3'), 5000);
    const watcher = createClient({ url: url('team-secret', '/3') });
    await watcher.connect();
    try {
      for (const id of ['first', 'second', 'third']) await store.put(id, rest(50), 1000);
      assert.equal(await watcher.exists('toonwire:page:first'), 1, 'written to database 3');
      assert.deepEqual(store.size, { entries: 3, bytes: 3000 });
      // Redis drops them 5 s after their last use; nothing here uses them.
      let remaining = -1;
      const gone = await waitUntil(() => {
        void watcher.dbSize().then((keys) => (remaining = keys));
        return remaining === 0;
      }, 30_000);
      assert.equal(gone, true, 'Redis expired the rests');
      assert.deepEqual(store.size, { entries: 0, bytes: 0 });
    } finally {
      await watcher.close();
      await store.close();
    }
  });
  it('fetches a rest from Redis once per process, then only renews it; a rest Redis dropped is gone everywhere', async () => {
    const writer = await storeOf(url());
    const reader = await storeOf(url());
    const watcher = createClient({ url: url() });
    await watcher.connect();
    const calls = (command: string) => commandCalls(watcher, command);
    try {
      await writer.store.put('big', rest(20_000), 400_000);
      await watcher.configResetStat();
      // Pages of one rest, served in turn by the replica that cut it and by another.
      for (let page = 0; page < 5; page++)
        for (const { store } of [reader, writer]) {
          const continuation = await store.get('big');
          assert.equal(continuation?.list.rows.length, 20_000);
          assert.deepEqual(continuation.list.rows[19_999], { id: 19_999 });
        }
      assert.equal(await calls('getex'), 1, 'only the other replica fetched it, once');
      assert.equal(await calls('pexpire'), 9, 'every other page renewed it');
      assert.ok((await watcher.pTTL('toonwire:page:big')) > 50_000, 'its life was renewed');
      await watcher.del('toonwire:page:big');
      assert.equal(await reader.store.get('big'), undefined);
      assert.equal(await writer.store.get('big'), undefined);
    } finally {
      await watcher.close();
      await writer.store.close();
      await reader.store.close();
    }
  });

  it('says why it cannot use Redis: a wrong password, a database index out of range, nothing listening', async () => {
    const nothing = `redis://127.0.0.1:${await freePort()}`;
    const cases: Array<[string, RegExp]> = [
      [url('wrong-secret'), /WRONGPASS/],
      [url('team-secret', '/99'), /DB index is out of range/],
      [nothing, /ECONNREFUSED/],
    ];
    for (const [given, why] of cases) {
      const { store, lines } = await storeOf(given, undefined, false);
      try {
        // The client reports its failure to connect once, on its own.
        assert.equal(await waitUntil(() => lines.some((line) => why.test(line)), 20_000), true);
        assert.match(
          (await store.unready()) ?? 'ready',
          new RegExp(`unreachable: .*${why.source}`),
        );
        await assert.rejects(store.get('some-cursor-id'), {
          name: 'PageStoreUnavailable',
          message: new RegExp(`cannot be reached \\(.*${why.source}.*\\)`),
        });
        assert.doesNotMatch(lines.join('\n'), /secret/, 'the password is never logged');
      } finally {
        await store.close();
      }
    }
  });

  it('keeps rests in memory while Redis is away, saying so once, not once per long result', async () => {
    const { store, lines } = await storeOf(url('wrong-secret'), undefined, false);
    try {
      assert.equal(await waitUntil(() => lines.length > 0, 20_000), true);
      for (let index = 0; index < 5; index++) await store.put(`kept-${index}`, rest(10), 100);
      const kept = lines.filter((line) => line.includes("kept in this process's memory"));
      assert.equal(kept.length, 1, lines.join('\n'));
      assert.match(kept[0]!, /WRONGPASS/);
      for (let index = 0; index < 5; index++)
        assert.equal((await store.get(`kept-${index}`))?.list.rows.length, 10);
    } finally {
      await store.close();
    }
  });
});
