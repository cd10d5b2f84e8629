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
 * (spec §15: prototype keys are ordinary data), and any key the target inherits, whose
 * assignment fails or runs foreign code when the prototype was frozen against pollution
 * (`Object.freeze(Object.prototype)` makes `target.toString = 1` throw a TypeError) or given a
 * setter. A key the target does not have, own or inherited, is assigned: the common case stays
 * one store.
 *
 * @example
 * const target = {};
 * setOwn(target, '__proto__', 1); // Object.keys(target) is ['__proto__']
 * setOwn(target, 'toString', 2); // an own property, even with Object.prototype frozen
 */
export function setOwn(target: JsonObject, key: string, value: JsonObject[string]): void {
  if (key in target) {
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
 * `__proto__` and for every name `Object.prototype` has (or inherits), which a frozen or
 * accessor-bearing prototype intercepts; such names go through {@link setOwn}.
 *
 * @example
 * isInheritedName('toString'); // true
 * isInheritedName('id'); // false (unless something added `id` to Object.prototype)
 */
export function isInheritedName(key: string): boolean {
  return key in Object.prototype;
}
