// Test support shared by every layer: fast-check generators for the JSON data model, biased
// towards what breaks TOON codecs and the picker, and JSON-model equality (spec §2).
//
// The bias: strings and keys that look like syntax (headers, numbers, literals, comments, list
// markers), delimiters, quotes, control and astral characters, lone surrogates, prototype-ish
// keys; and the shapes that take the encoder's special forms (tables, nested field groups, keyed
// tables, arrays of arrays).
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../src/codec/types.js';

const HOSTILE_STRINGS = [
  '',
  ' ',
  '  padded  ',
  'true',
  'false',
  'null',
  'True',
  '0',
  '-0',
  '42',
  '-3.14',
  '1e6',
  '1E+9',
  '05',
  '-05',
  '+1',
  '0.5',
  '1.50',
  '.5',
  '1.',
  '-',
  '- x',
  '-x',
  '#',
  '# comment',
  '#x',
  'a#b',
  '[]',
  '{}',
  '[2]: x,y',
  'key[2]{a,b}:',
  'a[1]{b}:',
  '[3:]{a}:',
  'key: value',
  'a:b',
  ':',
  'http://x.y:80/z',
  '"',
  '""',
  '"quoted"',
  '\\',
  '\\n',
  'back\\slash',
  'a,b',
  'a|b',
  'a\tb',
  '\t',
  '\n',
  'line\nbreak',
  '\r\n',
  '\u0000',
  '\u001f',
  '\u007f',
  '💩',
  '😀',
  'é',
  '世界',
  'x\u2028y',
  '\ud800',
  '<|endoftext|>',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'a.b',
  'x.y',
  '_',
  'A1_.b',
];

const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  'a',
  'b',
  'id',
  'a_b',
  'a.b',
  '.',
  'x.',
  '0',
  '1',
  '01',
  '-',
  '#',
  'a b',
  'a:b',
  'a,b',
  'a|b',
  '"',
  '[0]',
  '{x}',
  'é',
  '😀',
  'true',
  'null',
];

const SYNTAX_CHARS = [...'"\\:,|\t\n\r[]{}#- .0123456789eE+abtrufnl', '\u0001', '💩', 'é'];

/** Strings that stress quoting and escaping. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.array(fc.constantFrom(...SYNTAX_CHARS), { maxLength: 10 }).map((chars) => chars.join('')),
);

/** Keys: hostile ones and identifier-like ones; `dots: false` leaves out keys containing `.`. */
export function hostileKey(dots = true): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom(...HOSTILE_KEYS),
      hostileString,
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,6}$/),
    )
    .filter((key) => dots || !key.includes('.'));
}

const jsonNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    1e21,
    1e-7,
    5e-324,
    0.1,
    -1.5e300,
    Number.MAX_SAFE_INTEGER,
    2 ** 53 + 2,
    // biome-ignore lint/correctness/noPrecisionLoss: the literal is the point: it is not exact
    9007199254740993,
  ),
);

/** Any JSON primitive. */
export const primitive: fc.Arbitrary<JsonValue> = fc.oneof(
  hostileString,
  jsonNumber,
  fc.boolean(),
  fc.constant(null),
);

/** Builds an object from entries without ever going through the `__proto__` setter. */
export function objectOf(entries: ReadonlyArray<readonly [string, JsonValue]>): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/** `count` rows that share one layout: primitives, or nested groups of the same kind (§9.3). */
function uniformRows(
  key: fc.Arbitrary<string>,
  depth: number,
  count: number,
): fc.Arbitrary<JsonObject[]> {
  const kind =
    depth > 0 ? fc.constantFrom('leaf' as const, 'group' as const) : fc.constant('leaf' as const);
  return fc
    .uniqueArray(fc.tuple(key, kind), { minLength: 1, maxLength: 4, selector: ([name]) => name })
    .chain((layout) =>
      fc
        .tuple(
          ...layout.map(([, column]) =>
            column === 'leaf'
              ? fc.array(primitive, { minLength: count, maxLength: count })
              : uniformRows(key, depth - 1, count),
          ),
        )
        .map((columns) =>
          Array.from({ length: count }, (_, row) =>
            objectOf(layout.map(([name], c) => [name, (columns[c] as JsonValue[])[row]!])),
          ),
        ),
    );
}

/**
 * Any JSON value with the biases described above, tables and keyed tables included;
 * `dots: false` keeps `.` out of every key (what flatten needs to be lossless).
 */
export function jsonValue(dots = true): fc.Arbitrary<JsonValue> {
  const key = hostileKey(dots);
  const { value } = fc.letrec<{
    value: JsonValue;
    array: JsonValue;
    object: JsonValue;
    table: JsonValue;
    keyed: JsonValue;
  }>((tie) => ({
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
      .uniqueArray(fc.tuple(key, tie('value')), { maxLength: 5, selector: ([name]) => name })
      .map(objectOf),
    table: fc.integer({ min: 1, max: 4 }).chain((count) => uniformRows(key, 2, count)),
    keyed: fc
      .uniqueArray(key, { minLength: 2, maxLength: 4 })
      .chain((names) =>
        uniformRows(key, 1, names.length).map((rows) =>
          objectOf(names.map((name, i) => [name, rows[i]!])),
        ),
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
      fc.uniqueArray(fc.tuple(key, tie('shape')), {
        minLength: 0,
        maxLength: 4,
        selector: ([name]) => name,
      }),
    ),
  }));
  const valueOfShape = (s: Shape): fc.Arbitrary<JsonValue> =>
    s === null
      ? fc.oneof(
          { weight: 8, arbitrary: primitive },
          { weight: 1, arbitrary: fc.array(primitive, { maxLength: 3 }) },
        )
      : fc
          .tuple(...s.map(([name, sub]) => valueOfShape(sub).map((v) => [name, v] as const)))
          .map(objectOf);
  const rootShape = fc.uniqueArray(fc.tuple(key, shape), {
    minLength: 1,
    maxLength: 4,
    selector: ([name]) => name,
  });
  return rootShape.chain((s) =>
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: valueOfShape(s) },
        { weight: 1, arbitrary: valueOfShape(s.slice(1)) },
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
  );
}

/**
 * JSON-model equality (spec §2): arrays pairwise in order, objects by their own key set and
 * pairwise values (order-insensitive, since table rows decode in header order), numbers by
 * value (so -0 equals 0). Also demands that every object is an ordinary object.
 */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]!));
  }
  if (
    Object.getPrototypeOf(a) !== Object.prototype ||
    Object.getPrototypeOf(b) !== Object.prototype
  )
    return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key]!, b[key]!));
}

/**
 * JSON text with object keys sorted and -0 written as 0: equal exactly when {@link jsonEqual}
 * holds (but for prototypes), and readable in an assertion's diff.
 */
export function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
}

/** Does every string and key of `value` hold only well-formed UTF-16 (no unpaired surrogate)? */
export function isWellFormedJson(value: JsonValue): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(isWellFormedJson);
  return Object.keys(value).every((key) => key.isWellFormed() && isWellFormedJson(value[key]!));
}
