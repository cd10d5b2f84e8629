// Dot-flatten (the `flatten` transform of the TOON adoption proposal for Apify's MCP server) and its inverse. Lifting nested objects into
// dotted keys turns rows with a uniform nested shape into flat rows, which is what TOON needs
// for its tabular form; unflatten restores the nesting for consumers.

import { normalize } from '../codec/normalize.js';
import { isJsonObject, setOwn } from '../codec/objects.js';
import type { JsonArray, JsonObject, JsonValue } from '../codec/types.js';

/** Options of {@link flatten}. */
export interface FlattenOptions {
  /**
   * Deepest nesting allowed (default 20). The root value is at depth 0 and every array element
   * or object property is one level deeper than its container; a value deeper than this throws
   * a `RangeError`.
   */
  maxDepth?: number;
  /**
   * What to do with a source key that contains a literal `.`:
   * - `'underscore'` (default, the proposal's rule): replace every `.` with `_`, so the dot stays
   *   unambiguous as the nesting separator. This is one-way: unflatten cannot restore the dot.
   * - `'throw'`: throw a `RangeError`, for callers that need a lossless transform (the picker's
   *   `toon-flatten` candidate uses this, so it is dropped instead of shipping a renamed key).
   */
  dottedKeys?: 'underscore' | 'throw';
}

/** The proposal's bound: its deepest real payload nests 9 levels, which leaves a margin of 11. */
export const DEFAULT_FLATTEN_MAX_DEPTH = 20;

/**
 * Lifts nested objects into dot-joined keys, following the proposal's semantics: arrays at any level
 * are recursed into and stay arrays (their object elements are flattened one by one), scalars
 * and inline scalar arrays are kept as they are, and a literal `.` in a source key becomes `_`.
 *
 * Two additions make the transform lossless for every input whose keys contain no `.`:
 * an empty nested object is kept as `{}` on its dotted key (lifting it would make it vanish),
 * and an empty source key still takes its place in the path (`{ '': { a: 1 } }` becomes
 * `{ '.a': 1 }`), so {@link unflatten} restores the original exactly.
 *
 * Host values are normalized first like `JSON.stringify` does (Date to ISO string, `toJSON`,
 * Map, Set, BigInt). Nothing touches prototypes: keys such as `__proto__` and `constructor`
 * are ordinary data. Values that need no change are returned as the same object.
 *
 * @throws {RangeError} when nesting exceeds `maxDepth`, when two keys become the same after
 *   `.` is replaced by `_` (for example `'a.b'` and `'a_b'` side by side), or for a dotted key
 *   under `dottedKeys: 'throw'`.
 * @throws {TypeError} for a circular structure or bad options.
 * @example
 * flatten([{ id: 1, stats: { runs: 10, reads: 5 } }]);
 * // [{ id: 1, 'stats.runs': 10, 'stats.reads': 5 }]
 * flatten({ 'a.b': 1, tags: ['x', 'y'] }); // { a_b: 1, tags: ['x', 'y'] }
 */
export function flatten(value: unknown, options?: FlattenOptions): JsonValue {
  return flattenJson(normalize(value), options);
}

/**
 * {@link flatten} for a value already in the JSON model (no normalization pass): what the picker
 * calls on the value it normalized once for all candidates.
 */
export function flattenJson(value: JsonValue, options?: FlattenOptions): JsonValue {
  const maxDepth = options?.maxDepth ?? DEFAULT_FLATTEN_MAX_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new TypeError(
      `flatten: maxDepth must be a non-negative integer, got ${String(maxDepth)}`,
    );
  }
  const dottedKeys = options?.dottedKeys ?? 'underscore';
  if (dottedKeys !== 'underscore' && dottedKeys !== 'throw') {
    throw new TypeError(
      `flatten: dottedKeys must be 'underscore' or 'throw', got ${JSON.stringify(dottedKeys)}`,
    );
  }
  return new Flattener(maxDepth, dottedKeys === 'throw').value(value, 0);
}

function hasKeys(object: JsonObject): boolean {
  for (const _ in object) return true;
  return false;
}

const hasOwn = Object.hasOwn;

/**
 * A flattened key path, shared by every row that has it: rows of a list repeat the same paths,
 * so each dotted key is built (and interned by the engine) once instead of once per row.
 */
class KeyPath {
  private readonly children = new Map<string, KeyPath>();
  constructor(readonly key: string) {}

  child(sourceKey: string, flattener: Flattener): KeyPath {
    let path = this.children.get(sourceKey);
    if (path === undefined) {
      const safe = flattener.safeKey(sourceKey);
      path = new KeyPath(this === flattener.root ? safe : `${this.key}.${safe}`);
      this.children.set(sourceKey, path);
    }
    return path;
  }
}

class Flattener {
  /** The path of the top level of a row: its children's keys have no prefix. */
  readonly root = new KeyPath('');
  /** Collisions need a renamed key; until one is seen, the per-key check is skipped. */
  private renamed = false;

  constructor(
    private readonly maxDepth: number,
    private readonly rejectDots: boolean,
  ) {}

  value(value: JsonValue, depth: number): JsonValue {
    if (depth > this.maxDepth) this.tooDeep(depth);
    if (typeof value !== 'object' || value === null) return value;
    return Array.isArray(value) ? this.array(value, depth) : this.record(value, depth);
  }

  private array(source: JsonArray, depth: number): JsonArray {
    let copy: JsonArray | undefined;
    for (let i = 0; i < source.length; i++) {
      const item = source[i]!;
      const flat = this.value(item, depth + 1);
      if (copy === undefined) {
        if (flat === item) continue;
        copy = source.slice(0, i);
      }
      copy.push(flat);
    }
    return copy ?? source;
  }

  /**
   * Copy-on-write: a row with no dotted key and no non-empty nested object is returned as is,
   * so flat data costs one read-only walk (and the picker can tell that `toon-flatten` would
   * only repeat `toon`).
   */
  private record(source: JsonObject, depth: number): JsonObject {
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = source[key]!;
      if (key.includes('.') || (isJsonObject(item) && hasKeys(item)))
        return this.lift(source, keys, i, depth);
      const flat = this.value(item, depth + 1);
      if (flat !== item) return this.lift(source, keys, i, depth, flat);
    }
    return source;
  }

  /**
   * Builds the flattened copy of `source`, whose first `unchanged` keys need no work; `changed`
   * is the already flattened value of the key after them, when the caller has it.
   */
  private lift(
    source: JsonObject,
    keys: string[],
    unchanged: number,
    depth: number,
    changed?: JsonValue,
  ): JsonObject {
    const out: JsonObject = {};
    for (let i = 0; i < unchanged; i++) setOwn(out, keys[i]!, source[keys[i]!]!);
    let start = unchanged;
    if (changed !== undefined) {
      // A dot-free key, and the keys before it were copied verbatim: it cannot collide.
      setOwn(out, keys[start]!, changed);
      start += 1;
    }
    for (let i = start; i < keys.length; i++) {
      const key = keys[i]!;
      this.entry(out, this.root.child(key, this), key, source[key]!, depth + 1);
    }
    return out;
  }

  /** Writes `value` (found at `depth`) under the flattened `path`, lifting nested objects. */
  private entry(
    out: JsonObject,
    path: KeyPath,
    sourceKey: string,
    value: JsonValue,
    depth: number,
  ): void {
    if (isJsonObject(value) && hasKeys(value)) {
      if (depth > this.maxDepth) this.tooDeep(depth);
      for (const childKey of Object.keys(value)) {
        this.entry(out, path.child(childKey, this), childKey, value[childKey]!, depth + 1);
      }
      return;
    }
    const key = path.key;
    if (this.renamed && hasOwn(out, key)) {
      throw new RangeError(
        `flatten: the key ${JSON.stringify(sourceKey)} becomes ${JSON.stringify(key)}, which another key already produced (a literal '.' in a key is flattened to '_'); rename one of the keys, or send this value unflattened`,
      );
    }
    setOwn(out, key, this.value(value, depth));
  }

  safeKey(key: string): string {
    if (!key.includes('.')) return key;
    if (this.rejectDots) {
      throw new RangeError(
        // No advice to rename: the picker asks for 'throw' because a renamed key would not
        // decode back, and `pick --explain` shows this message to users of a CLI without the option.
        `flatten: the key ${JSON.stringify(key)} contains '.', which unflatten would read as nesting, so the flat value could not be unflattened back to this one`,
      );
    }
    this.renamed = true;
    return key.replaceAll('.', '_');
  }

  private tooDeep(depth: number): never {
    throw new RangeError(
      `flatten: the value nests ${depth} levels deep, beyond maxDepth ${this.maxDepth}; raise maxDepth or send this value unflattened`,
    );
  }
}

/**
 * The inverse of {@link flatten}: splits every key on `.` and rebuilds the nested objects,
 * inside arrays too. `unflatten(flatten(x))` equals `x` for every JSON value `x` whose keys
 * contain no `.`; this is how a consumer reads the picker's `toon-flatten` output
 * (`unflatten(decode(text))`, or simply `parseCompact(text, 'toon-flatten')`).
 *
 * Keys that merely share a prefix merge into one object (`{ 'a.b': 1, 'a.c': 2 }` gives
 * `{ a: { b: 1, c: 2 } }`). The input is never modified and prototypes are never touched.
 *
 * @throws {RangeError} when two keys set the same path, or one key needs as an object what
 *   another set to a scalar or array (`{ a: 1, 'a.b': 2 }`): flatten never produces either.
 * @example
 * unflatten([{ id: 1, 'stats.runs': 10, 'stats.reads': 5 }]);
 * // [{ id: 1, stats: { runs: 10, reads: 5 } }]
 */
export function unflatten(value: JsonValue): JsonValue {
  return unflattenValue(value);
}

function unflattenValue(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: JsonArray | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      const restored = unflattenValue(item);
      if (copy === undefined) {
        if (restored === item) continue;
        copy = value.slice(0, i);
      }
      copy.push(restored);
    }
    return copy ?? value;
  }
  return unflattenRecord(value);
}

function unflattenRecord(source: JsonObject): JsonObject {
  const keys = Object.keys(source);
  let builder: Unflattener | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = source[key]!;
    const restored = unflattenValue(item);
    if (builder === undefined) {
      if (restored === item && !key.includes('.')) continue;
      builder = new Unflattener();
      for (let k = 0; k < i; k++) setOwn(builder.root, keys[k]!, source[keys[k]!]!);
    }
    builder.place(key, restored);
  }
  return builder?.root ?? source;
}

/** Rebuilds one object; tracks which objects it created so it never writes into the input. */
class Unflattener {
  readonly root: JsonObject = {};
  private readonly owned = new Set<JsonObject>([this.root]);

  place(key: string, value: JsonValue): void {
    const path = key.split('.');
    let node = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      const segment = path[i]!;
      if (!hasOwn(node, segment)) {
        const child: JsonObject = {};
        this.owned.add(child);
        setOwn(node, segment, child);
        node = child;
        continue;
      }
      const existing = node[segment]!;
      if (!isJsonObject(existing)) this.conflict(key, path.slice(0, i + 1).join('.'));
      node = this.own(node, segment, existing);
    }
    this.assign(node, path[path.length - 1]!, value, key);
  }

  private assign(node: JsonObject, segment: string, value: JsonValue, key: string): void {
    if (!hasOwn(node, segment)) {
      setOwn(node, segment, value);
      return;
    }
    const existing = node[segment]!;
    if (!isJsonObject(existing) || !isJsonObject(value)) this.conflict(key, key);
    const target = this.own(node, segment, existing);
    for (const childKey of Object.keys(value))
      this.assign(target, childKey, value[childKey]!, `${key}.${childKey}`);
  }

  /** The object under `node[segment]`, copied first if it came from the input. */
  private own(node: JsonObject, segment: string, existing: JsonObject): JsonObject {
    if (this.owned.has(existing)) return existing;
    const copy: JsonObject = {};
    for (const childKey of Object.keys(existing)) setOwn(copy, childKey, existing[childKey]!);
    this.owned.add(copy);
    setOwn(node, segment, copy);
    return copy;
  }

  private conflict(key: string, path: string): never {
    throw new RangeError(
      `unflatten: the key ${JSON.stringify(key)} collides with another key at ${JSON.stringify(path)}: each path may be set once and only objects merge (flatten never produces this input)`,
    );
  }
}
