// Deciding from the shape: how much a TOON text of a value could save against its compact JSON
// text, at best, found in one walk that builds no strings. The default measure ships TOON only
// when it saves half of JSON's bytes or, by the token estimate, a clear share of JSON's tokens
// (pick.ts, passesTokenGuard); when even the best case of both is short of that, no TOON
// candidate can ship and the picker need not encode one.
//
// Where the two texts differ. A string's characters are the same in both (minus JSON's quotes),
// and so are a number's, so their tokens cancel; what differs is the punctuation between them,
// the lines and indentation TOON writes instead, and the keys a table writes once instead of
// once per row. The estimate (estimate.ts) splits text into chunks: a run of punctuation is one
// chunk (`","`, `":{"`, about a token each), a word takes a leading space into its own chunk
// (`: value` costs the word, `":"value` costs the word and the run), and a line break costs a
// token, its indentation another. Per field of an object outside a table:
//
//   JSON  ,"key":"value"     run + key + run + value
//   TOON  \n  key: value     newline + indentation + key + `:` + (space) value
//
// so a field saves at most a tenth of a token at the left margin, and costs about one token
// deeper down, less what its key and value gain from following a space (spaceGain). Tables are
// where TOON saves: each row drops every key and the punctuation around it. The bounds below
// take the largest value each construct can have; test/compact/shape-bound.test.ts checks them
// against the estimate of the real texts, on generated values and on the real datasets.

import { type Field, keyedLayout, sharedLayout } from '../codec/layout.js';
import { encodeKey } from '../codec/lexical.js';
import type { JsonObject, JsonValue } from '../codec/types.js';
import {
  commaGain,
  commaWordCost,
  headerKeyFloor,
  spaceGain,
  unroundedTokens,
} from './estimate.js';
import { byteLength } from './size.js';

/** What {@link shapeBound} finds: best cases for TOON, and a floor for JSON's tokens. */
export interface ShapeBound {
  /** At least `byteLength(JSON) - byteLength(TOON)`. */
  bytesSaved: number;
  /** At least `estimateTokens(JSON) - estimateTokens(TOON)`. */
  tokensSaved: number;
  /** At most `estimateTokens(JSON)`. */
  jsonTokens: number;
  /**
   * Whether the value has a table or could have one: an array holding an object, or an object
   * of objects (§9.5). Without one, flattening only lifts nested objects into dotted keys.
   */
  rows: boolean;
}

// The largest token change per construct (JSON's tokens minus TOON's), from the chunk rules
// above; see the module comment.
/** A field whose value is a string, true, false or null, at the left margin. */
const MARGIN_TEXT_FIELD = 0.1;
/** The same, on an indented line: TOON pays the indentation. */
const INDENTED_TEXT_FIELD = -0.9;
/** A field whose value is a number: TOON's space before a digit is a token of its own. */
const MARGIN_NUMBER_FIELD = -0.9;
const INDENTED_NUMBER_FIELD = -1.9;
/**
 * A field holding an object: `":{"` against `:` and a line break. Raised by half a token over
 * what the chunk rules give for the field alone: in a list of such objects JSON's runs of
 * closing brackets and the next item's opening merge, which the rules price apart (measured:
 * `{"a":{"b":{}}}` rows save 0.5 of a token a row more than the rules said).
 */
const MARGIN_OBJECT_FIELD = 0.1;
const INDENTED_OBJECT_FIELD = -0.9;
/**
 * A field holding `{}` or `[]`: JSON's run of punctuation grows, TOON writes `key:` (raised by
 * half a token, as the object field above).
 */
const MARGIN_EMPTY_FIELD = 1.6;
const INDENTED_EMPTY_FIELD = 0.6;
/**
 * Per field: how a key's chunks meet the punctuation around it (a trailing `.` or `_` joins
 * JSON's `":` run, digits inside split the key) moves a field by up to a tenth of a token that
 * spaceGain, which prices the key's first chunk, does not see.
 */
const KEY_CHUNKING = 0.1;
/** A field holding an array: `":["` against the header's `[N]:`. */
const MARGIN_ARRAY_FIELD = -1.6;
const INDENTED_ARRAY_FIELD = -2.6;
/**
 * An object in a list: `- ` (its first field, on the hyphen's line, pays the line break and
 * indentation as any indented field does).
 */
const LIST_OBJECT = -1;
/** An array in a list: `],[` against a line break, indentation, `- ` and the header `[N]:`. */
const LIST_ARRAY = -4;
/** How many first rows of a long array {@link BoundWalk.stopIfSampleClears} looks at. */
const SAMPLED_ROWS = 8;
/** Per key a table row drops: the key's own tokens plus the runs around it (`":"`, `","`). */
const TABLE_KEY = 2.1;
/** Per row of a keyed table (§9.5) or nested field group: its braces, against a newline and indentation. */
const TABLE_ROW = 2;
/**
 * Per row of an array table: JSON's braces lengthen runs the keys' runs already count (`"},{"`
 * is 5 characters, at most 0.95 of a token over `","`), while TOON's row pays a line break and
 * its indentation (2 tokens, less at most 0.71 of a token that a first word gains from the
 * space): each row after the first costs TOON more than its braces cost JSON.
 */
const ARRAY_TABLE_ROW = 0;
/**
 * Once per array table: the first row, whose line break joins the header's `}:` run (its
 * indentation still costs a token; the braces' excess is at most 0.66 of a token over that).
 */
const FIRST_ARRAY_ROW = 1;
/**
 * A root table's header, `[N]{` and `}:`: four chunks of a token or more (`[`, the digits, `]{`,
 * `}:`) where JSON writes `[` into its first run (0.04 of a token).
 */
const ROOT_TABLE_HEADER = 3.5;
/**
 * A table in a field: the `[N]:` that {@link MARGIN_ARRAY_FIELD} prices becomes `[N]{` ... `}:`,
 * a chunk more.
 */
const FIELD_TABLE_HEADER = 0.9;
/**
 * A keyed table's `[N:]{` ... `}:` where an object field writes `:` (a chunk): three chunks more
 * (`[`, the digits, `:]{`, `}:` against `:`), at a root or in a field.
 */
const KEYED_TABLE_HEADER = 2.5;
/**
 * A row that opens with a digit: its indentation's last space is a chunk of its own, as before
 * any digit, where a word would have joined it.
 */
const DIGIT_ROW = 1;
/**
 * An object's or array's closing bracket: it lengthens a run of punctuation in JSON, or starts
 * one (`"}` after a last string value is a token TOON does not write).
 */
const CLOSE = 1;
/** Headroom for interactions between constructs that the per-construct maxima do not see. */
const SLACK = 0.5;

/**
 * Bounds on what the `toon` candidate (comma delimiter, indent 2) could save against
 * `JSON.stringify(value)`, from one walk that builds no text; `undefined` unless `value` is
 * plain JSON data (plain objects and arrays, strings, finite numbers, booleans, null), which is
 * what `JSON.stringify` writes as it is and TOON encodes without normalizing.
 *
 * @example
 * const rows = Array.from({ length: 20 }, (_, id) => ({ id, name: `row ${id}` }));
 * shapeBound(rows)!.tokensSaved > 0; // true: a table drops every row's keys
 * shapeBound({ a: { b: 1, c: 2 } })!.tokensSaved < 0; // true: indentation costs tokens
 *
 * With `enough`, the walk stops once the bytes saved reach it (the guard's clear-bytes share of
 * JSON's, so that no bound can rule TOON out): the rest of a large table is not walked, and the
 * bound says TOON could save any number of tokens and has rows (the value may not be plain).
 */
export function shapeBound(
  value: unknown,
  enough = Number.POSITIVE_INFINITY,
): ShapeBound | undefined {
  const walk = new BoundWalk(enough);
  try {
    return walkValue(walk, value);
  } catch (error) {
    if (error !== ENOUGH) throw error;
    return {
      bytesSaved: walk.bytes,
      tokensSaved: Number.POSITIVE_INFINITY,
      jsonTokens: walk.json,
      rows: true,
    };
  }
}

/** Thrown by a walk whose bytes saved reached its `enough`. */
const ENOUGH: unique symbol = Symbol('enough');

function walkValue(walk: BoundWalk, value: unknown): ShapeBound | undefined {
  // The text's first line has no line break before it; estimateTokens rounds both counts,
  // which moves their difference by less than one; and SLACK, for what the per-construct
  // maxima above miss between neighbouring constructs (the property test once caught the bound
  // 0.1 short on a short list).
  walk.tokens += 2 + SLACK;
  if (typeof value === 'string') {
    walk.bytes += 2;
    walk.tokens += 2;
    walk.json += 1;
  } else if (typeof value === 'object' && value !== null) {
    if (!walk.container(value as JsonObject, 0, false)) return undefined;
  } else if (!isPlainPrimitive(value)) {
    return undefined;
  }
  return {
    bytesSaved: walk.bytes,
    tokensSaved: walk.tokens,
    jsonTokens: walk.json,
    rows: walk.rows,
  };
}

/**
 * Can no TOON text of a value with this bound pass the default measure's guard against a JSON
 * text of `jsonBytes`? True when even its best case saves less than `clearBytes` of JSON's
 * bytes and fewer estimated tokens than `margin` of JSON's plus `slack`.
 *
 * @example
 * cannotPassGuard({ bytesSaved: 10, tokensSaved: 1, jsonTokens: 100 }, 100, 0.5, 0.1, 3); // true
 */
export function cannotPassGuard(
  bound: ShapeBound,
  jsonBytes: number,
  clearBytes: number,
  margin: number,
  slack: number,
): boolean {
  return (
    bound.bytesSaved < jsonBytes * clearBytes &&
    bound.tokensSaved < bound.jsonTokens * margin + slack
  );
}

function isPlainPrimitive(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    value === null ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

class BoundWalk {
  bytes = 0;
  tokens = 0;
  json = 0;
  rows = false;
  /** What one row of the table being counted drops (see {@link tableRows}). */
  private rowBytes = 0;
  private rowTokens = 0;
  /** What the header of the table being counted writes at least (see {@link tableRows}). */
  private headerBytes = 0;
  private headerTokens = 0;

  constructor(private readonly enough: number) {}

  /** An object's fields on lines at `depth`, or an array's items below a header at `depth`. */
  /** False when the value holds anything but plain JSON data. */
  container(value: JsonValue[] | JsonObject, depth: number, listItem: boolean): boolean {
    if (!plainContainer(value)) return false;
    return this.entries(value, entriesOf(value), depth, listItem);
  }

  /** {@link container} of a plain object or array whose {@link entriesOf} is `entries`. */
  private entries(
    value: JsonValue[] | JsonObject,
    entries: Entries,
    depth: number,
    listItem: boolean,
  ): boolean {
    if (entries === NO_ENTRIES) {
      if (!Array.isArray(value)) this.bytes += 2;
      return true;
    }
    // Its closing bracket joins a run of punctuation in JSON (about a token at most).
    this.tokens += CLOSE;
    return Array.isArray(value)
      ? this.array(value, depth, listItem)
      : this.object(value, entries === OBJECT_FIRST, depth);
  }

  /** `firstIsObject`: its first value is an object (not an array), so it may be a §9.5 table. */
  private object(object: JsonObject, firstIsObject: boolean, depth: number): boolean {
    this.bytes += 2;
    if (firstIsObject) {
      // The keys listed once, for keyedLayout (which checks that every value is an object) and
      // for the rows.
      const entries = Object.keys(object);
      let keyed: Field[] | undefined;
      try {
        keyed = keyedLayout(object, false, entries);
      } catch {
        return false; // a value outside the JSON model (layout's NOT_JSON)
      }
      if (keyed !== undefined) {
        this.rows = true;
        // §9.5: one row per entry, the entry's key its first cell.
        this.tableRows(entries.length, keyed, TABLE_ROW, KEYED_TABLE_HEADER);
        for (const key of entries) {
          this.countKey(key);
          this.tokens += spaceGain(key);
          if (!this.rowCells(object[key] as JsonObject, keyed)) return false;
        }
        return true;
      }
    }
    const margin = depth === 0;
    for (const key in object) {
      const item = object[key]!;
      this.countKey(key);
      const keyGain = KEY_CHUNKING + (margin ? 0 : keySpaceGain(key));
      if (typeof item === 'object' && item !== null) {
        // Plain first, so that entriesOf reads no values of a Map or class instance.
        if (!plainContainer(item)) return false;
        const entries = entriesOf(item);
        this.tokens +=
          (entries === NO_ENTRIES
            ? margin
              ? MARGIN_EMPTY_FIELD
              : INDENTED_EMPTY_FIELD
            : Array.isArray(item)
              ? margin
                ? MARGIN_ARRAY_FIELD
                : INDENTED_ARRAY_FIELD
              : margin
                ? MARGIN_OBJECT_FIELD
                : INDENTED_OBJECT_FIELD) + keyGain;
        if (!this.entries(item, entries, depth + 1, false)) return false;
      } else if (typeof item === 'number') {
        if (!Number.isFinite(item)) return false;
        this.json++;
        this.tokens += (margin ? MARGIN_NUMBER_FIELD : INDENTED_NUMBER_FIELD) + keyGain;
      } else {
        if (!this.scalar(item)) return false;
        this.tokens +=
          (margin ? MARGIN_TEXT_FIELD : INDENTED_TEXT_FIELD) +
          keyGain +
          (typeof item === 'string' ? spaceGain(item) : 0.1);
      }
    }
    return true;
  }

  private array(array: JsonValue[], depth: number, listItem: boolean): boolean {
    if (array.length === 0) return true;
    if (!listItem && array.length > 2 * SAMPLED_ROWS) this.stopIfSampleClears(array);
    let columns: Field[] | undefined;
    try {
      columns = listItem ? undefined : sharedLayout(array, undefined, false);
    } catch {
      return false; // a value outside the JSON model (sharedLayout's NOT_JSON)
    }
    if (columns !== undefined) {
      this.rows = true;
      this.tableRows(
        array.length,
        columns,
        ARRAY_TABLE_ROW,
        (depth === 0 ? ROOT_TABLE_HEADER : FIELD_TABLE_HEADER) - FIRST_ARRAY_ROW,
      );
      for (let i = 0; i < array.length; i++) {
        const row = array[i] as JsonObject;
        if (!this.rowCells(row, columns)) return false;
        if (opensWithDigit(row, columns)) this.tokens -= DIGIT_ROW;
      }
      return true;
    }
    for (let i = 0; i < array.length; i++) {
      const item = array[i]!;
      if (typeof item === 'object' && item !== null) {
        // A list item: `- ` on an indented line against JSON's `},{`; its fields are indented.
        if (!Array.isArray(item)) this.rows = true;
        this.tokens += Array.isArray(item) ? LIST_ARRAY : LIST_OBJECT;
        if (!this.container(item, depth + 1, true)) return false;
      } else {
        if (!this.scalar(item)) return false;
        if (typeof item === 'string') this.tokens += i === 0 ? spaceGain(item) : commaGain(item);
      }
    }
    return true;
  }

  /**
   * Stops the walk ({@link ENOUGH}) when the first {@link SAMPLED_ROWS} rows of a long array are
   * a table whose keys, dropped from every row, would already clear the guard's bytes: checking
   * every row's layout first would cost a pass over the table that the encoder makes again.
   * Stopping early never rules TOON out, so a table that breaks after its sample costs only the
   * TOON encode the full walk might have spared.
   */
  private stopIfSampleClears(array: JsonValue[]): void {
    let columns: Field[] | undefined;
    try {
      columns = sharedLayout(array.slice(0, SAMPLED_ROWS), undefined, false);
    } catch {
      return; // not JSON: the full walk finds and reports it
    }
    if (columns === undefined) return;
    const before = { bytes: this.bytes, tokens: this.tokens };
    this.tableRows(array.length, columns, ARRAY_TABLE_ROW, 0);
    // Not cleared (tableRows did not stop the walk): undo, and walk the table in full.
    this.bytes = before.bytes;
    this.tokens = before.tokens;
  }

  /**
   * What `count` rows of a table with `columns` drop: their keys and braces, once per row, less
   * what the header writes once (its keys, separators and braces): a table of one row saves
   * little more than its punctuation.
   */
  private tableRows(
    count: number,
    columns: readonly Field[],
    rowTokens: number,
    headerTokens: number,
  ): void {
    this.rowBytes = 2;
    this.rowTokens = rowTokens;
    this.headerBytes = 0;
    this.headerTokens = 0;
    this.columnKeys(columns, false);
    this.bytes += this.rowBytes * count - this.headerBytes;
    this.tokens += this.rowTokens * count - this.headerTokens - headerTokens;
    if (this.bytes >= this.enough) throw ENOUGH;
  }

  /**
   * Adds what one row drops for `fields` to {@link rowBytes} and {@link rowTokens}, and what the
   * header's `{a,b}` for them costs at least to {@link headerBytes} and {@link headerTokens}.
   * `afterWord`: the group's `{` follows a letter or digit (its key's), so the first key's word
   * takes the brace as its prefix, as a later key's takes the comma after a key that ends so.
   */
  private columnKeys(fields: readonly Field[], afterWord: boolean): void {
    // The braces and the commas between the keys.
    this.headerBytes += fields.length + 1;
    let separatorAfterWord = afterWord;
    for (const field of fields) {
      const key = columnKey(field.key);
      this.rowBytes += key.bytes;
      this.rowTokens += key.tokens;
      this.headerBytes += key.headerBytes;
      this.headerTokens += separatorAfterWord ? key.wordAfterSeparator : key.word;
      if (field.children !== undefined) {
        this.rowBytes += 2;
        this.rowTokens += TABLE_ROW;
        this.columnKeys(field.children, key.endsInWord);
        separatorAfterWord = false; // `}` then `,`: one run, and the next word has no prefix
      } else {
        separatorAfterWord = key.endsInWord;
      }
    }
  }

  /**
   * A table row's cells: their values' share of the floor of JSON's tokens, the quotes, and the
   * comma TOON writes before every cell but the row's first (`first`), which the per-key runs
   * of {@link TABLE_KEY} do not see. Returns false when a cell is not JSON.
   */
  private rowCells(row: JsonObject, columns: readonly Field[], first = true): boolean {
    if (!plainContainer(row)) return false;
    for (const field of columns) {
      this.json += wordy(field.key) ? 2 : 1;
      const cell = row[field.key]!;
      if (field.children !== undefined) {
        if (!this.rowCells(cell as JsonObject, field.children, first)) return false;
      } else {
        if (!this.scalar(cell)) return false;
        if (!first) this.tokens -= cellCommaFloor(cell);
      }
      first = false;
    }
    return true;
  }

  /** A key's share of the floor of JSON's tokens: the run after it, and its word. */
  private countKey(key: string): void {
    this.bytes += 2;
    this.json += wordy(key) ? 2 : 1;
  }

  /** A primitive: its quotes, and its share of the floor of JSON's tokens; false if not JSON. */
  private scalar(value: JsonValue): boolean {
    if (typeof value === 'string') {
      this.bytes += 2;
      if (wordy(value)) this.json++;
      return true;
    }
    this.json++;
    return isPlainPrimitive(value);
  }
}

/** Does a table row's first cell (the first leaf of its columns) start with a digit in TOON? */
function opensWithDigit(row: JsonObject, columns: readonly Field[]): boolean {
  let field = columns[0]!;
  let cell = row[field.key];
  while (field.children !== undefined) {
    field = field.children[0]!;
    cell = (cell as JsonObject)[field.key];
  }
  // Canonical numbers are written as JSON writes them (-0 as 0): a digit first unless negative.
  return typeof cell === 'number' && cell >= 0;
}

/**
 * The least the comma before a table cell costs TOON (its JSON twin's runs are priced per key):
 * a chunk of its own before a number (`,-` too), joined to a word otherwise (`,true` costs more
 * than `true` after JSON's `":`); nothing for other strings, whose first chunk may absorb it.
 */
function cellCommaFloor(cell: JsonValue): number {
  if (typeof cell === 'number') return 1;
  if (typeof cell === 'string') return commaWordCost(cell);
  return cell === null || cell === true ? NULL_TRUE_COMMA : FALSE_COMMA;
}
/** `,true` and `,null` against `true` after a run: o200k's word table, 1.92 against 1.16. */
const NULL_TRUE_COMMA = 0.76;
/** `,false`: 2.05 against 1.21. */
const FALSE_COMMA = 0.84;

/**
 * {@link spaceGain} of keys seen lately: an API's records repeat the same keys, and a lookup
 * costs less than pricing the key's first word again. Cleared when full, so it stays small.
 */
const keyGains = new Map<string, number>();

function keySpaceGain(key: string): number {
  let gain = keyGains.get(key);
  if (gain === undefined) {
    if (keyGains.size >= COLUMN_KEYS_KEPT) keyGains.clear();
    gain = spaceGain(key);
    keyGains.set(key, gain);
  }
  return gain;
}

/** What a table row drops for one column key, and what the table's header pays for it. */
interface ColumnKey {
  /** The bytes a JSON row writes for the key (quoted, escaped, and its colon). */
  bytes: number;
  /** The estimated tokens a JSON row spends on the key and the runs around it. */
  tokens: number;
  /** The bytes the header writes for it at least: the key itself (and quotes, if it needs them). */
  headerBytes: number;
  /** The least its first chunk costs in the header after a bracket run, and after a lone `,` or `{`. */
  word: number;
  wordAfterSeparator: number;
  /** Whether the header writes it bare and ending in an ASCII letter or digit. */
  endsInWord: boolean;
}

/**
 * Column keys seen lately: the same API shapes come back call after call, and a key's share
 * costs a `JSON.stringify` and an estimate. Cleared when full, so it stays small.
 */
const columnKeys = new Map<string, ColumnKey>();
const COLUMN_KEYS_KEPT = 4096;

function columnKey(key: string): ColumnKey {
  let found = columnKeys.get(key);
  if (found === undefined) {
    if (columnKeys.size >= COLUMN_KEYS_KEPT) columnKeys.clear();
    const bare = isBareKey(key);
    const quoted = JSON.stringify(key);
    found = {
      // The key as JSON writes it, escapes included (`"\u0001"` is 8 bytes for 1), and `:`.
      bytes: byteLength(quoted) + 1,
      // Unrounded: the header subtracts the same key's chunks once. Priced as JSON writes it:
      // a tab or control character is an escape of two or six characters there, dearer than
      // the character itself (a key of a tab and \u0001 was priced 0.6 of a token short).
      tokens:
        unroundedTokens(quoted.length === key.length + 2 ? key : quoted.slice(1, -1)) + TABLE_KEY,
      headerBytes: byteLength(key) + (bare ? 0 : 2),
      // A quoted key opens with a quote, which joins the run before it: priced at nothing.
      word: bare ? headerKeyFloor(key, false) : 0,
      wordAfterSeparator: bare ? headerKeyFloor(key, true) : 0,
      endsInWord: bare && key.length > 0 && wordy(key.slice(-1)),
    };
    columnKeys.set(key, found);
  }
  return found;
}

/** Does TOON write `key` without quotes? (No for a key it cannot write at all: a lone surrogate.) */
function isBareKey(key: string): boolean {
  try {
    return encodeKey(key) === key;
  } catch {
    return false;
  }
}

/**
 * Is `value` an object or array JSON.stringify writes as it is, as far as the two texts go: a
 * Map, Set, Date or RawString has another prototype (a toJSON on a plain object is rare enough,
 * and `JSON.stringify` and the encoder's normalize both call it, so at worst the bound reads the
 * object before its toJSON and rules TOON out wrongly: JSON ships).
 */
function plainContainer(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === Array.prototype || prototype === null;
}

/** What {@link entriesOf} finds. */
type Entries = typeof NO_ENTRIES | typeof SOME_ENTRIES | typeof OBJECT_FIRST;
/** An empty object or array. */
const NO_ENTRIES = 0;
/** Entries, not {@link OBJECT_FIRST}. */
const SOME_ENTRIES = 1;
/** An object whose first value is an object (not an array): it may be a §9.5 table. */
const OBJECT_FIRST = 2;

/**
 * Whether `value` is empty, and whether its first value is an object, so that it may be a §9.5
 * table (keyedLayout checks every value, as it must anyway): one `for...in` that reads one value.
 * The walk asks both of every object, and a field's own emptiness before that; it used to ask
 * them in three passes, one of which read every value of an object of objects (mime-db's 2,500
 * entries, spdx's 700).
 */
function entriesOf(value: JsonValue[] | JsonObject): Entries {
  if (Array.isArray(value)) return value.length === 0 ? NO_ENTRIES : SOME_ENTRIES;
  for (const key in value) {
    const item = value[key];
    return typeof item === 'object' && item !== null && !Array.isArray(item)
      ? OBJECT_FIRST
      : SOME_ENTRIES;
  }
  return NO_ENTRIES;
}

/** Does `text` start with an ASCII letter or digit, so its first chunk is a token of its own? */
function wordy(text: string): boolean {
  if (text.length === 0) return false;
  const code = text.charCodeAt(0);
  const lower = code | 0x20;
  return (lower >= 0x61 && lower <= 0x7a) || (code >= 0x30 && code <= 0x39);
}
