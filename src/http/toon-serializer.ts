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
// Like fast-json-stringify (which Fastify already runs for every JSON response), it generates
// JavaScript source, one function per object, array and table position of the schema. Why not
// closures: closures made at one site share V8's type feedback, so every call through them is
// megamorphic and nothing inlines; that made the closure version 2.5 times slower than straight
// code. The source only ever contains literals made by JSON.stringify (keys, prefixes, headers),
// never data. Where code generation is disallowed (`--disallow-code-generation-from-strings`),
// compiling fails quietly and the caller takes the generic path.
import type { Field } from '../codec/layout.js';
import { fieldList } from '../codec/layout.js';
import { encodeKey, encodeString, formatNumber } from '../codec/lexical.js';
import type { Delimiter } from '../codec/types.js';
import {
  type ArrayShape,
  describeSchema,
  isFieldwiseObject,
  isoText,
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

function isArray(value: unknown): value is unknown[] {
  // Array subclasses would map through their species: leave them to the generic path.
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/** Would the projected object have two or more entries, all objects? (Then give up: it may be keyed.) */
function looksKeyed(object: Record<string, unknown>, keys: readonly string[]): boolean {
  let objects = 0;
  for (const key of keys) {
    const value = object[key];
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    objects++;
  }
  return objects >= 2;
}

// '00' to '99': the two-digit parts of a date need no padding when it is written.
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/**
 * A Date in a string field: its ISO text (what `toISOString()` gives), which always holds a
 * colon, so always quoted (§7.2). Assembled from its UTC parts for years 1000 to 9999, since
 * `toISOString()` costs several times more (a third of the serializer's time on a page with one
 * Date per row); other years take `toISOString()`, an invalid Date gives up.
 */
function dateText(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) {
    const text = isoText(date);
    return text === undefined ? giveUp() : `"${text}"`;
  }
  const ms = date.getUTCMilliseconds();
  return `"${year}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}T${TWO_DIGITS[date.getUTCHours()]}:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}

function allNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] !== null) return false;
  return true;
}

function anyNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === null) return true;
  return false;
}

/** What generated code may call, under these names. */
const RUNTIME = {
  giveUp,
  isFieldwiseObject,
  isArray,
  looksKeyed,
  allNull,
  anyNull,
  encodeString,
  formatNumber,
  dateText,
};

/** A JavaScript string literal for `text`, safe to splice into generated source. */
const literal = (text: string): string => JSON.stringify(text);

/** Where an array or object stands (as in the encoder): decides its first line and empty form. */
type Position = 'root' | 'field' | 'item';

const INDENT = '  '; // the encoder's default indentSize, which renderBody uses

/** `'\n'` plus the indentation of `depth`: the start of every line at that depth. */
function lineStart(depth: number): string {
  return `\n${INDENT.repeat(depth)}`;
}

/** The generated program: top-level declarations, and fresh names for them and for locals. */
class Program {
  readonly delimiter: Delimiter;
  /** The delimiter as written inside brackets: nothing for comma (§6). */
  readonly bracketSymbol: string;
  readonly #declarations: string[] = [];
  #names = 0;

  constructor(delimiter: Delimiter) {
    this.delimiter = delimiter;
    this.bracketSymbol = delimiter === ',' ? '' : delimiter;
  }

  /** A name no other declaration or local uses, e.g. `row3`. */
  name(prefix: string): string {
    return `${prefix}${this.#names++}`;
  }

  /** Declares `function name(params) { body }` at the top level; returns its name. */
  declareFunction(prefix: string, params: string, body: readonly string[]): string {
    const name = this.name(prefix);
    this.#declarations.push(`function ${name}(${params}) {\n  ${body.join('\n  ')}\n}`);
    return name;
  }

  /** Declares a constant at the top level (so hot code does not rebuild it); returns its name. */
  declareConstant(prefix: string, source: string): string {
    const name = this.name(prefix);
    this.#declarations.push(`const ${name} = ${source};`);
    return name;
  }

  /** Compiles the program and returns the function called `entry`. */
  link(entry: string): (value: unknown) => string {
    const source = [
      '"use strict";',
      `const { ${Object.keys(RUNTIME).join(', ')} } = runtime;`,
      ...this.#declarations,
      `return ${entry};`,
    ].join('\n');
    return new Function('runtime', source)(RUNTIME) as (value: unknown) => string;
  }
}

/**
 * An expression for the text of the scalar in variable `x`: the projection's type check, then
 * the codec's own formatting, with quoting for the document delimiter; `giveUp()` otherwise.
 *
 * @example
 * scalar({ kind: 'scalar', type: 'integer', nullable: false }, 'x', program);
 * // '(Number.isInteger(x) ? formatNumber(x) : giveUp())'
 * scalar({ kind: 'scalar', type: 'string', nullable: false, isoDates: true }, 'x', program);
 * // '(typeof x === "string" ? encodeString(x, ",") : x instanceof Date ? dateText(x) : giveUp())'
 */
function scalar(shape: ScalarShape, x: string, program: Program): string {
  const typed = {
    string: `typeof ${x} === "string" ? ${enumTexts(shape, x, program)}encodeString(${x}, ${literal(program.delimiter)})${shape.isoDates ? ` : ${x} instanceof Date ? dateText(${x})` : ''}`,
    integer: `Number.isInteger(${x}) ? formatNumber(${x})`,
    number: `Number.isFinite(${x}) ? formatNumber(${x})`,
    boolean: `${x} === true ? "true" : ${x} === false ? "false"`,
    null: `${x} === null ? "null"`,
  }[shape.type];
  const orNull = shape.nullable && shape.type !== 'null' ? `${x} === null ? "null" : ` : '';
  return `(${orNull}${typed} : giveUp())`;
}

// Longer enums are left to encodeString: a miss walks the whole chain of comparisons.
const MAX_ENUM_TEXTS = 16;

/**
 * The start of a conditional that answers the string members of the schema's `enum` with their
 * text, computed here once (quoting checks are most of the serializer's time on string-heavy
 * data); other values, which fast-json-stringify writes too, fall through to `encodeString`.
 *
 * @example
 * enumTexts({ kind: 'scalar', type: 'string', nullable: false, enum: ['paid', 'on hold', 'true'] }, 'x', program);
 * // 'x === "paid" ? "paid" : x === "on hold" ? "on hold" : x === "true" ? "\"true\"" : '
 */
function enumTexts(shape: ScalarShape, x: string, program: Program): string {
  const members = new Set(
    (shape.enum ?? []).filter(
      // A member encodeString refuses (an unpaired surrogate) keeps taking encodeString, which
      // throws for it, so the serializer gives up as before.
      (member): member is string => typeof member === 'string' && member.isWellFormed(),
    ),
  );
  if (members.size > MAX_ENUM_TEXTS) return '';
  let conditional = '';
  for (const member of members) {
    conditional += `${x} === ${literal(member)} ? ${literal(encodeString(member, program.delimiter))} : `;
  }
  return conditional;
}

/**
 * §9.5: an object with two or more entries that are all objects may become a keyed table; the
 * serializer never writes one. True when the schema allows such an object at all.
 */
function mayBeKeyedTable(shape: ObjectShape): boolean {
  const objects = shape.properties.filter((property) => property.shape.kind === 'object');
  return (
    objects.length >= 2 &&
    shape.properties.every((property) => !property.required || property.shape.kind === 'object')
  );
}

/**
 * A statement appending the field `key`, held in `x`, on a new line: the line's start and key
 * (as `prefixOf` writes them, see `objectWriter`), then `: 7`, `: []`, `[2]: a,b`,
 * `[2]{id,name}:` + rows, or `:` + nested fields, with its content at `depth`.
 */
function fieldStatement(
  key: string,
  child: SchemaShape,
  x: string,
  depth: number,
  program: Program,
  prefixOf: (suffix: string) => string,
): string {
  const line = encodeKey(key);
  if (child.kind === 'scalar')
    return `out += ${prefixOf(`${line}: `)} + ${scalar(child, x, program)};`;
  const write =
    child.kind === 'array'
      ? `${arrayWriter(child, depth, 'field', program)}(out + ${prefixOf(line)}, ${x})`
      : `${objectWriter(child, depth, 'field', program)}(out + ${prefixOf(`${line}:`)}, ${x})`;
  return child.nullable
    ? `out = ${x} === null ? out + ${prefixOf(`${line}: null`)} : ${write};`
    : `out = ${write};`;
}

/**
 * Declares `(out, v) => out + the fields of object v`, one line each at `depth`, in the
 * projection's order; absent optional properties are skipped. Where the object stands changes
 * only its first line: at the root it starts the document (no newline), as a list item (§10)
 * the first written field rides on the hyphen line one level up, and an empty list item is a
 * lone `-`.
 *
 * @example
 * // { id: 1, tags: ['a'] } at depth 2 as a list item, appended after 'rows[1]:':
 * // '\n  - id: 1\n    tags[1]: a'
 */
function objectWriter(
  shape: ObjectShape,
  depth: number,
  position: Position,
  program: Program,
): string {
  const body = ['if (!isFieldwiseObject(v)) giveUp();'];
  // Objects inside lists and tables never become keyed tables (only root and field values do).
  if (position !== 'item' && mayBeKeyedTable(shape)) {
    const keys = program.declareConstant(
      'keys',
      JSON.stringify(shape.properties.map((property) => property.key)),
    );
    body.push(`if (looksKeyed(v, ${keys})) giveUp();`);
  }
  const start = lineStart(depth);
  const firstStart =
    position === 'root' ? '' : position === 'item' ? `${lineStart(depth - 1)}- ` : start;
  const empty = position === 'item' ? `${lineStart(depth - 1)}-` : '';
  // Whether a field was written before this one: statically known ('no', 'yes') until an
  // optional field comes first; then the `first` flag tracks it at run time.
  let written: 'no' | 'yes' | 'flag' = position === 'field' ? 'yes' : 'no';
  const flagged = firstStart !== start && shape.properties[0]?.required === false;
  if (flagged) body.push('let first = true;');
  const prefixOf = (suffix: string): string =>
    written === 'yes'
      ? literal(start + suffix)
      : written === 'no'
        ? literal(firstStart + suffix)
        : `(first ? ${literal(firstStart + suffix)} : ${literal(start + suffix)})`;
  shape.properties.forEach(({ key, required, shape: child }: PropertyShape) => {
    const x = program.name('field');
    body.push(`const ${x} = v[${literal(key)}];`);
    const write =
      fieldStatement(key, child, x, depth + 1, program, prefixOf) +
      (flagged ? ' first = false;' : '');
    if (required) body.push(`if (${x} === undefined) giveUp();`, write);
    else body.push(`if (${x} !== undefined) { ${write} }`);
    written = required ? 'yes' : written === 'no' ? 'flag' : written;
  });
  if (written === 'yes' || empty === '') body.push('return out;');
  else
    body.push(
      written === 'no'
        ? `return out + ${literal(empty)};`
        : `return first ? out + ${literal(empty)} : out;`,
    );
  return program.declareFunction(position === 'item' ? 'item' : 'object', 'out, v', body);
}

/** An expression appending one `- ` list item at `depth` (§10), held in `x`: a nested array, an object or a scalar. */
function listItem(shape: SchemaShape, x: string, depth: number, program: Program): string {
  const start = `${lineStart(depth)}- `;
  if (shape.kind === 'scalar') return `out + ${literal(start)} + ${scalar(shape, x, program)}`;
  const write =
    shape.kind === 'array'
      ? `${arrayWriter(shape, depth + 1, 'item', program)}(out + ${literal(start)}, ${x})`
      : `${objectWriter(shape, depth + 1, 'item', program)}(out, ${x})`;
  return shape.nullable ? `${x} === null ? out + ${literal(`${start}null`)} : ${write}` : write;
}

/**
 * Declares `(out, v) => out + array v` from its `[N]` on (or its empty form, which depends on
 * `position`, §9.1-§9.2), with items, rows or list items at `depth`.
 */
function arrayWriter(
  shape: ArrayShape,
  depth: number,
  position: Position,
  program: Program,
): string {
  const { bracketSymbol, delimiter } = program;
  const empty = position === 'field' ? ': []' : position === 'root' ? '[]' : `[0${bracketSymbol}]:`;
  const items = shape.items;
  const body = [
    'if (!isArray(v)) giveUp();',
    'const n = v.length;',
    `if (n === 0) return out + ${literal(empty)};`,
  ];

  if (items.kind === 'scalar') {
    // §9.1: primitives always stay inline.
    const x = program.name('item');
    body.push(
      `let ${x} = v[0];`,
      `out += "[" + n + ${literal(`${bracketSymbol}]: `)} + ${scalar(items, x, program)};`,
      `for (let i = 1; i < n; i++) { ${x} = v[i]; out += ${literal(delimiter)} + ${scalar(items, x, program)}; }`,
      'return out;',
    );
    return program.declareFunction('array', 'out, v', body);
  }

  body.push(`const bracket = "[" + n + ${literal(`${bracketSymbol}]`)};`);
  // §9.4: an array that is itself a list item never takes tabular form.
  const table =
    items.kind === 'object' && position !== 'item'
      ? tableDecision(items, depth, program)
      : undefined;
  if (items.nullable) {
    // All null: an inline array of primitives. Some null: no table can hold them, a list.
    const nulls = `out + bracket + ": null" + ${literal(`${delimiter}null`)}.repeat(n - 1)`;
    body.push(
      `if (anyNull(v)) { if (allNull(v)) return ${nulls}; } else { ${table?.statement ?? ''} }`,
    );
  } else if (table !== undefined) {
    body.push(table.statement);
    if (table.always) return program.declareFunction('array', 'out, v', body);
  }
  const x = program.name('item');
  body.push(
    'out += bracket + ":";',
    `for (let i = 0; i < n; i++) { const ${x} = v[i]; out = ${listItem(items, x, depth, program)}; }`,
    'return out;',
  );
  return program.declareFunction('array', 'out, v', body);
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

/**
 * Declares `rows => boolean`: does some row fit no table at all (§9.3: a row whose projection
 * is an empty object, or holds an array or an empty object)? Then the rows are a list. It gives
 * up on rows of the wrong type, which the generic path decides.
 */
function anyBrokenRow(shape: ObjectShape, program: Program): string {
  return program.declareFunction('anyBrokenRow', 'rows', [
    `for (let i = 0; i < rows.length; i++) if (${brokenRow(shape, program)}(rows[i])) return true;`,
    'return false;',
  ]);
}

/** Declares `row => boolean` for one row (or nested field group) of {@link anyBrokenRow}. */
function brokenRow(shape: ObjectShape, program: Program): string {
  const body = ['if (!isFieldwiseObject(row)) giveUp();', 'let present = 0;'];
  for (const { key, shape: child } of shape.properties) {
    const x = program.name('field');
    const check =
      child.kind === 'array'
        ? ` if (Array.isArray(${x})) return true; if (${x} !== null) giveUp();`
        : child.kind === 'object'
          ? ` if (${x} !== null && ${brokenRow(child, program)}(${x})) return true;`
          : '';
    body.push(
      `const ${x} = row[${literal(key)}];`,
      `if (${x} !== undefined) {${check} present++; }`,
    );
  }
  body.push('return present === 0;');
  return program.declareFunction('brokenRow', 'row', body);
}

/**
 * Statements that declare the cells of the row in `row` and push their texts, in depth-first
 * column order (§9.3), onto `cells`.
 */
function cellStatements(
  shape: ObjectShape,
  row: string,
  program: Program,
  cells: string[],
): string[] {
  const statements = [`if (!isFieldwiseObject(${row})) giveUp();`];
  for (const { key, shape: child } of shape.properties) {
    const x = program.name('cell');
    statements.push(`const ${x} = ${row}[${literal(key)}];`);
    if (child.kind === 'scalar') cells.push(scalar(child, x, program));
    else statements.push(...cellStatements(child as ObjectShape, x, program, cells));
  }
  return statements;
}

/**
 * The statement an array writer runs to decide on the §9.3 table for its rows (at `depth`),
 * returning the table when it applies (`always`: whatever the rows hold); `undefined` when no
 * table can ever apply.
 */
function tableDecision(
  shape: ObjectShape,
  depth: number,
  program: Program,
): { statement: string; always: boolean } | undefined {
  const kind = tabularity(shape);
  if (kind === 'never') return undefined;
  const layout = fullLayout(shape);
  if (layout === undefined) {
    // No full table exists (an optional or nullable array field), yet rows may form another:
    // go on as a list only when some row fits no table at all.
    return { statement: `if (!${anyBrokenRow(shape, program)}(v)) giveUp();`, always: false };
  }
  const cells: string[] = [];
  const statements = cellStatements(shape, 'row', program, cells);
  const write = program.declareFunction('table', 'out, rows', [
    `out += ${literal(`${fieldList(layout, program.delimiter)}:`)};`,
    'for (let i = 0; i < rows.length; i++) {',
    '  const row = rows[i];',
    ...statements.map((statement) => `  ${statement}`),
    `  out += ${literal(lineStart(depth))} + ${cells.join(` + ${literal(program.delimiter)} + `)};`,
    '}',
    'return out;',
  ]);
  if (kind === 'always') return { statement: `return ${write}(out + bracket, v);`, always: true };
  // The writer gives up on a row missing an optional field or holding a null group: only the
  // generic encoder decides whether such rows form a narrower table.
  return {
    statement: `if (!${anyBrokenRow(shape, program)}(v)) return ${write}(out + bracket, v);`,
    always: false,
  };
}

/** The whole document: a root primitive, a root array, or the root object's fields (§5). */
function compileDocument(shape: SchemaShape, delimiter: Delimiter): (value: unknown) => string {
  const program = new Program(delimiter);
  const orNull = shape.nullable ? 'v === null ? "null" : ' : '';
  const write =
    shape.kind === 'scalar'
      ? scalar(shape, 'v', program)
      : `${orNull}${shape.kind === 'array' ? arrayWriter(shape, 1, 'root', program) : objectWriter(shape, 0, 'root', program)}("", v)`;
  return program.link(program.declareFunction('document', 'v', [`return ${write};`]));
}

const compiled = new WeakMap<object, Map<Delimiter, ToonSerializer | null>>();

function compileFor(schema: object, delimiter: Delimiter): ToonSerializer | undefined {
  const shape = describeSchema(schema);
  if (shape === undefined) return undefined;
  let document: (value: unknown) => string;
  try {
    document = compileDocument(shape, delimiter);
  } catch (error) {
    if (error instanceof EvalError) return undefined; // code generation is disallowed here
    throw error;
  }
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
 * `undefined` (write the value the generic way) for values it cannot decide exactly: a type the
 * schema does not allow (a Date is allowed in string fields, written as its ISO text, but for
 * `format: 'date'` or `'time'`), class instances, an array of objects whose rows miss optional fields,
 * an object that could be a keyed table. The function itself is `undefined` for schemas outside
 * the projection's fast path, or where code generation is disallowed. Compiled once per schema
 * object and delimiter.
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
export function compileToonSerializer(
  schema: unknown,
  delimiter: Delimiter = ',',
): ToonSerializer | undefined {
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
