// The stream decoders' structural decoder: the same walk as tree.ts (objects, list items,
// tables, rows; the same checks in the same order), emitting the reference implementation's
// events instead of building values, one line at a time. Events go into `out`; the generator
// itself yields only signals: NEED_INPUT when no line is buffered yet (the async driver awaits
// more input and resumes it, so one parser serves decodeStreamSync and decodeStream alike) and
// FLUSH when enough events wait to be handed out.

import { ToonDecodeError } from '../errors.js';
import { loneSurrogateAt } from '../lexical.js';
import type { JsonPrimitive, JsonStreamEvent, JsonValue } from '../types.js';
import type { FieldList, Header, LineClass } from './header.js';
import * as header from './header.js';
import * as lines from './lines.js';
import { reasons, surrogateCode } from './messages.js';
import { Reader } from './reader.js';
import { isEmptyArrayToken, isListItem } from './tree.js';

const { declaredLength, KIND_SCALAR, OP_LEAF, OP_OPEN } = header;
const { columnOf, contentEndOf, DEPTH_TAB, LINE_BLANK, LINE_COMMENT, measureLine } = lines;

/** Yielded when the parser needs a line that has not arrived yet. */
export const NEED_INPUT: unique symbol = Symbol('toonwire.needInput');
/** Yielded when enough events are waiting in `out` to hand them out. */
export const FLUSH: unique symbol = Symbol('toonwire.flush');

/**
 * What the parser yields: only signals. Events go to `out` directly (a yield would travel
 * through every generator of the nesting on its way out, once per event).
 */
export type Step = typeof NEED_INPUT | typeof FLUSH;

/** Events waiting in `out` beyond this are handed out before the next line is read. */
const FLUSH_AT = 512;

/** One content line (neither blank nor a comment). */
interface Line {
  readonly text: string;
  /** 1-based line number in the document. */
  readonly number: number;
  /** Depth, or a DEPTH_* code strict mode raises when the line is reached. */
  readonly depth: number;
  readonly start: number;
  readonly end: number;
  /** Line number of a blank line just before this one, or 0; and that line's raw text. */
  readonly blankBefore: number;
  readonly blankSource: string;
}

const END_OBJECT: JsonStreamEvent = { type: 'endObject' };
const START_OBJECT: JsonStreamEvent = { type: 'startObject' };
const END_ARRAY: JsonStreamEvent = { type: 'endArray' };

/**
 * Events for a document arriving line by line. Feed it with {@link push} (raw lines, without
 * terminators) and {@link close}; read it through {@link run}.
 */
export class EventDecoder extends Reader {
  private readonly queue: Line[] = [];
  private queueHead = 0;
  private closed = false;
  private lineNumber = 0;
  private pendingBlank = 0;
  private pendingBlankSource = '';
  private readonly measured = { contentStart: 0 };
  /** The line whose text the reader is on, for error positions. */
  private current: Line | null = null;
  private openSpans = 0;
  private readonly cells: JsonValue[] = [];
  /** Events produced and not yet handed out; the drivers drain it after every step. */
  readonly out: JsonStreamEvent[] = [];

  constructor(strict: boolean, indentSize: number, maxDepth: number) {
    super('', strict, indentSize, maxDepth);
  }

  /**
   * Adds one raw line (a trailing CR is the terminator's, §12). `checkText` (a line given as a
   * string, in strict mode): an unpaired surrogate is an error, as for {@link decode}'s text.
   */
  push(raw: string, checkText: boolean): void {
    const number = ++this.lineNumber;
    if (checkText) {
      const at = loneSurrogateAt(raw);
      if (at >= 0) throw errorAt(raw, number, at, reasons.loneSurrogate(surrogateCode(raw, at)));
    }
    const end = contentEndOf(raw, 0, raw.length);
    const depth = measureLine(raw, 0, end, this.strict, this.indentSize, this.measured);
    if (depth === LINE_BLANK) {
      if (this.pendingBlank === 0) {
        this.pendingBlank = number;
        this.pendingBlankSource = raw.slice(0, end);
      }
      return;
    }
    if (depth === LINE_COMMENT) return;
    this.queue.push({
      text: raw,
      number,
      depth,
      start: this.measured.contentStart,
      end,
      blankBefore: this.pendingBlank,
      blankSource: this.pendingBlankSource,
    });
    this.pendingBlank = 0;
  }

  /** No more lines will come. */
  close(): void {
    this.closed = true;
  }

  /** Lines buffered and not yet consumed (the drivers feed until there is one). */
  get buffered(): number {
    return this.queue.length - this.queueHead;
  }

  /**
   * The next content line without consuming it, null at the end of input, or undefined when the
   * parser must yield first (no line buffered yet, or events to hand out). The hot loops call
   * this and fall back to {@link peek} only when it says undefined: creating a generator per
   * line costs more than the rest of the line's work.
   */
  private peekNow(): Line | null | undefined {
    if (this.out.length >= FLUSH_AT) return undefined;
    if (this.queueHead < this.queue.length) return this.queue[this.queueHead]!;
    return this.closed ? null : undefined;
  }

  /** The next content line without consuming it, or null at the end of input. */
  private *peek(): Generator<Step, Line | null, undefined> {
    if (this.out.length >= FLUSH_AT) yield FLUSH;
    while (this.queueHead >= this.queue.length) {
      if (this.closed) return null;
      yield NEED_INPUT;
    }
    return this.queue[this.queueHead]!;
  }

  /** Moves past `line` (the peeked one), enforcing "no blank line inside an array span" (§12). */
  private consume(line: Line): void {
    if (this.openSpans > 0 && line.blankBefore !== 0 && this.strict) {
      throw new ToonDecodeError(reasons.blankInArray(), line.blankBefore, 1, {
        source: line.blankSource,
      });
    }
    this.queueHead++;
    // Drop consumed lines now and then, so a long stream holds only what is still ahead.
    if (this.queueHead > 1024) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
  }

  /** Points the reader at `line`'s text. */
  private enterLine(line: Line): void {
    if (this.current !== line) {
      this.current = line;
      this.setText(line.text);
    }
  }

  error(offset: number, reason: string): ToonDecodeError {
    return errorOn(this.current, offset, reason);
  }

  /**
   * The error for an engine limit met while decoding (the call stack under a raised maxDepth, a
   * string's length): at the content of the line being read, as `decode` places it, or at line 1
   * before any line was read.
   */
  errorAtCurrentLine(reason: string): ToonDecodeError {
    const line =
      this.current ?? (this.queueHead < this.queue.length ? this.queue[this.queueHead]! : null);
    return errorOn(line, line === null ? 0 : line.start, reason);
  }

  private checkLevel(level: number, line: Line, offset: number): void {
    if (level > this.maxDepth) throw errorOn(line, offset, reasons.tooDeep(this.maxDepth));
  }

  private depthOf(line: Line): number {
    if (line.depth >= 0) return line.depth;
    if (line.depth === DEPTH_TAB) {
      throw errorOn(line, line.text.indexOf('\t'), reasons.tabIndent(this.indentSize));
    }
    throw errorOn(line, line.start, reasons.notMultiple(line.start, this.indentSize));
  }

  private childDepth(parentDepth: number, line: Line): number {
    const depth = this.depthOf(line);
    if (depth <= parentDepth) return -1;
    if (this.strict && depth !== parentDepth + 1) {
      throw errorOn(
        line,
        line.start,
        reasons.depthJump(depth - parentDepth, (parentDepth + 1) * this.indentSize),
      );
    }
    return depth;
  }

  /** The next line of a scope at `depth`, or null once the scope has ended (see tree.ts). */
  private *nextLineAt(depth: number): Generator<Step, Line | null, undefined> {
    for (;;) {
      const line = this.lineAtNow(depth);
      if (line !== undefined) return line;
      yield* this.peek();
    }
  }

  /** {@link nextLineAt} without yielding: undefined when the parser must yield first. */
  private lineAtNow(depth: number): Line | null | undefined {
    for (;;) {
      if (depth < 0) return null;
      const line = this.peekNow();
      if (line === undefined || line === null) return line;
      const lineDepth = this.depthOf(line);
      if (lineDepth === depth) return line;
      if (lineDepth < depth) return null;
      throw this.overIndented(line, depth);
    }
  }

  /** A line deeper than its scope allows: an error in both modes (spec 4.4). */
  private overIndented(line: Line, scopeDepth: number): ToonDecodeError {
    return errorOn(line, line.start, reasons.overIndented(scopeDepth * this.indentSize));
  }

  /** The events of the whole document (§5). */
  *run(): Generator<Step, void, undefined> {
    const first = yield* this.peek();
    if (first === null) {
      this.out.push(START_OBJECT);
      this.out.push(END_OBJECT);
      return;
    }
    const depth = this.depthOf(first);
    if (depth !== 0) throw this.overIndented(first, 0);
    this.enterLine(first);
    const { start, end } = first;
    if (this.trimEnd(start, end) - start === 2 && first.text.startsWith('[]', start)) {
      this.consume(first);
      this.checkLevel(1, first, start);
      this.out.push({ type: 'startArray', length: 0 });
      this.out.push(END_ARRAY);
      yield* this.rejectTrailing('the empty root array "[]"');
      return;
    }
    const line = this.classify(start, end, 2);
    if (typeof line === 'object' && line.key === null) {
      this.consume(first);
      this.checkLevel(1, first, start);
      yield* this.headerValue(line, first, depth, 1);
      yield* this.rejectTrailing(line.keyed ? 'the keyed root object' : 'the root array');
      return;
    }
    if (line === KIND_SCALAR) {
      const hint = this.scalarHint;
      this.consume(first);
      const next = yield* this.peek();
      if (next === null) {
        this.enterLine(first);
        this.out.push({ type: 'primitive', value: this.primitive(start, end) as JsonPrimitive });
        return;
      }
      // More than one line, the first of them a scalar: an object whose first line has no ":".
      if (hint !== null) throw errorOn(first, hint.offset, hint.reason);
      throw errorOn(first, start, reasons.noColon());
    }
    this.checkLevel(1, first, start);
    this.out.push(START_OBJECT);
    yield* this.objectFields(0, 1, this.strict ? new Set<string>() : null);
    this.out.push(END_OBJECT);
  }

  /** A root array or keyed root object spans the whole document (§5), in both modes. */
  private *rejectTrailing(what: string): Generator<Step, void, undefined> {
    const next = yield* this.peek();
    if (next !== null) throw errorOn(next, next.start, reasons.trailing(what));
  }

  /** The fields at `depth` (object at nesting `level`), without the object's start and end. */
  private *objectFields(
    depth: number,
    level: number,
    seen: Set<string> | null,
  ): Generator<Step, void, undefined> {
    for (;;) {
      const line = this.peekNow() ?? (yield* this.peek());
      if (line === null) return;
      const lineDepth = this.depthOf(line);
      if (lineDepth < depth) return;
      if (lineDepth > depth) throw this.overIndented(line, depth);
      this.consume(line);
      this.enterLine(line);
      const kind = this.classify(line.start, line.end, level + 2);
      yield* this.field(kind, line, line.start, depth, level, seen);
    }
  }

  private *field(
    kind: LineClass,
    line: Line,
    keyOffset: number,
    fieldDepth: number,
    level: number,
    seen: Set<string> | null,
  ): Generator<Step, void, undefined> {
    if (kind === KIND_SCALAR) {
      const hint = this.scalarHint;
      if (hint !== null) throw this.error(hint.offset, hint.reason);
      throw this.error(line.start, reasons.noColon());
    }
    if (typeof kind === 'object' && kind.key === null) {
      throw this.error(kind.keyOffset, reasons.keylessField());
    }
    const key = typeof kind === 'object' ? kind.key! : this.fieldKey;
    if (seen !== null) {
      if (seen.has(key)) throw this.error(keyOffset, reasons.duplicateKey(key));
      seen.add(key);
    }
    this.out.push({ type: 'key', key });
    if (typeof kind === 'object') {
      this.checkLevel(level + 1, line, keyOffset);
      yield* this.headerValue(kind, line, fieldDepth, level + 1);
      return;
    }
    // The value after the colon: nested object, `[]`, or a primitive (§8, §9.1).
    const end = line.end;
    const p = this.skipSpaces(this.fieldValueStart, end);
    if (p >= end) {
      this.checkLevel(level + 1, line, keyOffset);
      this.out.push(START_OBJECT);
      const next = yield* this.peek();
      if (next !== null) {
        const depth = this.childDepth(fieldDepth, next);
        if (depth >= 0) yield* this.objectFields(depth, level + 1, this.strict ? new Set() : null);
      }
      this.out.push(END_OBJECT);
      return;
    }
    if (isEmptyArrayToken(this, p, end)) {
      this.checkLevel(level + 1, line, p);
      this.out.push({ type: 'startArray', length: 0 });
      this.out.push(END_ARRAY);
      return;
    }
    this.out.push({ type: 'primitive', value: this.primitive(p, end) as JsonPrimitive });
  }

  /** The array (or keyed object) declared by `head` on `line` (see tree.ts headerValue). */
  private *headerValue(
    head: Header,
    line: Line,
    ownerDepth: number,
    level: number,
  ): Generator<Step, void, undefined> {
    if (head.fields !== null) {
      this.out.push(head.keyed ? START_OBJECT : { type: 'startArray', length: head.length });
      yield* this.tableRows(head, head.fields, line, ownerDepth, level);
      this.out.push(head.keyed ? END_OBJECT : END_ARRAY);
      return;
    }
    this.out.push({ type: 'startArray', length: head.length });
    const end = line.end;
    const inline = this.skipSpaces(head.end, end);
    if (inline < end) {
      const cells = this.cells;
      this.readInline(cells, inline, end, head);
      for (let i = 0; i < cells.length; i++) {
        this.out.push({ type: 'primitive', value: cells[i] as JsonPrimitive });
      }
    } else {
      yield* this.listItems(head, line, ownerDepth, level);
    }
    this.out.push(END_ARRAY);
  }

  private *listItems(
    head: Header,
    headerLine: Line,
    ownerDepth: number,
    level: number,
  ): Generator<Step, void, undefined> {
    const declared = head.length;
    const first = yield* this.peek();
    const depth = first === null ? -1 : this.childDepth(ownerDepth, first);
    let count = 0;
    for (
      let line = this.lineAtNow(depth) ?? (yield* this.nextLineAt(depth));
      line !== null;
      line = this.lineAtNow(depth) ?? (yield* this.nextLineAt(depth))
    ) {
      if (!isListItem(line.text, line.start, line.end)) {
        throw errorOn(line, line.start, reasons.notListItem());
      }
      if (this.strict && count === declared) {
        throw countError(line, line.start, headerLine, head, 'more', 'list item');
      }
      this.consume(line);
      // The span opens with the first item line, so it covers that item's own nested lines.
      if (count === 0) this.openSpans++;
      yield* this.listItem(line, line.start + 1, depth, level + 1);
      count++;
    }
    if (count > 0) this.openSpans--;
    if (this.strict && count !== declared) {
      throw countError(headerLine, head.lengthOffset, headerLine, head, String(count), 'list item');
    }
  }

  private *listItem(
    line: Line,
    p: number,
    itemDepth: number,
    level: number,
  ): Generator<Step, void, undefined> {
    this.enterLine(line);
    const end = line.end;
    p = this.skipSpaces(p, end);
    if (p >= end) {
      this.checkLevel(level, line, p);
      this.out.push(START_OBJECT);
      this.out.push(END_OBJECT);
      return;
    }
    if (isEmptyArrayToken(this, p, end)) {
      this.checkLevel(level, line, p);
      this.out.push({ type: 'startArray', length: 0 });
      this.out.push(END_ARRAY);
      return;
    }
    const kind = this.classify(p, end, level + 2);
    if (kind === KIND_SCALAR) {
      this.out.push({ type: 'primitive', value: this.primitive(p, end) as JsonPrimitive });
      return;
    }
    if (typeof kind === 'object' && kind.key === null) {
      if (kind.fields !== null) throw this.error(p, reasons.keylessTableItem());
      this.checkLevel(level, line, p);
      yield* this.headerValue(kind, line, itemDepth, level);
      return;
    }
    this.checkLevel(level, line, p);
    this.out.push(START_OBJECT);
    const seen = this.strict ? new Set<string>() : null;
    yield* this.field(kind, line, p, itemDepth + 1, level, seen);
    yield* this.objectFields(itemDepth + 1, level, seen);
    this.out.push(END_OBJECT);
  }

  private *tableRows(
    head: Header,
    fields: FieldList,
    headerLine: Line,
    ownerDepth: number,
    level: number,
  ): Generator<Step, void, undefined> {
    const { length: declared, delimiter, keyed } = head;
    const noun = keyed ? 'entry row' : 'row';
    const first = yield* this.peek();
    const depth = first === null ? -1 : this.childDepth(ownerDepth, first);
    if (depth >= 0 && first !== null) this.checkLevel(level + 1, first, first.start);
    const cells = this.cells;
    const seen = keyed && this.strict ? new Set<string>() : null;
    let count = 0;
    for (
      let line = this.lineAtNow(depth) ?? (yield* this.nextLineAt(depth));
      line !== null;
      line = this.lineAtNow(depth) ?? (yield* this.nextLineAt(depth))
    ) {
      this.enterLine(line);
      const { start, end } = line;
      let cellsStart = start;
      let key = '';
      if (keyed) {
        cellsStart = this.entryKey(start, end);
        key = this.fieldKey;
      } else if (this.colonBeforeDelimiter(start, end, delimiter)) {
        break;
      }
      if (this.strict) {
        if (count === declared) throw countError(line, start, headerLine, head, 'more', noun);
        if (seen !== null) {
          if (seen.has(key)) throw this.error(start, reasons.duplicateEntry(key));
          seen.add(key);
        }
      }
      this.consume(line);
      const first = keyed ? this.skipSpaces(cellsStart, end) : cellsStart;
      this.readRow(cells, first, end, head, fields, noun);
      if (keyed) this.out.push({ type: 'key', key });
      this.rowEvents(cells, fields);
      // The span opens with the first row.
      if (count++ === 0) this.openSpans++;
    }
    if (count > 0) this.openSpans--;
    if (this.strict && count !== declared) {
      throw countError(headerLine, head.lengthOffset, headerLine, head, String(count), noun);
    }
  }

  /**
   * The events of one row object, one cell per leaf field (see tree.ts materializeRow, which
   * this mirrors).
   */
  private rowEvents(cells: readonly JsonValue[], fields: FieldList): void {
    this.out.push(START_OBJECT);
    const names = fields.names;
    const ops = fields.ops;
    if (ops === null) {
      const n = fields.leafCount;
      for (let j = 0; j < n; j++) {
        this.out.push({ type: 'key', key: names[j]! });
        this.out.push({ type: 'primitive', value: cells[j] as JsonPrimitive });
      }
    } else {
      let cell = 0;
      for (let o = 0; o < ops.length; o++) {
        const op = ops[o];
        if (op === OP_LEAF) {
          this.out.push({ type: 'key', key: names[o]! });
          this.out.push({ type: 'primitive', value: cells[cell++] as JsonPrimitive });
        } else if (op === OP_OPEN) {
          this.out.push({ type: 'key', key: names[o]! });
          this.out.push(START_OBJECT);
        } else {
          this.out.push(END_OBJECT);
        }
      }
    }
    this.out.push(END_OBJECT);
  }
}

/**
 * The count mismatch of `head`, the header on `headerLine`, reported at `offset` of `line`:
 * `found` is a count, or "more" on the first line beyond the declared length.
 */
function countError(
  line: Line,
  offset: number,
  headerLine: Line,
  head: Header,
  found: string,
  noun: string,
): ToonDecodeError {
  return errorOn(line, offset, reasons.count(declaredLength(headerLine.text, head), found, noun));
}

/** An error at `offset` of `line` (column counted in Unicode characters). */
function errorOn(line: Line | null, offset: number, reason: string): ToonDecodeError {
  if (line === null) return new ToonDecodeError(reason, 1, 1);
  return errorAt(line.text, line.number, offset, reason);
}

/** An error at `offset` of the raw line `text`, line `number` of the document. */
function errorAt(text: string, number: number, offset: number, reason: string): ToonDecodeError {
  return new ToonDecodeError(reason, number, columnOf(text, 0, offset), {
    source: contentEndOf(text, 0, text.length) === text.length ? text : text.slice(0, -1),
  });
}
