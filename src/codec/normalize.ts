// Host values to the JSON data model (spec §3), the way JSON.stringify sees them, plus Map, Set
// and a lossless BigInt policy. Copy-on-write: plain JSON data comes back as the very same
// object, so the common case costs one read-only walk and no allocation.

import { DEFAULT_MAX_DEPTH } from './constants.js';
import { setOwn } from './objects.js';
import { RawString } from './raw-string.js';
import type { BigIntPolicy, JsonArray, JsonObject, JsonValue } from './types.js';

/** Options of {@link normalize}. */
export interface NormalizeOptions {
  /** How a BigInt becomes JSON (default `'auto'`: number when safe, else decimal string). */
  bigint?: BigIntPolicy;
}

/** Deeper than this, the fast walk restarts in a mode that tracks ancestors to name a cycle. */
const UNCHECKED_DEPTH = 256;

class TooDeepForFastWalk extends Error {}

/**
 * The error for a value nested deeper than TOON documents may be: `decode` refuses them with its
 * default `maxDepth`, so encoding them would break the round trip, and a recursive walk that
 * deep would meet the engine's call stack limit instead of a useful message.
 *
 * @example
 * tooDeepError(); // RangeError: cannot encode a value nested deeper than 1000 levels ...
 */
export function tooDeepError(): RangeError {
  return new RangeError(
    `cannot encode a value nested deeper than ${DEFAULT_MAX_DEPTH} levels as TOON: decoders refuse deeper documents by default (maxDepth ${DEFAULT_MAX_DEPTH}); flatten the data or send it as JSON`,
  );
}

/**
 * `error` as the encoders report it: the engine's own stack overflow ("Maximum call stack size
 * exceeded"), met when the stack left to the caller (deep recursion around the call, a thread
 * started with a small stack) is too short for the value's nesting, becomes a RangeError saying
 * what to do, with the engine's error as its `cause`; anything else is returned unchanged.
 *
 * @example
 * encodeStackError(new RangeError('Maximum call stack size exceeded')).message;
 * // 'cannot encode this value: the JavaScript call stack ran out ...'
 */
export function encodeStackError(error: unknown): unknown {
  if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) return error;
  return new RangeError(
    'cannot encode this value: the JavaScript call stack ran out before its deepest level (the value is deeply nested, or encode was called from deep recursion or a thread with a small stack); flatten the data, call encode with more stack left, or send it as JSON',
    { cause: error },
  );
}

/**
 * Converts any JavaScript value to the JSON data model exactly as `JSON.stringify` would, with
 * three additions: a `Map` becomes an object (keys through `String`), a `Set` becomes an array,
 * and a BigInt follows a lossless policy instead of throwing. `toJSON()` is honoured (so a Date
 * becomes its ISO string); `undefined`, functions and symbols are dropped from objects and become
 * `null` in arrays; `NaN` and `±Infinity` become `null`; boxed primitives are unwrapped. Values
 * that need no change are returned as is (same object). A circular structure throws a
 * `TypeError` that names the path of the cycle; a value nested deeper than 1000 containers (the
 * default `maxDepth` of `decode`) throws a `RangeError` that says so, never a stack overflow.
 * A {@link RawString} passes through unchanged.
 *
 * @example
 * normalize({ at: new Date(0), tags: new Set(['a']), n: NaN, skip: undefined });
 * // { at: '1970-01-01T00:00:00.000Z', tags: ['a'], n: null }
 * normalize(2n ** 64n); // '18446744073709551616'
 */
export function normalize(value: unknown, options?: NormalizeOptions): JsonValue {
  try {
    return normalizeTracked(value, options).value;
  } catch (error) {
    throw encodeStackError(error);
  }
}

/** A normalized value, and whether it holds a {@link RawString} anywhere. */
export interface Normalized {
  value: JsonValue;
  rawStrings: boolean;
  /**
   * Did the walk turn a Map or a Set into JSON? Only then (or with a RawString) does
   * `JSON.stringify` of the original value differ from `JSON.stringify` of the normalized one:
   * every other rule here is JSON.stringify's own.
   */
  collections: boolean;
}

/**
 * {@link normalize}, also telling whether the result holds a RawString (the encoder tests each
 * value for one only when it does) and whether a Map or Set was converted.
 *
 * @example
 * normalizeTracked({ id: rawString('"7"') }).rawStrings; // true
 * normalizeTracked({ at: new Date(0) }); // { value: { at: '1970-01-01T00:00:00.000Z' }, rawStrings: false, collections: false }
 */
export function normalizeTracked(value: unknown, options?: NormalizeOptions): Normalized {
  const policy = options?.bigint ?? 'auto';
  let normalizer = new Normalizer(policy, false);
  let result: JsonValue;
  try {
    result = normalizer.root(value);
  } catch (error) {
    if (!(error instanceof TooDeepForFastWalk)) throw error;
    // Deep input is rare; walk again, this time keeping the ancestor chain to detect cycles.
    normalizer = new Normalizer(policy, true);
    result = normalizer.root(value);
  }
  return { value: result, rawStrings: normalizer.rawStrings, collections: normalizer.collections };
}

class Normalizer {
  /** Has the walk passed a RawString through? */
  rawStrings = false;
  /** Has the walk converted a Map or a Set? */
  collections = false;
  private readonly ancestors: object[] = [];
  private readonly path: string[] = [];

  constructor(
    private readonly bigintPolicy: BigIntPolicy,
    private readonly trackCycles: boolean,
  ) {}

  root(value: unknown): JsonValue {
    return this.value(value, '', 0) ?? null;
  }

  /** Returns `undefined` for values JSON drops (undefined, functions, symbols). */
  private value(value: unknown, key: string, depth: number): JsonValue | undefined {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? value : null;
      case 'bigint':
        return this.bigint(value, key, depth);
      case 'object':
        return value === null ? null : this.object(value, key, depth);
      default:
        return undefined;
    }
  }

  /**
   * What a `toJSON` returned, normalized as `JSON.stringify` does: without calling its own
   * `toJSON` again (`toJSON() { return this; }` is the object's own data, a Date returned is an
   * object with no own properties), its properties and elements as any others.
   */
  private jsonified(value: unknown, key: string, depth: number): JsonValue | undefined {
    if (typeof value === 'object' && value !== null) return this.object(value, key, depth, false);
    if (typeof value === 'bigint') return this.bigint(value, key, depth, false);
    return this.value(value, key, depth);
  }

  private bigint(
    value: bigint,
    key: string,
    depth: number,
    honourToJSON = true,
  ): JsonValue | undefined {
    const custom = honourToJSON ? (value as unknown as { toJSON?: unknown }).toJSON : undefined;
    if (typeof custom === 'function') return this.jsonified(custom.call(value, key), key, depth);
    if (this.bigintPolicy === 'throw') {
      throw new TypeError(
        `cannot encode the BigInt ${value}${key === '' ? '' : ` under key ${JSON.stringify(key)}`}: bigint is set to 'throw'; use 'auto' or 'string' to encode it losslessly`,
      );
    }
    if (
      this.bigintPolicy === 'auto' &&
      value >= BigInt(Number.MIN_SAFE_INTEGER) &&
      value <= BigInt(Number.MAX_SAFE_INTEGER)
    ) {
      return Number(value);
    }
    return value.toString();
  }

  /** `honourToJSON` is false for what a `toJSON` returned: JSON calls one per position. */
  private object(
    value: object,
    key: string,
    depth: number,
    honourToJSON = true,
  ): JsonValue | undefined {
    if (depth > UNCHECKED_DEPTH && !this.trackCycles) throw new TooDeepForFastWalk();
    // depth counts from 0 at the root; containers deeper than the decoder's default are refused.
    if (depth >= DEFAULT_MAX_DEPTH) return this.tooDeep(value, key, depth, honourToJSON);
    if (value instanceof RawString) return this.rawString(value);
    const toJSON = honourToJSON ? (value as { toJSON?: unknown }).toJSON : undefined;
    if (typeof toJSON === 'function') return this.jsonified(toJSON.call(value, key), key, depth);
    const prototype: unknown = Object.getPrototypeOf(value);
    const plain =
      prototype === Object.prototype || prototype === Array.prototype || prototype === null;
    // Unwrapped after the toJSON step, as JSON does: a boxed BigInt's toJSON is not called twice.
    if (!plain && isBoxedPrimitive(value)) return this.jsonified(value.valueOf(), key, depth);
    if (this.trackCycles) this.enter(value, key);
    let result: JsonValue;
    if (Array.isArray(value)) result = this.array(value, depth);
    else if (plain) result = this.record(value as Record<string, unknown>, depth);
    else if (value instanceof Map) result = this.collection(this.map(value, depth));
    else if (value instanceof Set) result = this.collection(this.array([...value], depth));
    else result = this.record(value as Record<string, unknown>, depth);
    // No try/finally: an exception abandons the whole walk, so the stacks need no unwinding.
    if (this.trackCycles) this.leave();
    return result;
  }

  /** A container at `depth` >= the limit: fine if it turns out to be a primitive after all. */
  private tooDeep(
    value: object,
    key: string,
    depth: number,
    honourToJSON: boolean,
  ): JsonValue | undefined {
    if (value instanceof RawString) return this.rawString(value);
    const toJSON = honourToJSON ? (value as { toJSON?: unknown }).toJSON : undefined;
    if (typeof toJSON === 'function') {
      const replaced: unknown = toJSON.call(value, key);
      if (replaced === null || typeof replaced !== 'object')
        return this.jsonified(replaced, key, depth);
    }
    if (isBoxedPrimitive(value)) return this.jsonified(value.valueOf(), key, depth);
    // In the cycle-tracking walk a cycle is reported before this point; here it is depth.
    if (this.trackCycles) this.enter(value, key);
    throw tooDeepError();
  }

  private collection(converted: JsonValue): JsonValue {
    this.collections = true;
    return converted;
  }

  /** A RawString stands in for a primitive: it passes through, and the walk notes it. */
  private rawString(value: RawString): JsonValue {
    this.rawStrings = true;
    return value as unknown as JsonValue;
  }

  private enter(value: object, key: string): void {
    const start = this.ancestors.indexOf(value);
    if (start >= 0) {
      const target = `$${this.path.slice(1, start + 1).join('')}`;
      throw new TypeError(
        `cannot encode a circular structure: ${this.describePath(key)} points back to ${target}; remove the back-reference or give the object a toJSON() that breaks the cycle`,
      );
    }
    this.ancestors.push(value);
    this.path.push(pathSegment(key));
  }

  private leave(): void {
    this.ancestors.pop();
    this.path.pop();
  }

  private describePath(key: string): string {
    return `$${this.path.slice(1).join('')}${this.path.length > 0 ? pathSegment(key) : ''}`;
  }

  private array(source: readonly unknown[], depth: number): JsonArray {
    let copy: JsonArray | undefined;
    for (let i = 0; i < source.length; i++) {
      const item = source[i];
      const normalized = this.value(item, String(i), depth + 1) ?? null;
      if (copy === undefined) {
        if (normalized === item) continue;
        copy = source.slice(0, i) as JsonArray;
      }
      copy.push(normalized);
    }
    return copy ?? (source as JsonArray);
  }

  private record(source: Record<string, unknown>, depth: number): JsonObject {
    const keys = Object.keys(source);
    let copy: JsonObject | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = source[key];
      const normalized = this.value(item, key, depth + 1);
      if (copy === undefined) {
        if (normalized === item && normalized !== undefined) continue;
        copy = {};
        for (let k = 0; k < i; k++) setOwn(copy, keys[k]!, source[keys[k]!] as JsonValue);
      }
      if (normalized !== undefined) setOwn(copy, key, normalized);
    }
    return copy ?? (source as JsonObject);
  }

  private map(source: Map<unknown, unknown>, depth: number): JsonObject {
    const out: JsonObject = {};
    for (const [rawKey, item] of source) {
      const key = String(rawKey);
      const normalized = this.value(item, key, depth + 1);
      if (normalized !== undefined) setOwn(out, key, normalized);
    }
    return out;
  }
}

/**
 * `Object(5)`, `Object('s')`, `Object(true)`, `Object(5n)`: unwrapped, as `JSON.stringify` unwraps
 * the first three (a boxed BigInt then follows the BigInt policy, where `JSON.stringify` throws).
 */
function isBoxedPrimitive(value: object): value is { valueOf(): unknown } {
  return (
    value instanceof Number ||
    value instanceof String ||
    value instanceof Boolean ||
    value instanceof BigInt
  );
}

function pathSegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key)
    ? `.${key}`
    : /^\d+$/.test(key)
      ? `[${key}]`
      : `[${JSON.stringify(key)}]`;
}
