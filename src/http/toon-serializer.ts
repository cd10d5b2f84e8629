// A schema-compiled TOON serializer: the TOON counterpart of fast-json-stringify. For a response
// schema within the projection's fast path (see schema-projection.ts), it writes exactly
// `encode(project(value), { delimiter })` without building the projected copy and without the
// generic encoder's look-ahead: every shape decision the schema settles is made once, at compile
// time, and line prefixes and table headers are precomputed per position.
//
// Canonical TOON still decides some shapes from the data (is this array a table? is this object
// a keyed table?). Where the schema leaves such a decision open, the compiled code either checks
// the data cheaply or gives up; a serializer that gives up returns `undefined`, and the caller
// falls back to projection + the generic encoder. Giving up is always correct, only slower.
//
// Compiled with closures only (no `new Function`), so it runs under strict CSP.
import type { Field } from '../codec/layout.js';
import { fieldList } from '../codec/layout.js';
import { encodeKey, encodePrimitive } from '../codec/lexical.js';
import type { Delimiter, JsonPrimitive } from '../codec/types.js';
import {
  type ArrayShape,
  describeSchema,
  isPlainObject,
  matchesScalar,
  type ObjectShape,
  type PropertyShape,
  type ScalarShape,
  type SchemaShape,
} from './schema-projection.js';

/** Writes a value as canonical TOON, or returns `undefined` when it cannot decide exactly. */
export type ToonSerializer = (value: unknown) => string | undefined;

/** Thrown inside compiled code when the data needs the generic path; never escapes this module. */
const GIVE_UP: unique symbol = Symbol('toonwire.toonSerializer.giveUp');

function giveUp(): never {
  throw GIVE_UP;
}

/** Appends the TOON of `value` to `out`. Compiled per schema position. */
type Write = (out: string, value: unknown) => string;

/** Where an array stands (as in the encoder): decides its empty form and whether it may be a table. */
type Position = 'root' | 'field' | 'item';

interface Context {
  delimiter: Delimiter;
  /** The delimiter as written inside brackets: nothing for comma (§6). */
  bracketSymbol: string;
}

const INDENT = '  '; // the encoder's default indentSize, which renderBody uses

/** `'\n'` plus the indentation of `depth`: the start of every line at that depth. */
function lineStart(depth: number): string {
  return '\n' + INDENT.repeat(depth);
}

function isArray(value: unknown): value is unknown[] {
  // Array subclasses would map through their species: leave them to the generic path.
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/**
 * A scalar as it appears anywhere in a document (value, cell or inline item): the projection's
 * type check, then the codec's own formatting, with quoting for the document delimiter.
 *
 * Scalars are most of what a document holds, so this is one plain function rather than a
 * closure per field: closures created at one site share V8's type feedback, which makes a call
 * through them megamorphic, while a direct call to this function is inlined.
 */
function scalarText(shape: ScalarShape, value: unknown, delimiter: Delimiter): string {
  if ((value === null && shape.nullable) || matchesScalar(shape.type, value)) {
    return encodePrimitive(value as JsonPrimitive, delimiter);
  }
  return giveUp();
}

/** Wraps a writer of non-null values so that `null` writes `nullText` when the shape allows it. */
function orNull(shape: SchemaShape, write: Write, nullText: string): Write {
  if (!shape.nullable) return write;
  return (out, value) => (value === null ? out + nullText : write(out, value));
}

/**
 * What follows a field's key on its line, and its content one level deeper at `depth` (§8):
 * `: 7`, `: []`, `[2]: a,b`, `[2]{id,name}:` + rows, `:` + nested fields.
 */
function compileAfterKey(shape: SchemaShape, depth: number, context: Context): Write {
  if (shape.kind === 'scalar') {
    const { delimiter } = context;
    return (out, value) => out + ': ' + scalarText(shape, value, delimiter);
  }
  if (shape.kind === 'array') return orNull(shape, compileArray(shape, depth, 'field', context), ': null');
  const fields = compileFields(shape, depth, context, 'field');
  return orNull(shape, (out, value) => fields(out + ':', value), ': null');
}

/**
 * §9.5: an object with two or more entries that are all objects may become a keyed table; the
 * serializer never writes one. True when the schema allows such an object at all.
 */
function mayBeKeyedTable(shape: ObjectShape): boolean {
  const objects = shape.properties.filter((property) => property.shape.kind === 'object');
  return objects.length >= 2 && shape.properties.every((property) => !property.required || property.shape.kind === 'object');
}

/** Would the projected object have two or more entries, all objects? (Then give up: it may be keyed.) */
function looksKeyed(object: Record<string, unknown>, properties: readonly PropertyShape[]): boolean {
  let objects = 0;
  for (const { key } of properties) {
    const value = object[key];
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    objects++;
  }
  return objects >= 2;
}

/**
 * The fields of an object, one line each at `depth`, in the projection's order; absent optional
 * properties are skipped. Where the object stands changes only its first line: at the root it
 * starts the document (no newline), as a list item (§10) the first written field rides on the
 * hyphen line one level up, and an empty list item is a lone `-`.
 *
 * @example
 * // { id: 1, tags: ['a'] } at depth 1 as a list item, written after 'rows[1]:':
 * // '\n  - id: 1\n    tags[1]: a'
 */
function compileFields(shape: ObjectShape, depth: number, context: Context, position: Position): Write {
  const { delimiter } = context;
  const fields = shape.properties.map(({ key, required, shape: child }) => {
    // Scalar fields are written inline (see scalarText), with the `: ` folded into the prefix.
    const scalar = child.kind === 'scalar' ? child : undefined;
    const line = encodeKey(key) + (scalar === undefined ? '' : ': ');
    const prefix = lineStart(depth) + line;
    const firstPrefix = position === 'root' ? line : position === 'item' ? lineStart(depth - 1) + '- ' + line : prefix;
    const write = scalar === undefined ? compileAfterKey(child, depth + 1, context) : undefined;
    return { key, required, prefix, firstPrefix, scalar, write };
  });
  // Objects inside lists and tables never become keyed tables (only root and field values do).
  const checkKeyed = position !== 'item' && mayBeKeyedTable(shape);
  const empty = position === 'item' ? lineStart(depth - 1) + '-' : '';
  return (out, value) => {
    if (!isPlainObject(value)) giveUp();
    if (checkKeyed && looksKeyed(value, shape.properties)) giveUp();
    let first = true;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      const child = value[field.key];
      if (child === undefined) {
        if (field.required) giveUp();
        continue;
      }
      const prefix = first ? field.firstPrefix : field.prefix;
      first = false;
      out =
        field.scalar === undefined ? field.write!(out + prefix, child) : out + prefix + scalarText(field.scalar, child, delimiter);
    }
    return first ? out + empty : out;
  };
}

/** One `- ` list item at `depth` (§10): a nested array, an object, or null. */
function compileListItem(shape: SchemaShape, depth: number, context: Context): Write {
  const start = lineStart(depth) + '- ';
  if (shape.kind === 'scalar') {
    const { delimiter } = context;
    return (out, value) => out + start + scalarText(shape, value, delimiter);
  }
  const write =
    shape.kind === 'array'
      ? (() => {
          const array = compileArray(shape, depth + 1, 'item', context);
          return (out: string, value: unknown) => array(out + start, value);
        })()
      : compileFields(shape, depth + 1, context, 'item');
  return orNull(shape, write, start + 'null');
}

function allNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] !== null) return false;
  return true;
}

function anyNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === null) return true;
  return false;
}

/**
 * An array from its `[N]` on (or its empty form, which depends on `position`, §9.1-§9.2), with
 * items, rows or list items at `depth`.
 */
function compileArray(shape: ArrayShape, depth: number, position: Position, context: Context): Write {
  const { bracketSymbol, delimiter } = context;
  const empty = position === 'field' ? ': []' : position === 'root' ? '[]' : `[0${bracketSymbol}]:`;
  const items = shape.items;

  if (items.kind === 'scalar') {
    // §9.1: primitives always stay inline.
    return (out, value) => {
      if (!isArray(value)) giveUp();
      const length = value.length;
      if (length === 0) return out + empty;
      out += `[${length}${bracketSymbol}]: ` + scalarText(items, value[0], delimiter);
      for (let i = 1; i < length; i++) out += delimiter + scalarText(items, value[i], delimiter);
      return out;
    };
  }

  const listItem = compileListItem(items, depth, context);
  // §9.4: an array that is itself a list item never takes tabular form.
  const table = items.kind === 'object' && position !== 'item' ? compileTable(items, depth, context) : undefined;
  return (out, value) => {
    if (!isArray(value)) giveUp();
    const length = value.length;
    if (length === 0) return out + empty;
    const bracket = `[${length}${bracketSymbol}]`;
    if (items.nullable && anyNull(value)) {
      // All null: an inline array of primitives. Some null: no table can hold them, a list.
      if (allNull(value)) return out + bracket + ': null' + (delimiter + 'null').repeat(length - 1);
    } else if (table !== undefined && table.applies(value)) {
      return table.write(out + bracket, value);
    }
    out += bracket + ':';
    for (let i = 0; i < length; i++) out = listItem(out, value[i]);
    return out;
  };
}

/** How a row of an array of objects stands towards the table whose columns the schema declares. */
const enum RowFit {
  /** Every declared field present, nested objects as full field groups: the full table row. */
  Full,
  /** Fits no table: an array value or an empty object (§9.3 tables hold primitives only). */
  Broken,
  /** Anything else (an absent optional field, a null object): only the generic encoder decides. */
  Partial,
}

/** Whether rows conforming to `shape` always, never, or only sometimes form the full table. */
type Tabularity = 'always' | 'never' | 'runtime';

function tabularity(shape: ObjectShape): Tabularity {
  if (shape.properties.length === 0) return 'never';
  let always = true;
  for (const { required, shape: child } of shape.properties) {
    if (child.kind === 'scalar') continue;
    const certain = required && !child.nullable;
    if (child.kind === 'array') {
      if (certain) return 'never';
      always = false;
    } else {
      const nested = tabularity(child);
      if (certain && nested === 'never') return 'never';
      if (!certain || nested !== 'always') always = false;
    }
  }
  return always && shape.properties.every((property) => property.required) ? 'always' : 'runtime';
}

/** The full table's columns (§9.3 with nested field groups), or `undefined` when an array field rules it out. */
function fullLayout(shape: ObjectShape): Field[] | undefined {
  if (shape.properties.length === 0) return undefined;
  const fields: Field[] = [];
  for (const { key, shape: child } of shape.properties) {
    if (child.kind === 'array') return undefined;
    if (child.kind === 'scalar') {
      fields.push({ key, children: undefined });
      continue;
    }
    const children = fullLayout(child);
    if (children === undefined) return undefined;
    fields.push({ key, children });
  }
  return fields;
}

/** Classifies one row (see {@link RowFit}) without writing it. */
function compileRowFit(shape: ObjectShape): (row: unknown) => RowFit {
  const nested = shape.properties.map(({ key, shape: child }) => ({
    key,
    kind: child.kind,
    fit: child.kind === 'object' ? compileRowFit(child) : undefined,
  }));
  return (row) => {
    if (!isPlainObject(row)) giveUp();
    let fit = RowFit.Full;
    let present = 0;
    for (let i = 0; i < nested.length; i++) {
      const field = nested[i]!;
      const value = row[field.key];
      if (value === undefined) {
        fit = RowFit.Partial;
        continue;
      }
      present++;
      if (field.kind === 'scalar') continue;
      if (value === null) {
        fit = RowFit.Partial; // a leaf column where the full table has a group (or an array)
      } else if (field.kind === 'array') {
        if (Array.isArray(value)) return RowFit.Broken;
        giveUp();
      } else {
        const inner = field.fit!(value);
        if (inner === RowFit.Broken) return RowFit.Broken;
        if (inner === RowFit.Partial) fit = RowFit.Partial;
      }
    }
    return present === 0 ? RowFit.Broken : fit;
  };
}

/** A row's cells in depth-first column order (§9.3), separated by the delimiter. */
function compileCells(shape: ObjectShape, context: Context): Write {
  const cells = shape.properties.map(({ key, shape: child }) =>
    child.kind === 'scalar'
      ? { key, scalar: child, group: undefined }
      : { key, scalar: undefined, group: compileCells(child as ObjectShape, context) },
  );
  const { delimiter } = context;
  return (out, row) => {
    if (!isPlainObject(row)) giveUp();
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i]!;
      if (i > 0) out += delimiter;
      const value = row[cell.key];
      out = cell.scalar === undefined ? cell.group!(out, value) : out + scalarText(cell.scalar, value, delimiter);
    }
    return out;
  };
}

interface Table {
  /** Do these (non-null) rows form the full table? Gives up when only the generic encoder can tell. */
  applies(rows: readonly unknown[]): boolean;
  /** Writes the header after `[N]`, then one line of cells per row. */
  write: Write;
}

/** The §9.3 table for an array of objects at `depth`, or `undefined` when it can never apply. */
function compileTable(shape: ObjectShape, depth: number, context: Context): Table | undefined {
  const kind = tabularity(shape);
  const layout = fullLayout(shape);
  if (kind === 'never' || layout === undefined) {
    if (kind === 'never') return undefined;
    // No full table exists (an optional or nullable array field), yet rows may form another.
    const fit = compileRowFit(shape);
    return { applies: (rows) => rows.some((row) => fit(row) === RowFit.Broken) ? false : giveUp(), write: giveUp };
  }
  const header = fieldList(layout, context.delimiter) + ':';
  const rowStart = lineStart(depth);
  const cells = compileCells(shape, context);
  const fit = kind === 'runtime' ? compileRowFit(shape) : undefined;
  return {
    applies(rows) {
      if (fit === undefined) return true;
      let full = true;
      for (let i = 0; i < rows.length; i++) {
        const rowFit = fit(rows[i]);
        if (rowFit === RowFit.Broken) return false;
        if (rowFit === RowFit.Partial) full = false;
      }
      // Rows that all miss the same optional field would form a narrower table: not decided here.
      return full || giveUp();
    },
    write(out, rows) {
      out += header;
      const array = rows as readonly unknown[];
      for (let i = 0; i < array.length; i++) out = cells(out + rowStart, array[i]);
      return out;
    },
  };
}

/** The whole document: a root primitive, a root array, or the root object's fields (§5). */
function compileDocument(shape: SchemaShape, context: Context): (value: unknown) => string {
  if (shape.kind === 'scalar') return (value) => scalarText(shape, value, context.delimiter);
  if (shape.kind === 'array') {
    const array = orNull(shape, compileArray(shape, 1, 'root', context), 'null');
    return (value) => array('', value);
  }
  const fields = compileFields(shape, 0, context, 'root');
  return (value) => (value === null && shape.nullable ? 'null' : fields('', value));
}

const BRACKET_SYMBOLS: Record<Delimiter, string> = { ',': '', '|': '|', '\t': '\t' };
const compiled = new WeakMap<object, Map<Delimiter, ToonSerializer | null>>();

function compileFor(schema: object, delimiter: Delimiter): ToonSerializer | undefined {
  const shape = describeSchema(schema);
  if (shape === undefined) return undefined;
  const document = compileDocument(shape, { delimiter, bracketSymbol: BRACKET_SYMBOLS[delimiter] });
  return (value) => {
    try {
      return document(value);
    } catch {
      // GIVE_UP, or an error the codec raises (a string with an unpaired surrogate). The
      // fallback path decides errors: it checks the whole value before encoding anything, so
      // it may fail differently, and it is the one behaviour callers see.
      return undefined;
    }
  };
}

/**
 * A serializer that writes values described by a Fastify response schema as canonical TOON:
 * for every value it accepts, the result is exactly
 * `encode(compileProjection(schema)(value), { delimiter })`. It never throws; it returns
 * `undefined` (write the value the generic way) for values it cannot decide exactly: a type the schema does not allow,
 * class instances, an array of objects whose rows miss optional fields, an object that could be
 * a keyed table. The function itself is `undefined` for schemas outside the projection's fast
 * path. Compiled once per schema object and delimiter.
 *
 * @example
 * const write = compileToonSerializer(
 *   { type: 'object', properties: { users: { type: 'array', items: {
 *     type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } } } } },
 *   ',',
 * );
 * write?.({ users: [{ id: 1, name: 'Ada', secret: 'x' }, { id: 2, name: 'Bob' }] });
 * // 'users[2]{id,name}:\n  1,Ada\n  2,Bob'
 * write?.({ users: [{ id: '1', name: 'Ada' }] }); // undefined: `id` is not an integer
 */
export function compileToonSerializer(schema: unknown, delimiter: Delimiter = ','): ToonSerializer | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let byDelimiter = compiled.get(schema);
  if (byDelimiter === undefined) {
    byDelimiter = new Map();
    compiled.set(schema, byDelimiter);
  }
  let serializer = byDelimiter.get(delimiter);
  if (serializer === undefined) {
    serializer = compileFor(schema, delimiter) ?? null;
    byDelimiter.set(delimiter, serializer);
  }
  return serializer ?? undefined;
}
