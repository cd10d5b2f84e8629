// TOON v4.0 decoder (spec §4-§15).
//
// Design: one pre-pass splits the text into a table of line offsets (typed arrays, no line
// strings), dropping comment lines (§5.1) and remembering where blank lines were (§12). The
// parser then walks that table with a single cursor, reading characters by code straight out of
// the original text, and builds values as it goes. Every line is looked at a constant number of
// times, so time is linear in the input; nothing is allocated from a declared length; nesting is
// bounded by `maxDepth` before the call stack is.

import { ToonDecodeError } from './errors.js';
import type { QuotedToken } from './lexical.js';
import { parseUnquotedRange, QuotedTokenError, readQuoted } from './lexical.js';
import { setOwn } from './objects.js';
import { resolveDecodeOptions } from './options.js';
import type { DecodeOptions, JsonArray, JsonObject, JsonValue } from './types.js';
import { decodeUtf8 } from './utf8.js';

const TAB = 0x09;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const HASH = 0x23;
const COMMA = 0x2c;
const MINUS = 0x2d;
const COLON = 0x3a;
const BRACKET_OPEN = 0x5b;
const BACKSLASH = 0x5c;
const BRACKET_CLOSE = 0x5d;
const BRACE_OPEN = 0x7b;
const PIPE = 0x7c;
const BRACE_CLOSE = 0x7d;

/** Depth codes stored for lines whose indentation strict mode rejects (raised when reached). */
const DEPTH_NOT_MULTIPLE = -1;
const DEPTH_TAB = -2;

/** What a line's content is (§5.2), as far as its own text can tell. */
const KIND_SCALAR = 0;
const KIND_FIELD = 1;
const KIND_HEADER = 2;

/** Steps of a nested field-group program (§9.3). */
const OP_LEAF = 0;
const OP_OPEN = 1;
const OP_CLOSE = 2;

/**
 * The field list of a tabular or keyed header. Flat lists (the common case) keep the leaf names
 * only; lists with nested groups (`customer{name,country}`) are compiled to a small program
 * (open group, leaf, close group) so rows materialise without recursion.
 */
interface FieldList {
  /** Leaf names in cell order when `ops` is null; otherwise one name per step of `ops`. */
  names: string[];
  ops: number[] | null;
  leafCount: number;
  /** Whether a name is `__proto__`, which plain assignment would turn into a prototype change. */
  hasProtoName: boolean;
}

/** What a table's header declared: read by `classify`, checked against the rows. */
interface Table {
  /** The header's line, and where its `[N]` length is on it (for count errors). */
  header: number;
  lengthOffset: number;
  fields: FieldList;
  declared: number;
  delimiter: number;
}

/** A malformed header; strict mode reports it, non-strict mode re-reads the line (§6). */
class HeaderSyntax {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Keys longer than this are not cached (they rarely repeat, and comparing them costs more). */
const KEY_CACHE_MAX_LENGTH = 32;

/** A short, quoted excerpt of user text for error messages. */
function excerpt(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);
}

function delimiterName(code: number): string {
  return code === TAB ? 'tab' : code === PIPE ? 'pipe "|"' : 'comma ","';
}

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}

function isDelimiterCode(code: number): boolean {
  return code === COMMA || code === PIPE || code === TAB;
}

class Decoder {
  private readonly text: string;
  private readonly strict: boolean;
  private readonly indentSize: number;
  private readonly maxDepth: number;

  // The line table: one slot per line that is neither a comment nor blank. Line numbers and
  // line starts are only needed for errors, so they are recomputed then instead of stored.
  private count = 0;
  /** Offset of the first content character, after the indentation. */
  private contentStart!: Int32Array;
  /** Offset just past the content (a line-ending CR excluded). */
  private contentEnd!: Int32Array;
  /** Indentation depth, or a DEPTH_* code when strict mode rejects the indentation. */
  private depths!: Int32Array;
  /** 1 + offset of a blank line just before this one (0 when none), for the array-span rule. */
  private blankBefore!: Int32Array;

  /** Index of the next line not yet consumed. */
  private cursor = 0;
  /** Arrays whose span (§12) is open: a blank line before any line consumed now is an error. */
  private openSpans = 0;

  // Result of classify(), kept in fields so the hot path allocates nothing.
  private kind = KIND_SCALAR;
  private key: string | null = null;
  private keyOffset = 0;
  private valueStart = 0;
  private headerLength = 0;
  private headerLengthOffset = 0;
  private headerKeyed = false;
  private headerDelimiter = COMMA;
  private headerFields: FieldList | null = null;
  /** The key `entryKey` read last. */
  private entryKeyValue = '';
  private headerEnd = 0;
  /** Why a header-looking line without any colon failed, to explain a later "missing colon". */
  private scalarHint: HeaderSyntax | null = null;

  /**
   * Recently seen keys. Documents repeat the same few keys on thousands of lines; handing back
   * the string already used as a property name skips a slice and a string-table lookup per
   * field (JSON.parse keeps a similar cache). Entries are verified against the text, so a
   * collision only costs a miss. Per decode call: a slice can reference the whole source text,
   * so nothing cached may outlive the call.
   */
  private readonly keyCache: string[];
  private readonly keyCacheMask: number;

  /** No backslash lies in `[backslashSearchedFrom, nextBackslash)`; see {@link hasBackslash}. */
  private backslashSearchedFrom = 0;
  private nextBackslash = -1;

  /** Reused buffer for the cells of one row. */
  private readonly cells: JsonValue[] = [];
  /** Offset of the first cell beyond the expected count, for width errors. */
  private extraCellOffset = -1;
  /** Reused stack for nested field groups while a row materialises. */
  private readonly groupStack: JsonObject[] = [];

  constructor(text: string, strict: boolean, indentSize: number, maxDepth: number) {
    this.text = text;
    this.strict = strict;
    this.indentSize = indentSize;
    this.maxDepth = maxDepth;
    // Small documents get a small cache, so short inputs (request bodies) pay almost nothing.
    const slots = text.length < 4096 ? 64 : 1024;
    this.keyCache = new Array<string>(slots).fill('');
    this.keyCacheMask = slots - 1;
  }

  /** `text.slice(start, end)` for a key, reusing an identical recent key when there is one. */
  private keyAt(start: number, end: number): string {
    const text = this.text;
    const length = end - start;
    if (length === 0 || length > KEY_CACHE_MAX_LENGTH) return text.slice(start, end);
    const slot =
      (length * 31 +
        text.charCodeAt(start) * 7 +
        text.charCodeAt(end - 1) * 3 +
        text.charCodeAt(start + (length >> 1))) &
      this.keyCacheMask;
    const cached = this.keyCache[slot]!;
    if (cached.length === length && text.startsWith(cached, start)) return cached;
    const key = text.slice(start, end);
    this.keyCache[slot] = key;
    return key;
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
    for (
      let p = this.text.indexOf('\n');
      p !== -1 && p < offset;
      p = this.text.indexOf('\n', p + 1)
    )
      number++;
    return number;
  }

  /** The 1-based column of `offset`, counted in Unicode characters. */
  private column(offset: number): number {
    const text = this.text;
    let column = 1;
    let p = this.lineStartOf(offset);
    for (; p < offset; p++) {
      const c = text.charCodeAt(p);
      // The low half of a surrogate pair does not start a new character.
      if (c >= 0xdc00 && c <= 0xdfff && p > 0) {
        const before = text.charCodeAt(p - 1);
        if (before >= 0xd800 && before <= 0xdbff) continue;
      }
      column++;
    }
    return column;
  }

  /** An error at `offset`, which lies on line `k` of the table. */
  private error(k: number, offset: number, reason: string): ToonDecodeError {
    // An offset past the line's content (e.g. "at the end of the row") stays on that line.
    const at = Math.min(offset, this.contentEnd[k]!);
    return new ToonDecodeError(reason, this.lineNumberOf(at), this.column(at));
  }

  private depthError(k: number, offset: number): ToonDecodeError {
    return this.error(
      k,
      offset,
      `nesting is deeper than maxDepth (${this.maxDepth}); flatten the data or raise the maxDepth option for trusted input`,
    );
  }

  private checkLevel(level: number, k: number, offset: number): void {
    if (level > this.maxDepth) throw this.depthError(k, offset);
  }

  /** The line index the parser is at, for errors raised outside a specific line. */
  currentLine(): number {
    const k = this.cursor < this.count ? this.cursor : this.count - 1;
    return k < 0 ? 1 : this.lineNumberOf(this.contentStart[k]!);
  }

  // -------------------------------------------------------------------------------------------
  // Pre-pass: the line table

  private scanLines(): void {
    const text = this.text;
    const length = text.length;
    let lines = 1;
    for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) lines++;
    this.contentStart = new Int32Array(lines);
    this.contentEnd = new Int32Array(lines);
    this.depths = new Int32Array(lines);
    this.blankBefore = new Int32Array(lines);

    const strict = this.strict;
    const indentSize = this.indentSize;
    let k = 0;
    let pendingBlank = 0;
    let start = 0;
    for (;;) {
      let newline = text.indexOf('\n', start);
      const last = newline === -1;
      if (last) newline = length;
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === CR) end--; // CRLF (§12)

      let p = start;
      while (p < end && text.charCodeAt(p) === SPACE) p++;
      const spaces = p - start;
      let tabs = 0;
      if (p < end && text.charCodeAt(p) === TAB) {
        // Indentation containing a tab: an error in strict mode; otherwise a tab counts as
        // indentSize spaces.
        for (; p < end; p++) {
          const c = text.charCodeAt(p);
          if (c === TAB) tabs++;
          else if (c !== SPACE) break;
        }
      }
      const blank = p === end && (tabs === 0 || !strict);
      const comment = p < end && tabs === 0 && text.charCodeAt(p) === HASH;
      if (blank) {
        if (pendingBlank === 0) pendingBlank = start + 1;
      } else if (!comment) {
        this.contentStart[k] = p;
        this.contentEnd[k] = end;
        if (pendingBlank !== 0) this.blankBefore[k] = pendingBlank;
        let depth: number;
        if (!strict) depth = Math.floor((p - start - tabs + tabs * indentSize) / indentSize);
        else if (tabs > 0) depth = DEPTH_TAB;
        else if (spaces % indentSize !== 0) depth = DEPTH_NOT_MULTIPLE;
        else depth = spaces / indentSize;
        this.depths[k] = depth;
        pendingBlank = 0;
        k++;
      }
      if (last) break;
      start = newline + 1;
    }
    this.count = k;
  }

  /** The depth of line `k`; raises the strict indentation errors of §12 when the line is reached. */
  private depthAt(k: number): number {
    const depth = this.depths[k]!;
    if (depth >= 0) return depth;
    const start = this.lineStartOf(this.contentStart[k]!);
    if (depth === DEPTH_TAB) {
      const tab = this.text.indexOf('\t', start);
      throw this.error(
        k,
        tab,
        `tab used for indentation; indent with ${this.indentSize} spaces per level instead`,
      );
    }
    const spaces = this.contentStart[k]! - start;
    throw this.error(
      k,
      this.contentStart[k]!,
      `indentation of ${spaces} spaces is not a multiple of ${this.indentSize}; indent each level by exactly ${this.indentSize} spaces`,
    );
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
        k,
        this.contentStart[k]!,
        `indentation jumps ${depth - parentDepth} levels; indent this block exactly ${(parentDepth + 1) * this.indentSize} spaces, one level below the line that opens it`,
      );
    }
    return depth;
  }

  /** A line deeper than its scope allows that no line opened (§8): an error, or skipped when lenient. */
  /**
   * The next line of a scope whose lines stand at `depth`, or -1 once the scope has ended (a
   * shallower line, the end of input, or no scope: `depth` < 0). Deeper lines on the way belong
   * to no scope: an error in strict mode, skipped otherwise.
   */
  private nextLineAt(depth: number): number {
    while (depth >= 0 && this.cursor < this.count) {
      const k = this.cursor;
      const lineDepth = this.depthAt(k);
      if (lineDepth === depth) return k;
      if (lineDepth < depth) return -1;
      this.skipOverIndented(k, depth);
    }
    return -1;
  }

  private skipOverIndented(k: number, scopeDepth: number): void {
    if (this.strict) {
      throw this.error(
        k,
        this.contentStart[k]!,
        `unexpected indentation: expected ${scopeDepth * this.indentSize} spaces here, because the line above does not open a nested block`,
      );
    }
    this.cursor = k + 1;
  }

  /** Moves past line `k`, enforcing "no blank line inside an array span" (§12). */
  private consume(k: number): void {
    if (this.openSpans > 0 && this.blankBefore[k] !== 0 && this.strict) {
      throw new ToonDecodeError(
        'blank line inside an array; remove it (blank lines may separate fields, but not the items, rows or entries of an array)',
        this.lineNumberOf(this.blankBefore[k]! - 1),
        1,
      );
    }
    this.cursor = k + 1;
  }

  // -------------------------------------------------------------------------------------------
  // Tokens

  /**
   * The quoted token opening at `start` on line `k`. Most quoted tokens hold no escape: those
   * are found with native searches and sliced directly; anything else (escapes, a missing closing
   * quote) goes through the full §7.1 reader.
   */
  private readQuotedAt(k: number, start: number, end: number): QuotedToken {
    const text = this.text;
    const close = text.indexOf('"', start + 1);
    if (close !== -1 && close < end && !this.hasBackslash(start + 1, close)) {
      return { value: text.slice(start + 1, close), end: close + 1 };
    }
    try {
      return readQuoted(text, start, end);
    } catch (error) {
      if (error instanceof QuotedTokenError) throw this.error(k, error.offset, error.message);
      throw error;
    }
  }

  /**
   * Is there a backslash in `[from, to)`? The position of the next backslash is cached and only
   * searched again once the parser has moved past it, so the searches add up to one pass over
   * the text. A range behind the cached one (a line read twice) is checked on its own.
   */
  private hasBackslash(from: number, to: number): boolean {
    if (from > this.nextBackslash) {
      const at = this.text.indexOf('\\', from);
      this.backslashSearchedFrom = from;
      this.nextBackslash = at === -1 ? this.text.length : at;
    } else if (from < this.backslashSearchedFrom) {
      for (let p = from; p < to; p++) if (this.text.charCodeAt(p) === BACKSLASH) return true;
      return false;
    }
    return this.nextBackslash < to;
  }

  /** Offset just past the quoted run that opens at `p`, or `end` when it never closes. */
  private skipQuoted(p: number, end: number): number {
    const text = this.text;
    for (let j = p + 1; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) return j + 1;
      if (c === BACKSLASH) j++;
    }
    return end;
  }

  /** Offset of the first colon outside quotes in `[p, end)`, or -1. */
  private findColon(p: number, end: number): number {
    const text = this.text;
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === COLON) return j;
      if (c === QUOTE) j = this.skipQuoted(j, end) - 1;
    }
    return -1;
  }

  private trimEnd(start: number, end: number): number {
    while (end > start && this.text.charCodeAt(end - 1) === SPACE) end--;
    return end;
  }

  private skipSpaces(p: number, end: number): number {
    while (p < end && this.text.charCodeAt(p) === SPACE) p++;
    return p;
  }

  /** A primitive value token spanning `[p, end)` (§4): quoted string, literal, number or text. */
  private primitive(k: number, p: number, end: number): JsonValue {
    p = this.skipSpaces(p, end);
    if (p < end && this.text.charCodeAt(p) === QUOTE) {
      const token = this.readQuotedAt(k, p, end);
      const after = this.skipSpaces(token.end, end);
      if (after < end) {
        throw this.error(
          k,
          after,
          'unexpected text after the closing quote; quote the whole value or remove the extra text',
        );
      }
      return token.value;
    }
    return parseUnquotedRange(this.text, p, this.trimEnd(p, end));
  }

  /**
   * Splits `[p, end)` on the active delimiter (§11.2) and appends each cell to `out`. Returns
   * whether there were more than `limit` cells; strict mode stops reading at the first extra one
   * and records where it starts in `extraCellOffset`.
   */
  private readCells(
    out: JsonValue[],
    k: number,
    p: number,
    end: number,
    delimiter: number,
    limit: number,
  ): boolean {
    const text = this.text;
    this.extraCellOffset = -1;
    for (;;) {
      while (p < end && text.charCodeAt(p) === SPACE) p++;
      if (out.length === limit && this.extraCellOffset < 0) {
        this.extraCellOffset = p;
        if (this.strict) return true;
      }
      if (p < end && text.charCodeAt(p) === QUOTE) {
        const token = this.readQuotedAt(k, p, end);
        p = this.skipSpaces(token.end, end);
        if (p < end && text.charCodeAt(p) !== delimiter) {
          throw this.error(
            k,
            p,
            `unexpected text after the closing quote; separate values with the ${delimiterName(delimiter)} delimiter`,
          );
        }
        out.push(token.value);
      } else {
        const start = p;
        for (; p < end; p++) {
          const c = text.charCodeAt(p);
          if (c === delimiter) break;
          if (c === QUOTE) p = this.skipQuoted(p, end) - 1;
        }
        out.push(parseUnquotedRange(text, start, this.trimEnd(start, p)));
      }
      if (p >= end) return this.extraCellOffset >= 0;
      p++; // past the delimiter; a trailing delimiter leaves one more, empty cell
    }
  }

  // -------------------------------------------------------------------------------------------
  // Line classification (§5.2) and headers (§6)

  /**
   * Classifies the content `[p, end)` of line `k` as a header, a key-value field or a scalar, and
   * leaves the parts in the `key`/`header*` fields. `rowLevel` is the nesting level rows of a
   * header on this line would have, for the maxDepth check of nested field groups.
   */
  private classify(k: number, p: number, end: number, rowLevel: number): void {
    const text = this.text;
    this.scalarHint = null;
    const first = text.charCodeAt(p);
    if (first === QUOTE) {
      const token = this.readQuotedAt(k, p, end);
      if (token.end < end && text.charCodeAt(token.end) === BRACKET_OPEN) {
        this.tryHeader(k, p, token.end, end, token.value, rowLevel);
        return;
      }
      const after = this.skipSpaces(token.end, end);
      if (after < end && text.charCodeAt(after) === COLON) {
        this.readEntry(token.value, p, after + 1);
      } else if (after >= end) {
        this.kind = KIND_SCALAR;
      } else {
        throw this.error(
          k,
          after,
          'unexpected text after the quoted key; a quoted key must be followed by ":"',
        );
      }
      return;
    }
    if (first === BRACKET_OPEN) {
      this.tryHeader(k, p, p, end, null, rowLevel);
      return;
    }
    let bracketAllowed = true;
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === COLON) {
        this.readEntry(this.keyAt(p, this.trimEnd(p, j)), p, j + 1);
        return;
      }
      if (c === BRACKET_OPEN && bracketAllowed) {
        // `foo [2]: bar` fails the header grammar and is an ordinary key-value line (§5.2).
        if (text.charCodeAt(j - 1) === SPACE) {
          bracketAllowed = false;
          continue;
        }
        this.tryHeader(k, p, j, end, text.slice(p, j), rowLevel);
        return;
      }
      if (c === QUOTE) j = this.skipQuoted(j, end) - 1;
    }
    this.kind = KIND_SCALAR;
  }

  private readEntry(key: string, keyOffset: number, valueStart: number): void {
    this.kind = KIND_FIELD;
    this.key = key;
    this.keyOffset = keyOffset;
    this.valueStart = valueStart;
  }

  /** Parses the header whose bracket opens at `bracket`; see {@link classify}. */
  private tryHeader(
    k: number,
    p: number,
    bracket: number,
    end: number,
    key: string | null,
    rowLevel: number,
  ): void {
    try {
      this.parseHeader(k, bracket, end, rowLevel);
      this.kind = KIND_HEADER;
      this.key = key;
      this.keyOffset = p;
    } catch (error) {
      if (!(error instanceof HeaderSyntax)) throw error;
      this.headerFallback(k, p, end, error);
    }
  }

  /**
   * A line that starts like a header but breaks its grammar. Without any colon it is a scalar
   * line; otherwise strict mode reports the header error and non-strict mode reads the line as
   * a key-value field whose key is the literal text before the first colon (§6, §14.2).
   */
  private headerFallback(k: number, p: number, end: number, failure: HeaderSyntax): void {
    const colon = this.findColon(p, end);
    if (colon < 0) {
      this.kind = KIND_SCALAR;
      this.scalarHint = failure;
      return;
    }
    if (this.strict) throw this.error(k, failure.offset, failure.reason);
    this.readEntry(this.text.slice(p, this.trimEnd(p, colon)), p, colon + 1);
  }

  private parseHeader(k: number, bracket: number, end: number, rowLevel: number): void {
    const text = this.text;
    let j = bracket + 1;
    const digits = j;
    let length = 0;
    for (; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c < 0x30 || c > 0x39) break;
      length = length * 10 + (c - 0x30);
    }
    if (j === digits) {
      if (text.charCodeAt(j) === BRACKET_CLOSE) {
        throw new HeaderSyntax(
          bracket,
          'array header "[]" has no length; write [N] with the element count, or "key: []" for an empty array',
        );
      }
      throw new HeaderSyntax(
        j,
        'invalid array length; the brackets must start with a non-negative integer, as in [3] (if the brackets are part of the key, quote the key)',
      );
    }
    if (j - digits > 1 && text.charCodeAt(digits) === 0x30) {
      throw new HeaderSyntax(
        digits,
        `invalid array length "${text.slice(digits, j)}"; write it without leading zeros`,
      );
    }
    let keyed = false;
    if (text.charCodeAt(j) === COLON) {
      keyed = true;
      j++;
    }
    let delimiter = COMMA;
    const symbol = text.charCodeAt(j);
    if (symbol === TAB || symbol === PIPE) {
      delimiter = symbol;
      j++;
    }
    if (text.charCodeAt(j) !== BRACKET_CLOSE) {
      throw new HeaderSyntax(
        j,
        j >= end
          ? 'unclosed "[" in the array header; add "]"'
          : `unexpected ${excerpt(text[j]!)} in the array header's brackets; expected [N], [N|], [N<tab>] or a keyed [N:], [N:|], [N:<tab>]`,
      );
    }
    j++;
    let fields: FieldList | null = null;
    if (text.charCodeAt(j) === BRACE_OPEN) {
      const names: string[] = [];
      const ops: number[] = [];
      j = this.parseFieldGroup(k, j, end, delimiter, rowLevel, names, ops);
      let nested = false;
      let leafCount = 0;
      for (let o = 0; o < ops.length; o++) {
        if (ops[o] === OP_LEAF) leafCount++;
        else nested = true;
      }
      fields = {
        names: nested ? names : names.slice(),
        ops: nested ? ops : null,
        leafCount,
        hasProtoName: names.includes('__proto__'),
      };
    }
    if (text.charCodeAt(j) !== COLON) {
      throw new HeaderSyntax(
        j,
        j >= end
          ? 'missing ":" at the end of the array header'
          : `unexpected ${excerpt(text.slice(j, this.trimEnd(j, end)))} after the array header's ${fields ? 'field list' : 'brackets'}; the header must end with ":"`,
      );
    }
    j++;
    if (keyed && fields === null) {
      throw new HeaderSyntax(
        bracket,
        'a keyed header [N:] needs a field list, as in key[2:]{a,b}:',
      );
    }
    if (fields !== null) {
      const rest = this.skipSpaces(j, end);
      if (rest < end) {
        throw new HeaderSyntax(
          rest,
          'a header with a field list takes its rows on the following lines; move this text to an indented row',
        );
      }
    }
    this.headerLength = length;
    this.headerLengthOffset = digits;
    this.headerKeyed = keyed;
    this.headerDelimiter = delimiter;
    this.headerFields = fields;
    this.headerEnd = j;
  }

  /**
   * Parses the field group opening at `open` (a `{`) into `names`/`ops` and returns the offset
   * past its `}`. Recursion is bounded by maxDepth: every nested group is one level deeper.
   */
  private parseFieldGroup(
    k: number,
    open: number,
    end: number,
    delimiter: number,
    level: number,
    names: string[],
    ops: number[],
  ): number {
    const text = this.text;
    const seen = this.strict ? new Set<string>() : null;
    let j = open + 1;
    for (let entries = 0; ; entries++) {
      j = this.skipSpaces(j, end);
      const nameOffset = j;
      let name: string;
      if (j < end && text.charCodeAt(j) === QUOTE) {
        const token = this.readQuotedAt(k, j, end);
        name = token.value;
        j = this.skipSpaces(token.end, end);
      } else {
        for (; j < end; j++) {
          const c = text.charCodeAt(j);
          if (c === delimiter || c === BRACE_OPEN || c === BRACE_CLOSE) break;
          if (this.strict && isDelimiterCode(c)) throw this.delimiterMismatch(c, delimiter, j);
        }
        const nameEnd = this.trimEnd(nameOffset, j);
        if (nameEnd === nameOffset) {
          if (j >= end) throw new HeaderSyntax(open, 'unclosed "{" in the field list; add "}"');
          if (text.charCodeAt(j) === BRACE_CLOSE && entries === 0) {
            throw new HeaderSyntax(open, 'empty field list "{}"; list at least one field name');
          }
          throw new HeaderSyntax(
            j,
            'empty field name in the field list; remove the extra delimiter or quote an empty name as ""',
          );
        }
        name = this.keyAt(nameOffset, nameEnd);
      }
      if (seen !== null) {
        if (seen.has(name)) {
          throw this.error(
            k,
            nameOffset,
            `duplicate field name ${excerpt(name)} in the header; each field may appear once per group`,
          );
        }
        seen.add(name);
      }
      names.push(name);
      if (j < end && text.charCodeAt(j) === BRACE_OPEN) {
        if (level + 1 > this.maxDepth) throw this.depthError(k, j);
        ops.push(OP_OPEN);
        j = this.parseFieldGroup(k, j, end, delimiter, level + 1, names, ops);
        names.push('');
        ops.push(OP_CLOSE);
        j = this.skipSpaces(j, end);
      } else {
        ops.push(OP_LEAF);
      }
      if (j >= end) throw new HeaderSyntax(open, 'unclosed "{" in the field list; add "}"');
      const c = text.charCodeAt(j);
      if (c === delimiter) {
        j++;
        continue;
      }
      if (c === BRACE_CLOSE) return j + 1;
      if (isDelimiterCode(c)) throw this.delimiterMismatch(c, delimiter, j);
      throw new HeaderSyntax(
        j,
        `unexpected ${excerpt(text[j]!)} in the field list; separate field names with the ${delimiterName(delimiter)} delimiter`,
      );
    }
  }

  private delimiterMismatch(found: number, declared: number, offset: number): HeaderSyntax {
    return new HeaderSyntax(
      offset,
      `the field list uses the ${delimiterName(found)} delimiter but the brackets declare ${delimiterName(declared)}; use the same delimiter in both`,
    );
  }

  // -------------------------------------------------------------------------------------------
  // Document (§5)

  decodeDocument(): JsonValue {
    this.scanLines();
    if (this.count === 0) return {};
    const text = this.text;
    const k = 0;
    const depth = this.depthAt(k);
    const start = this.contentStart[k]!;
    const end = this.contentEnd[k]!;
    if (depth !== 0 && this.strict) this.skipOverIndented(k, 0);

    const trimmedEnd = this.trimEnd(start, end);
    if (trimmedEnd - start === 2 && text.startsWith('[]', start)) {
      this.consume(k);
      this.checkLevel(1, k, start);
      this.rejectTrailing('the empty root array "[]"');
      return [];
    }
    this.classify(k, start, end, 2);
    if (this.kind === KIND_HEADER && this.key === null) {
      this.consume(k);
      this.checkLevel(1, k, start);
      const value = this.headerValue(k, depth, 1);
      this.rejectTrailing(this.headerKeyed ? 'the keyed root object' : 'the root array');
      return value;
    }
    if (this.kind === KIND_SCALAR && this.count === 1) {
      this.consume(k);
      return this.primitive(k, start, end);
    }
    const root: JsonObject = {};
    this.checkLevel(1, k, start);
    // Non-strict mode takes the first line's depth as the root's and re-anchors on any
    // shallower line, so no line is dropped only because the whole document was indented.
    while (this.cursor < this.count) this.objectFields(root, this.depthAt(this.cursor), 1);
    return root;
  }

  /** A root array or keyed root object spans the whole document (§5). */
  private rejectTrailing(what: string): void {
    const k = this.cursor;
    if (k >= this.count || !this.strict) return;
    throw this.error(
      k,
      this.contentStart[k]!,
      `unexpected content after ${what}; a document holds one root value, so remove this line or indent it under an item`,
    );
  }

  // -------------------------------------------------------------------------------------------
  // Objects (§8) and fields

  /** Reads the fields at `depth` into `target` (at nesting `level`) until the scope ends. */
  private objectFields(target: JsonObject, depth: number, level: number): void {
    while (this.cursor < this.count) {
      const k = this.cursor;
      const lineDepth = this.depthAt(k);
      if (lineDepth < depth) return;
      if (lineDepth > depth) {
        this.skipOverIndented(k, depth);
        continue;
      }
      this.consume(k);
      this.classify(k, this.contentStart[k]!, this.contentEnd[k]!, level + 2);
      this.field(target, k, depth, level);
    }
  }

  /**
   * Stores the field that `classify` just read from line `k` into `target`. `fieldDepth` is the
   * depth the field stands at (one more than the hyphen for a first field on a list-item line,
   * §10); its own content, if any, sits one level deeper.
   */
  private field(target: JsonObject, k: number, fieldDepth: number, level: number): void {
    if (this.kind === KIND_SCALAR) {
      const hint = this.scalarHint;
      if (hint !== null) throw this.error(k, hint.offset, hint.reason);
      throw this.error(
        k,
        this.contentStart[k]!,
        'this line has no ":"; in an object every line must be "key: value", "key:" or an array header such as "key[N]:"',
      );
    }
    if (this.kind === KIND_HEADER && this.key === null) {
      const start = this.keyOffset;
      if (this.strict) {
        throw this.error(
          k,
          start,
          'an array header needs a key here; a keyless "[N]:" header is only valid as the document root or after a list item\'s "- "',
        );
      }
      const colon = this.findColon(start, this.contentEnd[k]!);
      this.readEntry(this.text.slice(start, this.trimEnd(start, colon)), start, colon + 1);
    }
    const key = this.key!;
    if (this.strict && hasOwn.call(target, key)) {
      throw this.error(
        k,
        this.keyOffset,
        `duplicate key ${excerpt(key)}; each key may appear once per object`,
      );
    }
    let value: JsonValue;
    if (this.kind === KIND_HEADER) {
      this.checkLevel(level + 1, k, this.keyOffset);
      value = this.headerValue(k, fieldDepth, level + 1);
    } else {
      value = this.fieldValue(k, this.valueStart, fieldDepth, level);
    }
    setOwn(target, key, value);
  }

  /** The value after a field's colon: nested object, `[]`, or a primitive (§8, §9.1). */
  private fieldValue(k: number, p: number, fieldDepth: number, level: number): JsonValue {
    const text = this.text;
    const end = this.contentEnd[k]!;
    p = this.skipSpaces(p, end);
    if (p >= end) {
      this.checkLevel(level + 1, k, this.keyOffset);
      const child: JsonObject = {};
      if (this.cursor < this.count) {
        const depth = this.childDepth(fieldDepth, this.cursor);
        if (depth >= 0) this.objectFields(child, depth, level + 1);
      }
      return child;
    }
    if (
      text.charCodeAt(p) === BRACKET_OPEN &&
      this.trimEnd(p, end) === p + 2 &&
      text.charCodeAt(p + 1) === BRACKET_CLOSE
    ) {
      this.checkLevel(level + 1, k, p);
      return [];
    }
    return this.primitive(k, p, end);
  }

  // -------------------------------------------------------------------------------------------
  // Arrays (§9) and keyed objects (§9.5)

  /**
   * The array (or keyed object) declared by the header `classify` just read from line `k`.
   * `ownerDepth` is the depth its content is nested under; `level` is the value's own level.
   */
  private headerValue(k: number, ownerDepth: number, level: number): JsonValue {
    const length = this.headerLength;
    const lengthOffset = this.headerLengthOffset;
    const delimiter = this.headerDelimiter;
    const fields = this.headerFields;
    if (fields !== null) {
      const table: Table = { header: k, fields, declared: length, lengthOffset, delimiter };
      const into: JsonArray | JsonObject = this.headerKeyed ? {} : [];
      this.tableRows(table, ownerDepth, level, into);
      return Array.isArray(into) ? exactSize(into) : into;
    }
    const items: JsonArray = [];
    const end = this.contentEnd[k]!;
    const inline = this.skipSpaces(this.headerEnd, end);
    if (inline < end) {
      // Read into the reused buffer and copy out an exact-size array: growing a fresh array by
      // push over-allocates, which costs memory and GC time across thousands of short arrays.
      const cells = this.cells;
      cells.length = 0;
      const overflow = this.readCells(cells, k, inline, end, delimiter, length);
      if (this.strict && (overflow || cells.length !== length)) {
        const extra = this.extraCellOffset >= 0;
        throw this.countMismatch(
          k,
          extra ? this.extraCellOffset : lengthOffset,
          length,
          extra ? 'more' : String(cells.length),
          'value',
        );
      }
      return cells.slice();
    }
    this.listItems(items, k, length, lengthOffset, ownerDepth, level);
    return exactSize(items);
  }

  /** `noun` is singular ("row"); `found` is a count or "more". */
  private countMismatch(
    k: number,
    offset: number,
    declared: number,
    found: string,
    noun: string,
  ): ToonDecodeError {
    return this.error(
      k,
      offset,
      `expected ${plural(declared, noun)} as declared by [${declared}], found ${found}; fix the declared length or the ${noun}s`,
    );
  }

  /** Expanded list items at one level below `ownerDepth` (§9.2, §9.4, §10). */
  private listItems(
    items: JsonArray,
    header: number,
    declared: number,
    lengthOffset: number,
    ownerDepth: number,
    level: number,
  ): void {
    const text = this.text;
    let depth = -1;
    if (this.cursor < this.count) depth = this.childDepth(ownerDepth, this.cursor);
    let opened = false;
    for (let k = this.nextLineAt(depth); k >= 0; k = this.nextLineAt(depth)) {
      const start = this.contentStart[k]!;
      const end = this.contentEnd[k]!;
      const isItem =
        text.charCodeAt(start) === MINUS &&
        (start + 1 === end || text.charCodeAt(start + 1) === SPACE);
      if (!isItem) {
        if (this.strict)
          throw this.error(k, start, 'expected a list item starting with "- " in this array');
        this.cursor = k + 1;
        continue;
      }
      if (this.strict && items.length === declared) {
        throw this.countMismatch(k, start, declared, 'more', 'list item');
      }
      this.consume(k);
      // The span opens with the first item line, so it covers that item's own nested lines.
      if (!opened) {
        opened = true;
        this.openSpans++;
      }
      items.push(this.listItem(k, start + 1, depth, level + 1));
    }
    if (opened) this.openSpans--;
    if (this.strict && items.length !== declared) {
      throw this.countMismatch(header, lengthOffset, declared, String(items.length), 'list item');
    }
  }

  /** One list item whose text after the hyphen starts at `p` (§9.4, §10). */
  private listItem(k: number, p: number, itemDepth: number, level: number): JsonValue {
    const text = this.text;
    const end = this.contentEnd[k]!;
    p = this.skipSpaces(p, end);
    if (p >= end) {
      this.checkLevel(level, k, p);
      return {};
    }
    if (
      text.charCodeAt(p) === BRACKET_OPEN &&
      this.trimEnd(p, end) === p + 2 &&
      text.charCodeAt(p + 1) === BRACKET_CLOSE
    ) {
      this.checkLevel(level, k, p);
      return [];
    }
    this.classify(k, p, end, level + 2);
    if (this.kind === KIND_SCALAR) return this.primitive(k, p, end);
    if (this.kind === KIND_HEADER && this.key === null) {
      if (this.headerFields === null) {
        this.checkLevel(level, k, p);
        return this.headerValue(k, itemDepth, level);
      }
      if (this.strict) {
        throw this.error(
          k,
          p,
          'a keyless header with a field list is only valid as the document root; give the array a key, as in "- rows[2]{a,b}:"',
        );
      }
      const colon = this.findColon(p, end);
      this.readEntry(text.slice(p, this.trimEnd(p, colon)), p, colon + 1);
    }
    // An object whose first field shares the hyphen line: that field stands at itemDepth + 1,
    // and so do the object's remaining fields (§10).
    this.checkLevel(level, k, p);
    const item: JsonObject = {};
    this.field(item, k, itemDepth + 1, level);
    this.objectFields(item, itemDepth + 1, level);
    return item;
  }

  /**
   * The rows of a table, one level below `ownerDepth` (`level` is the table's own): the rows of a
   * tabular array (§9.3), pushed onto `into`, or the entry rows `key: cells` of a keyed tabular
   * object (§9.5), set on `into`.
   */
  private tableRows(
    table: Table,
    ownerDepth: number,
    level: number,
    into: JsonArray | JsonObject,
  ): void {
    const { fields, declared, delimiter } = table;
    const keyed = !Array.isArray(into);
    const noun = keyed ? 'entry row' : 'row';
    let depth = -1;
    if (this.cursor < this.count) depth = this.childDepth(ownerDepth, this.cursor);
    if (depth >= 0) this.checkLevel(level + 1, this.cursor, this.contentStart[this.cursor]!);
    const cells = this.cells;
    let count = 0;
    let opened = false;
    for (let k = this.nextLineAt(depth); k >= 0; k = this.nextLineAt(depth)) {
      const start = this.contentStart[k]!;
      const end = this.contentEnd[k]!;
      let cellsStart = start;
      let key = '';
      if (keyed) {
        cellsStart = this.entryKey(k, start, end);
        if (cellsStart < 0) {
          this.cursor = k + 1; // non-strict: a line that is no entry row is skipped
          continue;
        }
        key = this.entryKeyValue;
      } else if (this.colonBeforeDelimiter(start, end, delimiter)) {
        break; // a key-value line ends the rows
      }
      if (this.strict) {
        if (count === declared) throw this.countMismatch(k, start, declared, 'more', noun);
        if (keyed && hasOwn.call(into, key))
          throw this.error(
            k,
            start,
            `duplicate entry key ${excerpt(key)}; each key may appear once per object`,
          );
      }
      this.consume(k);
      cells.length = 0;
      const first = keyed ? this.skipSpaces(cellsStart, end) : cellsStart;
      this.extraCellOffset = -1;
      const overflow =
        first < end && this.readCells(cells, k, first, end, delimiter, fields.leafCount);
      if (this.strict && (overflow || cells.length !== fields.leafCount))
        throw this.widthMismatch(k, end, fields, delimiter, noun);
      const row = this.row(cells, fields);
      if (keyed) setOwn(into, key, row);
      else (into as JsonArray).push(row);
      count++;
      if (!opened) {
        opened = true;
        this.openSpans++;
      }
    }
    if (opened) this.openSpans--;
    if (this.strict && count !== declared) {
      throw this.countMismatch(table.header, table.lengthOffset, declared, String(count), noun);
    }
  }

  /**
   * Reads the `key:` that opens an entry row on line `k` into `entryKeyValue` and returns the
   * offset after its colon, or -1 (non-strict only) for a line with no colon.
   */
  private entryKey(k: number, start: number, end: number): number {
    const text = this.text;
    if (text.charCodeAt(start) === QUOTE) {
      const token = this.readQuotedAt(k, start, end);
      const colon = this.skipSpaces(token.end, end);
      if (colon >= end || text.charCodeAt(colon) !== COLON) {
        throw this.error(
          k,
          colon,
          'missing ":" after the entry key; an entry row is "key: value,value"',
        );
      }
      this.entryKeyValue = token.value;
      return colon + 1;
    }
    const colon = this.findColon(start, end);
    if (colon < 0) {
      if (this.strict)
        throw this.error(
          k,
          start,
          'expected an entry row "key: value,value" in this keyed table; the line has no ":"',
        );
      return -1;
    }
    this.entryKeyValue = this.keyAt(start, this.trimEnd(start, colon));
    return colon + 1;
  }

  private widthMismatch(
    k: number,
    end: number,
    fields: FieldList,
    delimiter: number,
    what: string,
  ): ToonDecodeError {
    const extra = this.extraCellOffset >= 0;
    const found = extra
      ? `more than ${fields.leafCount} values`
      : plural(this.cells.length, 'value');
    const leaves =
      fields.ops === null
        ? fields.names
        : fields.names.filter((_, o) => fields.ops![o] === OP_LEAF);
    const listed = leaves.length <= 8 ? ` (${leaves.join(', ')})` : '';
    return this.error(
      k,
      extra ? this.extraCellOffset : end,
      `${what} has ${found} but the header declares ${plural(fields.leafCount, 'field')}${listed}; separate values with the ${delimiterName(delimiter)} delimiter and quote values that contain it`,
    );
  }

  /** §9.3 disambiguation: does an unquoted colon come before the first unquoted delimiter? */
  private colonBeforeDelimiter(p: number, end: number, delimiter: number): boolean {
    const text = this.text;
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === delimiter) return false;
      if (c === COLON) return true;
      if (c === QUOTE) j = this.skipQuoted(j, end) - 1;
    }
    return false;
  }

  /** Materialises one row object from its cells; a short row (non-strict) leaves fields out. */
  private row(cells: JsonValue[], fields: FieldList): JsonObject {
    const row: JsonObject = {};
    const names = fields.names;
    const available = cells.length;
    const ops = fields.ops;
    if (ops === null) {
      const n = Math.min(available, fields.leafCount);
      if (fields.hasProtoName) for (let j = 0; j < n; j++) setOwn(row, names[j]!, cells[j]!);
      else for (let j = 0; j < n; j++) row[names[j]!] = cells[j]!;
      return row;
    }
    const stack = this.groupStack;
    let depth = 0;
    let target = row;
    let cell = 0;
    for (let o = 0; o < ops.length; o++) {
      const op = ops[o];
      if (op === OP_LEAF) {
        if (cell >= available) break;
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
}

/**
 * A short array grown by push carries spare capacity for ~16 elements; a copy is exact. Decoded
 * documents hold many short arrays, so trimming them keeps memory close to JSON.parse's.
 */
function exactSize(items: JsonArray): JsonArray {
  return items.length > 0 && items.length < 16 ? items.slice() : items;
}

/**
 * Decodes a TOON v4.0 document into a JSON value.
 *
 * Strict by default: declared lengths, row widths, indentation, delimiters, escapes, blank lines
 * inside arrays, duplicate keys and trailing root content are all checked (spec §14). With
 * `strict: false` the spec's lenient rules apply instead: counts and widths are not enforced,
 * indentation depth is `floor(spaces / indentSize)` with a tab counting as `indentSize` spaces,
 * duplicate keys resolve last-write-wins, malformed headers read as key-value lines with a
 * literal key, and lines that belong to no block are skipped.
 *
 * Numbers follow the §4 grammar exactly; a token that overflows a float64 (`1e400`) stays a
 * string so no value silently becomes `Infinity`, and integers beyond 2^53 decode to the nearest
 * double, as `JSON.parse` does. `__proto__`, `constructor` and `prototype` are ordinary own keys
 * in every position, and decoded objects are plain objects like `JSON.parse` output.
 *
 * Any malformed input throws a {@link ToonDecodeError} with 1-based `line` and `column`; no other
 * error escapes for any input string. A `TypeError` is reserved for calling it wrongly (a
 * non-string `text`, an invalid option).
 *
 * @param input - The TOON document: a string, or UTF-8 bytes (a `Uint8Array`, so a Node `Buffer`
 *   too). Bytes are decoded with a fatal decoder in strict mode (ill-formed UTF-8 is a
 *   `ToonDecodeError` whose `offset` is the byte offset) and lose a leading byte order mark; a
 *   string is taken as is, so a leading U+FEFF there is content. CRLF line endings and comment
 *   lines (`# ...`) are accepted.
 * @param options - `strict` (default `true`), `indentSize` (default 2), `maxDepth` (default 1000:
 *   the deepest container nesting accepted, the root container being level 1).
 * @returns The decoded value: an object, array or primitive.
 * @throws {ToonDecodeError} When the text is not valid TOON under the chosen mode.
 *
 * @example
 * decode('users[2]{id,name}:\n  1,Ada\n  2,Bob');
 * // => { users: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }] }
 *
 * decode('tags[3]: a,b', { strict: false }); // => { tags: ['a', 'b'] }
 *
 * try {
 *   decode('tags[3]: a,b');
 * } catch (error) {
 *   // ToonDecodeError: line 1: expected 3 values as declared by [3], found 2; ...
 * }
 */
export function decode(input: string | Uint8Array, options?: DecodeOptions): JsonValue {
  const { strict, indentSize, maxDepth } = resolveDecodeOptions('decode', options);
  const text = textOf(input, strict);
  const decoder = new Decoder(text, strict, indentSize, maxDepth);
  try {
    return decoder.decodeDocument();
  } catch (error) {
    // maxDepth keeps recursion far below the call stack limit, but a caller may raise maxDepth
    // (or call decode from an already deep stack); the contract still holds: a ToonDecodeError.
    if (error instanceof RangeError) {
      const reason = /call stack/i.test(error.message)
        ? 'nesting is too deep for the JavaScript call stack; lower the maxDepth option'
        : `document too large to decode (${error.message})`;
      throw new ToonDecodeError(reason, decoder.currentLine(), 1);
    }
    throw error;
  }
}

/**
 * The document text of a `decode` input: a string as is (U+FEFF included: in a string it is a
 * character, not a byte order mark), bytes through the UTF-8 decoder (strict: fatal).
 */
export function textOf(input: string | Uint8Array, strict: boolean): string {
  if (typeof input === 'string') return input;
  if (input instanceof Uint8Array) return decodeUtf8(input, strict);
  throw new TypeError(
    `decode expects a string or a Uint8Array of UTF-8 bytes, got ${input === null ? 'null' : typeof input}`,
  );
}
