// The structural decoder (§5, §8-§10): walks the line table with a single cursor and builds the
// value as it goes: objects and fields, list items, tables and their rows. Every line is looked
// at a constant number of times, so time is linear in the input; nothing is allocated from a
// declared length; nesting is bounded by `maxDepth` before the call stack is.

import * as codes from '../char-codes.js';
import { ToonDecodeError } from '../errors.js';
import { loneSurrogateAt } from '../lexical.js';
import { setOwn } from '../objects.js';
import type { JsonArray, JsonObject, JsonValue } from '../types.js';
import type { FieldList, Header, LineClass } from './header.js';
import * as header from './header.js';
import {
  columnOf,
  contentEndOf,
  DEPTH_TAB,
  type LineTable,
  releaseLines,
  scanLines,
} from './lines.js';
import { reasons, surrogateCode } from './messages.js';
import { Reader } from './reader.js';
import { KEY_SLOTS, keySlotOf } from './tokens.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const { KIND_FIELD, KIND_SCALAR, OP_LEAF, OP_OPEN } = header;
const { BRACKET_CLOSE, BRACKET_OPEN, MINUS, SPACE } = codes;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Strict mode's duplicate-key check (§14) without a property lookup for most fields: a lookup on
 * an object of many keys (a dictionary, as objects built key by key become) was a twelfth of
 * decoding a GitHub API object. Every object gets an id from an ever-growing count as it begins,
 * and storing a key stamps the key's cache slot (see `keySlotOf`) with the count. A slot stamped
 * below an object's id has had no key stored since the object began, so the object cannot hold
 * the key; otherwise (a key of the object, of one nested in it, or another key sharing the slot)
 * the property lookup decides. Stamps only skip lookups that would find nothing: a key without a
 * slot is always looked up. Doubles, so the count never wraps.
 */
const keyStamps = new Float64Array(KEY_SLOTS);
let objectsBegun = 0;

/**
 * Materialises one row object from its cells, one per leaf field (`readRow` checked the width,
 * in both modes). `stack` is a reused buffer for nested field groups. Rows of plain leaf fields
 * skip the cells and come from `readFlatRow` instead.
 */
export function materializeRow(
  cells: readonly JsonValue[],
  fields: FieldList,
  stack: JsonObject[],
): JsonObject {
  const row: JsonObject = {};
  const names = fields.names;
  const ops = fields.ops;
  if (ops === null) {
    const n = fields.leafCount;
    if (fields.hasInheritedName) for (let j = 0; j < n; j++) setOwn(row, names[j]!, cells[j]!);
    else for (let j = 0; j < n; j++) row[names[j]!] = cells[j]!;
    return row;
  }
  let depth = 0;
  let target = row;
  let cell = 0;
  for (let o = 0; o < ops.length; o++) {
    const op = ops[o];
    if (op === OP_LEAF) {
      setOwn(target, names[o]!, cells[cell++]!);
    } else if (op === OP_OPEN) {
      const child: JsonObject = {};
      setOwn(target, names[o]!, child);
      stack[depth++] = target;
      target = child;
    } else {
      target = stack[--depth]!;
    }
  }
  return row;
}

/** Is `[p, end)` the literal `[]` (an empty array, §9.1), trailing spaces allowed? */
export function isEmptyArrayToken(reader: Reader, p: number, end: number): boolean {
  const text = reader.text;
  return (
    text.charCodeAt(p) === BRACKET_OPEN &&
    reader.trimEnd(p, end) === p + 2 &&
    text.charCodeAt(p + 1) === BRACKET_CLOSE
  );
}

/** Is the content at `start` a list-item line (`-` alone or `- ...`, §5.2)? */
export function isListItem(text: string, start: number, end: number): boolean {
  return (
    text.charCodeAt(start) === MINUS && (start + 1 === end || text.charCodeAt(start + 1) === SPACE)
  );
}

/**
 * A short array grown by push carries spare capacity for ~16 elements; a copy is exact. Decoded
 * documents hold many short arrays, so trimming them keeps memory close to JSON.parse's.
 */
function exactSize(items: JsonArray): JsonArray {
  return items.length > 0 && items.length < 16 ? items.slice() : items;
}

/** Decodes a whole document held in one string. */
export class TreeDecoder extends Reader {
  // The line table's columns, held directly: they are read for every line, several times.
  private readonly count: number;
  private readonly contentStart: Int32Array;
  private readonly contentEnd: Int32Array;
  private readonly depths: Int32Array;
  private readonly blankBefore: Int32Array;
  private readonly lines: LineTable;
  /** Index of the next line not yet consumed. */
  private cursor = 0;
  /** Arrays whose span (§12) is open: a blank line before any line consumed now is an error. */
  private openSpans = 0;
  /** Reused buffer for the cells of one row. */
  private readonly cells: JsonValue[] = [];
  /** Reused stack for nested field groups while a row materialises. */
  private readonly groupStack: JsonObject[] = [];

  constructor(text: string, strict: boolean, indentSize: number, maxDepth: number) {
    super(text, strict, indentSize, maxDepth);
    const lines: LineTable = scanLines(text, strict, indentSize);
    this.lines = lines;
    this.count = lines.count;
    this.contentStart = lines.contentStart;
    this.contentEnd = lines.contentEnd;
    this.depths = lines.depths;
    this.blankBefore = lines.blankBefore;
  }

  /** Hands back the line table's columns once this decoder is done (see `releaseLines`). */
  release(): void {
    releaseLines(this.lines);
  }

  // -------------------------------------------------------------------------------------------
  // Errors

  /** Offset of the start of the line holding `offset`. */
  private lineStartOf(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  /** 1-based line number of `offset` (error path only: one scan of the text before it). */
  private lineNumberOf(offset: number): number {
    let number = 1;
    const text = this.text;
    for (let p = text.indexOf('\n'); p !== -1 && p < offset; p = text.indexOf('\n', p + 1))
      number++;
    return number;
  }

  /** The raw line holding `offset`, without its terminator. */
  private sourceOf(offset: number): string {
    const start = this.lineStartOf(offset);
    let end = this.text.indexOf('\n', start);
    if (end === -1) end = this.text.length;
    return this.text.slice(start, contentEndOf(this.text, start, end));
  }

  error(offset: number, reason: string): ToonDecodeError {
    return new ToonDecodeError(
      reason,
      this.lineNumberOf(offset),
      columnOf(this.text, this.lineStartOf(offset), offset),
      {
        source: this.sourceOf(offset),
      },
    );
  }

  /** Strict string input: an unpaired surrogate is an error, with its line and column. */
  rejectLoneSurrogate(): void {
    const at = loneSurrogateAt(this.text);
    if (at >= 0) throw this.error(at, reasons.loneSurrogate(surrogateCode(this.text, at)));
  }

  private depthError(offset: number): ToonDecodeError {
    return this.error(offset, reasons.tooDeep(this.maxDepth));
  }

  private checkLevel(level: number, offset: number): void {
    if (level > this.maxDepth) throw this.depthError(offset);
  }

  /** An error for a problem the parser met between lines (stack or memory exhaustion). */
  errorAtCursor(reason: string): ToonDecodeError {
    const { count, contentStart } = this;
    const k = this.cursor < count ? this.cursor : count - 1;
    return k < 0 ? new ToonDecodeError(reason, 1, 1) : this.error(contentStart[k]!, reason);
  }

  // -------------------------------------------------------------------------------------------
  // Moving through the line table

  /** The depth of line `k`; raises the strict indentation errors of §12 when the line is reached. */
  private depthAt(k: number): number {
    const depth = this.depths[k]!;
    if (depth >= 0) return depth;
    const contentStart = this.contentStart[k]!;
    const start = this.lineStartOf(contentStart);
    if (depth === DEPTH_TAB) {
      throw this.error(this.text.indexOf('\t', start), reasons.tabIndent(this.indentSize));
    }
    throw this.error(contentStart, reasons.notMultiple(contentStart - start, this.indentSize));
  }

  /**
   * Depth of the content that the line at `parentDepth` opened, or -1 when the next line does not
   * belong to it. Strict mode requires exactly one level deeper (§8, §14.2).
   */
  private childDepth(parentDepth: number, k: number): number {
    const depth = this.depthAt(k);
    if (depth <= parentDepth) return -1;
    if (this.strict && depth !== parentDepth + 1) {
      throw this.error(
        this.contentStart[k]!,
        reasons.depthJump(depth - parentDepth, (parentDepth + 1) * this.indentSize),
      );
    }
    return depth;
  }

  /**
   * The next line of a scope whose lines stand at `depth`, or -1 once the scope has ended (a
   * shallower line, the end of input, or no scope: `depth` < 0). A deeper line belongs to no
   * scope: an error in both modes (spec 4.4).
   */
  private nextLineAt(depth: number): number {
    if (depth < 0 || this.cursor >= this.count) return -1;
    const k = this.cursor;
    const lineDepth = this.depthAt(k);
    if (lineDepth === depth) return k;
    if (lineDepth < depth) return -1;
    throw this.overIndented(k, depth);
  }

  private overIndented(k: number, scopeDepth: number): ToonDecodeError {
    return this.error(this.contentStart[k]!, reasons.overIndented(scopeDepth * this.indentSize));
  }

  /** Moves past line `k`, enforcing "no blank line inside an array span" (§12). */
  private consume(k: number): void {
    const blank = this.blankBefore[k]!;
    if (this.openSpans > 0 && blank !== 0 && this.strict) {
      throw new ToonDecodeError(reasons.blankInArray(), this.lineNumberOf(blank - 1), 1, {
        source: this.sourceOf(blank - 1),
      });
    }
    this.cursor = k + 1;
  }

  // -------------------------------------------------------------------------------------------
  // Document (§5)

  decodeDocument(): JsonValue {
    const { count, contentStart, contentEnd } = this;
    if (count === 0) return {};
    const k = 0;
    const depth = this.depthAt(k);
    const start = contentStart[k]!;
    const end = contentEnd[k]!;
    if (depth !== 0) throw this.overIndented(k, 0);

    if (this.trimEnd(start, end) - start === 2 && this.text.startsWith('[]', start)) {
      this.consume(k);
      this.checkLevel(1, start);
      this.rejectTrailing('the empty root array "[]"');
      return [];
    }
    const line = this.classify(start, end, 2);
    if (typeof line === 'object' && line.key === null) {
      this.consume(k);
      this.checkLevel(1, start);
      const value = this.headerValue(line, k, depth, 1);
      this.rejectTrailing(line.keyed ? 'the keyed root object' : 'the root array');
      return value;
    }
    if (line === KIND_SCALAR && count === 1) {
      this.consume(k);
      return this.primitive(start, end);
    }
    const root: JsonObject = {};
    const id = ++objectsBegun;
    this.checkLevel(1, start);
    // The first line is the root object's first field: read as classified above, not classified
    // again (a table header of 80,000 names was parsed twice, issue 31). A header whose field
    // groups nest is classified again, since their maxDepth check counts from the rows' level (3
    // here, where it was 2), and so is a scalar line, for the reason its error gives.
    if (
      line === KIND_FIELD ||
      (typeof line === 'object' && (line.fields === null || line.fields.ops === null))
    ) {
      this.consume(k);
      this.field(root, id, line, k, start, 0, 1);
    }
    this.objectFields(root, id, 0, 1);
    return root;
  }

  /** A root array or keyed root object spans the whole document (§5), in both modes. */
  private rejectTrailing(what: string): void {
    const k = this.cursor;
    if (k >= this.count) return;
    throw this.error(this.contentStart[k]!, reasons.trailing(what));
  }

  // -------------------------------------------------------------------------------------------
  // Objects (§8) and fields

  /**
   * Reads the fields at `depth` into `target` (at nesting `level`) until the scope ends. `id` is
   * the object's, see {@link keyStamps}.
   */
  private objectFields(target: JsonObject, id: number, depth: number, level: number): void {
    const { count, contentStart, contentEnd } = this;
    while (this.cursor < count) {
      const k = this.cursor;
      const lineDepth = this.depthAt(k);
      if (lineDepth < depth) return;
      if (lineDepth > depth) throw this.overIndented(k, depth);
      this.consume(k);
      const start = contentStart[k]!;
      const line = this.classify(start, contentEnd[k]!, level + 2);
      this.field(target, id, line, k, start, depth, level);
    }
  }

  /**
   * Stores the field `line` (line `k`) into `target`. `fieldDepth` is the depth the field stands
   * at (one more than the hyphen for a first field on a list-item line, §10); its own content,
   * if any, sits one level deeper.
   */
  private field(
    target: JsonObject,
    id: number,
    line: LineClass,
    k: number,
    keyOffset: number,
    fieldDepth: number,
    level: number,
  ): void {
    if (line === KIND_SCALAR) {
      const hint = this.scalarHint;
      if (hint !== null) throw this.error(hint.offset, hint.reason);
      throw this.error(this.contentStart[k]!, reasons.noColon());
    }
    if (typeof line === 'object' && line.key === null) {
      throw this.error(line.keyOffset, reasons.keylessField());
    }
    const key = typeof line === 'object' ? line.key! : this.fieldKey;
    // Only strict mode checks, so only it stamps (a later strict decode's ids are all higher).
    const slot = !this.strict ? -1 : typeof line === 'object' ? keySlotOf(key) : this.fieldSlot;
    if (this.strict && (slot < 0 || keyStamps[slot]! >= id) && hasOwn.call(target, key)) {
      throw this.error(keyOffset, reasons.duplicateKey(key));
    }
    let value: JsonValue;
    if (typeof line === 'object') {
      this.checkLevel(level + 1, keyOffset);
      value = this.headerValue(line, k, fieldDepth, level + 1);
    } else {
      value = this.fieldValue(k, this.fieldValueStart, keyOffset, fieldDepth, level);
    }
    setOwn(target, key, value);
    if (slot >= 0) keyStamps[slot] = objectsBegun;
  }

  /** The value after a field's colon: nested object, `[]`, or a primitive (§8, §9.1). */
  private fieldValue(
    k: number,
    p: number,
    keyOffset: number,
    fieldDepth: number,
    level: number,
  ): JsonValue {
    const end = this.contentEnd[k]!;
    p = this.skipSpaces(p, end);
    if (p >= end) {
      this.checkLevel(level + 1, keyOffset);
      const child: JsonObject = {};
      if (this.cursor < this.count) {
        const depth = this.childDepth(fieldDepth, this.cursor);
        if (depth >= 0) this.objectFields(child, ++objectsBegun, depth, level + 1);
      }
      return child;
    }
    if (isEmptyArrayToken(this, p, end)) {
      this.checkLevel(level + 1, p);
      return [];
    }
    return this.primitive(p, end);
  }

  // -------------------------------------------------------------------------------------------
  // Arrays (§9) and keyed objects (§9.5)

  /**
   * The array (or keyed object) declared by `header` on line `k`. `ownerDepth` is the depth its
   * content is nested under; `level` is the value's own level.
   */
  private headerValue(header: Header, k: number, ownerDepth: number, level: number): JsonValue {
    if (header.fields !== null) {
      const into: JsonArray | JsonObject = header.keyed ? {} : [];
      this.tableRows(header, header.fields, ownerDepth, level, into);
      return Array.isArray(into) ? exactSize(into) : into;
    }
    const end = this.contentEnd[k]!;
    const inline = this.skipSpaces(header.end, end);
    if (inline < end) {
      // Read into the reused buffer and copy out an exact-size array: growing a fresh array by
      // push over-allocates, which costs memory and GC time across thousands of short arrays.
      const cells = this.cells;
      this.readInline(cells, inline, end, header);
      return cells.slice();
    }
    const items: JsonArray = [];
    this.listItems(items, header, ownerDepth, level);
    return exactSize(items);
  }

  /** Expanded list items at one level below `ownerDepth` (§9.2, §9.4, §10). */
  private listItems(items: JsonArray, header: Header, ownerDepth: number, level: number): void {
    const { count, contentStart, contentEnd } = this;
    const declared = header.length;
    let depth = -1;
    if (this.cursor < count) depth = this.childDepth(ownerDepth, this.cursor);
    for (let k = this.nextLineAt(depth); k >= 0; k = this.nextLineAt(depth)) {
      const start = contentStart[k]!;
      const end = contentEnd[k]!;
      if (!isListItem(this.text, start, end)) throw this.error(start, reasons.notListItem());
      if (this.strict && items.length === declared) {
        throw this.countError(start, header, 'more', 'list item');
      }
      this.consume(k);
      // The span opens with the first item line, so it covers that item's own nested lines.
      if (items.length === 0) this.openSpans++;
      items.push(this.listItem(k, start + 1, depth, level + 1));
    }
    if (items.length > 0) this.openSpans--;
    if (this.strict && items.length !== declared) {
      throw this.countError(header.lengthOffset, header, String(items.length), 'list item');
    }
  }

  /** One list item whose text after the hyphen starts at `p` (§9.4, §10). */
  private listItem(k: number, p: number, itemDepth: number, level: number): JsonValue {
    const end = this.contentEnd[k]!;
    p = this.skipSpaces(p, end);
    if (p >= end) {
      this.checkLevel(level, p);
      return {};
    }
    if (isEmptyArrayToken(this, p, end)) {
      this.checkLevel(level, p);
      return [];
    }
    const line = this.classify(p, end, level + 2);
    if (line === KIND_SCALAR) return this.primitive(p, end);
    if (typeof line === 'object' && line.key === null) {
      if (line.fields !== null) throw this.error(p, reasons.keylessTableItem());
      this.checkLevel(level, p);
      return this.headerValue(line, k, itemDepth, level);
    }
    // An object whose first field shares the hyphen line: that field stands at itemDepth + 1,
    // and so do the object's remaining fields (§10).
    this.checkLevel(level, p);
    const item: JsonObject = {};
    const id = ++objectsBegun;
    this.field(item, id, line, k, p, itemDepth + 1, level);
    this.objectFields(item, id, itemDepth + 1, level);
    return item;
  }

  /**
   * The rows of a table, one level below `ownerDepth` (`level` is the table's own): the rows of a
   * tabular array (§9.3), pushed onto `into`, or the entry rows `key: cells` of a keyed tabular
   * object (§9.5), set on `into`.
   */
  private tableRows(
    header: Header,
    fields: FieldList,
    ownerDepth: number,
    level: number,
    into: JsonArray | JsonObject,
  ): void {
    const { count: lineCount, contentStart, contentEnd } = this;
    const { length: declared, delimiter } = header;
    const keyed = !Array.isArray(into);
    const noun = keyed ? 'entry row' : 'row';
    let depth = -1;
    if (this.cursor < lineCount) depth = this.childDepth(ownerDepth, this.cursor);
    if (depth >= 0) this.checkLevel(level + 1, contentStart[this.cursor]!);
    const cells = this.cells;
    // Rows of plain leaf fields are read straight into their objects (see readFlatRow).
    const flat = fields.ops === null && !fields.hasInheritedName;
    let count = 0;
    for (let k = this.nextLineAt(depth); k >= 0; k = this.nextLineAt(depth)) {
      const start = contentStart[k]!;
      const end = contentEnd[k]!;
      let cellsStart = start;
      let key = '';
      if (keyed) {
        cellsStart = this.entryKey(start, end);
        key = this.fieldKey;
      } else if (this.colonBeforeDelimiter(start, end, delimiter)) {
        break; // a key-value line ends the rows
      }
      if (this.strict) {
        if (count === declared) throw this.countError(start, header, 'more', noun);
        if (keyed && hasOwn.call(into, key)) throw this.error(start, reasons.duplicateEntry(key));
      }
      this.consume(k);
      const first = keyed ? this.skipSpaces(cellsStart, end) : cellsStart;
      let row: JsonObject;
      if (flat) {
        row = {};
        this.readFlatRow(row, first, end, header, fields, noun);
      } else {
        this.readRow(cells, first, end, header, fields, noun);
        row = materializeRow(cells, fields, this.groupStack);
      }
      if (keyed) setOwn(into, key, row);
      else (into as JsonArray).push(row);
      // The span opens with the first row.
      if (count++ === 0) this.openSpans++;
    }
    if (count > 0) this.openSpans--;
    if (this.strict && count !== declared) {
      throw this.countError(header.lengthOffset, header, String(count), noun);
    }
  }
}
