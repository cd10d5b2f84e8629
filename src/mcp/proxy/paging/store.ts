// Where page continuations wait for `toonwire_more`: this process's memory (`PageCache`, the
// default) or Redis (`--page-store redis://…`, `redis-store.ts`), so that any replica behind a
// load balancer serves any cursor. And who the caller is, so a cursor serves only the caller it
// was given to.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { JsonValue } from '../../../codec/types.js';

/** How a pager turns a page's value into text and counts it. */
export interface PageEncoder {
  /** The text of a value (the picker's choice) and its strategy, for the `_meta` key. */
  encode(value: JsonValue): { text: string; strategy: string };
  /** Exact tokens of a text. */
  countTokens(text: string): number;
}

/** What a pager keeps between pages of one result. */
export interface Continuation {
  tool: string;
  value: JsonValue;
  list: { key: string | undefined; rows: JsonValue[] };
  budget: number;
  encoder: PageEncoder;
  /** The caller the first page went to (`--listen` with authentication); only they get more. */
  caller?: string;
}

/**
 * A store of continuations by id. Reads and writes may be asynchronous (a network store); a
 * store that cannot be reached rejects with {@link PageStoreUnavailable}.
 */
export interface PageStore {
  /** How messages name the store, e.g. `'memory'` or `'Redis at redis://10.0.0.5:6379'`. */
  readonly description: string;
  /** How long an entry lives after its last use, in ms. */
  readonly ttlMs: number;
  /** Keeps `entry` (about `bytes` bytes) under `id`. */
  put(id: string, entry: Continuation, bytes: number): void | Promise<void>;
  /** The entry, its life renewed; `undefined` when unknown, expired or evicted. */
  get(id: string): Continuation | undefined | Promise<Continuation | undefined>;
  /** Why the store cannot be used now, or `undefined` when it can (for `/readyz`). */
  unready(): Promise<string | undefined>;
  /** Entries and bytes held by this process (a shared store: written by this process). */
  readonly size: { entries: number; bytes: number };
  close(): Promise<void>;
}

/** The store could not be reached: the message names it and says what to do. */
export class PageStoreUnavailable extends Error {
  override readonly name = 'PageStoreUnavailable';
}

const callers = new AsyncLocalStorage<string>();

/**
 * Runs `work` as `caller`'s: pages first shipped in it are bound to `caller`, and a cursor is
 * served in it only when it was given to `caller`. Everything `work` starts (an upstream's
 * process, its answers) runs as `caller`'s too.
 *
 * @example
 * asCaller('alice', () => transport.handleRequest(request, response));
 */
export function asCaller<T>(caller: string, work: () => T): T {
  return callers.run(caller, work);
}

/**
 * The caller whose work this is, or `undefined` outside {@link asCaller} (stdio: one client).
 *
 * @example
 * asCaller('alice', () => currentCaller()); // 'alice'
 */
export function currentCaller(): string | undefined {
  return callers.getStore();
}
