// `--page-store redis://HOST:PORT`: page continuations in Redis, so that any replica behind a
// load balancer serves any cursor. The `redis` package is an optional peer dependency, loaded
// only here. Nothing waits on a Redis that is gone: the client keeps no offline queue, every
// command has a deadline, after a command that ran out of it every command fails at once until
// Redis answers again, and a rest that cannot be written stays in this process's memory until it
// can be (then it is written with the life it has left).

import type { JsonValue } from '../../../codec/types.js';
import { loadPeer } from '../transport/sdk.js';
import { PageCache } from './pages.js';
import {
  type Continuation,
  type PageEncoder,
  type PageStore,
  PageStoreUnavailable,
} from './store.js';

/** Options of {@link RedisPageStore.connect}. */
export interface RedisPageStoreOptions {
  /** `redis://HOST:PORT` (or `rediss://`, with user, password and database as Redis URLs have). */
  url: string;
  /** How long an entry lives after its last use, in ms. */
  ttlMs: number;
  /** The most bytes of entries this process keeps written; its least recently used are deleted beyond it. */
  maxBytes: number;
  /** The encoder of a tool's pages, for a rest another process cut. */
  encoderFor: (tool: string) => PageEncoder;
  /**
   * How long one command may take before the store counts as unreachable (default
   * {@link DEFAULT_COMMAND_TIMEOUT_MS}). After one ran out of it, commands fail at once until
   * Redis answers a PING again, so no call waits longer than this, and callers do not queue up
   * behind a Redis that holds the connection but does not answer.
   */
  commandTimeoutMs?: number;
  /** Where messages for humans go. */
  log?: (message: string) => void;
}

/** The JSON kept under a key. */
interface Stored {
  tool: string;
  value: JsonValue;
  key: string | null;
  budget: number;
  caller?: string;
}

const PREFIX = 'toonwire:page:';

/** How long a Redis command may take before the store counts as unreachable. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/** How long after a PING that got no answer the next one is sent, while Redis does not answer. */
const PROBE_INTERVAL_MS = 1000;

type Client = {
  connect(): Promise<unknown>;
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  getEx(key: string, options: { type: 'PX'; value: number }): Promise<string | null>;
  pExpire(key: string, ms: number): Promise<number>;
  del(key: string): Promise<unknown>;
  ping(): Promise<string>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  isReady: boolean;
};

/**
 * A {@link PageStore} in Redis. Keys expire `ttlMs` after their last use (`SET PX`, `GETEX PX`);
 * this process deletes the least recently used keys it wrote once they pass `maxBytes`. A write that fails
 * keeps the rest in memory (this replica still serves it); a read that fails rejects with
 * {@link PageStoreUnavailable}, naming the store.
 *
 * @example
 * const store = await RedisPageStore.connect({ url: 'redis://127.0.0.1:6379', ttlMs: 600_000, maxBytes: 64 * 2 ** 20, encoderFor });
 * const pager = new Pager(store);
 */
export class RedisPageStore implements PageStore {
  readonly description: string;
  readonly ttlMs: number;
  private readonly fallback: PageCache<Continuation>;
  /**
   * Rests this process wrote or read, parsed: a rest never changes under its id, so a later
   * page needs from Redis only that the key is still there (PEXPIRE, which renews it), not the
   * whole rest again (a 200,000-row rest is megabytes of JSON to fetch and parse per page).
   */
  private readonly recent: PageCache<Continuation>;
  /**
   * Keys this process wrote, least recently used first, with their sizes and when they expire in
   * Redis unless used again (as far as this process knows: another replica's use renews them
   * unseen).
   */
  private readonly written = new Map<string, { bytes: number; expires: number }>();
  private total = 0;
  /** The client's last error, until it is ready again: why commands fail "offline". */
  private lastError = '';
  /** Whether a rest has been kept in memory since the last one written to Redis. */
  private keepingLocally = false;
  /**
   * Since when Redis has held the connection without answering (a command ran out of its
   * deadline), until it answers a PING; meanwhile commands fail at once.
   */
  private stalled: { since: number; why: string } | undefined;
  /** The PING that asks whether a stalled Redis answers again, while one is out. */
  private probing: Promise<void> | undefined;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  /** The write of the rests kept in memory back to Redis, while it runs. */
  private writingBack: Promise<number> | undefined;
  private closed = false;

  private constructor(
    private readonly client: Client,
    private readonly options: RedisPageStoreOptions,
  ) {
    this.description = `Redis at ${redactedUrl(options.url)}`;
    this.ttlMs = options.ttlMs;
    this.fallback = new PageCache({ ttlMs: options.ttlMs, maxBytes: options.maxBytes });
    this.recent = new PageCache({ ttlMs: options.ttlMs, maxBytes: options.maxBytes });
    client.on('error', (error) => {
      // The client reconnects by itself; say once per distinct problem what it is.
      if (error.message === this.lastError) return;
      this.lastError = error.message;
      this.log(`toonwire proxy: page store ${this.description}: ${error.message}`);
    });
    client.on('ready', () => {
      this.lastError = '';
      // A new connection: nothing is queued behind a frozen command any more.
      this.stalled = undefined;
      void this.writeBack();
    });
  }

  /**
   * Loads `redis`, and connects to `options.url` (a Redis that is not there yet is not an
   * error: the client keeps trying, and `/readyz` says so).
   *
   * @throws {Error} when `redis` is not installed or the URL is not a Redis URL.
   */
  static async connect(options: RedisPageStoreOptions): Promise<RedisPageStore> {
    const url = new URL(options.url);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      throw new TypeError(
        `--page-store: expected redis://HOST:PORT, got ${JSON.stringify(options.url)}`,
      );
    const redis = await loadPeer(
      () => import('redis'),
      'redis',
      'A Redis page store (--page-store redis://…)',
    );
    const client = redis.createClient({
      url: options.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 2000,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000),
      },
    }) as unknown as Client;
    const store = new RedisPageStore(client, options);
    client.connect().catch(() => {
      // reported by the 'error' listener; the client retries
    });
    return store;
  }

  async put(id: string, entry: Continuation, bytes: number): Promise<void> {
    try {
      await this.write(id, entry, bytes, this.ttlMs);
    } catch (error) {
      // This replica can still serve the rest; another cannot, and says why. Said once per
      // outage: every long result of a busy proxy comes here while Redis is away.
      this.fallback.put(id, entry, bytes);
      if (!this.keepingLocally)
        this.log(
          `toonwire proxy: page store ${this.description}: rests are kept in this process's memory only until it can be written again (${this.reason(error)})`,
        );
      this.keepingLocally = true;
      return;
    }
    if (this.fallback.size.entries === 0) this.keepingLocally = false;
    else void this.writeBack();
  }

  /**
   * Writes `entry` to Redis to live `ttlMs`, then remembers it as written (and parsed, for the
   * pages this process serves), deleting the least recently used of those beyond `maxBytes`.
   */
  private async write(
    id: string,
    entry: Continuation,
    bytes: number,
    ttlMs: number,
  ): Promise<void> {
    const stored: Stored = {
      tool: entry.tool,
      value: entry.value,
      key: entry.list.key ?? null,
      budget: entry.budget,
      ...(entry.caller === undefined ? {} : { caller: entry.caller }),
    };
    await this.command(() => this.client.set(PREFIX + id, JSON.stringify(stored), { PX: ttlMs }));
    this.recent.put(id, entry, bytes);
    this.forgetExpired();
    this.written.set(id, { bytes, expires: Date.now() + ttlMs });
    this.total += bytes;
    for (const [oldest, { bytes: size }] of this.written) {
      if (this.total <= this.options.maxBytes || oldest === id) break;
      this.written.delete(oldest);
      this.total -= size;
      this.command(() => this.client.del(PREFIX + oldest)).catch(() => undefined);
    }
  }

  /**
   * Writes the rests kept in memory while Redis could not be reached back to Redis, each once,
   * with the life it has left (its last use renewed it, in memory), so that another replica
   * serves their next pages; resolves with how many were written. At most one runs at a time;
   * it stops at the first write that fails (the rest stay in memory for the next time Redis
   * answers). Bounded by `maxBytes`, as the rests in memory are.
   *
   * @example
   * await store.writeBack(); // 3, after an outage in which 3 long results were cut
   */
  writeBack(): Promise<number> {
    if (this.writingBack !== undefined) return this.writingBack;
    const run = async (): Promise<number> => {
      let count = 0;
      for (const { id, value, bytes } of this.fallback.live()) {
        if (this.closed || this.stalled !== undefined || !this.client.isReady) break;
        // Its life as of now: a page served from memory while this ran renewed it there.
        const left = this.fallback.lifeLeft(id);
        if (left === undefined) continue;
        try {
          await this.write(id, value, bytes, left);
        } catch {
          break;
        }
        this.fallback.delete(id);
        count += 1;
      }
      if (count > 0)
        this.log(
          `toonwire proxy: page store ${this.description}: wrote back ${count} rest(s) kept in this process's memory while it could not be reached; any replica serves their pages again`,
        );
      if (this.fallback.size.entries === 0) this.keepingLocally = false;
      return count;
    };
    const running = run().finally(() => {
      this.writingBack = undefined;
    });
    this.writingBack = running;
    return running;
  }

  async get(id: string): Promise<Continuation | undefined> {
    const local = this.fallback.get(id);
    if (local !== undefined) return local;
    const known = this.recent.get(id);
    let text: string | null = null;
    try {
      // Redis stays the truth: a rest it has dropped (expired, evicted, lost in a restart) is
      // gone here too, and a Redis that cannot be reached fails the read as before.
      if (known !== undefined) {
        const renewed = await this.command(() => this.client.pExpire(PREFIX + id, this.ttlMs));
        if (Number(renewed) !== 1) {
          this.recent.delete(id);
          return undefined;
        }
      } else
        text = await this.command(() =>
          this.client.getEx(PREFIX + id, { type: 'PX', value: this.ttlMs }),
        );
    } catch (error) {
      throw new PageStoreUnavailable(
        `toonwire proxy: the page store (${this.description}) cannot be reached (${this.reason(error)}), so the next page cannot be read. Call the original tool again: its first page is served without the store.`,
        { cause: error },
      );
    }
    this.renewWritten(id);
    if (known !== undefined) return known;
    if (text === null) return undefined;
    const continuation = this.parse(text);
    if (continuation !== undefined) this.recent.put(id, continuation, text.length);
    return continuation;
  }

  /** A key this process wrote was used: it expires later, and goes last (order of last use). */
  private renewWritten(id: string): void {
    const mine = this.written.get(id);
    if (mine !== undefined) {
      // Renewed by GETEX: it goes last, so the map stays in order of expiry (and of last use).
      this.written.delete(id);
      this.written.set(id, { bytes: mine.bytes, expires: Date.now() + this.ttlMs });
    }
  }

  /** The continuation of a stored rest's text, or `undefined` when it has no list to page. */
  private parse(text: string): Continuation | undefined {
    const stored = JSON.parse(text) as Stored;
    const key = stored.key ?? undefined;
    const rows =
      key === undefined ? stored.value : (stored.value as Record<string, JsonValue>)[key];
    if (!Array.isArray(rows)) return undefined;
    return {
      tool: stored.tool,
      value: stored.value,
      list: { key, rows },
      budget: stored.budget,
      encoder: this.options.encoderFor(stored.tool),
      ...(stored.caller === undefined ? {} : { caller: stored.caller }),
    };
  }

  async unready(): Promise<string | undefined> {
    try {
      await this.command(() => this.client.ping());
      return undefined;
    } catch (error) {
      return `page store ${this.description} unreachable: ${this.reason(error)}`;
    }
  }

  get size(): { entries: number; bytes: number } {
    this.forgetExpired();
    const local = this.fallback.size;
    return { entries: this.written.size + local.entries, bytes: this.total + local.bytes };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    try {
      if (this.client.isReady)
        await this.command(() => this.client.close?.() ?? this.client.quit!(), 1000);
      else this.client.destroy();
    } catch {
      this.client.destroy();
    }
  }

  /** Forgets the keys this process wrote that Redis has dropped by now (their TTL passed). */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [id, entry] of this.written) {
      if (entry.expires > now) break; // the rest expire later
      this.written.delete(id);
      this.total -= entry.bytes;
    }
  }

  /**
   * Why a command failed: the client refuses commands while it has no connection ("The client is
   * offline"), and the reason it has none is its last error (a refused connection, a wrong
   * password, a database index out of range).
   */
  private reason(error: unknown): string {
    const message = (error as Error).message;
    return this.lastError === '' || this.client.isReady ? message : `${message}: ${this.lastError}`;
  }

  /**
   * `run`'s command within the deadline. A client without a connection fails at once, and so
   * does every command while Redis is stalled (a command ran out of its deadline and no PING
   * has been answered since): callers do not queue up behind a frozen Redis.
   */
  private async command<T>(
    run: () => Promise<T>,
    timeoutMs = this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  ): Promise<T> {
    if (this.stalled !== undefined) {
      this.probe();
      throw new Error(
        `${this.stalled.why}, ${Math.round((Date.now() - this.stalled.since) / 1000)} s ago, and none since`,
      );
    }
    return withDeadline(run(), timeoutMs).catch((error: unknown) => {
      if (error instanceof CommandTimeout) this.stall(error.message);
      throw error;
    });
  }

  /** Redis held a command past its deadline: fail the next ones at once until it answers. */
  private stall(why: string): void {
    if (this.stalled !== undefined || this.closed) return;
    this.stalled = { since: Date.now(), why };
    this.log(
      `toonwire proxy: page store ${this.description}: ${why}; its commands fail at once until it answers a PING again`,
    );
    this.probe();
  }

  /** Sends one PING at a time while Redis is stalled; its answer ends the stall. */
  private probe(): void {
    if (this.probing !== undefined || this.probeTimer !== undefined || this.closed) return;
    const timeoutMs = this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.probing = withDeadline(this.client.ping(), timeoutMs).then(
      () => {
        this.probing = undefined;
        if (this.stalled === undefined) return;
        this.log(
          `toonwire proxy: page store ${this.description}: answers again after ${Date.now() - this.stalled.since + timeoutMs} ms without an answer`,
        );
        this.stalled = undefined;
        void this.writeBack();
      },
      () => {
        this.probing = undefined;
        if (this.stalled === undefined || this.closed) return;
        this.probeTimer = setTimeout(() => {
          this.probeTimer = undefined;
          this.probe();
        }, PROBE_INTERVAL_MS);
        this.probeTimer.unref();
      },
    );
  }

  private log(message: string): void {
    (this.options.log ?? ((text: string) => process.stderr.write(`${text}\n`)))(message);
  }
}

/** A command that got no answer within its deadline. */
class CommandTimeout extends Error {}

/** `pending`, or a {@link CommandTimeout} after `timeoutMs`. */
function withDeadline<T>(pending: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CommandTimeout(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  pending.catch(() => undefined);
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}

/** `url` without its password. */
function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href.replace(/\/$/, '');
}
