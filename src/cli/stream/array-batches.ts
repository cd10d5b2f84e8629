// The elements of a JSON array read in chunks, a batch at a time, parsed by one JSON.parse per
// batch where the file allows it. Files hold their elements in one style: the text between two
// elements (`},\n{"id"`, `},{"id"`, `},\n  {"id"`) is the same all through. That separator is
// learned from the first two elements, the last place it occurs in the text so far is taken as
// a cut, and `'[' + text before the cut + ']'` is parsed at once: about twice the pace of finding
// every element's end with a character scanner and parsing each alone.
//
// A cut is trusted only because the parse succeeds: the text before it starts between two
// elements, and JSON text reads the same way from the same place, so a successful parse means
// the cut is a comma between two top-level elements (a cut inside a string leaves the string
// open, a cut inside an element leaves a bracket open: both fail). When a parse fails (a nested
// array that looks like the top level, or a syntax error) the text goes to the ArrayScanner,
// which finds each element (and reports an error at its line and column); the batches resume
// once it stands between elements again, or never after a few failures.
import type { JsonValue } from '../../codec/types.js';
import { firstLossyNumber } from '../../compact/json-numbers.js';
import { lossyNumberMessage, lossyNumberPlace } from '../lossy-numbers.js';
import { ArrayScanner, ArraySyntaxError, type ScannedElement } from './array-scanner.js';

/** Failed cuts after which every later chunk goes to the scanner. */
const MAX_FAILED_CUTS = 3;
/**
 * Text held without a cut (while learning the separator, or when it stops occurring: huge
 * elements, or a file whose layout changes) beyond which the scanner reads, so memory stays
 * bounded whatever the layout.
 */
const MAX_HELD_TEXT = 4 * 1024 * 1024;

/**
 * Splits a JSON array's text, given in chunks cut anywhere, into its parsed elements.
 *
 * @example
 * const batches = new ArrayBatches();
 * batches.push('[{"a":1},{"a":2},{"a"'); // [{ a: 1 }, { a: 2 }]
 * batches.push(':3}]'); // [] (no separator after the last element)
 * batches.end(); // [{ a: 3 }] (throws ArraySyntaxError if the array is incomplete)
 */
export class ArrayBatches {
  /** Text not yet parsed; it starts between elements (`at`) unless `scanner` is reading. */
  private pending = '';
  private started = false;
  private at: 'first' | 'next' = 'first';
  /** 1-based line and column where `pending` starts. */
  private line = 1;
  private column = 1;
  /** The text between two elements, with the last character of one and the first of the next. */
  private separator: string | undefined;
  /** Where the comma is in `separator`. */
  private comma = 0;
  private failedCuts = 0;
  /** Set while the character scanner reads (after a failed cut, or for good). */
  private scanner: ArrayScanner | undefined;
  private scanOnly = false;

  /**
   * @param checkNumbers refuse (an {@link ArraySyntaxError} at its place) the first number that
   *   JSON.parse cannot read as the same value (lossy-numbers.ts)
   */
  constructor(private readonly checkNumbers = false) {}

  /** The elements that end within `chunk` (or earlier, when a cut could not be made before). */
  push(chunk: string): JsonValue[] {
    if (this.scanner !== undefined) return this.scan(chunk);
    this.pending += chunk;
    if (!this.started && !this.start()) return this.scanOnly ? this.handOver(true) : [];
    if (this.separator === undefined && !this.learn())
      return this.scanOnly ? this.handOver(false) : [];
    return this.cut();
  }

  /** The last elements; throws {@link ArraySyntaxError} if the array is incomplete or malformed. */
  end(): JsonValue[] {
    if (this.scanner === undefined) {
      if (!this.started) return append(this.handOver(true), this.scannerEnd());
      // The rest must be the last elements and the closing bracket: `'[' + rest` parses then.
      const values = this.tryParse(`[${this.pending}`);
      if (values !== undefined && (this.at === 'first' || values.length > 0)) {
        this.refuseLossy(this.pending);
        return values;
      }
      return append(this.handOver(false), this.scannerEnd());
    }
    return this.scannerEnd();
  }

  /** Finds the opening `[` (whitespace before it counted); false until there is one. */
  private start(): boolean {
    let i = 0;
    while (i < this.pending.length && isSpace(this.pending.charCodeAt(i))) i++;
    if (i === this.pending.length) return false;
    if (this.pending.charCodeAt(i) !== 0x5b) {
      // Not an array: the scanner says so, at the right place.
      this.scanOnly = true;
      return false;
    }
    this.advance(i + 1);
    this.started = true;
    return true;
  }

  /**
   * The separator, from the first two elements (a throwaway scanner finds them); false while
   * fewer than two have arrived. Elements that are not objects or arrays (so have no
   * telling first and last character) leave the reading to the scanner.
   */
  private learn(): boolean {
    if (this.scanOnly) return false;
    const probe = ArrayScanner.resume('first', 1, 1);
    let elements: ScannedElement[];
    try {
      elements = probe.push(this.pending);
    } catch {
      this.scanOnly = true;
      return false;
    }
    if (elements.length < 2) {
      // Wait for a second element, unless the first is huge.
      if (this.pending.length > MAX_HELD_TEXT) this.scanOnly = true;
      return false;
    }
    const [one, two] = elements as [ScannedElement, ScannedElement];
    const opens = (text: string) => text.charCodeAt(0) === 0x7b || text.charCodeAt(0) === 0x5b;
    if (!opens(one.text) || !opens(two.text)) {
      this.scanOnly = true;
      return false;
    }
    // Only whitespace is before the first element, and whitespace and a comma after it.
    const oneEnd = skipSpace(this.pending, 0) + one.text.length;
    const twoStart = skipSpace(this.pending, skipSpace(this.pending, oneEnd) + 1);
    this.separator = this.pending.slice(oneEnd - 1, twoStart) + opening(two.text);
    this.comma = this.separator.indexOf(',');
    return true;
  }

  /** Parses everything before the last separator in the pending text. */
  private cut(): JsonValue[] {
    const found = this.pending.lastIndexOf(this.separator!);
    if (found < 0) {
      if (this.pending.length <= MAX_HELD_TEXT) return [];
      this.failedCuts++;
      return this.handOver(false);
    }
    const comma = found + this.comma;
    const values = this.tryParse(`[${this.pending.slice(0, comma)}]`);
    if (values === undefined || values.length === 0) {
      this.failedCuts++;
      return this.handOver(false);
    }
    this.refuseLossy(this.pending.slice(0, comma));
    this.advance(comma + 1);
    this.at = 'next';
    return values;
  }

  private tryParse(text: string): JsonValue[] | undefined {
    try {
      return JSON.parse(text) as JsonValue[];
    } catch {
      return undefined;
    }
  }

  /** With `checkNumbers`, throws at the first lossy number of `text`, which starts `pending`. */
  private refuseLossy(text: string): void {
    if (!this.checkNumbers) return;
    const lossy = firstLossyNumber(text);
    if (lossy === undefined) return;
    const at = lossyNumberPlace(text, lossy, this.line, this.column);
    throw new ArraySyntaxError(at.line, at.column, lossyNumberMessage(lossy));
  }

  /** Drops `count` characters of pending text, keeping the line and column of what follows. */
  private advance(count: number): void {
    let last = -1;
    for (
      let at = this.pending.indexOf('\n');
      at >= 0 && at < count;
      at = this.pending.indexOf('\n', at + 1)
    ) {
      this.line++;
      last = at;
    }
    this.column = last < 0 ? this.column + count : count - last;
    this.pending = this.pending.slice(count);
  }

  /** Gives the pending text to a character scanner, from where it starts. */
  private handOver(fromStart: boolean): JsonValue[] {
    this.scanner = fromStart
      ? new ArrayScanner()
      : ArrayScanner.resume(this.at, this.line, this.column);
    const text = this.pending;
    this.pending = '';
    return this.scan(text);
  }

  /**
   * The scanner reads `chunk`, a separator at a time while batches may resume: once it stands
   * between elements, the rest of the chunk is read in batches again.
   */
  private scan(chunk: string): JsonValue[] {
    const scanner = this.scanner!;
    const separator = this.separator;
    if (this.scanOnly || separator === undefined || this.failedCuts >= MAX_FAILED_CUTS)
      return this.parseEach(scanner.push(chunk));
    const values: JsonValue[] = [];
    let from = 0;
    for (let found = chunk.indexOf(separator); found >= 0; found = chunk.indexOf(separator, from)) {
      const to = found + this.comma + 1;
      append(values, this.parseEach(scanner.push(chunk.slice(from, to))));
      from = to;
      const between = scanner.between;
      if (between !== undefined) {
        this.scanner = undefined;
        this.at = between.at;
        this.line = between.line;
        this.column = between.column;
        this.pending = '';
        return append(values, this.push(chunk.slice(from)));
      }
    }
    return append(values, this.parseEach(scanner.push(chunk.slice(from))));
  }

  private scannerEnd(): JsonValue[] {
    return this.parseEach(this.scanner!.end());
  }

  /** The scanned elements parsed one by one (the scanner in charge locates a syntax error). */
  private parseEach(elements: readonly ScannedElement[]): JsonValue[] {
    const scanner = this.scanner!;
    const values = new Array<JsonValue>(elements.length);
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i]!;
      try {
        values[i] = JSON.parse(element.text) as JsonValue;
      } catch {
        throw scanner.locate(element);
      }
      if (this.checkNumbers) {
        const lossy = firstLossyNumber(element.text);
        if (lossy !== undefined) {
          const at = lossyNumberPlace(element.text, lossy, element.line, element.column);
          throw new ArraySyntaxError(at.line, at.column, lossyNumberMessage(lossy));
        }
      }
    }
    return values;
  }
}

/**
 * How an element begins, for the separator: `{"key"` when it is an object whose first key has
 * no escape (rows nearly always start with the same key, nested objects seldom with the
 * rows' first key, and a bare `"` cannot occur inside a string), else its first character.
 */
function opening(element: string): string {
  if (element.charCodeAt(0) === 0x7b && element.charCodeAt(1) === 0x22) {
    const close = element.indexOf('"', 2);
    if (close > 0 && !element.slice(2, close).includes('\\')) return element.slice(0, close + 1);
  }
  return element.charAt(0);
}

function append(values: JsonValue[], more: readonly JsonValue[]): JsonValue[] {
  for (let i = 0; i < more.length; i++) values.push(more[i]!);
  return values;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

export { ArraySyntaxError };
