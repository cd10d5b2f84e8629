// The encode `replacer` (the reference implementation's contract): top-down, on normalized
// values, with the key and the path; `undefined` omits, anything else is normalized again.

import { DEFAULT_MAX_DEPTH } from './constants.js';
import { normalize, tooDeepError } from './normalize.js';
import { setOwn } from './objects.js';
import { RawString } from './raw-string.js';
import type { BigIntPolicy, EncodeReplacer, JsonArray, JsonObject, JsonValue } from './types.js';

/**
 * Applies `replacer` to the normalized `root` and all its descendants, as `encode` does with its
 * `replacer` option: first the root (key `''`, path `[]`; `undefined` there means "no change"),
 * then every property and element of the result, in order. A `RawString` returned for a
 * primitive replaces it verbatim; returned for a container it is ignored.
 *
 * @example
 * applyReplacer({ user: 'ada', password: 'x' }, (key, value) => (key === 'password' ? undefined : value));
 * // { user: 'ada' }
 */
export function applyReplacer(
  root: JsonValue,
  replacer: EncodeReplacer,
  bigint: BigIntPolicy = 'auto',
): JsonValue {
  const walker = new ReplacerWalk(replacer, bigint);
  const replaced = replacer('', root, []);
  if (replaced === undefined) return walker.children(root, [], 0);
  return walker.resolve(root, replaced, [], 0);
}

class ReplacerWalk {
  constructor(
    private readonly replacer: EncodeReplacer,
    private readonly bigint: BigIntPolicy,
  ) {}

  /** What a non-undefined replacer result at `path` becomes, its children replaced in turn. */
  resolve(original: JsonValue, replaced: unknown, path: (string | number)[], depth: number) {
    if (replaced instanceof RawString && isContainer(original))
      return this.children(original, path, depth);
    return this.children(normalize(replaced, { bigint: this.bigint }), path, depth);
  }

  children(value: JsonValue, path: (string | number)[], depth: number): JsonValue {
    if (!isContainer(value)) return value;
    // normalize() bounds each value's own depth; replacing inside replacements could still
    // stack up, so the walk keeps its own count.
    if (depth >= DEFAULT_MAX_DEPTH) throw tooDeepError();
    if (Array.isArray(value)) {
      const out: JsonArray = [];
      for (let i = 0; i < value.length; i++) {
        const item = value[i]!;
        const childPath = [...path, i];
        const replaced = this.replacer(String(i), item, childPath);
        if (replaced !== undefined) out.push(this.resolve(item, replaced, childPath, depth + 1));
      }
      return out;
    }
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const item = value[key]!;
      const childPath = [...path, key];
      const replaced = this.replacer(key, item, childPath);
      if (replaced !== undefined)
        setOwn(out, key, this.resolve(item, replaced, childPath, depth + 1));
    }
    return out;
  }
}

function isContainer(value: JsonValue): value is JsonObject | JsonArray {
  return typeof value === 'object' && value !== null && !(value instanceof RawString);
}
