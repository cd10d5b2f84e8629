// Line classification (§5.2): one line's content as a header, a key-value field or a scalar, and
// the rows and inline arrays a header announces. Built on the token layer (tokens.ts) and the
// header parser (header.ts), both of which sit below it.

import * as codes from '../char-codes.js';
import type { ToonDecodeError } from '../errors.js';
import type { JsonObject, JsonValue } from '../types.js';
import type { Header, InlineHeader, LineClass } from './header.js';
import * as header from './header.js';
import { reasons } from './messages.js';
import { keySlotOf, TokenReader } from './tokens.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const { HeaderSyntax, KIND_FIELD, KIND_SCALAR, parseHeader } = header;
const { BRACKET_OPEN, COLON, QUOTE, SPACE, TAB } = codes;

export abstract class Reader extends TokenReader {
  /**
   * The key and value start of the line {@link classify} (or {@link entryKey}) just read as a
   * key-value line. Read at once by the caller, before anything else is classified.
   */
  fieldKey = '';
  fieldValueStart = 0;
  /**
   * The key cache slot of the key {@link classify} just read (see `keySlotOf`), or -1 for a key
   * the cache does not hold; {@link entryKey} leaves it alone.
   */
  fieldSlot = -1;
  /** The record parseHeader refills for every inline-array header line. */
  readonly inlineHeader: InlineHeader = header.inlineHeaderRecord();
  /** Why a header-looking line without any colon failed, to explain a later "missing colon". */
  scalarHint: InstanceType<typeof HeaderSyntax> | null = null;

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
        return this.keyValue(token.value, after + 1, keySlotOf(token.value));
      if (after >= end) return KIND_SCALAR;
      throw this.error(after, reasons.textAfterQuotedKey());
    }
    if (first === BRACKET_OPEN) return this.tryHeader(p, p, end, null, rowLevel);
    const predicted = this.predictedKey(p, end);
    if (predicted !== undefined) {
      return this.keyValue(predicted, p + predicted.length + 1, this.lastKeySlot);
    }
    for (let j = p; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === COLON) {
        const key = this.keyAt(p, this.trimEnd(p, j));
        this.followKey();
        return this.keyValue(key, j + 1, this.lastKeySlot);
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

  private keyValue(key: string, valueStart: number, slot: number): typeof KIND_FIELD {
    this.fieldKey = key;
    this.fieldValueStart = valueStart;
    this.fieldSlot = slot;
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
    const parsed = parseHeader(this, this.inlineHeader, key, p, bracket, end, rowLevel);
    return parsed instanceof HeaderSyntax ? this.malformedHeader(p, end, parsed) : parsed;
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
      this.scalarHint = problem.explains ? problem : null;
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
    if (first < end) this.readCells(cells, first, end, head.delimiter, fields.leafCount, true);
    this.checkWidth(cells.length, end, head, fields, noun);
  }

  /**
   * {@link readRow} for a flat field list with no `__proto__` name: each cell goes straight into
   * `row` under its field's name, as it is read. A row of 80,000 fields (issue 31's hostile
   * header) otherwise grew a buffer of 80,000 cells, megabytes of garbage per row, only to read it
   * back once. The same cells are read in the same order, so the value and any error are
   * {@link readRow}'s; a row of the wrong width leaves `row` half filled, and the caller drops it.
   */
  readFlatRow(
    row: JsonObject,
    first: number,
    end: number,
    head: Header,
    fields: header.FieldList,
    noun: string,
  ): void {
    const text = this.text;
    const names = fields.names;
    const width = fields.leafCount;
    const delimiter = head.delimiter;
    this.extraCellOffset = -1;
    let count = 0;
    if (first < end) {
      // As readCells: p++ steps past a delimiter, and a trailing one leaves one more, empty cell.
      for (let p = first; ; p++) {
        while (p < end && text.charCodeAt(p) === SPACE) p++;
        if (count === width) {
          this.extraCellOffset = p;
          break;
        }
        row[names[count++]!] = this.readCell(p, end, delimiter);
        p = this.cellStop;
        if (p >= end) break;
      }
    }
    this.checkWidth(count, end, head, fields, noun);
  }

  /**
   * Throws the width error (§14.1) of a row that had `count` cells, or more than the header's leaf
   * fields when `extraCellOffset` is set.
   */
  private checkWidth(
    count: number,
    end: number,
    head: Header,
    fields: header.FieldList,
    noun: string,
  ): void {
    const extra = this.extraCellOffset >= 0;
    if (!extra && count === fields.leafCount) return;
    throw this.error(
      extra ? this.extraCellOffset : end,
      reasons.width(
        noun,
        extra ? reasons.moreValues(fields.leafCount) : reasons.values(count),
        leafNames(fields),
        head.delimiter,
      ),
    );
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

/** The leaf names of a field list, for width messages. */
export function leafNames(fields: header.FieldList): readonly string[] {
  const ops = fields.ops;
  return ops === null ? fields.names : fields.names.filter((_, o) => ops[o] === header.OP_LEAF);
}
