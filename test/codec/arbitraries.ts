// fast-check generators for the JSON data model, biased towards what breaks TOON codecs: strings
// and keys that look like syntax (headers, numbers, literals, comments, list markers), delimiter
// and control characters, astral characters, prototype-ish keys, and the shapes that take the
// encoder's special forms (tables, nested field groups, keyed tables, arrays of arrays).
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../src/codec/types.js';

const TRICKY = [
  '', ' ', '  padded  ', 'true', 'false', 'null', 'True', '42', '-3.14', '1e6', '1E+9', '05', '-05', '+1', '0.5', '.5', '1.',
  '-', '- x', '-x', '#', '# comment', '#x', 'a#b', '[]', '[2]: x,y', 'key[2]{a,b}:', '[3:]{a}:', '{}', 'a:b', ':', 'http://x.y:80/z',
  '"', '""', '\\', '\\n', 'a,b', 'a|b', 'a\tb', '\t', '\n', '\r\n', '\u0000', '\u001f', '\u007f', '💩', 'é', '世界', 'x\u2028y',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'a.b', '_', 'A1_.b',
];

const SYNTAX_CHARS = [...'"\\:,|\t\n\r[]{}#- .0123456789eE+abtrufnl', '\u0001', '💩', 'é'];

/** Strings that stress quoting and escaping. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.array(fc.constantFrom(...SYNTAX_CHARS), { maxLength: 10 }).map((chars) => chars.join('')),
);

/** Keys: the same hostile strings, plus identifier-like ones. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(hostileString, fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,6}$/));

export const primitive: fc.Arbitrary<JsonValue> = fc.oneof(
  hostileString,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(0, -0, 1e21, 1e-7, 9007199254740993, 0.1),
  fc.boolean(),
  fc.constant(null),
);

/** Builds an object from entries without letting `__proto__` reach the prototype setter. */
export function objectFrom(entries: readonly (readonly [string, JsonValue])[]): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** `count` rows that share one layout: primitives, or nested groups of the same kind (§9.3). */
function uniformRows(depth: number, count: number): fc.Arbitrary<JsonObject[]> {
  const kind = depth > 0 ? fc.constantFrom('leaf' as const, 'group' as const) : fc.constant('leaf' as const);
  return fc
    .uniqueArray(fc.tuple(hostileKey, kind), { minLength: 1, maxLength: 4, selector: ([key]) => key })
    .chain((layout) =>
      fc
        .tuple(
          ...layout.map(([, column]) =>
            column === 'leaf'
              ? fc.array(primitive, { minLength: count, maxLength: count })
              : uniformRows(depth - 1, count),
          ),
        )
        .map((columns) =>
          Array.from({ length: count }, (_, row) =>
            objectFrom(layout.map(([key], c) => [key, (columns[c] as JsonValue[])[row]!])),
          ),
        ),
    );
}

const { value } = fc.letrec<{ value: JsonValue; array: JsonValue; object: JsonValue; table: JsonValue; keyed: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    primitive,
    tie('array'),
    tie('object'),
    tie('table'),
    tie('keyed'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc
    .uniqueArray(fc.tuple(hostileKey, tie('value')), { maxLength: 5, selector: ([key]) => key })
    .map((entries) => objectFrom(entries)),
  table: fc.integer({ min: 1, max: 4 }).chain((count) => uniformRows(2, count)),
  keyed: fc
    .uniqueArray(hostileKey, { minLength: 2, maxLength: 4 })
    .chain((keys) => uniformRows(1, keys.length).map((rows) => objectFrom(keys.map((key, i) => [key, rows[i]!])))),
}));

/** Any JSON value, with the biases described above. */
export const jsonValue: fc.Arbitrary<JsonValue> = value;

/**
 * JSON text with object keys sorted and -0 written as 0: two values are equal under the spec's
 * §2 data-model equality (tables may reorder keys) exactly when these strings are equal.
 */
export function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
}
