// Header parsing (§6): one immutable Header record per header line (except inline arrays, see
// parseHeader). The parser reads the text through the token layer (tokens.ts), so the tree decoder (whole
// document) and the stream decoders (one line at a time) parse headers with the same code and
// the same field-name grammar as the line scanner.

import * as codes from '../char-codes.js';
import { QuotedTokenError } from '../lexical.js';
import { isInheritedName } from '../objects.js';
import { reasons } from './messages.js';
import { FNV_OFFSET, FNV_PRIME, keyHash, type TokenReader } from './tokens.js';

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
  /**
   * Whether a name is one a fresh object inherits (`__proto__`, `toString`, ...), which plain
   * assignment would turn into a prototype change or, on a frozen prototype, a TypeError.
   */
  readonly hasInheritedName: boolean;
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
    const list = new FieldListBuilder();
    let after: number | HeaderSyntax;
    let names: string[];
    try {
      after = parseFieldGroup(reader, j, end, delimiter, rowLevel, list);
    } finally {
      // Taken whatever the line turns out to be, so the shared list keeps none of its names.
      names = list.takeNames();
    }
    if (after instanceof HeaderSyntax) return after;
    j = after;
    fields = {
      names,
      ops: list.ops,
      leafCount: list.leafCount,
      hasInheritedName: list.hasInheritedName,
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
 * The names of the field list being parsed: the first `count` entries (see FieldListBuilder), the
 * rest empty strings. One list serves every header, since header parsing never reenters itself:
 * a list of its own per header, grown name by name, went through megabytes of ever larger copies
 * for a hostile header of 80,000 names (issue 31), all garbage the collector then had to mark
 * around. A list grown past {@link SHARED_NAMES_KEPT} slots is let go rather than kept.
 */
let sharedNames: string[] = [];
const SHARED_NAMES_KEPT = 1 << 17;

/**
 * A field list while {@link parseFieldGroup} builds it. `ops` stays null while every name is a
 * leaf (the common, flat list): a program with one step per name was an array as long as the
 * header for nothing, and a hostile header of 80,000 names grew it step by step.
 */
class FieldListBuilder {
  /** The shared list the names go on; {@link takeNames} copies them out. */
  readonly names: string[] = sharedNames;
  count = 0;
  ops: number[] | null = null;
  leafCount = 0;
  hasInheritedName = false;

  add(name: string): void {
    this.names[this.count++] = name;
  }

  /** The names, in an array of exactly their count, and the shared list cleared of them. */
  takeNames(): string[] {
    const shared = this.names;
    const names = shared.slice(0, this.count);
    if (shared.length > SHARED_NAMES_KEPT) sharedNames = [];
    else shared.fill('', 0, this.count);
    return names;
  }

  /** Adds a step; the first group opened turns the leaves before it into a program. */
  step(op: number): void {
    let ops = this.ops;
    if (op === OP_LEAF) {
      this.leafCount++;
      if (ops !== null) ops.push(OP_LEAF);
      return;
    }
    if (ops === null) {
      // Every name so far but the group's own (just added) was a leaf.
      ops = [];
      for (let i = 1; i < this.count; i++) ops.push(OP_LEAF);
      this.ops = ops;
    }
    ops.push(op);
  }
}

/**
 * Parses the field group opening at `open` (a `{`) into `list` and returns the offset past its
 * `}`, or why the line is no header. Field names follow the line scanner's grammar: a name that starts with `"` is a
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
  list: FieldListBuilder,
): number | HeaderSyntax {
  const text = reader.text;
  const seen = reader.strict ? new FieldNameSet(list.names) : null;
  let j = open + 1;
  for (let entries = 0; ; entries++) {
    j = reader.skipSpaces(j, end);
    const nameOffset = j;
    let name: string;
    // The name's keyHash when the token layer computed it (bare names), else 0.
    let hash = 0;
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
      // The name's hash as it is read (keyHash's FNV-1a), while every character is a plain one:
      // between the quote and the open brace, and no comma. Any other character ends the name
      // or leaves the hash to keyAt.
      let read = FNV_OFFSET;
      let plain = true;
      for (; j < end; j++) {
        const c = text.charCodeAt(j);
        if (c > QUOTE && c < BRACE_OPEN && c !== COMMA) {
          read = Math.imul(read ^ c, FNV_PRIME);
          continue;
        }
        if (c === delimiter || c === BRACE_OPEN || c === BRACE_CLOSE) break;
        plain = false;
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
      name = reader.keyAt(nameOffset, nameEnd, plain ? read | 1 : 0);
      hash = reader.lastKeyHash;
    }
    if (seen !== null && !seen.add(name, hash, list.count)) {
      return new HeaderSyntax(nameOffset, reasons.duplicateField(name), false);
    }
    list.add(name);
    if (isInheritedName(name)) list.hasInheritedName = true;
    if (j < end && text.charCodeAt(j) === BRACE_OPEN) {
      if (level + 1 > reader.maxDepth) {
        return new HeaderSyntax(j, reasons.tooDeep(reader.maxDepth), false);
      }
      list.step(OP_OPEN);
      const after = parseFieldGroup(reader, j, end, delimiter, level + 1, list);
      if (after instanceof HeaderSyntax) return after;
      j = after;
      list.add('');
      list.step(OP_CLOSE);
      j = reader.skipSpaces(j, end);
    } else {
      list.step(OP_LEAF);
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
 * The set keeps no names of its own: it is given the list the group's names go on (shared with
 * any nested groups) and each name's place there, and its table holds the hash and the place of
 * each name side by side, so a probe reads one stretch of memory, and the table is the only
 * memory it grows (copies of 80,000 names, and a table of places apart from one of hashes, were
 * most of what the check cost).
 *
 * @example
 * const names: string[] = [];
 * const seen = new FieldNameSet(names);
 * seen.add('id', 0, names.length); // true
 * names.push('id');
 * seen.add('id', 0, names.length); // false: a duplicate
 */
export class FieldNameSet {
  /** Places in `names` of the first {@link FEW_NAMES} names, until the table is built. */
  private few: number[] | null = [];
  /**
   * The table, once built: two entries per slot, a name's hash and its place in `names` plus one
   * (0 for an empty slot); the slot count is a power of two.
   */
  private table: Int32Array | undefined;
  private count = 0;
  private shift = 0;

  /** `names`: the list every added name is then pushed on, at the place `add` was given. */
  constructor(private readonly names: readonly string[]) {}

  /**
   * Adds `name`, which goes at place `at` of the list; `hash` is its {@link keyHash}, or 0 to
   * have it computed when needed. `false` when the group already has the name.
   */
  add(name: string, hash: number, at: number): boolean {
    const names = this.names;
    const few = this.few;
    if (few !== null) {
      for (let i = 0; i < few.length; i++) if (names[few[i]!] === name) return false;
      few.push(at);
      if (few.length > FEW_NAMES) this.build(few, name, at);
      return true;
    }
    if (hash === 0) hash = keyHash(name, 0, name.length);
    const table = this.table!;
    const mask = (table.length >> 1) - 1;
    let slot = this.slotOf(hash);
    for (let held = table[2 * slot + 1]!; held !== 0; held = table[2 * slot + 1]!) {
      if (table[2 * slot] === hash && names[held - 1] === name) return false;
      slot = (slot + 1) & mask;
    }
    table[2 * slot] = hash;
    table[2 * slot + 1] = at + 1;
    // Growing four times over: each name is placed about 1.3 times in all, not twice.
    if (++this.count * 2 > mask + 1) this.rehash((mask + 1) * 4);
    return true;
  }

  /** FNV-1a's low bits mix worst: the slot comes from a product's high bits. */
  private slotOf(hash: number): number {
    return Math.imul(hash, 0x9e3779b1) >>> this.shift;
  }

  /** Moves the first names, the last of them `name` at `at` (not yet in the list), to a table. */
  private build(few: readonly number[], name: string, at: number): void {
    this.few = null;
    this.table = new Int32Array(2 * 64);
    this.shift = 32 - 6;
    this.count = few.length;
    for (let i = 0; i < few.length; i++) {
      const held = few[i]!;
      const text = held === at ? name : this.names[held]!;
      this.place(this.table, keyHash(text, 0, text.length), held + 1);
    }
  }

  /** Places every name in a new table of `size` slots (a power of two). */
  private rehash(size: number): void {
    const old = this.table!;
    const table = new Int32Array(2 * size);
    this.shift = 32 - Math.log2(size);
    for (let s = 0; s < old.length; s += 2) {
      if (old[s + 1] !== 0) this.place(table, old[s]!, old[s + 1]!);
    }
    this.table = table;
  }

  /** Stores a hash and place in the first free slot from the hash's own. */
  private place(table: Int32Array, hash: number, held: number): void {
    const mask = (table.length >> 1) - 1;
    let slot = this.slotOf(hash);
    while (table[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
    table[2 * slot] = hash;
    table[2 * slot + 1] = held;
  }
}
