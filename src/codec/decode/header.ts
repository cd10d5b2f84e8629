// Header parsing (§6): one immutable Header record per header line (except inline arrays, see
// parseHeader). The parser reads the text through the token layer (tokens.ts), so the tree decoder (whole
// document) and the stream decoders (one line at a time) parse headers with the same code and
// the same field-name grammar as the line scanner.

import * as codes from '../char-codes.js';
import { QuotedTokenError } from '../lexical.js';
import { reasons } from './messages.js';
import { keyHash, type TokenReader } from './tokens.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const { BRACE_CLOSE, BRACE_OPEN, BRACKET_CLOSE, COLON, COMMA, PIPE, QUOTE, NINE, TAB, ZERO } =
  codes;

/** Steps of a nested field-group program (§9.3). */
export const OP_LEAF = 0;
export const OP_OPEN = 1;
export const OP_CLOSE = 2;

/** What a line is (§5.2), as far as its own text can tell. */
export const KIND_SCALAR = 0;
export const KIND_FIELD = 1;
export const KIND_HEADER = 2;

/**
 * The field list of a tabular or keyed header. Flat lists (the common case) keep the leaf names
 * only; lists with nested groups (`customer{name,country}`) are compiled to a small program
 * (open group, leaf, close group) so rows materialise without recursion.
 */
export interface FieldList {
  /** Leaf names in cell order when `ops` is null; otherwise one name per step of `ops`. */
  readonly names: readonly string[];
  readonly ops: readonly number[] | null;
  readonly leafCount: number;
  /** Whether a name is `__proto__`, which plain assignment would turn into a prototype change. */
  readonly hasProtoName: boolean;
}

/**
 * A header line (§6), as parsed. Immutable: nothing about it changes while its rows are read.
 * The one exception is the record of an inline array, see {@link parseHeader}.
 */
export interface Header {
  readonly kind: typeof KIND_HEADER;
  /** The key before the brackets, or null for a keyless header. */
  readonly key: string | null;
  /** Offset of the key (or of the `[` when keyless). */
  readonly keyOffset: number;
  /**
   * The declared length N, and where its digits are on the line: messages quote them as written
   * (`[99999999999999999999]`, which N as a double would not), see {@link declaredLength}.
   */
  readonly length: number;
  readonly lengthOffset: number;
  readonly lengthEnd: number;
  /** `[N:]`: a keyed tabular object (§9.5). */
  readonly keyed: boolean;
  /** The active delimiter's character code. */
  readonly delimiter: number;
  readonly fields: FieldList | null;
  /** Offset just past the header's colon (where inline values start). */
  readonly end: number;
}

/** The reader's reused record for inline-array headers (see {@link parseHeader}). */
export type InlineHeader = { -readonly [K in keyof Header]: Header[K] };

/** A blank {@link InlineHeader}, one per reader. */
export function inlineHeaderRecord(): InlineHeader {
  return headerRecord(null, 0, 0, 0, 0, false, COMMA, null, 0);
}

/**
 * Every Header, fresh or reused, is built here: one property order means one object shape, and
 * the decoder's header reads stay monomorphic.
 */
function headerRecord(
  key: string | null,
  keyOffset: number,
  length: number,
  lengthOffset: number,
  lengthEnd: number,
  keyed: boolean,
  delimiter: number,
  fields: FieldList | null,
  end: number,
): InlineHeader {
  return {
    kind: KIND_HEADER,
    key,
    keyOffset,
    length,
    lengthOffset,
    lengthEnd,
    keyed,
    delimiter,
    fields,
    end,
  };
}

/**
 * What the line scanner found on a line: a {@link Header} record, or KIND_FIELD (a key-value
 * line, whose key and value start the reader holds until the next line is classified: fields
 * are most lines, and a record per field line measurably slowed decoding), or KIND_SCALAR.
 */
export type LineClass = Header | typeof KIND_FIELD | typeof KIND_SCALAR;

/**
 * Why a line is not a header: an error in both modes when the line has a colon, else a scalar
 * line (§6). `explains` says whether a later "missing colon" error on that scalar line should
 * give this reason instead (a broken header grammar does; a duplicate field name or a field
 * group past maxDepth, which are errors only of a line that is a header, do not).
 */
export class HeaderSyntax {
  constructor(
    readonly offset: number,
    readonly reason: string,
    readonly explains = true,
  ) {}
}

/**
 * The declared length of `head` as written; `text` is the text the header was parsed from (the
 * document, or the header's line for the stream decoders).
 */
export function declaredLength(text: string, head: Header): string {
  return text.slice(head.lengthOffset, head.lengthEnd);
}

function isDelimiterCode(code: number): boolean {
  return code === COMMA || code === PIPE || code === TAB;
}

/**
 * Parses the header whose bracket opens at `bracket` on the reader's current text. Returns a
 * {@link HeaderSyntax} when the line is no header (the caller decides between an error and a
 * scalar line); it throws nothing. `rowLevel` is the nesting level rows of this header would
 * have; `inline` is the reader's reused record for inline arrays.
 *
 * An inline array's header (`[2]: 1.5,2.5`, no field list, values after the colon) comes back
 * as the reader's one reused record, refilled per such line: its values are on the same line,
 * so every caller reads them before it classifies another line, and nothing nested can overwrite
 * the record in between. One record per line was most of the garbage of decoding documents of
 * many short arrays (canada's 55,563 coordinate pairs), and it slowed decoding by a tenth.
 */
export function parseHeader(
  reader: TokenReader,
  inline: InlineHeader,
  key: string | null,
  keyOffset: number,
  bracket: number,
  end: number,
  rowLevel: number,
): Header | HeaderSyntax {
  const text = reader.text;
  let j = bracket + 1;
  const digits = j;
  let length = 0;
  for (; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c < ZERO || c > NINE) break;
    length = length * 10 + (c - ZERO);
  }
  if (j === digits) {
    if (text.charCodeAt(j) === BRACKET_CLOSE)
      return new HeaderSyntax(bracket, reasons.emptyBrackets());
    return new HeaderSyntax(j, reasons.badLength());
  }
  const lengthEnd = j;
  if (j - digits > 1 && text.charCodeAt(digits) === ZERO) {
    return new HeaderSyntax(digits, reasons.leadingZeros(text.slice(digits, j)));
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
    return new HeaderSyntax(j, j >= end ? reasons.unclosedBracket() : reasons.badBracket(text[j]!));
  }
  j++;
  let fields: FieldList | null = null;
  if (text.charCodeAt(j) === BRACE_OPEN) {
    const names: string[] = [];
    const ops: number[] = [];
    const after = parseFieldGroup(reader, j, end, delimiter, rowLevel, names, ops);
    if (after instanceof HeaderSyntax) return after;
    j = after;
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
    return new HeaderSyntax(
      j,
      j >= end
        ? reasons.missingHeaderColon()
        : reasons.textBeforeHeaderColon(text.slice(j, reader.trimEnd(j, end)), fields !== null),
    );
  }
  j++;
  if (keyed && fields === null) return new HeaderSyntax(bracket, reasons.keyedWithoutFields());
  const rest = reader.skipSpaces(j, end);
  if (fields !== null && rest < end) return new HeaderSyntax(rest, reasons.textAfterTableHeader());
  if (fields === null && rest < end) {
    inline.key = key;
    inline.keyOffset = keyOffset;
    inline.length = length;
    inline.lengthEnd = lengthEnd;
    inline.lengthOffset = digits;
    inline.keyed = keyed;
    inline.delimiter = delimiter;
    inline.end = j;
    return inline;
  }
  return headerRecord(key, keyOffset, length, digits, lengthEnd, keyed, delimiter, fields, j);
}

/**
 * Parses the field group opening at `open` (a `{`) into `names`/`ops` and returns the offset
 * past its `}`, or why the line is no header. Field names follow the line scanner's grammar: a name that starts with `"` is a
 * quoted name; a `"` later in a bare name opens a quoted span that the name keeps as written (like
 * an unquoted key), and a bare name ends at the delimiter or a brace outside such spans. Recursion
 * is bounded by maxDepth: every nested group is one level deeper.
 */
function parseFieldGroup(
  reader: TokenReader,
  open: number,
  end: number,
  delimiter: number,
  level: number,
  names: string[],
  ops: number[],
): number | HeaderSyntax {
  const text = reader.text;
  const seen = reader.strict ? new FieldNameSet() : null;
  let j = open + 1;
  for (let entries = 0; ; entries++) {
    j = reader.skipSpaces(j, end);
    const nameOffset = j;
    let name: string;
    if (j < end && text.charCodeAt(j) === QUOTE) {
      const token = reader.tryReadQuoted(j, end);
      // An unterminated or badly escaped name makes the line no header; without any colon
      // outside quotes it is a scalar line, as the line scanner sees it.
      if (token instanceof QuotedTokenError) return new HeaderSyntax(token.offset, token.message);
      name = token.value;
      j = reader.skipSpaces(token.end, end);
      if (j > token.end && text.charCodeAt(j) === BRACE_OPEN) {
        return new HeaderSyntax(token.end, reasons.spaceBeforeGroup());
      }
    } else {
      for (; j < end; j++) {
        const c = text.charCodeAt(j);
        if (c === delimiter || c === BRACE_OPEN || c === BRACE_CLOSE) break;
        // A `"` inside a bare name opens a quoted span (spec 4.2), kept as written, as in a key.
        if (c === QUOTE) j = reader.skipQuoted(j, end) - 1;
        if (isDelimiterCode(c)) return new HeaderSyntax(j, reasons.delimiterMismatch(c, delimiter));
      }
      const nameEnd = reader.trimEnd(nameOffset, j);
      if (nameEnd < j && nameEnd > nameOffset && text.charCodeAt(j) === BRACE_OPEN) {
        return new HeaderSyntax(nameEnd, reasons.spaceBeforeGroup());
      }
      if (nameEnd === nameOffset) {
        if (j >= end) return new HeaderSyntax(open, reasons.unclosedBrace());
        if (text.charCodeAt(j) === BRACE_CLOSE && entries === 0) {
          return new HeaderSyntax(open, reasons.emptyFields());
        }
        return new HeaderSyntax(j, reasons.emptyFieldName());
      }
      name = reader.keyAt(nameOffset, nameEnd);
    }
    if (seen !== null && !seen.add(name)) {
      return new HeaderSyntax(nameOffset, reasons.duplicateField(name), false);
    }
    names.push(name);
    if (j < end && text.charCodeAt(j) === BRACE_OPEN) {
      if (level + 1 > reader.maxDepth) {
        return new HeaderSyntax(j, reasons.tooDeep(reader.maxDepth), false);
      }
      ops.push(OP_OPEN);
      const after = parseFieldGroup(reader, j, end, delimiter, level + 1, names, ops);
      if (after instanceof HeaderSyntax) return after;
      j = after;
      names.push('');
      ops.push(OP_CLOSE);
      j = reader.skipSpaces(j, end);
    } else {
      ops.push(OP_LEAF);
    }
    if (j >= end) return new HeaderSyntax(open, reasons.unclosedBrace());
    const c = text.charCodeAt(j);
    if (c === delimiter) {
      j++;
      continue;
    }
    if (c === BRACE_CLOSE) return j + 1;
    if (isDelimiterCode(c)) return new HeaderSyntax(j, reasons.delimiterMismatch(c, delimiter));
    return new HeaderSyntax(j, reasons.badFieldSeparator(text[j]!, delimiter));
  }
}

/** Up to this many names, {@link FieldNameSet} compares each new name with every one before it. */
const FEW_NAMES = 8;

/**
 * The names of one field group, for strict mode's duplicate check (§14). A few names are
 * compared one by one; past {@link FEW_NAMES} they go in an open-addressing table of their
 * hashes. Neither makes a name a property name: a prototype-less object did, and for a hostile
 * header of 80,000 names that alone cost more than a third of the decode (issue 31: strict mode
 * 107-118 ms against 62-68 ms without the check; with the table, 77-92 ms against 57-77 ms).
 *
 * @example
 * const names = new FieldNameSet();
 * names.add('id'); // true
 * names.add('id'); // false: a duplicate
 */
export class FieldNameSet {
  /** The names, in order. */
  private readonly names: string[] = [];
  /** Once the table is built: each name's hash, in the same order (at least as long). */
  private hashes: Int32Array | undefined;
  /** The table: each slot's index into `names` plus one, 0 for an empty slot. */
  private slots: Int32Array | undefined;
  private shift = 0;

  /** Adds `name`; `false` when the group already has it. */
  add(name: string): boolean {
    const names = this.names;
    const slots = this.slots;
    if (slots === undefined) {
      for (let i = 0; i < names.length; i++) if (names[i] === name) return false;
      names.push(name);
      if (names.length > FEW_NAMES) this.rebuild(64);
      return true;
    }
    let hashes = this.hashes!;
    const hash = keyHash(name, 0, name.length);
    const mask = slots.length - 1;
    let slot = this.slotOf(hash);
    for (let held = slots[slot]!; held !== 0; held = slots[slot]!) {
      if (hashes[held - 1] === hash && names[held - 1] === name) return false;
      slot = (slot + 1) & mask;
    }
    const index = names.length;
    names.push(name);
    if (index === hashes.length) {
      const longer = new Int32Array(index * 2);
      longer.set(hashes);
      this.hashes = hashes = longer;
    }
    hashes[index] = hash;
    slots[slot] = index + 1;
    // Growing four times over: each name is placed about 1.3 times in all, not twice.
    if (names.length * 2 > slots.length) this.rebuild(slots.length * 4);
    return true;
  }

  /** FNV-1a's low bits mix worst: the slot comes from a product's high bits. */
  private slotOf(hash: number): number {
    return Math.imul(hash, 0x9e3779b1) >>> this.shift;
  }

  /** Places every name in a new table of `size` slots (a power of two). */
  private rebuild(size: number): void {
    const names = this.names;
    let hashes = this.hashes;
    if (hashes === undefined) {
      hashes = new Int32Array(size >> 1);
      for (let i = 0; i < names.length; i++) hashes[i] = keyHash(names[i]!, 0, names[i]!.length);
      this.hashes = hashes;
    }
    const slots = new Int32Array(size);
    const mask = size - 1;
    this.shift = 32 - Math.log2(size);
    for (let i = 0; i < names.length; i++) {
      let slot = this.slotOf(hashes[i]!);
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
    }
    this.slots = slots;
  }
}
