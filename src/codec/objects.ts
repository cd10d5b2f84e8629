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
 * Sets an own data property even for `__proto__`, which plain assignment would route to the
 * prototype setter (spec §15: prototype keys are ordinary data).
 *
 * @example
 * const target = {};
 * setOwn(target, '__proto__', 1); // Object.keys(target) is ['__proto__']
 */
export function setOwn(target: JsonObject, key: string, value: JsonObject[string]): void {
  if (key === '__proto__') {
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
