// The Redis page store (`--page-store redis://…`) through outages of a real redis-server: rests
// kept in a replica's memory while Redis was down are written back once it is up again (so the
// next page may go to any replica), and a Redis that holds the connection without answering
// (SIGSTOP) costs one command deadline, after which commands fail at once instead of queueing
// behind it, until it answers again (SIGCONT).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClient } from 'redis';
import { RedisPageStore } from '../../src/mcp/proxy/paging/redis-store.js';
import type { Continuation, PageEncoder } from '../../src/mcp/proxy/paging/store.js';
import { waitUntil } from './helpers.js';
import { commandCalls, skipWithoutRedis as skip, startRedis } from './redis-server.js';

const encoder: PageEncoder = {
  encode: (value) => ({ text: JSON.stringify(value), strategy: 'json' }),
  countTokens: (text) => text.length,
};

const rest = (rows: number, caller?: string): Continuation => {
  const value = Array.from({ length: rows }, (_, index) => ({ id: index }));
  return {
    tool: 'rows',
    value,
    list: { key: undefined, rows: value },
    budget: 100,
    encoder,
    ...(caller === undefined ? {} : { caller }),
  };
};

const TTL_MS = 60_000;

/** A store (a replica) of `url` whose log lines are kept, once its client is ready. */
async function replicaOf(url: string, commandTimeoutMs?: number) {
  const lines: string[] = [];
  const store = await RedisPageStore.connect({
    url,
    ttlMs: TTL_MS,
    maxBytes: 2 ** 24,
    encoderFor: () => encoder,
    log: (line) => lines.push(line),
    ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
  });
  assert.equal(await answers(store), true, `the store of ${url} connects`);
  return { store, lines };
}

/** Whether `store` answers (its /readyz reason is gone) within a scaled hang guard. */
async function answers(store: RedisPageStore): Promise<boolean> {
  let why: string | undefined = 'not asked yet';
  let asking = false;
  return waitUntil(() => {
    if (!asking) {
      asking = true;
      void store.unready().then((reason) => {
        why = reason;
        asking = false;
      });
    }
    return why === undefined;
  }, 30_000);
}

describe('the Redis page store through outages', { skip }, () => {
  it('writes the rests it kept in memory while Redis was down back to Redis once it is up, with the life they had left', async () => {
    let redis = await startRedis();
    const writer = await replicaOf(redis.url);
    const reader = await replicaOf(redis.url);
    try {
      await redis.stop();
      let down = false;
      assert.equal(
        await waitUntil(() => {
          void writer.store.unready().then((reason) => (down = reason !== undefined));
          return down;
        }, 30_000),
        true,
      );
      // Two long results cut during the outage: their rests stay in the writer's memory.
      await writer.store.put('kept-1', rest(2000, 'alice'), 40_000);
      await writer.store.put('kept-2', rest(10, 'bob'), 200);
      // kept-2's life began before this (and is not renewed: nothing reads it until asked).
      const putAt = Date.now();
      assert.equal((await writer.store.get('kept-1'))?.list.rows.length, 2000, 'served locally');
      await assert.rejects(reader.store.get('kept-1'), { name: 'PageStoreUnavailable' });
      assert.equal(
        writer.lines.filter((line) => line.includes("kept in this process's memory")).length,
        1,
      );

      // wait-ok: the rests must age measurably in memory, to tell the life they had left from a new one
      await new Promise((resolve) => setTimeout(resolve, 500));
      redis = await startRedis([], redis.port);
      // Once Redis is back, the other replica serves the next page of each.
      let seen: Continuation | undefined;
      const served = await waitUntil(() => {
        reader.store.get('kept-1').then(
          (found) => (seen = found ?? seen),
          () => undefined,
        );
        return seen !== undefined;
      }, 30_000);
      assert.equal(served, true, `the rest reached Redis: ${writer.lines.join('\n')}`);
      assert.deepEqual(seen!.list.rows, rest(2000).list.rows);
      assert.equal(seen!.caller, 'alice', 'still bound to its caller');
      assert.equal(
        await waitUntil(() => writer.lines.some((line) => /wrote back 2 rest/.test(line)), 30_000),
        true,
        writer.lines.join('\n'),
      );
      // With the life it had left, not a new one (asked before a replica's read renews it).
      const watcher = createClient({ url: redis.url });
      await watcher.connect();
      try {
        const before = Date.now();
        const left = await watcher.pTTL('toonwire:page:kept-2');
        // 10 ms: the two processes' clocks are read at different moments, to the millisecond.
        assert.ok(
          left > 0 && left <= TTL_MS - (before - putAt) + 10,
          `PTTL ${left}, ${before - putAt} ms after the write`,
        );
      } finally {
        await watcher.close();
      }
      assert.equal((await reader.store.get('kept-2'))?.caller, 'bob');
      assert.equal((await writer.store.get('kept-1'))?.list.rows.length, 2000);
    } finally {
      await writer.store.close();
      await reader.store.close();
      await redis.stop();
    }
  });

  it('a frozen Redis (SIGSTOP) costs one command deadline: later commands fail at once, sending nothing, until it answers again (SIGCONT)', async () => {
    const redis = await startRedis();
    // 2 s: a deadline a busy machine's Redis meets; the default is 5 s.
    const writer = await replicaOf(redis.url, 2000);
    const reader = await replicaOf(redis.url, 2000);
    const watcher = createClient({ url: redis.url });
    await watcher.connect();
    const calls = (command: string) => commandCalls(watcher, command);
    let frozen = false;
    try {
      await watcher.configResetStat();
      redis.child.kill('SIGSTOP');
      frozen = true;
      // The first command waits out its deadline ...
      await assert.rejects(reader.store.get('some-cursor'), {
        name: 'PageStoreUnavailable',
        message: /no answer within 2000 ms/,
      });
      // ... then 50 callers at once fail at once, and a long result keeps its rest in memory.
      const many = await Promise.allSettled(
        Array.from({ length: 50 }, (_, index) => reader.store.get(`cursor-${index}`)),
      );
      for (const outcome of many) {
        assert.equal(outcome.status, 'rejected');
        assert.match(
          String((outcome as PromiseRejectedResult).reason.message),
          /no answer within 2000 ms, \d+ s ago, and none since/,
        );
      }
      await writer.store.put('during', rest(100, 'alice'), 2000);
      assert.match((await reader.store.unready()) ?? 'ready', /unreachable: no answer/);
      assert.equal(
        reader.lines.filter((line) => /fail at once until it answers a PING again/.test(line))
          .length,
        1,
        reader.lines.join('\n'),
      );

      redis.child.kill('SIGCONT');
      frozen = false;
      assert.equal(await answers(reader.store), true, reader.lines.join('\n'));
      assert.equal(await answers(writer.store), true, writer.lines.join('\n'));
      // Only the commands sent before the stall was known reached Redis: the first GETEX (and
      // the writer's first SET), none of the 50.
      assert.equal(await calls('getex'), 1);
      // The rest cut while Redis was frozen reaches it (its SET, late, or written back), and
      // the other replica serves it.
      let seen: Continuation | undefined;
      assert.equal(
        await waitUntil(() => {
          reader.store.get('during').then(
            (found) => (seen = found ?? seen),
            () => undefined,
          );
          return seen !== undefined;
        }, 30_000),
        true,
        writer.lines.join('\n'),
      );
      assert.equal(seen!.list.rows.length, 100);
      assert.ok(
        reader.lines.some((line) => /answers again after \d+ ms without an answer/.test(line)),
      );
    } finally {
      if (frozen) redis.child.kill('SIGCONT');
      await watcher.close();
      await writer.store.close();
      await reader.store.close();
      await redis.stop();
    }
  });
});
