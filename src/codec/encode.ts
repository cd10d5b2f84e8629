// The TOON v4.4 encoder: canonical output (spec §2-§12) built as one string in a single walk.
// Shape decisions (tabular §9.3, keyed tabular §9.5) look ahead at the data; everything else is
// written the moment it is reached.

import { DEFAULT_MAX_DEPTH } from './constants.js';
import {
  allPrimitives,
  type Field,
  fieldList,
  firstRowLayout,
  fitsLayout,
  isPlain,
  isPrimitive,
  keyedLayout,
  laterRowsFit,
  NOT_JSON,
  sharedLayout,
} from './layout.js';
import {
  encodeKey,
  encodePrimitiveUnlessJson,
  encodeRootPrimitive,
  jsonStrings,
} from './lexical.js';
import { encodeStackError, type Normalized, normalizeTracked, tooDeepError } from './normalize.js';
import { isPlainObject } from './objects.js';
import { type EncodeSettings, resolveEncodeOptions } from './options.js';
import { applyReplacer } from './replacer.js';
import type {
  Delimiter,
  EncodeOptions,
  JsonArray,
  JsonObject,
  JsonPrimitive,
  JsonValue,
} from './types.js';

// Copied into a module constant: an imported binding is live, so the engine loads it on every
// read instead of folding it, and the depth bound is read for every container (a few percent of
// encode's time on typical documents).
const MAX_LEVEL = DEFAULT_MAX_DEPTH;

/**
 * Strings longer than this that JSON quotes for the encoder get a JSON.stringify call of their
 * own (see Writer.primitive): the batch's text is one more copy of the string, which at this
 * length costs more than a call's set-up (measured: batched is faster at 1,000 characters, a call
 * of its own at 5,000).
 */
const OWN_JSON_CALL = 2000;

/** Objects with more keys than this are read key by key (see Writer.fields). */
const MANY_KEYS = 128;

/**
 * Encodes any JavaScript value as canonical TOON v4.4.
 *
 * Host values are first normalized like `JSON.stringify` does (see {@link normalize}): `toJSON`,
 * Date to ISO string, `undefined`/functions/symbols dropped in objects and `null` in arrays,
 * `NaN`/`Infinity` to `null`, plus Map to object, Set to array and a lossless BigInt policy.
 * Uniform arrays of objects become tables (with nested field groups for uniform nested
 * objects), objects of uniform objects become keyed tables, primitive arrays stay inline, and
 * everything else uses indented `-` lists. Options are the reference implementation's
 * (`indentSize`, its deprecated alias `indent`, `delimiter`, `replacer`) plus `bigint`; an
 * unknown option is a `TypeError`.
 *
 * @throws {TypeError} for a circular structure (the message names the cycle) or bad options.
 * @throws {RangeError} for a value nested deeper than 1000 containers, which `decode` would
 *   refuse with its default `maxDepth` (so everything `encode` writes, `decode` reads).
 * @example
 * encode({ users: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }] });
 * // users[2]{id,name}:
 * //   1,Ada
 * //   2,Bob
 * encode({ tags: ['a', 'b'] }, { delimiter: '|' }); // 'tags[2|]: a|b'
 * encode({ user: 'ada', password: 's3cret' }, { replacer: (k, v) => (k === 'password' ? undefined : v) });
 * // 'user: ada'
 */
export function encode(value: unknown, options?: EncodeOptions): string {
  const settings = resolveEncodeOptions('encode', options);
  try {
    if (settings.replacer === undefined) {
      const text = encodeAsIs(value, settings, OPTIMISTIC);
      if (typeof text === 'string') return text;
    }
    const prepared = prepare(value, settings);
    return write(new Writer(settings, unbounded(prepared.rawStrings)), prepared.value);
  } catch (error) {
    throw encodeStackError(error);
  }
}

/** What {@link encodeIfPlain} returns for a value that is not plain JSON data. */
export const NOT_PLAIN: unique symbol = Symbol('toonwire.notPlain');

/**
 * Encodes `value` only if it is plain JSON data already: plain objects and arrays whose leaves
 * are strings, finite numbers, booleans and null (NaN and ±Infinity pass, written as `null` like
 * `JSON.stringify` writes them). Returns {@link NOT_PLAIN} as soon as it meets anything else (a
 * Date, Map, `toJSON`, `undefined`, a BigInt, a RawString, a cycle or data nested too deep), for
 * the caller to normalize first; `undefined`, like {@link encodeWithin}, once the output passes
 * `maxLength` UTF-16 code units (the rest of the value then went unchecked). One pass instead of
 * normalize's walk plus an encode, for layers that also need to know whether the value is plain:
 * the picker then takes `JSON.stringify` of the value as it is. A `replacer` in the options makes
 * every value "not plain".
 *
 * @example
 * encodeIfPlain({ tags: ['a', 'b'] }); // 'tags[2]: a,b'
 * encodeIfPlain({ at: new Date(0) }); // NOT_PLAIN
 * encodeIfPlain({ a: 'x'.repeat(500) }, undefined, 100); // undefined
 */
export function encodeIfPlain(
  value: unknown,
  options?: EncodeOptions,
  maxLength = Number.POSITIVE_INFINITY,
): string | undefined | typeof NOT_PLAIN {
  const settings = resolveEncodeOptions('encodeIfPlain', options);
  if (settings.replacer !== undefined) return NOT_PLAIN;
  const mode = maxLength === Number.POSITIVE_INFINITY ? OPTIMISTIC : { ...OPTIMISTIC, maxLength };
  const text = encodeAsIs(value, settings, mode);
  return text === OVER_BUDGET ? undefined : text;
}

/** The optimistic pass: the value encoded as it is, checking as it goes. */
function encodeAsIs(
  value: unknown,
  settings: EncodeSettings,
  mode: WriterMode,
): string | typeof NOT_PLAIN | typeof OVER_BUDGET {
  try {
    // A RawString is no plain object, so the checks stop at it too.
    return new Writer(settings, mode).document(value as JsonValue);
  } catch (error) {
    if (error === OVER_BUDGET) return OVER_BUDGET;
    // NOT_JSON: a Date, Map, undefined, toJSON... TOO_DEEP or RangeError: a cycle (or very deep
    // data) ran into the depth bound or the stack. normalize() knows what to do with each, or
    // how to explain it.
    if (error !== NOT_JSON && error !== TOO_DEEP && !(error instanceof RangeError)) throw error;
    return NOT_PLAIN;
  }
}

/**
 * Encodes a value that is already in the JSON data model (the output of {@link normalize}, or
 * data parsed from JSON), skipping the host-value checks. Same output and options as
 * {@link encode}; for layers that normalized once and encode several times.
 *
 * @throws {RangeError} for a value nested deeper than 1000 containers.
 * @example
 * encodeJson({ tags: ['a', 'b'] }, { delimiter: '|' }); // 'tags[2|]: a|b'
 */
export function encodeJson(value: JsonValue, options?: EncodeOptions): string {
  const settings = resolveEncodeOptions('encodeJson', options);
  const input =
    settings.replacer === undefined
      ? value
      : applyReplacer(value, settings.replacer, settings.bigint);
  // The caller's value may hold RawStrings (normalize passes them through).
  return write(new Writer(settings, unbounded(true)), input);
}

/**
 * A budgeted encode for the picker: encodes an already normalized value, but gives up and
 * returns `undefined` as soon as the output would exceed `maxLength` UTF-16 code units. When it
 * returns a string, the string is exactly `encode(value, options)`.
 *
 * @throws {RangeError} for a value nested deeper than 1000 containers.
 * @example
 * encodeWithin({ a: 1 }, undefined, 100); // 'a: 1'
 * encodeWithin({ a: 'x'.repeat(500) }, undefined, 100); // undefined
 */
export function encodeWithin(
  value: JsonValue,
  options: EncodeOptions | undefined,
  maxLength: number,
): string | undefined {
  const settings = resolveEncodeOptions('encodeWithin', options);
  const input =
    settings.replacer === undefined
      ? value
      : applyReplacer(value, settings.replacer, settings.bigint);
  try {
    return write(new Writer(settings, { maxLength, verify: false, rawStrings: true }), input);
  } catch (error) {
    if (error === OVER_BUDGET) return undefined;
    throw error;
  }
}

/**
 * Encodes `value` as a lazy sequence of lines, the reference implementation's `encodeLines`:
 * `[...encodeLines(v, o)].join('\n') === encode(v, o)`. Lines are produced as they are taken,
 * so writing a large table to a stream never holds the whole document; the value itself is
 * normalized (one read-only walk for plain data) and its tables are detected up front.
 *
 * @example
 * for (const line of encodeLines({ rows: [{ id: 1 }, { id: 2 }] })) console.log(line);
 * // rows[2]{id}:
 * //   1
 * //   2
 */
export function encodeLines(value: unknown, options?: EncodeOptions): Iterable<string> {
  const settings = resolveEncodeOptions('encodeLines', options);
  let input: Normalized;
  try {
    input = prepare(value, settings);
  } catch (error) {
    throw encodeStackError(error);
  }
  return {
    [Symbol.iterator]: () =>
      reportingStackErrors(new LineWriter(settings, input.rawStrings).lines(input.value)),
  };
}

/**
 * The lines of `lines`, with an engine stack overflow met while building one explained. A plain
 * iterator, which adds one call per line, rather than a second generator to resume per line.
 */
function reportingStackErrors(lines: Iterator<string>): IterableIterator<string> {
  return {
    next() {
      try {
        return lines.next();
      } catch (error) {
        throw encodeStackError(error);
      }
    },
    return(value?: unknown) {
      return lines.return?.(value) ?? { value: undefined, done: true };
    },
    [Symbol.iterator]() {
      return this;
    },
  };
}

/**
 * Normalizes `value` and applies the replacer, if any. A replacer may return RawStrings
 * anywhere, so its output counts as holding some.
 */
function prepare(value: unknown, settings: EncodeSettings): Normalized {
  const normalized = normalizeTracked(value, { bigint: settings.bigint });
  if (settings.replacer === undefined) return normalized;
  const replaced = applyReplacer(normalized.value, settings.replacer, settings.bigint);
  return { ...normalized, value: replaced, rawStrings: true };
}

/** How a {@link Writer} runs. */
interface WriterMode {
  /** Give up (throw OVER_BUDGET) once the output passes this many UTF-16 code units. */
  readonly maxLength: number;
  /** Check each object and array for host values on the way (the optimistic pass). */
  readonly verify: boolean;
  /** May the value hold RawStrings? Only then is each value tested for one. */
  readonly rawStrings: boolean;
}

/** The optimistic first pass of encode over unnormalized data. */
const OPTIMISTIC: WriterMode = {
  maxLength: Number.POSITIVE_INFINITY,
  verify: true,
  rawStrings: false,
};

function unbounded(rawStrings: boolean): WriterMode {
  return { maxLength: Number.POSITIVE_INFINITY, verify: false, rawStrings };
}

/** Runs a writer over a normalized value, turning the depth sentinel into its error. */
function write(writer: Writer, value: JsonValue): string {
  try {
    return writer.document(value);
  } catch (error) {
    if (error === TOO_DEEP) throw tooDeepError();
    throw error;
  }
}

/** Thrown (and turned into {@link tooDeepError}) when the writer passes the depth bound. */
const TOO_DEEP: unique symbol = Symbol('toonwire.tooDeep');

/** Thrown (and caught inside encodeWithin) when a budgeted encode runs over its budget. */
const OVER_BUDGET: unique symbol = Symbol('toonwire.overBudget');

/** Does `values` hold a string, or a RawString (which the JSON fast path would mangle)? */
function hasString(values: readonly JsonPrimitive[]): boolean {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'string' || (typeof value === 'object' && value !== null)) return true;
  }
  return false;
}

/** Are all `values` plain arrays of numbers, booleans and null only? */
function allArraysOfNonStrings(values: readonly JsonValue[]): boolean {
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (!Array.isArray(value) || !isPlain(value)) return false;
    for (let k = 0; k < value.length; k++) {
      const item = value[k];
      if (item !== null && typeof item !== 'number' && typeof item !== 'boolean') return false;
    }
  }
  return true;
}

/** How many object levels a table's rows span: 1, plus one per level of nested field groups. */
function layoutDepth(fields: readonly Field[]): number {
  let deepest = 0;
  for (let i = 0; i < fields.length; i++) {
    const children = fields[i]!.children;
    if (children !== undefined) deepest = Math.max(deepest, layoutDepth(children));
  }
  return 1 + deepest;
}

/** Does `object` have an enumerable key, its own or inherited? */
function hasEnumerableKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

/** Where the text written so far ends (see Writer.mark). */
interface Mark {
  readonly out: string;
  /** How many strings were waiting to be quoted. */
  readonly waiting: number;
  readonly waitingLength: number;
}

/** Where an array stands, which decides its empty form and whether it may be a table. */
type Position = 'root' | 'field' | 'item';

/**
 * Writes one document into a single string. Appending with `+=` lets V8 build a rope that is
 * flattened once at the end; measured against collecting pieces or lines in an array and
 * joining, it was as fast or faster on every corpus document.
 */
class Writer {
  protected out = '';
  protected readonly delimiter: Delimiter;
  /** The delimiter symbol written inside brackets: nothing for comma (§6). */
  protected readonly bracketSymbol: string;
  private readonly indentUnit: string;
  /** `'\n'` plus the indentation of each depth, built once per depth. */
  private readonly lineStarts: string[] = ['\n'];
  /** The same plus the `- ` list-item marker. */
  private readonly itemStarts: string[] = [];
  /** Output starts with a newline that is dropped at the end, hence the +1. */
  private readonly maxLength: number;
  /** The last table's layout and its fields segment, for tables that repeat (see sharedLayout). */
  protected lastLayout: Field[] | undefined;
  protected lastHeader = '';
  private readonly verify: boolean;
  protected readonly rawStrings: boolean;
  /** Containers open around the one being written (the root container is level 1). */
  protected level = 0;
  /** The depth of the last table layout's row objects, see {@link layoutDepth}. */
  protected lastLayoutDepth = 0;
  /** Line starts with a field key, per depth and key, inside list items (see startField). */
  private readonly fieldStarts: Map<string, string>[] = [];
  private readonly itemFieldStarts: Map<string, string>[] = [];
  /** How many list items that are objects enclose the field being written. */
  protected listItemLevels = 0;
  /**
   * Strings whose text is exactly JSON's (see {@link primitive}), waiting to be quoted together
   * by {@link finish}, and the text written before each of them.
   */
  private readonly jsonStrings: string[] = [];
  private readonly textBefore: string[] = [];
  /** The length of the text in `textBefore` and of the waiting strings' texts (at least). */
  private waitingLength = 0;
  /**
   * Does Object.prototype have enumerable keys, which `for...in` would list (see fittedCells)?
   * Read as each table begins, so that a document without tables never pays for the look.
   */
  private keysInherited = false;

  constructor(settings: EncodeSettings, mode: WriterMode) {
    this.verify = mode.verify;
    this.rawStrings = mode.rawStrings;
    this.delimiter = settings.delimiter;
    this.bracketSymbol = settings.delimiter === ',' ? '' : settings.delimiter;
    this.indentUnit = ' '.repeat(settings.indentSize);
    this.maxLength = mode.maxLength + 1;
  }

  document(value: JsonValue): string {
    if (isPrimitive(value, this.rawStrings)) {
      const text = encodeRootPrimitive(value, this.delimiter);
      if (text.length + 1 > this.maxLength) throw OVER_BUDGET;
      return text;
    }
    if (Array.isArray(value)) {
      this.startLine(0);
      this.array(value, 1, 'root');
    } else {
      const keys = Object.keys(value);
      const layout = keyedLayout(value, this.rawStrings, keys);
      if (layout === undefined) {
        this.fields(value, keys, 0);
      } else {
        this.startLine(0);
        this.keyed(value, keys, layout, 1);
      }
    }
    const text = this.finish();
    if (text.length > this.maxLength) throw OVER_BUDGET;
    return text.slice(1);
  }

  protected write(text: string): void {
    this.out += text;
  }

  /** How long the text written so far is, at least (exactly, once {@link finish}ed). */
  protected textLength(): number {
    return this.waitingLength + this.out.length;
  }

  /**
   * Writes `prefix` and the primitive `value`. A string that JSON quotes exactly as TOON does (a
   * quote or a line break in it, see encodeStringUnlessJson) waits for {@link finish}, which has
   * JSON quote all of them in one call: for strings of a few hundred characters the set-up of a
   * call of its own costs more than the escaping. Long ones get their own call (OWN_JSON_CALL).
   */
  protected primitive(prefix: string, value: JsonPrimitive): void {
    const text = encodePrimitiveUnlessJson(value, this.delimiter);
    if (text !== undefined) {
      this.out += prefix + text;
      return;
    }
    if ((value as string).length > OWN_JSON_CALL) {
      this.out += prefix + JSON.stringify(value);
      return;
    }
    const before = this.out + prefix;
    this.textBefore.push(before);
    this.jsonStrings.push(value as string);
    this.waitingLength += before.length + (value as string).length + 2;
    this.out = '';
  }

  /** The text written so far, with the waiting strings quoted; the writer starts empty again. */
  protected finish(): string {
    const strings = this.jsonStrings;
    let text = '';
    if (strings.length > 0) {
      const quoted = jsonStrings(strings);
      for (let i = 0; i < quoted.length; i++) text += this.textBefore[i]! + quoted[i]!;
      strings.length = 0;
      this.textBefore.length = 0;
      this.waitingLength = 0;
    }
    text += this.out;
    this.out = '';
    return text;
  }

  /** Starts a new line at `depth`; the budget is checked once per line. */
  protected startLine(depth: number): void {
    if (this.textLength() > this.maxLength) throw OVER_BUDGET;
    this.write(this.lineStarts[depth] ?? this.lineStart(depth));
  }

  /** Starts a new `- ` list-item line at `depth`. */
  protected startItem(depth: number): void {
    if (this.textLength() > this.maxLength) throw OVER_BUDGET;
    this.write(this.itemStart(depth));
  }

  protected itemStart(depth: number): string {
    let start = this.itemStarts[depth];
    if (start === undefined) {
      start = `${this.lineStart(depth)}- `;
      this.itemStarts[depth] = start;
    }
    return start;
  }

  protected lineStart(depth: number): string {
    let start = this.lineStarts[depth];
    if (start === undefined) {
      // Flattened once here so that every line reuses one flat string.
      start = this.lineStart(depth - 1) + this.indentUnit;
      this.lineStarts[depth] = start;
    }
    return start;
  }

  /**
   * Opens a container level; past the decoder's default maxDepth the document could not be read
   * back, so the writer stops. No matching close is needed on the error path: an exception
   * abandons the writer.
   */
  protected enter(): void {
    if (++this.level > MAX_LEVEL) throw TOO_DEEP;
  }

  protected leave(): void {
    this.level--;
  }

  /** Checks that a table's rows (and their nested field groups) stay within the bound. */
  protected enterTable(layout: readonly Field[]): void {
    const depth = layout === this.lastLayout ? this.lastLayoutDepth : layoutDepth(layout);
    if (this.level + depth > MAX_LEVEL) throw TOO_DEEP;
  }

  /**
   * The fields segment of a table with `layout`, after checking its rows stay within the depth
   * bound. Tables repeat (every order's items), so the last one is kept.
   */
  protected tableHeader(layout: Field[]): string {
    if (layout !== this.lastLayout) {
      this.lastLayout = layout;
      this.lastHeader = fieldList(layout, this.delimiter);
      this.lastLayoutDepth = layoutDepth(layout);
    }
    // The layout is now the last one, so enterTable reads its depth rather than walking it again.
    this.enterTable(layout);
    return this.lastHeader;
  }

  /** In the optimistic pass, stops at anything JSON.stringify would not write as it is. */
  protected check(value: object): void {
    if (this.verify && !isPlain(value)) throw NOT_JSON;
  }

  /** The fields of `object`, whose own keys are `keys`, at `depth`. */
  private fields(object: JsonObject, keys: readonly string[], depth: number): void {
    this.check(object);
    this.enter();
    // A lookup by name goes through the engine's shared cache of every shape and key met (a
    // webhook payload meets dozens of shapes), where Object.values copies an object's values in
    // one native step. An object of more than about a hundred keys keeps them in a hash table
    // instead, which Object.values walks slowly, and lookups by name stay the cheaper way there.
    const values = keys.length <= MANY_KEYS ? Object.values(object) : undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      this.startField(depth, key, false);
      this.fieldValue(values === undefined ? object[key]! : values[i]!, depth + 1);
    }
    this.leave();
  }

  /**
   * Starts a line with a field's key: `'\n' + indentation (+ '- ') + encoded key`. Inside list
   * items, where every item repeats the same keys (a list of tweets, of issues), the line start
   * is built once per depth and key and then is one lookup and one append; elsewhere keys seldom
   * repeat (a webhook payload, an object of 10,000 keys), and such a cache cost more in misses
   * than it saved.
   */
  protected startField(depth: number, key: string, listItem: boolean): void {
    if (this.textLength() > this.maxLength) throw OVER_BUDGET;
    if (this.listItemLevels === 0) {
      this.out += (listItem ? this.itemStart(depth) : this.lineStart(depth)) + encodeKey(key);
      return;
    }
    const cache = listItem ? this.itemFieldStarts : this.fieldStarts;
    let byKey = cache[depth];
    if (byKey === undefined) {
      byKey = new Map();
      cache[depth] = byKey;
    }
    let start = byKey.get(key);
    if (start === undefined) {
      start = (listItem ? this.itemStart(depth) : this.lineStart(depth)) + encodeKey(key);
      byKey.set(key, start);
    }
    this.out += start;
  }

  /**
   * What follows a field's key on its line, and the field's content at `childDepth`, one level
   * deeper than the field itself (§8; §10 for the first field of a list item).
   */
  private fieldValue(value: JsonValue, childDepth: number): void {
    if (isPrimitive(value, this.rawStrings)) {
      this.primitive(': ', value);
    } else if (Array.isArray(value)) {
      this.array(value, childDepth, 'field');
    } else {
      const keys = Object.keys(value);
      const layout = keyedLayout(value, this.rawStrings, keys);
      if (layout === undefined) {
        this.write(':');
        this.fields(value, keys, childDepth);
      } else {
        this.keyed(value, keys, layout, childDepth);
      }
    }
  }

  private keyed(
    object: JsonObject,
    keys: readonly string[],
    layout: readonly Field[],
    childDepth: number,
  ): void {
    this.check(object);
    this.keyedHeader(keys, layout);
    for (let i = 0; i < keys.length; i++) this.entryRow(object, keys[i]!, layout, childDepth);
    this.leave();
  }

  /** Opens a keyed table (§9.5) of entries `keys`: writes its header. */
  protected keyedHeader(keys: readonly string[], layout: readonly Field[]): void {
    this.enter();
    this.enterTable(layout);
    this.write(`[${keys.length}:${this.bracketSymbol}]${fieldList(layout, this.delimiter)}:`);
  }

  /** One entry row `key: cells` of a keyed table. */
  protected entryRow(
    object: JsonObject,
    key: string,
    layout: readonly Field[],
    childDepth: number,
  ): void {
    this.startLine(childDepth);
    this.write(`${encodeKey(key)}: `);
    this.cells(object[key] as JsonObject, layout);
  }

  private array(array: JsonArray, childDepth: number, position: Position): void {
    this.check(array);
    this.enter();
    this.arrayBody(array, childDepth, position);
    this.leave();
  }

  private arrayBody(array: JsonArray, childDepth: number, position: Position): void {
    const length = array.length;
    if (length === 0) {
      // §9.1: `key: []` and a root `[]`; §9.2: list items keep the `[0]:` header.
      this.write(
        position === 'field' ? ': []' : position === 'root' ? '[]' : `[0${this.bracketSymbol}]:`,
      );
      return;
    }
    const bracket = `[${length}${this.bracketSymbol}]`;
    if (allPrimitives(array, this.rawStrings)) {
      this.write(`${bracket}: `);
      this.inline(array as JsonPrimitive[]);
      return;
    }
    // §9.4: an array that is itself a list item never takes tabular form.
    if (position !== 'item' && this.table(array, bracket, childDepth)) return;
    this.write(`${bracket}:`);
    if (allArraysOfNonStrings(array)) {
      // The item arrays are one level deeper, all at once.
      this.enter();
      this.numericRows(array as JsonPrimitive[][], childDepth);
      this.leave();
    } else for (let i = 0; i < length; i++) this.listItem(array[i]!, childDepth);
  }

  /**
   * Writes `rows` as a table (§9.3) when they are one, and says whether they were. The layout
   * comes from the first row, and the rows are checked as their cells are written
   * ({@link fittedCells}), not in a pass of their own before (which cost a tenth of encoding a
   * table, two arrays per row and nested group). A row that is not read in the layout's order
   * is checked exactly ({@link fitsLayout}: its keys in another order still fit). When a row
   * does not fit, or anything is thrown on the way, the text written since the header is taken
   * back; a throw is then decided by the exact check run first, as in {@link sharedLayout}, so
   * that the outcome (text, error or over-budget) is exactly that of checking before writing.
   */
  private table(rows: JsonArray, bracket: string, childDepth: number): boolean {
    const layout = firstRowLayout(rows[0], this.lastLayout, this.rawStrings);
    if (layout === undefined) return false;
    const mark = this.mark();
    const { lastLayout, lastHeader, lastLayoutDepth } = this;
    this.keysInherited = hasEnumerableKeys(Object.prototype);
    try {
      this.write(`${bracket + this.tableHeader(layout)}:`);
      let i = 0;
      for (; i < rows.length; i++) {
        this.startLine(childDepth);
        const row = rows[i]!;
        const rowMark = this.mark();
        if (this.fittedCells(row, layout)) continue;
        this.rollBack(rowMark);
        if (!fitsLayout(row, layout, this.rawStrings)) break;
        this.cells(row as JsonObject, layout);
      }
      if (i === rows.length) return true;
    } catch (error) {
      // Had the rows been checked first, a table that fits would have been written as here, up
      // to the same throw (over budget, say); the check itself may throw first (NOT_JSON).
      if (laterRowsFit(rows, layout, this.rawStrings)) throw error;
    }
    this.rollBack(mark);
    this.lastLayout = lastLayout;
    this.lastHeader = lastHeader;
    this.lastLayoutDepth = lastLayoutDepth;
    return false;
  }

  /** Where the text written so far ends, for {@link rollBack}. */
  private mark(): Mark {
    return { out: this.out, waiting: this.jsonStrings.length, waitingLength: this.waitingLength };
  }

  /** Takes back the text written since `mark`. */
  private rollBack(mark: Mark): void {
    this.out = mark.out;
    this.jsonStrings.length = mark.waiting;
    this.textBefore.length = mark.waiting;
    this.waitingLength = mark.waitingLength;
  }

  /**
   * {@link cells} for a row not known to fit `fields`: writes its cells while it is read in
   * the layout's order, and says whether it fits (then everything was written). `false` leaves
   * a partial row for the caller to take back; the row may still fit, with its keys in another
   * order. `for...in` lists an object's own keys as `Object.keys` does, then any enumerable
   * keys of its prototypes: rows of other prototypes than Object's or none are left to the
   * exact check, and so is everything when Object.prototype has enumerable keys (see table).
   */
  private fittedCells(row: JsonValue, fields: readonly Field[]): boolean {
    if (this.keysInherited || !isPlainObject(row)) return false;
    this.check(row);
    const count = fields.length;
    let i = 0;
    for (const key in row) {
      if (i === count) return false;
      const field = fields[i]!;
      if (key !== field.key) return false;
      const value = row[key] as JsonValue;
      if (field.children === undefined) {
        if (!isPrimitive(value, this.rawStrings)) return false;
        this.primitive(i > 0 ? this.delimiter : '', value);
      } else {
        if (i > 0) this.write(this.delimiter);
        if (!this.fittedCells(value, field.children)) return false;
      }
      i++;
    }
    return i === count;
  }

  /**
   * List items that are all arrays of numbers, booleans and null (coordinates, matrices): one
   * native JSON.stringify for the whole array, instead of one per item. Such items contain no
   * brackets, so each item's cells are exactly the text between its `[` and the next `]`.
   */
  private numericRows(rows: readonly JsonPrimitive[][], depth: number): void {
    const json = JSON.stringify(rows);
    let open = 1; // json[open] is the '[' of the current row
    for (let i = 0; i < rows.length; i++) {
      const close = json.indexOf(']', open);
      const length = rows[i]!.length;
      this.startItem(depth);
      if (length === 0) {
        this.write(`[0${this.bracketSymbol}]:`);
      } else {
        const cells = json.slice(open + 1, close);
        this.write(
          `[${length}${this.bracketSymbol}]: ` +
            (this.delimiter === ',' ? cells : cells.replaceAll(',', this.delimiter)),
        );
      }
      open = close + 2; // past '],'
    }
  }

  private listItem(value: JsonValue, depth: number): void {
    if (isPrimitive(value, this.rawStrings)) {
      this.startItem(depth);
      this.primitive('', value);
    } else if (Array.isArray(value)) {
      this.startItem(depth);
      this.array(value, depth + 1, 'item');
    } else {
      this.check(value);
      this.enter();
      const keys = Object.keys(value);
      if (keys.length === 0) {
        this.startLine(depth);
        this.write('-');
        this.leave();
        return;
      }
      // §10: the first field rides on the hyphen line and its content goes two levels deeper;
      // the other fields stand one level deeper than the hyphen.
      // Values as in fields().
      const values = keys.length <= MANY_KEYS ? Object.values(value) : undefined;
      this.listItemLevels++;
      this.startField(depth, keys[0]!, true);
      this.fieldValue(values === undefined ? value[keys[0]!]! : values[0]!, depth + 2);
      for (let i = 1; i < keys.length; i++) {
        const key = keys[i]!;
        this.startField(depth + 1, key, false);
        this.fieldValue(values === undefined ? value[key]! : values[i]!, depth + 2);
      }
      this.listItemLevels--;
      this.leave();
    }
  }

  protected inline(values: readonly JsonPrimitive[]): void {
    if (!hasString(values)) {
      // Numbers, booleans and null print the same in JSON and TOON (§2), and the native
      // serializer formats a whole array of numbers far faster than String(n) one at a time.
      const json = JSON.stringify(values);
      const text = json.slice(1, json.length - 1);
      this.write(this.delimiter === ',' ? text : text.replaceAll(',', this.delimiter));
      return;
    }
    this.primitive('', values[0]!);
    for (let i = 1; i < values.length; i++) this.primitive(this.delimiter, values[i]!);
  }

  /**
   * A row's cells: its leaf values in depth-first order of the layout (§9.3). The layout check
   * made sure the row has exactly the layout's keys. Rows nearly always list them in the
   * layout's order: then `for...in` hands out each value through the row shape's own key list,
   * where a lookup by name goes through the engine's shared cache of every shape and key the
   * encoder has met (an eighth of encoding a table). A row whose order differs is read by name
   * from the first key out of place on. (`for...in` would also list keys inherited from
   * Object.prototype, but only after the row's own, and the loop stops at the layout's end.)
   */
  protected cells(row: JsonObject, fields: readonly Field[]): void {
    this.check(row);
    const count = fields.length;
    let i = 0;
    for (const key in row) {
      if (i === count || key !== fields[i]!.key) break;
      this.cell(i, row[key]!, fields[i]!);
      i++;
    }
    for (; i < count; i++) this.cell(i, row[fields[i]!.key]!, fields[i]!);
  }

  /**
   * The cell of `field`, the row's `index`th, holding `value`. The delimiter and a primitive go
   * out as one piece: a join shorter than 13 characters is a flat copy in V8, so short cells
   * add one piece to the output rope instead of two, and the final flattening has less to do.
   */
  private cell(index: number, value: JsonValue, field: Field): void {
    if (field.children === undefined) {
      this.primitive(index > 0 ? this.delimiter : '', value as JsonPrimitive);
    } else {
      if (index > 0) this.write(this.delimiter);
      this.cells(value as JsonObject, field.children);
    }
  }
}

/**
 * The writer behind {@link encodeLines}: the same walk as {@link Writer}, as generators, so a
 * line is built only when it is taken. Each line is written into `out` by the Writer's own line
 * helpers (which is what keeps the two byte-identical) and handed out at the next line start.
 */
class LineWriter extends Writer {
  constructor(settings: EncodeSettings, rawStrings: boolean) {
    super(settings, unbounded(rawStrings));
  }

  *lines(value: JsonValue): Generator<string, void, undefined> {
    try {
      if (isPrimitive(value, this.rawStrings)) {
        yield encodeRootPrimitive(value, this.delimiter);
        return;
      }
      if (Array.isArray(value)) {
        this.startLine(0);
        yield* this.arrayLines(value, 1, 'root');
      } else {
        const keys = Object.keys(value);
        const layout = keyedLayout(value, this.rawStrings, keys);
        if (layout === undefined) {
          yield* this.fieldsLines(value, keys, 0);
        } else {
          this.startLine(0);
          yield* this.keyedLines(value, keys, layout, 1);
        }
      }
      if (this.textLength() > 0) yield this.take();
    } catch (error) {
      if (error === TOO_DEEP) throw tooDeepError();
      throw error;
    }
  }

  /**
   * Takes the line written so far (one line, with its leading newline); called
   * just before the next line starts, as `if (this.textLength() > 0) yield this.take()` (a
   * generator per line would cost more than writing the line).
   */
  private take(): string {
    return this.finish().slice(1);
  }

  private *fieldsLines(
    object: JsonObject,
    keys: readonly string[],
    depth: number,
  ): Generator<string, void, undefined> {
    this.enter();
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (this.textLength() > 0) yield this.take();
      this.startField(depth, key, false);
      yield* this.fieldValueLines(object[key]!, depth + 1);
    }
    this.leave();
  }

  private *fieldValueLines(
    value: JsonValue,
    childDepth: number,
  ): Generator<string, void, undefined> {
    if (isPrimitive(value, this.rawStrings)) {
      this.primitive(': ', value);
    } else if (Array.isArray(value)) {
      yield* this.arrayLines(value, childDepth, 'field');
    } else {
      const keys = Object.keys(value);
      const layout = keyedLayout(value, this.rawStrings, keys);
      if (layout === undefined) {
        this.write(':');
        yield* this.fieldsLines(value, keys, childDepth);
      } else {
        yield* this.keyedLines(value, keys, layout, childDepth);
      }
    }
  }

  private *keyedLines(
    object: JsonObject,
    keys: readonly string[],
    layout: readonly Field[],
    childDepth: number,
  ): Generator<string, void, undefined> {
    this.keyedHeader(keys, layout);
    for (let i = 0; i < keys.length; i++) {
      if (this.textLength() > 0) yield this.take();
      this.entryRow(object, keys[i]!, layout, childDepth);
    }
    this.leave();
  }

  private *arrayLines(
    array: JsonArray,
    childDepth: number,
    position: Position,
  ): Generator<string, void, undefined> {
    this.enter();
    const length = array.length;
    if (length === 0) {
      this.write(
        position === 'field' ? ': []' : position === 'root' ? '[]' : `[0${this.bracketSymbol}]:`,
      );
    } else if (allPrimitives(array, this.rawStrings)) {
      this.write(`[${length}${this.bracketSymbol}]: `);
      this.inline(array as JsonPrimitive[]);
    } else {
      const bracket = `[${length}${this.bracketSymbol}]`;
      const layout =
        position === 'item' ? undefined : sharedLayout(array, this.lastLayout, this.rawStrings);
      if (layout !== undefined) {
        this.write(`${bracket + this.tableHeader(layout)}:`);
        for (let i = 0; i < length; i++) {
          if (this.textLength() > 0) yield this.take();
          this.startLine(childDepth);
          this.cells(array[i] as JsonObject, layout);
        }
      } else {
        this.write(`${bracket}:`);
        for (let i = 0; i < length; i++) yield* this.listItemLines(array[i]!, childDepth);
      }
    }
    this.leave();
  }

  private *listItemLines(value: JsonValue, depth: number): Generator<string, void, undefined> {
    if (this.textLength() > 0) yield this.take();
    if (isPrimitive(value, this.rawStrings)) {
      this.startItem(depth);
      this.primitive('', value);
    } else if (Array.isArray(value)) {
      this.startItem(depth);
      yield* this.arrayLines(value, depth + 1, 'item');
    } else {
      this.enter();
      const keys = Object.keys(value);
      if (keys.length === 0) {
        this.startLine(depth);
        this.write('-');
      } else {
        this.listItemLevels++;
        this.startField(depth, keys[0]!, true);
        yield* this.fieldValueLines(value[keys[0]!]!, depth + 2);
        for (let i = 1; i < keys.length; i++) {
          const key = keys[i]!;
          if (this.textLength() > 0) yield this.take();
          this.startField(depth + 1, key, false);
          yield* this.fieldValueLines(value[key]!, depth + 2);
        }
        this.listItemLevels--;
      }
      this.leave();
    }
  }
}
