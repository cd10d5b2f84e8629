// The decoder's token layer (§4, §7, §11): quoted tokens, keys, primitives and delimited cells,
// read as character codes straight out of `text` between offsets, so the same code serves the
// tree decoder (text = the whole document) and the stream decoders (text = one line). Below both
// the header parser (header.ts) and the line classifier (reader.ts), which build on it.

import * as codes from '../char-codes.js';
import type { ToonDecodeError } from '../errors.js';
import type { QuotedToken, QuotedTokenError as QuotedTokenErrorType } from '../lexical.js';
import * as lexical from '../lexical.js';
import type { JsonValue } from '../types.js';
import { reasons } from './messages.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const {
  escapeLengthAt,
  keepToken,
  parseUnquotedRange,
  QuotedTokenError,
  readQuoted,
  unescapeQuoted,
} = lexical;
const { COLON, QUOTE, SPACE, BACKSLASH } = codes;

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

/**
 * Recently seen keys, shared by every decode. Documents repeat the same few keys on thousands of
 * lines, and a service decodes the same shapes again and again; handing back the string already
 * used as a property name skips a slice and a string-table lookup per field (JSON.parse keeps a
 * similar cache). Only property names are kept (see {@link propertyName}: flat strings, none a
 * view into a document, so nothing cached holds a document alive), and every entry is checked
 * against the text before use, so an entry can only save work, never change a result.
 *
 * A key becomes its property name when it is seen a second time: `keySeen` holds a hash of the
 * last key first seen in each slot. The keys of a wide object are each seen once, and making
 * each its property name cost more than the rest of decoding it.
 *
 * A key's slot comes from a hash of all its characters ({@link keyHash}). Two keys of one
 * document in one slot evict each other on every decode (and break the key prediction below),
 * and API objects have many keys that differ in a character or two (`public_repos`,
 * `public_gists`, `private_repos`): a sum of four of the characters into 1,024 slots shared
 * slots among a seventh of a GitHub pull request's 141 keys, a tenth of its decode time.
 */
export const KEY_SLOTS = 4096;
const keyCache: string[] = new Array<string>(KEY_SLOTS).fill('');
const keySeen = new Int32Array(KEY_SLOTS);
/**
 * Key prediction: for each cache slot, the slots of the two keys that followed that key the last
 * times, most recent first (-1: none yet). Documents repeat their key sequences (every item of a
 * list has the same fields in the same order, optional ones making two common continuations),
 * so the key a line is about to have is usually one that came after the previous line's key
 * before: checking those guesses against the text reads the key once, where finding its colon
 * and then its cache slot reads it twice. Hints only, checked like the cache's entries.
 */
const successorSlots = new Int32Array(KEY_SLOTS).fill(-1);
const olderSuccessorSlots = new Int32Array(KEY_SLOTS).fill(-1);

/**
 * Reads tokens out of a text. `error` is the subclass's: it knows how offsets become lines and
 * columns (the whole document, or one line of a stream).
 */
export abstract class TokenReader {
  /** The text being read: the whole document, or the current line. */
  text: string;
  readonly strict: boolean;
  readonly indentSize: number;
  readonly maxDepth: number;

  /** The cache slot of the key of the last key-value line, or -1. */
  protected lastKeySlot = -1;
  /** The cache slot {@link keyAt} just used, or -1 for a key it did not cache. */
  private keySlot = -1;
  /**
   * The {@link keyHash} of the key {@link keyAt} just returned, or 0 when it computed none (an
   * empty key or one too long to cache): the header parser's duplicate check reuses it rather
   * than hash every field name twice.
   */
  lastKeyHash = 0;

  /** Where the next quote, backslash and cell delimiter are; see {@link NextIndex}. */
  private readonly quotes = new NextIndex('"');
  private readonly backslashes = new NextIndex('\\');
  private readonly delimiters = new NextIndex(',');
  private delimiterChar = ',';

  /**
   * What an unquoted number beyond a double decodes to (see `parseUnquotedRange`): the token
   * itself unless the decoder was asked otherwise (`decodeWith`).
   */
  beyondDouble: lexical.BeyondDouble = keepToken;

  /** Offset of the first cell beyond the expected count after {@link readCells}, or -1. */
  extraCellOffset = -1;

  /** Where the cell {@link readCell} last read stops: the offset of its delimiter, or the end. */
  protected cellStop = 0;

  constructor(text: string, strict: boolean, indentSize: number, maxDepth: number) {
    this.text = text;
    this.strict = strict;
    this.indentSize = indentSize;
    this.maxDepth = maxDepth;
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

  /**
   * `text.slice(start, end)` for a key, reusing an identical recent key when there is one.
   * `knownHash` is the key's {@link keyHash} when the caller computed it while reading the key
   * (the header parser does), else 0.
   */
  keyAt(start: number, end: number, knownHash = 0): string {
    const text = this.text;
    const length = end - start;
    this.keySlot = -1;
    this.lastKeyHash = 0;
    if (length === 0 || length > KEY_CACHE_MAX_LENGTH) return text.slice(start, end);
    const hash = knownHash === 0 ? keyHash(text, start, end) : knownHash;
    this.lastKeyHash = hash;
    const slot = slotOfHash(hash);
    this.keySlot = slot;
    const cached = keyCache[slot]!;
    if (cached.length === length && sameText(cached, text, start)) return cached;
    const key = text.slice(start, end);
    if (keySeen[slot] !== hash) {
      keySeen[slot] = hash;
      return key;
    }
    const name = propertyName(key);
    keyCache[slot] = name;
    return name;
  }

  /**
   * The key of a key-value line starting at `p` (an unquoted key, directly followed by its
   * colon) when it is the predicted one, or undefined; see {@link successorSlots}.
   */
  protected predictedKey(p: number, end: number): string | undefined {
    const last = this.lastKeySlot;
    if (last < 0) return undefined;
    const slot = successorSlots[last]!;
    if (slot < 0) return undefined;
    if (this.isKeyAt(slot, p, end)) {
      this.lastKeySlot = slot;
      return keyCache[slot];
    }
    const older = olderSuccessorSlots[last]!;
    if (older < 0 || !this.isKeyAt(older, p, end)) return undefined;
    // The older guess was right: it becomes the first one.
    olderSuccessorSlots[last] = slot;
    successorSlots[last] = older;
    this.lastKeySlot = older;
    return keyCache[older];
  }

  /** Is the cached key in `slot` the key at `p`, followed directly by its colon? */
  private isKeyAt(slot: number, p: number, end: number): boolean {
    const guess = keyCache[slot]!;
    const colon = p + guess.length;
    const text = this.text;
    return colon < end && text.charCodeAt(colon) === COLON && sameText(guess, text, p);
  }

  /** Records that the key {@link keyAt} just returned follows the previous line's key. */
  protected followKey(): void {
    const slot = this.keySlot;
    const last = this.lastKeySlot;
    if (last >= 0 && slot >= 0 && successorSlots[last] !== slot) {
      olderSuccessorSlots[last] = successorSlots[last]!;
      successorSlots[last] = slot;
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
    return parseUnquotedRange(this.text, p, this.trimEnd(p, end), this.beyondDouble);
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
      out.push(this.readCell(p, end, delimiter));
      p = this.cellStop;
      if (p >= end) return this.extraCellOffset >= 0;
      p++; // past the delimiter; a trailing delimiter leaves one more, empty cell
    }
  }

  /**
   * The value of the cell starting at `p` (spaces before it skipped) and ending at the next
   * `delimiter` outside quotes or at `end`, which it leaves in {@link cellStop}: a quoted string
   * (only spaces may follow it), or an unquoted token (§4).
   */
  protected readCell(p: number, end: number, delimiter: number): JsonValue {
    const text = this.text;
    if (p < end && text.charCodeAt(p) === QUOTE) {
      const token = this.readQuotedAt(p, end);
      p = this.skipSpaces(token.end, end);
      if (p < end && text.charCodeAt(p) !== delimiter) {
        throw this.error(p, reasons.textAfterCell(delimiter));
      }
      this.cellStop = p;
      return token.value;
    }
    const start = p;
    p = this.cellEnd(p, end, delimiter);
    this.cellStop = p;
    return parseUnquotedRange(text, start, this.trimEnd(start, p), this.beyondDouble);
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
    const stop = Math.min(next, end);
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
}

/**
 * `key` as the engine keeps property names: a flat, internalized string (the one an object's
 * own key list hands back). A slice of the document is a view into it, which every comparison
 * and every property store with it as a key must see through; the cache holds each key's
 * property name instead, made once per key (a tenth fewer instructions per decode).
 */
function propertyName(key: string): string {
  if (key === '__proto__') return '__proto__';
  // A dictionary-mode object (as one without a prototype starts out): an object literal would
  // add a hidden-class transition per distinct key, kept by the engine beyond this call.
  namer[key] = 0;
  const name = Object.keys(namer)[0] ?? key;
  delete namer[key];
  return name;
}

const namer: Record<string, number> = Object.create(null);

/**
 * The cache slot of a key given as a string (a quoted key, a header's key): the slot
 * {@link TokenReader.keyAt} gives the same key read from the text, or -1 for a key it does not
 * cache (empty, or longer than {@link KEY_CACHE_MAX_LENGTH}).
 *
 * @example
 * keySlotOf('id') === keySlotOf('"id"'.slice(1, 3)); // true
 */
export function keySlotOf(key: string): number {
  const length = key.length;
  return length === 0 || length > KEY_CACHE_MAX_LENGTH ? -1 : slotOfHash(keyHash(key, 0, length));
}

/** A key's slot from its {@link keyHash}: the hash's high bits, the best mixed of FNV-1a's. */
function slotOfHash(hash: number): number {
  return (hash >>> 20) & (KEY_SLOTS - 1);
}

/** A hash of `text[start, end)` (FNV-1a), never 0 (a slot of {@link keySeen} that saw no key). */
export function keyHash(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash | 1;
}

/** FNV-1a's offset basis and prime, for a caller that hashes a key as it reads it. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

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
