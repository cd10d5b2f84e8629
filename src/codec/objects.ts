// Object predicates and the one safe property setter, shared by every layer above the codec.

import type { JsonObject } from './types.js';

/**
 * Is `value` an object in JSON's sense: not `null`, not an array?
 *
 * @example
 * isJsonObject({ a: 1 }); // true
 * isJsonObject([1]); // false
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Is `value` a plain object: an object literal or `Object.create(null)`, never a class instance?
 *
 * @example
 * isPlainObject({ a: 1 }); // true
 * isPlainObject(new Date()); // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isJsonObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Sets an own data property, as `JSON.parse` does (CreateDataProperty), even where plain
 * assignment would not make one: `__proto__`, which assignment routes to the prototype setter
 * (spec §15: prototype keys are ordinary data), and every other name of Object.prototype
 * ({@link isInheritedName}), whose assignment fails or runs foreign code when the prototype was
 * frozen against pollution (`Object.freeze(Object.prototype)` makes `target.toString = 1` throw a
 * TypeError) or given a setter. Any other key is assigned: the common case stays one store.
 *
 * @example
 * const target = {};
 * setOwn(target, '__proto__', 1); // Object.keys(target) is ['__proto__']
 * setOwn(target, 'toString', 2); // an own property, even with Object.prototype frozen
 */
export function setOwn(target: JsonObject, key: string, value: JsonObject[string]): void {
  if (isInheritedName(key)) {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * Would assigning `key` on a fresh object literal fail to make an own data property? True for
 * the names `Object.prototype` has when toonwire loads (`__proto__`, `toString`, `constructor`,
 * ...), which a frozen prototype refuses to let assignment shadow and a setter put on one of them
 * would intercept; such names go through {@link setOwn}. The names are read once: asking
 * `key in Object.prototype` for every key decoded cost wide objects 5-10% of decode's time. A name
 * added to Object.prototype later (pollution) is not covered.
 *
 * @example
 * isInheritedName('toString'); // true
 * isInheritedName('id'); // false
 */
export function isInheritedName(key: string): boolean {
  // Most keys differ from every inherited name in length or first letter: two loads and a bit
  // test instead of a lookup.
  const firstLetters = key.length < 32 ? INHERITED_FIRST_LETTERS[key.length]! : 0;
  return (firstLetters & (1 << (key.charCodeAt(0) & 31))) !== 0 && INHERITED_NAMES.has(key);
}

const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));
/** For each length under 32, the inherited names' first letters (their low 5 bits), as bits. */
const INHERITED_FIRST_LETTERS = new Int32Array(32);
for (const name of INHERITED_NAMES) {
  if (name.length < 32) INHERITED_FIRST_LETTERS[name.length]! |= 1 << (name.charCodeAt(0) & 31);
}
