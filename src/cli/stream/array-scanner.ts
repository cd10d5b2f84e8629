// The top-level elements of a JSON array read in chunks, found by a scanner that only tracks
// nesting and strings, each element then parsed by JSON.parse: the CLI reads a root array at
// JSON.parse's pace, as it reads JSON Lines, instead of a streaming parser's character-level
// state machine (measured 3x slower than JSONL with @streamparser/json). Inside strings the
// scanner jumps from quote to quote with indexOf. Every position is tracked as line and column,
// so a malformed file is reported as `file:line:column` like a whole one. array-batches.ts reads
// most files faster, many elements per JSON.parse, and hands this scanner what it cannot cut
// (a scanner can start between two elements of a file for that: `resume`, `between`).
import { describeCharacter, locateJsonError } from '../json-input.js';

/** One element's text and where it starts (1-based line and column). */
export interface ScannedElement {
  text: string;
  line: number;
  column: number;
}

/** A syntax error between or inside elements: where and what. */
export class ArraySyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    message: string,
  ) {
    super(message);
  }
}

enum State {
  /** Before the opening `[`. */
  Start,
  /** After `[`: an element or `]`. */
  FirstElement,
  /** After `,`: an element. */
  Element,
  /** Inside an element. */
  InElement,
  /** After an element: `,` or `]`. */
  AfterElement,
  /** After the closing `]`: only whitespace. */
  End,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/**
 * Splits a JSON array's text, given in chunks cut anywhere, into its top-level elements.
 *
 * @example
 * const scanner = new ArrayScanner();
 * scanner.push('[{"a":1},'); // [{ text: '{"a":1}', line: 1, column: 2 }]
 * scanner.push(' 2]'); // [{ text: '2', line: 1, column: 11 }]
 * scanner.end(); // throws ArraySyntaxError if the array is incomplete
 */
export class ArrayScanner {
  private state = State.Start;
  /** The current element's text from earlier chunks. */
  private pending = '';
  private depth = 0;
  private inString = false;
  /** Is the current element a bare scalar (a number, true, false, null)? */
  private scalar = false;
  /** Line and the offset of its start, counted over all chunks so far (offset in code units). */
  private line = 1;
  private lineStart = 0;
  private consumed = 0;
  private elementLine = 1;
  private elementColumn = 1;

  /**
   * A scanner that starts between two elements of an array whose beginning was read elsewhere:
   * right after the opening `[` (`first`) or after a `,`, at 1-based `line` and `column` of the
   * whole input (so its errors name positions in the whole input).
   *
   * @example
   * const scanner = ArrayScanner.resume('next', 40, 1);
   * scanner.push('{"a":1}]'); // [{ text: '{"a":1}', line: 40, column: 1 }]
   */
  static resume(at: 'first' | 'next', line: number, column: number): ArrayScanner {
    const scanner = new ArrayScanner();
    scanner.state = at === 'first' ? State.FirstElement : State.Element;
    scanner.line = line;
    scanner.lineStart = 1 - column;
    return scanner;
  }

  /**
   * Where the scanner stands when it stands between elements, ready for the next one (after `[`
   * or a `,`, nothing held), else undefined: the point another reader may take over from.
   */
  get between(): { at: 'first' | 'next'; line: number; column: number } | undefined {
    if (this.state !== State.FirstElement && this.state !== State.Element) return undefined;
    return {
      at: this.state === State.FirstElement ? 'first' : 'next',
      line: this.line,
      column: this.consumed - this.lineStart + 1,
    };
  }

  /** The elements that end within `chunk`, in order. */
  push(chunk: string): ScannedElement[] {
    const out: ScannedElement[] = [];
    try {
      this.scan(chunk, out);
    } catch (error) {
      throw this.firstError(out, error);
    }
    return out;
  }

  /**
   * The error to report when the scan failed after finding `elements` (not yet parsed by the
   * caller): a malformed one of them comes first in the text (`[1,x 2]` is wrong at `x`, not at
   * `2`, where the scanner, which only finds where a bare scalar ends, stopped).
   */
  private firstError(elements: readonly ScannedElement[], error: unknown): unknown {
    if (!(error instanceof ArraySyntaxError)) return error;
    for (const element of elements)
      if (locateJsonError(element.text) !== undefined) return this.locate(element);
    return error;
  }

  /** Appends the elements that end within `chunk` to `out`. */
  private scan(chunk: string, out: ScannedElement[]): void {
    let from = 0;
    let i = 0;
    const length = chunk.length;
    while (i < length) {
      if (this.state === State.InElement) {
        if (this.inString) {
          const quote = chunk.indexOf('"', i);
          if (quote < 0) {
            i = length;
            break;
          }
          // An escaped quote has an odd run of backslashes before it (possibly in `pending`).
          let backslashes = 0;
          for (let k = quote - 1; k >= from && chunk.charCodeAt(k) === BACKSLASH; k--)
            backslashes++;
          if (backslashes === quote - from) backslashes += trailingBackslashes(this.pending);
          i = quote + 1;
          if (backslashes % 2 === 0) {
            this.inString = false;
            if (this.depth === 0) {
              this.finish(out, chunk, from, i);
              from = i;
            }
          }
          continue;
        }
        const code = chunk.charCodeAt(i);
        if (this.scalar) {
          if (code === 0x2c || code === 0x5d || isSpace(code)) {
            this.finish(out, chunk, from, i);
            from = i;
            continue;
          }
          i++;
          continue;
        }
        if (code === QUOTE) {
          this.inString = true;
        } else if (code === 0x7b || code === 0x5b) {
          this.depth++;
        } else if (code === 0x7d || code === 0x5d) {
          this.depth--;
          if (this.depth === 0) {
            i++;
            this.finish(out, chunk, from, i);
            from = i;
            continue;
          }
        } else if (code === NEWLINE) {
          this.newline(i);
        }
        i++;
        continue;
      }
      const code = chunk.charCodeAt(i);
      if (isSpace(code)) {
        if (code === NEWLINE) this.newline(i);
        i++;
        continue;
      }
      switch (this.state) {
        case State.Start:
          if (code !== 0x5b) this.fail(i, `unexpected ${describe(chunk, i)}; expected '['`);
          this.state = State.FirstElement;
          i++;
          break;
        case State.FirstElement:
        case State.Element:
          if (code === 0x5d && this.state === State.FirstElement) {
            this.state = State.End;
            i++;
            break;
          }
          if (code === 0x5d || code === 0x2c) {
            this.fail(i, `unexpected ${describe(chunk, i)}; expected a value`);
          }
          this.state = State.InElement;
          this.elementLine = this.line;
          this.elementColumn = this.consumed + i - this.lineStart + 1;
          from = i;
          this.depth = 0;
          this.scalar = code !== QUOTE && code !== 0x7b && code !== 0x5b;
          if (!this.scalar) {
            if (code === QUOTE) this.inString = true;
            else this.depth = 1;
          }
          i++;
          break;
        case State.AfterElement:
          if (code === 0x2c) this.state = State.Element;
          else if (code === 0x5d) this.state = State.End;
          else this.fail(i, `unexpected ${describe(chunk, i)}; expected ',' or ']'`);
          i++;
          break;
        case State.End:
          this.fail(i, `unexpected ${describe(chunk, i)} after the end of the array`);
      }
    }
    if (this.state === State.InElement) this.pending += chunk.slice(from);
    this.consumed += length;
  }

  /** The last element, if the input ended right after a bare scalar; throws if incomplete. */
  end(): ScannedElement[] {
    const out: ScannedElement[] = [];
    if (this.state === State.InElement && this.scalar) {
      this.finish(out, '', 0, 0);
    }
    if (this.state === State.InElement) {
      // An element cut off by the end, at the element's own error: an unterminated string is
      // named where it opens, as the whole-file reader names it.
      throw this.locate({ text: this.pending, line: this.elementLine, column: this.elementColumn });
    }
    if (this.state !== State.End) {
      throw this.firstError(
        out,
        new ArraySyntaxError(
          this.line,
          this.consumed - this.lineStart + 1,
          this.state === State.Start
            ? 'the input is empty; expected a JSON array'
            : 'unexpected end of input; the array is incomplete',
        ),
      );
    }
    return out;
  }

  /**
   * Where an error JSON.parse found in `element` is, as a position in the whole input, with
   * what was expected there (the scanner found the element's end, not its inside).
   */
  locate(element: ScannedElement): ArraySyntaxError {
    const problem = locateJsonError(element.text) ?? {
      offset: 0,
      message: 'malformed value',
    };
    let line = element.line;
    let column = element.column;
    for (let i = 0; i < problem.offset && i < element.text.length; i++) {
      if (element.text.charCodeAt(i) === NEWLINE) {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new ArraySyntaxError(line, column, problem.message);
  }

  private finish(out: ScannedElement[], chunk: string, from: number, to: number): void {
    const text = this.pending === '' ? chunk.slice(from, to) : this.pending + chunk.slice(from, to);
    this.pending = '';
    out.push({ text, line: this.elementLine, column: this.elementColumn });
    this.state = State.AfterElement;
    this.scalar = false;
    this.inString = false;
    this.depth = 0;
  }

  private newline(i: number): void {
    this.line++;
    this.lineStart = this.consumed + i + 1;
  }

  private fail(i: number, message: string): never {
    throw new ArraySyntaxError(this.line, this.consumed + i - this.lineStart + 1, message);
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === NEWLINE || code === 0x0d || code === 0x09;
}

function trailingBackslashes(text: string): number {
  let count = 0;
  for (let k = text.length - 1; k >= 0 && text.charCodeAt(k) === BACKSLASH; k--) count++;
  return count;
}

function describe(chunk: string, i: number): string {
  return describeCharacter(String.fromCodePoint(chunk.codePointAt(i)!));
}
