// `--max-tokens N`: a result whose text is over N tokens ships as pages of whole rows of its main
// list, each within N tokens counted with the exact tokenizer. The rest waits in a bounded
// in-memory cache behind a cursor, and the proxy's own tool `toonwire_more` returns the next
// page. Concatenating the rows of every page gives the list exactly: paging never drops data.

import { randomBytes } from 'node:crypto';
import { isJsonObject, setOwn } from '../../../codec/objects.js';
import type { JsonObject, JsonValue } from '../../../codec/types.js';
import { DEFAULT_ENVELOPE } from '../../../compact/index.js';
import { DEFAULT_PAGE_CACHE_BYTES, DEFAULT_PAGE_TTL_MS } from '../../defaults.js';
import { type Continuation, currentCaller, type PageEncoder, type PageStore } from './store.js';

export type { Continuation, PageEncoder, PageStore };

/** The name of the tool the proxy adds for the next page. */
export const MORE_TOOL_NAME = 'toonwire_more';

/** The `_meta` key of a page: where it is in the list, and the cursor of the next page. */
export const PAGE_META_KEY = 'toonwire/page';

export { DEFAULT_PAGE_CACHE_BYTES, DEFAULT_PAGE_TTL_MS };

/** The `toonwire_more` tool as tools/list shows it. */
export const MORE_TOOL = {
  name: MORE_TOOL_NAME,
  title: 'Next page of a long tool result',
  description:
    'Returns the next rows of a tool result that the toonwire proxy split into pages to keep each within the token budget. Pass the cursor given in the note at the end of the previous page. A page has whole rows of the list; the rows of all pages together are the whole list, in order.',
  inputSchema: {
    type: 'object',
    properties: {
      cursor: { type: 'string', description: 'The cursor from the previous page, as given.' },
    },
    required: ['cursor'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
} as const;

/** The list a result is paged by: the root array, or the array under `key`. */
export interface MainList {
  /** `undefined` when the result itself is the array. */
  key: string | undefined;
  rows: JsonValue[];
}

/**
 * The main list of a result: the root array; else the array under the first of `items` and
 * `data` that holds one (the envelopes `project` knows); else the top-level array with the most
 * elements (the first of equals). `undefined` when there is no array to page.
 *
 * @example
 * mainList({ total: 2, items: [1, 2] }); // { key: 'items', rows: [1, 2] }
 * mainList({ columns: ['a'], rows: [[1], [2]] }); // { key: 'rows', rows: [[1], [2]] }
 */
export function mainList(value: JsonValue): MainList | undefined {
  if (Array.isArray(value)) return { key: undefined, rows: value };
  if (!isJsonObject(value)) return undefined;
  for (const key of DEFAULT_ENVELOPE) {
    const rows = Object.hasOwn(value, key) ? value[key] : undefined;
    if (Array.isArray(rows)) return { key, rows };
  }
  let best: MainList | undefined;
  for (const key of Object.keys(value)) {
    const rows = value[key];
    if (Array.isArray(rows) && (best === undefined || rows.length > best.rows.length))
      best = { key, rows };
  }
  return best;
}

/**
 * The value of the page holding rows `start` to `end` (exclusive). The first page keeps the
 * result's other fields, in their places; later pages have only the list.
 *
 * @example
 * pageValue({ total: 3, items: [1, 2, 3] }, { key: 'items', rows: [1, 2, 3] }, 0, 2); // { total: 3, items: [1, 2] }
 * pageValue({ total: 3, items: [1, 2, 3] }, { key: 'items', rows: [1, 2, 3] }, 2, 3); // { items: [3] }
 */
export function pageValue(value: JsonValue, list: MainList, start: number, end: number): JsonValue {
  const rows = list.rows.slice(start, end);
  if (list.key === undefined) return rows;
  const page: JsonObject = {};
  if (start === 0 && isJsonObject(value)) {
    for (const name of Object.keys(value))
      setOwn(page, name, name === list.key ? rows : value[name]!);
  } else {
    setOwn(page, list.key, rows);
  }
  return page;
}

/** A measured candidate count of rows. */
export interface Fitted<T> {
  count: number;
  cost: number;
  value: T;
}

/**
 * The largest count in 1..max whose cost is within `budget`, for a cost that grows with the
 * count about linearly (rows of a table): each probe estimates the count from the costs seen so
 * far (interpolation, then halving after a few probes), so a page of 1,000 rows out of 20,000
 * takes a handful of probes near 1,000 rows, never a count per row. Only measured counts are
 * returned. When even one row is over budget, the answer is that one row (`cost > budget`).
 *
 * @example
 * largestFitting(100, (n) => ({ cost: 10 + 3 * n, value: n }), 100).count; // 30
 */
export function largestFitting<T>(
  max: number,
  measure: (count: number) => { cost: number; value: T },
  budget: number,
): Fitted<T> {
  let fit: Fitted<T> | undefined;
  let over: Fitted<T> | undefined;
  const probe = (count: number): Fitted<T> => {
    const { cost, value } = measure(count);
    const measured = { count, cost, value };
    if (cost <= budget) {
      if (fit === undefined || count > fit.count) fit = measured;
    } else if (over === undefined || count < over.count) over = measured;
    return measured;
  };
  let last = probe(Math.min(max, 16));
  for (let step = 0; step < 40; step++) {
    const low = fit?.count ?? 0;
    const high = over?.count ?? max + 1;
    if (high - low <= 1) break;
    let next: number;
    if (step >= 6) next = Math.floor((low + high) / 2);
    else if (fit !== undefined && over !== undefined)
      next = Math.floor(
        fit.count + ((budget - fit.cost) * (over.count - fit.count)) / (over.cost - fit.cost),
      );
    else next = Math.floor((last.count * budget) / Math.max(last.cost, 1));
    if (!Number.isFinite(next)) next = Math.floor((low + high) / 2);
    last = probe(Math.max(low + 1, Math.min(high - 1, next)));
  }
  return fit ?? (over!.count === 1 ? over! : probe(1));
}

/** Options of a {@link PageCache}. */
export interface PageCacheOptions {
  /** How long an entry lives after its last use, in ms (default 10 minutes). */
  ttlMs?: number;
  /** The most bytes of entries kept (default 64 MiB); the newest entry is always kept. */
  maxBytes?: number;
  /** The clock (for tests). */
  now?: () => number;
}

interface CacheEntry<T> {
  value: T;
  bytes: number;
  expires: number;
}

/**
 * A bounded in-memory cache: entries expire `ttlMs` after their last use, and the least
 * recently used go first when the total size passes `maxBytes`.
 *
 * @example
 * const cache = new PageCache<string>({ ttlMs: 1000, maxBytes: 10 });
 * const id = cache.add('rest of the rows', 6);
 * cache.get(id); // 'rest of the rows'
 */
export class PageCache<T> {
  /** How messages name this store. */
  readonly description = 'memory';
  readonly ttlMs: number;
  readonly maxBytes: number;
  private readonly entries = new Map<string, CacheEntry<T>>();
  private readonly now: () => number;
  private total = 0;

  constructor(options: PageCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_PAGE_TTL_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_PAGE_CACHE_BYTES;
    this.now = options.now ?? Date.now;
    if (!Number.isFinite(this.ttlMs) || this.ttlMs <= 0)
      throw new TypeError(`page cache: ttlMs must be a positive number, got ${this.ttlMs}`);
    if (!Number.isFinite(this.maxBytes) || this.maxBytes <= 0)
      throw new TypeError(`page cache: maxBytes must be a positive number, got ${this.maxBytes}`);
  }

  /** Adds an entry of about `bytes` bytes under `id` (default: a new, unguessable one); returns the id. */
  add(value: T, bytes: number, id: string = newEntryId()): string {
    this.sweep();
    this.entries.set(id, { value, bytes, expires: this.now() + this.ttlMs });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes || oldest === id) break;
      this.remove(oldest, entry);
    }
    return id;
  }

  /** The entry, its life renewed; `undefined` when it is unknown, expired or evicted. */
  get(id: string): T | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.now()) {
      this.remove(id, entry);
      return undefined;
    }
    this.entries.delete(id); // most recently used goes last
    entry.expires = this.now() + this.ttlMs;
    this.entries.set(id, entry);
    return entry.value;
  }

  /** Adds `value` under `id` (the {@link PageStore} way). */
  put(id: string, value: T, bytes: number): void {
    this.add(value, bytes, id);
  }

  /** Memory is always there. */
  async unready(): Promise<string | undefined> {
    return undefined;
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.total = 0;
  }

  /** Removes an entry. */
  delete(id: string): void {
    const entry = this.entries.get(id);
    if (entry !== undefined) this.remove(id, entry);
  }

  /**
   * The ids, values and sizes of the entries not expired, least recently used first.
   *
   * @example
   * for (const { id, value, bytes } of cache.live()) await other.put(id, value, bytes);
   */
  live(): Array<{ id: string; value: T; bytes: number }> {
    this.sweep();
    return [...this.entries].map(([id, entry]) => ({ id, value: entry.value, bytes: entry.bytes }));
  }

  /**
   * How long the entry has left to live, in ms, without renewing it; `undefined` when it is
   * unknown or expired (a store writing it elsewhere gives it that life, not a new one).
   *
   * @example
   * cache.lifeLeft(id); // 412_000, 188 s after its last use with a 600 s TTL
   */
  lifeLeft(id: string): number | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const left = entry.expires - this.now();
    return left > 0 ? left : undefined;
  }

  /** How many entries and bytes are held (those expired are dropped first). */
  get size(): { entries: number; bytes: number } {
    this.sweep();
    return { entries: this.entries.size, bytes: this.total };
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (entry.expires <= now) this.remove(id, entry);
  }

  private remove(id: string, entry: CacheEntry<T>): void {
    this.entries.delete(id);
    this.total -= entry.bytes;
  }
}

/** One page, ready to ship. */
export interface Page {
  /** The page's text (the encoded rows, and on the first page the other fields). */
  text: string;
  /** The note for the model: which rows these are, and how to get the next. */
  note: string;
  strategy: string;
  /** 1-based, inclusive. */
  from: number;
  to: number;
  total: number;
  /** The cursor of the next page; `undefined` on the last. */
  nextCursor: string | undefined;
  /** Tokens of `text` plus `note`. */
  tokens: number;
  /** Tokens of `text` alone. */
  textTokens: number;
}

/**
 * Cuts pages and keeps what is left in a {@link PageStore}: a {@link PageCache}, or a shared
 * store such as Redis. A rest is bound to the caller it was cut for (see `asCaller`).
 *
 * @example
 * const pager = new Pager(new PageCache());
 * const page = pager.first({ tool: 'query', value, list: mainList(value)!, budget: 20000, encoder }, 0);
 * page.note; // 'toonwire proxy: rows 1-812 of 20000 ... call toonwire_more with {"cursor":"..."}'
 */
export class Pager {
  /**
   * `keep: false` keeps no rest (observe mode: the client never sees a cursor, so nothing would
   * ever fetch it).
   */
  constructor(
    readonly cache: PageStore,
    private readonly options: { keep?: boolean } = {},
  ) {}

  /** Writes to the store still under way (a shared store: awaited before a first page ships). */
  private readonly writing = new Set<Promise<void>>();

  /**
   * The first page of a result, within `budget - reserved` tokens (`reserved`: the tokens of
   * the result's other texts, which ship with the first page). The rest is kept for
   * `toonwire_more` when there is a rest; a first page holding every row keeps nothing.
   */
  first(continuation: Continuation, reserved: number): Page {
    const id = newEntryId();
    const page = this.cut(continuation, id, 0, continuation.budget - reserved);
    if (page.nextCursor !== undefined && this.options.keep !== false) {
      const caller = currentCaller();
      const kept = caller === undefined ? continuation : { ...continuation, caller };
      const written = this.cache.put(id, kept, approximateBytes(continuation.list));
      if (written !== undefined) {
        const tracked = written.finally(() => this.writing.delete(tracked));
        this.writing.add(tracked);
      }
    }
    return page;
  }

  /**
   * Resolves once the rests of the pages cut so far are in the store (a failed write is the
   * store's to report), or `undefined` when nothing is being written.
   */
  written(): Promise<void> | undefined {
    if (this.writing.size === 0) return undefined;
    return Promise.allSettled(this.writing).then(() => undefined);
  }

  /**
   * The page at `cursor`, or `undefined` when the cursor is unknown, expired, or another
   * caller's. Asynchronous when the store is; rejects with `PageStoreUnavailable` when the
   * store cannot be reached.
   */
  next(
    cursor: string,
  ): { page: Page; tool: string } | undefined | Promise<{ page: Page; tool: string } | undefined> {
    const parsed = /^([A-Za-z0-9_-]+)\.(\d+)$/.exec(cursor);
    if (parsed === null) return undefined;
    const [, id, offset] = parsed as unknown as [string, string, string];
    const start = Number(offset);
    const caller = currentCaller();
    const serve = (continuation: Continuation | undefined) => {
      if (continuation === undefined || start >= continuation.list.rows.length) return undefined;
      if (continuation.caller !== undefined && continuation.caller !== caller) return undefined;
      return {
        page: this.cut(continuation, id, start, continuation.budget),
        tool: continuation.tool,
      };
    };
    const stored = this.cache.get(id);
    return stored instanceof Promise ? stored.then(serve) : serve(stored);
  }

  private cut(continuation: Continuation, id: string, start: number, budget: number): Page {
    const { value, list, encoder } = continuation;
    const total = list.rows.length;
    const fitted = largestFitting(
      total - start,
      (count) => {
        const end = start + count;
        const encoded = encoder.encode(pageValue(value, list, start, end));
        const cursor = end < total ? `${id}.${end}` : undefined;
        const note = pageNote(list, start + 1, end, cursor, continuation.budget);
        const textTokens = encoder.countTokens(encoded.text);
        const cost = textTokens + encoder.countTokens(note);
        return { cost, value: { ...encoded, note, cursor, textTokens } };
      },
      budget,
    );
    const { text, strategy, cursor, textTokens } = fitted.value;
    let note = fitted.value.note;
    let tokens = fitted.cost;
    if (fitted.cost > budget) {
      note = `toonwire proxy: this page is over the budget of ${continuation.budget} tokens because one row alone is larger; nothing was cut. ${note.replace(/^toonwire proxy: /, '')}`;
      tokens += encoder.countTokens(note) - encoder.countTokens(fitted.value.note);
    }
    return {
      text,
      note,
      strategy,
      from: start + 1,
      to: start + fitted.count,
      total,
      nextCursor: cursor,
      tokens,
      textTokens,
    };
  }
}

/** A new, unguessable cache id (cursor characters only). */
function newEntryId(): string {
  return randomBytes(12).toString('base64url');
}

function pageNote(
  list: MainList,
  from: number,
  to: number,
  cursor: string | undefined,
  budget: number,
): string {
  const where = list.key === undefined ? 'the result' : `"${list.key}"`;
  const rows = `rows ${from}-${to} of ${list.rows.length} of ${where}`;
  if (cursor === undefined) return `toonwire proxy: ${rows}; this is the last page.`;
  return `toonwire proxy: ${rows} (pages of at most ${budget} tokens). For the next rows call ${MORE_TOOL_NAME} with {"cursor":"${cursor}"}; the rows of all pages together are the whole list, in order.`;
}

/** About how much memory the rows hold, counted as the JSON text they came from would be. */
function approximateBytes(list: MainList): number {
  // A sample keeps this cheap on 20,000 rows; the cache bound is a bound on memory, not billing.
  const sample = list.rows.slice(0, 64);
  if (sample.length === 0) return 2;
  return Math.ceil((JSON.stringify(sample).length / sample.length) * list.rows.length);
}

/** The page as the `content` and `_meta` of a tool result. */
export function pageMeta(page: Page): Record<string, unknown> {
  return {
    from: page.from,
    to: page.to,
    total: page.total,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}

/**
 * The `isError` result for a cursor the cache does not have (expired, evicted, or never given).
 *
 * @example
 * unknownCursorResult('abc.100', 600000).content[0].text; // 'toonwire proxy: the cursor "abc.100" has expired ...'
 */
export function unknownCursorResult(
  cursor: unknown,
  ttlMs: number,
): { isError: true; content: [{ type: 'text'; text: string }] } {
  const text =
    typeof cursor !== 'string' || cursor === ''
      ? `toonwire proxy: ${MORE_TOOL_NAME} needs the "cursor" string given in the note at the end of a page.`
      : `toonwire proxy: the cursor ${JSON.stringify(cursor)} has expired or is unknown (pages are kept for ${ttlMs >= 1000 ? `${Math.round(ttlMs / 1000)} s` : `${ttlMs} ms`} after their last use, and the oldest go first when the cache is full). Call the original tool again to get its first page.`;
  return { isError: true, content: [{ type: 'text', text }] };
}
