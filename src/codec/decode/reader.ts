// The line scanner's token layer (§4, §5.2, §7, §11): quoted tokens, primitives, delimited
// cells and the classification of one line's content as header, key-value field or scalar.
// Everything reads character codes straight out of `text` between offsets, so the same code
// serves the tree decoder (text = the whole document) and the stream decoders (text = one line).

import * as codes from '../char-codes.js';
import { ToonDecodeError } from '../errors.js';
import type { QuotedToken, QuotedTokenError as QuotedTokenErrorType } from '../lexical.js';
import * as lexical from '../lexical.js';
import type { JsonValue } from '../types.js';
import type { Header, InlineHeader, LineClass } from './header.js';
import * as header from './header.js';
import { reasons } from './messages.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const { escapeLengthAt, parseUnquotedRange, QuotedTokenError, readQuoted, unescapeQuoted } =
  lexical;
const { HeaderSyntax, KIND_FIELD, KIND_SCALAR, parseHeader } = header;
const { BACKSLASH, BRACKET_OPEN, COLON, QUOTE, SPACE, TAB } = codes;

/** Keys longer than this are not cached (they rarely repeat, and comparing them costs more). */
const KEY_CACHE_MAX_LENGTH = 64;

/**
 * Unquoted cells are scanned by hand for this many characters, then by native searches: a call
 * costs more than a short loop, and most cells are short, but a long cell (prose) read a
 * character at a time was most of decoding a string-heavy table.
 */
const SHORT_CELL = 16;

/**
 * The next occurrence of one character at or after an offset, remembered: a search from before
 * the remembered occurrence returns it without searching again, so a reader moving forward
 * through the text searches each stretch of it once, however many tokens ask. A search from
 * before the remembered search's start (a line read twice) checks that gap by hand.
 */
class NextIndex {
  /** No occurrence lies in `[from, at)`; `at` is the text's length when there is none. */
  private from = 0;
  private at = -1;
  constructor(private char: string) {}

  /** Forgets what was found (a new text, or another character to look for). */
  reset(char: string): void {
    this.char = char;
    this.from = 0;
    this.at = -1;
  }

  /** Offset of the first occurrence at or after `from` in `text`, or `text.length`. */
  find(text: string, from: number): number {
    if (from > this.at) {
      const at = text.indexOf(this.char, from);
      this.from = from;
      this.at = at === -1 ? text.length : at;
      return this.at;
    }
    if (from < this.from) {
      const code = this.char.charCodeAt(0);
      for (let p = from; p < this.from; p++) if (text.charCodeAt(p) === code) return p;
      this.from = from;
    }
    return this.at;
  }
}

export abstract class Reader {
  /** The text being read: the whole document, or the current line. */
  text: string;
  readonly strict: boolean;
  readonly indentSize: number;
  readonly maxDepth: number;

  /**
   * Recently seen keys. Documents repeat the same few keys on thousands of lines; handing back
   * the string already used as a property name skips a slice and a string-table lookup per
   * field (JSON.parse keeps a similar cache). Entries are verified against the text, so a
   * collision only costs a miss. Per decode call: a slice can reference the whole source text,
   * so nothing cached may outlive the call.
   */
  private readonly keyCache: string[];
  private readonly keyCacheMask: number;
  /**
   * Key prediction: for each cache slot, the slots of the two keys that followed that key the
   * last times, most recent first (-1: none yet). Documents repeat their key sequences (every
   * item of a list has the same fields in the same order, optional ones making two common
   * continuations), so the key a line is about to have is usually one that came after the
   * previous line's key before: checking those guesses against the text reads the key once,
   * where finding its colon and then its cache slot reads it twice.
   */
  private readonly successorSlots: Int32Array;
  private readonly olderSuccessorSlots: Int32Array;
  /** The cache slot of the key of the last key-value line, or -1. */
  private lastKeySlot = -1;
  /** The cache slot {@link keyAt} just used, or -1 for a key it did not cache. */
  private keySlot = -1;

  /** Where the next quote, backslash and cell delimiter are; see {@link NextIndex}. */
  private readonly quotes = new NextIndex('"');
  private readonly backslashes = new NextIndex('\\');
  private readonly delimiters = new NextIndex(',');
  private delimiterChar = ',';

  /** Offset of the first cell beyond the expected count after {@link readCells}, or -1. */
  extraCellOffset = -1;

  /**
   * The key and value start of the line {@link classify} (or {@link entryKey}) just read as a
   * key-value line. Read at once by the caller, before anything else is classified.
   */
  fieldKey = '';
  fieldValueStart = 0;
  /** The record parseHeader refills for every inline-array header line. */
  readonly inlineHeader: InlineHeader = header.inlineHeaderRecord();
  /** Why a header-looking line without any colon failed, to explain a later "missing colon". */
  scalarHint: InstanceType<typeof HeaderSyntax> | null = null;

  constructor(
    text: string,
    strict: boolean,
    indentSize: number,
    maxDepth: number,
    smallCache: boolean,
  ) {
    this.text = text;
    this.strict = strict;
    this.indentSize = indentSize;
    this.maxDepth = maxDepth;
    // Small documents get a small cache, so short inputs (request bodies) pay almost nothing.
    const slots = smallCache ? 64 : 1024;
    this.keyCache = new Array<string>(slots).fill('');
    this.keyCacheMask = slots - 1;
    this.successorSlots = new Int32Array(slots).fill(-1);
    this.olderSuccessorSlots = new Int32Array(slots).fill(-1);
  }

  /** The error for a problem at `offset` of the current text. */
  abstract error(offset: number, reason: string): ToonDecodeError;

  /** Switches to another text (the stream decoders' next line). */
  protected setText(text: string): void {
    this.text = text;
    this.quotes.reset('"');
    this.backslashes.reset('\\');
    this.delimiters.reset(this.delimiterChar);
  }

  /** `text.slice(start, end)` for a key, reusing an identical recent key when there is one. */
  keyAt(start: number, end: number): string {
    const text = this.text;
    const length = end - start;
    this.keySlot = -1;
    if (length === 0 || length > KEY_CACHE_MAX_LENGTH) return text.slice(start, end);
    const slot =
      (length * 31 +
        text.charCodeAt(start) * 7 +
        text.charCodeAt(end - 1) * 3 +
        text.charCodeAt(start + (length >> 1))) &
      this.keyCacheMask;
    this.keySlot = slot;
    const cached = this.keyCache[slot]!;
    if (cached.length === length && sameText(cached, text, start)) return cached;
    const key = propertyName(text.slice(start, end));
    this.keyCache[slot] = key;
    return key;
  }

  /**
   * The key of a key-value line starting at `p` (an unquoted key, directly followed by its
   * colon) when it is the predicted one, or undefined; see {@link successorSlots}.
   */
  private predictedKey(p: number, end: number): string | undefined {
    const last = this.lastKeySlot;
    if (last < 0) return undefined;
    const slot = this.successorSlots[last]!;
    if (slot < 0) return undefined;
    if (this.isKeyAt(slot, p, end)) {
      this.lastKeySlot = slot;
      return this.keyCache[slot];
    }
    const older = this.olderSuccessorSlots[last]!;
    if (older < 0 || !this.isKeyAt(older, p, end)) return undefined;
    // The older guess was right: it becomes the first one.
    this.olderSuccessorSlots[last] = slot;
    this.successorSlots[last] = older;
    this.lastKeySlot = older;
    return this.keyCache[older];
  }

  /** Is the cached key in `slot` the key at `p`, followed directly by its colon? */
  private isKeyAt(slot: number, p: number, end: number): boolean {
    const guess = this.keyCache[slot]!;
    const colon = p + guess.length;
    const text = this.text;
    return colon < end && text.charCodeAt(colon) === COLON && sameText(guess, text, p);
  }

  /** Records that the key {@link keyAt} just returned follows the previous line's key. */
  private followKey(): void {
    const slot = this.keySlot;
    const last = this.lastKeySlot;
    if (last >= 0 && slot >= 0 && this.successorSlots[last] !== slot) {
      this.olderSuccessorSlots[last] = this.successorSlots[last]!;
      this.successorSlots[last] = slot;
    }
    this.lastKeySlot = slot;
  }

  /**
   * The quoted token opening at `start` (§7.1). One pass of native searches finds its closing
   * quote and checks each escape on the way; a token without escapes is one slice, one with
   * escapes is resolved in one more native pass ({@link unescapeQuoted}). A token with a bad
   * escape or no closing quote before `end` goes to the full reader, for its exact error.
   */
  readQuotedAt(start: number, end: number): QuotedToken {
    const token = this.tryReadQuoted(start, end);
    if (token instanceof QuotedTokenError) throw this.error(token.offset, token.message);
    return token;
  }

  /** {@link readQuotedAt}, returning the problem instead of throwing it (the header parser's). */
  tryReadQuoted(start: number, end: number): QuotedToken | QuotedTokenErrorType {
    const text = this.text;
    let escaped = false;
    let from = start + 1;
    for (;;) {
      const close = this.quotes.find(text, from);
      const backslash = this.backslashes.find(text, from);
      if (close < end && close < backslash) {
        const value = escaped ? unescapeQuoted(text, start, close) : text.slice(start + 1, close);
        return { value, end: close + 1 };
      }
      const length = backslash < end ? escapeLengthAt(text, backslash, end) : 0;
      if (length === 0) break;
      escaped = true;
      from = backslash + length;
    }
    // The full reader names the problem (and would agree with the searches above if it found none).
    try {
      return readQuoted(text, start, end);
    } catch (error) {
      if (error instanceof QuotedTokenError) return error;
      throw error;
    }
  }

  /** Offset just past the quoted run that opens at `p`, or `end` when it never closes. */
  skipQuoted(p: number, end: number): number {
    const text = this.text;
    for (let j = p + 1; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) return j + 1;
      if (c === BACKSLASH) j++;
    }
    return end;
  }

  /** Offset of the first colon outside quotes in `[p, end)`, or -1. */
  findColon(p: number, end: number): number {
    const text = this.text;
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === COLON) return j;
      if (c === QUOTE) j = this.skipQuoted(j, end) - 1;
    }
    return -1;
  }

  trimEnd(start: number, end: number): number {
    while (end > start && this.text.charCodeAt(end - 1) === SPACE) end--;
    return end;
  }

  skipSpaces(p: number, end: number): number {
    while (p < end && this.text.charCodeAt(p) === SPACE) p++;
    return p;
  }

  /** A primitive value token spanning `[p, end)` (§4): quoted string, literal, number or text. */
  primitive(p: number, end: number): JsonValue {
    p = this.skipSpaces(p, end);
    if (p < end && this.text.charCodeAt(p) === QUOTE) {
      const token = this.readQuotedAt(p, end);
      const after = this.skipSpaces(token.end, end);
      if (after < end) throw this.error(after, reasons.textAfterQuote());
      return token.value;
    }
    return parseUnquotedRange(this.text, p, this.trimEnd(p, end));
  }

  /**
   * Splits `[p, end)` on the active delimiter (§11.2) and appends each cell to `out`. Returns
   * whether there were more than `limit` cells, and records where the first extra one starts in
   * `extraCellOffset`; with `stopAtLimit` it stops reading there.
   */
  readCells(
    out: JsonValue[],
    p: number,
    end: number,
    delimiter: number,
    limit: number,
    stopAtLimit: boolean,
  ): boolean {
    const text = this.text;
    this.extraCellOffset = -1;
    for (;;) {
      while (p < end && text.charCodeAt(p) === SPACE) p++;
      if (out.length === limit && this.extraCellOffset < 0) {
        this.extraCellOffset = p;
        if (stopAtLimit) return true;
      }
      if (p < end && text.charCodeAt(p) === QUOTE) {
        const token = this.readQuotedAt(p, end);
        p = this.skipSpaces(token.end, end);
        if (p < end && text.charCodeAt(p) !== delimiter) {
          throw this.error(p, reasons.textAfterCell(delimiter));
        }
        out.push(token.value);
      } else {
        const start = p;
        p = this.cellEnd(p, end, delimiter);
        out.push(parseUnquotedRange(text, start, this.trimEnd(start, p)));
      }
      if (p >= end) return this.extraCellOffset >= 0;
      p++; // past the delimiter; a trailing delimiter leaves one more, empty cell
    }
  }

  /**
   * The end of the unquoted cell starting at `p`: the next `delimiter` outside quoted spans, or
   * `end`. Short cells are read by hand, long ones by native searches (see {@link SHORT_CELL}).
   */
  private cellEnd(p: number, end: number, delimiter: number): number {
    const text = this.text;
    const handEnd = end - p > SHORT_CELL ? p + SHORT_CELL : end;
    for (; p < handEnd; p++) {
      const c = text.charCodeAt(p);
      if (c === delimiter) return p;
      if (c === QUOTE) return this.cellEndByHand(p, end, delimiter);
    }
    if (p === end) return end;
    if (this.delimiterChar.charCodeAt(0) !== delimiter) {
      this.delimiterChar = String.fromCharCode(delimiter);
      this.delimiters.reset(this.delimiterChar);
    }
    const next = this.delimiters.find(text, p);
    const stop = next < end ? next : end;
    return this.quotes.find(text, p) < stop ? this.cellEndByHand(p, end, delimiter) : stop;
  }

  /** {@link cellEnd} a character at a time, stepping over quoted spans. */
  private cellEndByHand(p: number, end: number, delimiter: number): number {
    const text = this.text;
    for (; p < end; p++) {
      const c = text.charCodeAt(p);
      if (c === delimiter) return p;
      if (c === QUOTE) p = this.skipQuoted(p, end) - 1;
    }
    return end;
  }

  /** §9.3 disambiguation: does an unquoted colon come before the first unquoted delimiter? */
  colonBeforeDelimiter(p: number, end: number, delimiter: number): boolean {
    const text = this.text;
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === delimiter) return false;
      if (c === COLON) return true;
      if (c === QUOTE) j = this.skipQuoted(j, end) - 1;
    }
    return false;
  }

  /**
   * Classifies the content `[p, end)` of the current text as a header, a key-value field or a
   * scalar (§5.2). `rowLevel` is the nesting level rows of a header on this line would have,
   * for the maxDepth check of nested field groups.
   */
  classify(p: number, end: number, rowLevel: number): LineClass {
    const text = this.text;
    this.scalarHint = null;
    const first = text.charCodeAt(p);
    if (first === QUOTE) {
      const token = this.readQuotedAt(p, end);
      if (token.end < end && text.charCodeAt(token.end) === BRACKET_OPEN) {
        return this.tryHeader(p, token.end, end, token.value, rowLevel);
      }
      const after = this.skipSpaces(token.end, end);
      if (after < end && text.charCodeAt(after) === COLON)
        return this.keyValue(token.value, after + 1);
      if (after >= end) return KIND_SCALAR;
      throw this.error(after, reasons.textAfterQuotedKey());
    }
    if (first === BRACKET_OPEN) return this.tryHeader(p, p, end, null, rowLevel);
    const predicted = this.predictedKey(p, end);
    if (predicted !== undefined) return this.keyValue(predicted, p + predicted.length + 1);
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === COLON) {
        const key = this.keyAt(p, this.trimEnd(p, j));
        this.followKey();
        return this.keyValue(key, j + 1);
      }
      if (c === BRACKET_OPEN) {
        // A `[` before the first colon opens a header, which must be valid (spec 4.3); the key
        // may not end in whitespace (`foo [2]: bar`, spec 4.1).
        const before = text.charCodeAt(j - 1);
        if (before === SPACE || before === TAB) {
          return this.malformedHeader(
            p,
            end,
            new HeaderSyntax(j - 1, reasons.spaceBeforeBracket()),
          );
        }
        return this.tryHeader(p, j, end, text.slice(p, j), rowLevel);
      }
      if (c === QUOTE) j = this.skipQuoted(j, end) - 1;
    }
    return KIND_SCALAR;
  }

  private keyValue(key: string, valueStart: number): typeof KIND_FIELD {
    this.fieldKey = key;
    this.fieldValueStart = valueStart;
    return KIND_FIELD;
  }

  /** Parses the header whose bracket opens at `bracket`; see {@link classify}. */
  private tryHeader(
    p: number,
    bracket: number,
    end: number,
    key: string | null,
    rowLevel: number,
  ): LineClass {
    try {
      return parseHeader(this, key, p, bracket, end, rowLevel);
    } catch (error) {
      if (error instanceof HeaderSyntax) return this.malformedHeader(p, end, error);
      // A duplicate field name or a field group past maxDepth on a line without a colon: no
      // header at all, but a scalar line (§5.2).
      if (error instanceof ToonDecodeError && this.findColon(p, end) < 0) return KIND_SCALAR;
      throw error;
    }
  }

  /**
   * A line that starts like a header but breaks its grammar (§6). Without any colon it is a
   * scalar line, and `scalarHint` keeps the reason for a later "missing colon"; otherwise it is
   * an error in both modes (spec 4.4: non-strict mode no longer reads it as a literal key).
   */
  private malformedHeader(
    p: number,
    end: number,
    problem: header.HeaderSyntax,
  ): typeof KIND_SCALAR {
    if (this.findColon(p, end) < 0) {
      this.scalarHint = problem;
      return KIND_SCALAR;
    }
    throw this.error(problem.offset, problem.reason);
  }

  /**
   * Reads the `key:` that opens an entry row at `start` into `fieldKey` and returns the offset
   * after its colon; a line with no colon is an error in both modes (spec 4.4).
   */
  entryKey(start: number, end: number): number {
    const text = this.text;
    if (text.charCodeAt(start) === QUOTE) {
      const token = this.readQuotedAt(start, end);
      const colon = this.skipSpaces(token.end, end);
      if (colon >= end || text.charCodeAt(colon) !== COLON) {
        throw this.error(colon, reasons.entryKeyWithoutColon());
      }
      this.fieldKey = token.value;
      return colon + 1;
    }
    const colon = this.findColon(start, end);
    if (colon < 0) throw this.error(start, reasons.entryWithoutColon());
    this.fieldKey = this.keyAt(start, this.trimEnd(start, colon));
    return colon + 1;
  }

  /**
   * Reads one table row's cells from `[first, end)` into `cells` and checks its width against
   * the header's leaf fields (§14.1), in both modes (spec 4.4). `noun` names the row in messages.
   */
  readRow(
    cells: JsonValue[],
    first: number,
    end: number,
    head: Header,
    fields: header.FieldList,
    noun: string,
  ): void {
    cells.length = 0;
    this.extraCellOffset = -1;
    const overflow =
      first < end && this.readCells(cells, first, end, head.delimiter, fields.leafCount, true);
    if (overflow || cells.length !== fields.leafCount) {
      const extra = this.extraCellOffset >= 0;
      throw this.error(
        extra ? this.extraCellOffset : end,
        reasons.width(
          noun,
          extra ? reasons.moreValues(fields.leafCount) : reasons.values(cells.length),
          leafNames(fields),
          head.delimiter,
        ),
      );
    }
  }

  /** Reads an inline primitive array (§9.1) from `[p, end)` into `cells`, count checked. */
  readInline(cells: JsonValue[], p: number, end: number, head: Header): void {
    cells.length = 0;
    const overflow = this.readCells(cells, p, end, head.delimiter, head.length, this.strict);
    if (this.strict && (overflow || cells.length !== head.length)) {
      const extra = this.extraCellOffset >= 0;
      throw this.countError(
        extra ? this.extraCellOffset : head.lengthOffset,
        head,
        extra ? 'more' : String(cells.length),
        'value',
      );
    }
  }

  /** The count mismatch error of a header (`found` is a count or "more"). */
  countError(offset: number, head: Header, found: string, noun: string): ToonDecodeError {
    return this.error(offset, reasons.count(header.declaredLength(this.text, head), found, noun));
  }
}

/**
 * `key` as the engine keeps property names: a flat, internalized string (the one an object's
 * own key list hands back). A slice of the document is a view into it, which every comparison
 * and every property store with it as a key must see through; the cache holds each key's
 * property name instead, made once per key (a tenth fewer instructions per decode).
 */
function propertyName(key: string): string {
  if (key === '__proto__') return '__proto__';
  const probe: Record<string, number> = {};
  probe[key] = 0;
  return Object.keys(probe)[0] ?? key;
}

/**
 * Does `text` hold `key` at `start`? A loop over character codes: for keys this short it runs
 * several times faster than `text.startsWith(key, start)`, which was a tenth of decoding.
 */
function sameText(key: string, text: string, start: number): boolean {
  for (let i = 0; i < key.length; i++) {
    if (key.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  }
  return true;
}

/** The leaf names of a field list, for width messages. */
export function leafNames(fields: header.FieldList): readonly string[] {
  const ops = fields.ops;
  return ops === null ? fields.names : fields.names.filter((_, o) => ops[o] === header.OP_LEAF);
}
