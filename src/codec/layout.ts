// The shape rules of canonical TOON (§9.3 tabular arrays, §9.5 keyed tables): which arrays and
// objects become tables, and with which columns. The encoder decides its output with them, and
// the picker uses the same rules to size candidates without encoding them twice.

import { encodeKey } from './lexical.js';
import { isJsonObject } from './objects.js';
import { RawString } from './raw-string.js';
import type { JsonObject, JsonPrimitive, JsonValue } from './types.js';

/**
 * Thrown by the encoder's first, optimistic pass when it meets a value outside the JSON data
 * model; encode() then normalizes and starts again. Plain data never pays for normalization.
 */
export const NOT_JSON: unique symbol = Symbol('toonwire.notJson');

/**
 * A column layout shared by every row of a table: leaf fields and nested field groups (§9.3),
 * in the first row's encounter order.
 */
export interface Field {
  key: string;
  children: Field[] | undefined;
}

/**
 * Is `value` a JSON primitive (or a {@link RawString}, which stands in for one)? undefined,
 * functions, symbols and BigInts are none of JSON's types: they throw {@link NOT_JSON}
 * (normalized values never contain them).
 *
 * `rawStrings: false` is for values known to hold no RawString (the encoder knows, see its
 * Writer): a RawString then counts as an object. The `instanceof` test skipped that way, run on
 * every container, cost about a tenth of encode's time on typical documents.
 *
 * @example
 * isPrimitive(null); // true
 * isPrimitive(rawString('x')); // true
 * isPrimitive(rawString('x'), false); // false
 */
export function isPrimitive(value: JsonValue, rawStrings = true): value is JsonPrimitive {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      return value === null || (rawStrings && value instanceof RawString);
    default:
      throw NOT_JSON;
  }
}

/** Is `value` a plain object or array, which JSON.stringify would write as it is? */
export function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return (
    (prototype === Object.prototype || prototype === Array.prototype || prototype === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/**
 * An object that is a record, not a {@link RawString} standing in for a primitive (`rawStrings`
 * as in {@link isPrimitive}).
 */
function isRecord(value: JsonValue | undefined, rawStrings: boolean): value is JsonObject {
  return isJsonObject(value) && !(rawStrings && value instanceof RawString);
}

/** Are all `values` primitives (`rawStrings` as in {@link isPrimitive})? */
export function allPrimitives(values: readonly JsonValue[], rawStrings = true): boolean {
  for (let i = 0; i < values.length; i++) if (!isPrimitive(values[i]!, rawStrings)) return false;
  return true;
}

/**
 * The field layout of `row` if it can head a table: a non-empty object whose values are all
 * primitives or non-empty objects of the same kind, recursively. Arrays and empty objects
 * anywhere disqualify it.
 */
function layoutOf(row: JsonObject, rawStrings: boolean): Field[] | undefined {
  const keys = Object.keys(row);
  if (keys.length === 0) return undefined;
  const fields: Field[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = row[key]!;
    if (isPrimitive(value, rawStrings)) {
      fields[i] = { key, children: undefined };
    } else if (Array.isArray(value)) {
      return undefined;
    } else {
      const children = layoutOf(value, rawStrings);
      if (children === undefined) return undefined;
      fields[i] = { key, children };
    }
  }
  return fields;
}

/**
 * Does `row` have exactly the keys of `fields` (in any order), with primitives and nested groups
 * in place, so that it can be a row of their table? `rawStrings` as in {@link isPrimitive}.
 *
 * @example
 * const fields = sharedLayout([{ id: 1, s: { a: 1 } }])!;
 * fitsLayout({ s: { a: 2 }, id: 2 }, fields); // true
 * fitsLayout({ id: 3 }, fields); // false
 */
export function fitsLayout(row: JsonValue, fields: readonly Field[], rawStrings = true): boolean {
  if (!isRecord(row, rawStrings)) return false;
  const keys = Object.keys(row);
  if (keys.length !== fields.length) return false;
  // A lookup by a key that changes from field to field goes through the engine's shared cache of
  // every shape and key (about a hundred instructions each, callgrind), where Object.values
  // copies the values in one native step; an object of more than about a hundred keys keeps
  // them in a hash table instead, which Object.values walks slowly (as in the encoder's fields).
  const values = keys.length <= MANY_KEYS ? Object.values(row) : undefined;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    // Rows nearly always list their keys in the first row's order; only when they do not is
    // the slower own-property lookup needed (the key count already matches).
    let value: JsonValue;
    if (keys[i] === field.key && values !== undefined) value = values[i]!;
    else if (Object.hasOwn(row, field.key)) value = row[field.key]!;
    else return false;
    if (
      field.children === undefined
        ? !isPrimitive(value, rawStrings)
        : !fitsLayout(value, field.children, rawStrings)
    ) {
      return false;
    }
  }
  return true;
}

/** Rows with more keys than this are read by name (see fitsLayout). */
const MANY_KEYS = 128;

/** Does `row` have exactly the keys of `fields` in their order, recursively? */
function hasLayout(row: JsonObject, fields: readonly Field[], rawStrings: boolean): boolean {
  const keys = Object.keys(row);
  if (keys.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (keys[i] !== field.key) return false;
    const value = row[field.key]!;
    if (
      field.children === undefined
        ? !isPrimitive(value, rawStrings)
        : !isRecord(value, rawStrings) || !hasLayout(value, field.children, rawStrings)
    ) {
      return false;
    }
  }
  return true;
}

/**
 * The columns of a table when every one of `rows` fits the first one's layout (§9.3 tabular
 * detection, also used for the entry values of §9.5); `undefined` when they are no table.
 * `previous`, a layout found before, is reused when the first row has exactly its keys in its
 * order, which saves building the same columns again. `rawStrings` as in {@link isPrimitive}.
 *
 * @example
 * sharedLayout([{ id: 1, s: { a: 1 } }, { s: { a: 2 }, id: 2 }]);
 * // [{ key: 'id', children: undefined }, { key: 's', children: [{ key: 'a', children: undefined }] }]
 */
export function sharedLayout(
  rows: readonly JsonValue[],
  previous?: readonly Field[],
  rawStrings = true,
): Field[] | undefined {
  const fields = firstRowLayout(rows[0], previous, rawStrings);
  return fields !== undefined && laterRowsFit(rows, fields, rawStrings) ? fields : undefined;
}

/**
 * Does every row after the first fit `fields` ({@link fitsLayout})? `rawStrings` as in
 * {@link isPrimitive}.
 */
export function laterRowsFit(
  rows: readonly JsonValue[],
  fields: readonly Field[],
  rawStrings = true,
): boolean {
  for (let i = 1; i < rows.length; i++) if (!fitsLayout(rows[i]!, fields, rawStrings)) return false;
  return true;
}

/**
 * The layout a table whose first row is `first` would have, if the other rows fit it (see
 * {@link sharedLayout}, which checks that; the encoder checks it as it writes the rows).
 * `previous` and `rawStrings` as there.
 *
 * @example
 * firstRowLayout({ id: 1, s: { a: 1 } });
 * // [{ key: 'id', children: undefined }, { key: 's', children: [{ key: 'a', children: undefined }] }]
 */
export function firstRowLayout(
  first: JsonValue | undefined,
  previous?: readonly Field[],
  rawStrings = true,
): Field[] | undefined {
  if (!isRecord(first, rawStrings)) return undefined;
  // Responses repeat the same nested tables (every order's items): when the first row has the
  // previous table's keys in the same order, that layout is this table's too.
  return previous !== undefined && hasLayout(first, previous, rawStrings)
    ? (previous as Field[])
    : layoutOf(first, rawStrings);
}

/**
 * The entry layout when `object` qualifies for keyed tabular form (§9.5): at least two entries,
 * all non-empty objects sharing one layout. `rawStrings` as in {@link isPrimitive}; `keys`, the
 * object's own keys, when the caller has them already.
 *
 * @example
 * keyedLayout({ alice: { age: 30 }, bob: { age: 25 } }); // [{ key: 'age', children: undefined }]
 */
export function keyedLayout(
  object: JsonObject,
  rawStrings = true,
  keys: readonly string[] = Object.keys(object),
): Field[] | undefined {
  // Most objects are no keyed table, and their first value says so. The values are read in
  // place, in sharedLayout's steps: a copy of them (Object.values) was a quarter of the encode of
  // an object of 10,000 keys, and a sixth of the picker's shape bound on mime-db and spdx, objects
  // of thousands of entries that fit no table.
  if (keys.length < 2 || !isRecord(object[keys[0]!], rawStrings)) return undefined;
  for (let i = 1; i < keys.length; i++)
    if (!isRecord(object[keys[i]!], rawStrings)) return undefined;
  const fields = firstRowLayout(object[keys[0]!], undefined, rawStrings);
  if (fields === undefined) return undefined;
  for (let i = 1; i < keys.length; i++) {
    if (!fitsLayout(object[keys[i]!]!, fields, rawStrings)) return undefined;
  }
  return fields;
}

/**
 * A header's fields segment, `{id,customer{name,country},total}` (§6, §9.3), with field names
 * encoded per §7.3 and separated by `delimiter`.
 *
 * @example
 * fieldList([{ key: 'a b', children: undefined }, { key: 'c', children: undefined }], '|'); // '{"a b"|c}'
 */
export function fieldList(fields: readonly Field[], delimiter: string): string {
  let text = '{';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (i > 0) text += delimiter;
    text += encodeKey(field.key);
    if (field.children !== undefined) text += fieldList(field.children, delimiter);
  }
  return `${text}}`;
}
