// Helpers for the compact tests: JSON-model equality and hostile JSON arbitraries.
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../src/codec/types.js';

/**
 * JSON-model equality (spec §2): arrays pairwise in order, objects by their own key set and
 * pairwise values (order-insensitive, since tabular rows decode in header order), numbers by
 * value (so -0 equals 0). Also demands that every object is an ordinary object.
 */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]!));
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key]!, b[key]!));
}

/** Builds an object from entries without ever going through a `__proto__` setter. */
export function objectOf(entries: ReadonlyArray<readonly [string, JsonValue]>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Strings that have broken TOON implementations, or that look like structure. */
const HOSTILE_STRINGS = [
  '', ' ', ' padded ', '-', '- item', '#', '# comment', '[2]: x', 'a[1]{b}:', 'key: value', 'a,b', 'a|b',
  'a\tb', '"quoted"', 'back\\slash', 'line\nbreak', '\r\n', '\u0000', 'true', 'false', 'null', '0', '-0',
  '05', '1e3', '+1', '1.50', '{}', '[]', 'é', '😀', '\ud800', 'x.y', '__proto__', '<|endoftext|>',
];

/** Keys likewise, including prototype-ish ones and dotted ones. */
const HOSTILE_KEYS = [
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'a', 'b', 'id', 'a_b', 'a.b',
  '.', 'x.', '0', '1', '01', '-', '#', 'a b', 'a:b', 'a,b', '"', '[0]', '{x}', 'é', '😀', 'true',
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
);

export const hostileKey = (dots: boolean): fc.Arbitrary<string> =>
  fc
    .oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ unit: 'binary', maxLength: 6 }))
    .filter((key) => dots || !key.includes('.'));

const jsonNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 0.1, -1.5e300),
);

const primitive: fc.Arbitrary<JsonValue> = fc.oneof(
  hostileString,
  jsonNumber,
  fc.boolean(),
  fc.constant(null),
);

/** Arbitrary JSON values with hostile keys and strings; `dots` allows `.` in keys. */
export function hostileJson(dots = true): fc.Arbitrary<JsonValue> {
  const key = hostileKey(dots);
  const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      primitive,
      fc.array(tie('value'), { maxLength: 5 }),
      fc
        .uniqueArray(fc.tuple(key, tie('value')), { maxLength: 5, selector: ([k]) => k })
        .map(objectOf),
    ),
  }));
  return value;
}

type Shape = null | Array<readonly [string, Shape]>;

/**
 * Arrays of rows that share one (possibly nested) shape, sometimes broken by a missing key or
 * an array cell: the inputs that exercise tables, nested field groups and flatten.
 */
export function rowsJson(dots = false): fc.Arbitrary<JsonValue> {
  const key = hostileKey(dots);
  const { shape } = fc.letrec<{ shape: Shape }>((tie) => ({
    shape: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.uniqueArray(fc.tuple(key, tie('shape')), { minLength: 0, maxLength: 4, selector: ([k]) => k }),
    ),
  }));
  const valueOf = (s: Shape): fc.Arbitrary<JsonValue> =>
    s === null
      ? fc.oneof({ weight: 8, arbitrary: primitive }, { weight: 1, arbitrary: fc.array(primitive, { maxLength: 3 }) })
      : fc.tuple(...s.map(([k, sub]) => valueOf(sub).map((v) => [k, v] as const))).map(objectOf);
  const rootShape = fc.uniqueArray(fc.tuple(key, shape), { minLength: 1, maxLength: 4, selector: ([k]) => k });
  return rootShape.chain((s) =>
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: valueOf(s) },
        { weight: 1, arbitrary: valueOf(s.slice(1)) },
      ),
      { minLength: 1, maxLength: 6 },
    ),
  );
}
