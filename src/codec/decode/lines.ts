// Line scanning (§5.1, §12): where each line's content starts and ends, its depth, and which
// lines are comments or blank. The tree decoder scans the whole text into a table of offsets
// (typed arrays, no line strings); the stream decoders measure one line at a time. Both call
// `measureLine`, so indentation, comment and blank-line rules cannot differ between them.

import * as codes from '../char-codes.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const { CR, HASH, SPACE, TAB } = codes;

/** Depth codes for lines whose indentation strict mode rejects (raised when reached). */
export const DEPTH_NOT_MULTIPLE = -1;
export const DEPTH_TAB = -2;

/** `measureLine` results for lines without content. */
export const LINE_BLANK = -3;
export const LINE_COMMENT = -4;

/**
 * Measures the line `text[start, end)` (its terminator, CR included, already excluded):
 * returns its depth (or a DEPTH_* code strict mode raises when the line is reached), or
 * LINE_BLANK / LINE_COMMENT. The content start is left in `measured.contentStart`.
 */
export function measureLine(
  text: string,
  start: number,
  end: number,
  strict: boolean,
  indentSize: number,
  measured: { contentStart: number },
): number {
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
  measured.contentStart = p;
  if (p === end && (tabs === 0 || !strict)) return LINE_BLANK;
  if (p < end && tabs === 0 && text.charCodeAt(p) === HASH) return LINE_COMMENT;
  if (!strict) return Math.floor((p - start - tabs + tabs * indentSize) / indentSize);
  if (tabs > 0) return DEPTH_TAB;
  if (spaces % indentSize !== 0) return DEPTH_NOT_MULTIPLE;
  return spaces / indentSize;
}

/** The end of a line's content: `end`, less a line-ending CR (§12). */
export function contentEndOf(text: string, start: number, end: number): number {
  return end > start && text.charCodeAt(end - 1) === CR ? end - 1 : end;
}

/**
 * The line table of a whole document: one slot per line that is neither a comment nor blank.
 * Line numbers and line starts are only needed for errors, so they are recomputed then.
 */
export interface LineTable {
  count: number;
  /** Offset of the first content character, after the indentation. */
  contentStart: Int32Array;
  /** Offset just past the content (a line-ending CR excluded). */
  contentEnd: Int32Array;
  /** Indentation depth, or a DEPTH_* code when strict mode rejects the indentation. */
  depths: Int32Array;
  /** 1 + offset of a blank line just before this one (0 when none), for the array-span rule. */
  blankBefore: Int32Array;
  /** Whether the columns are the shared ones, to hand back with {@link releaseLines}. */
  shared: boolean;
}

/**
 * Columns for documents of up to this many lines, shared by the decodes that do not overlap: four
 * typed arrays made per call were a tenth of decoding a 2 KB object. Larger documents make their
 * own (the cost is nothing beside theirs), so the shared columns stay small.
 */
const SHARED_LINES = 1024;
const sharedColumns = {
  contentStart: new Int32Array(SHARED_LINES),
  contentEnd: new Int32Array(SHARED_LINES),
  depths: new Int32Array(SHARED_LINES),
  blankBefore: new Int32Array(SHARED_LINES),
};
/** Whether a table holds the shared columns (a decode called from inside another: its own). */
let sharedInUse = false;

/** Hands back the shared columns of `table`, if it has them; call once its decode is done. */
export function releaseLines(table: LineTable): void {
  if (table.shared) sharedInUse = false;
}

/**
 * Scans `text` into its {@link LineTable}.
 *
 * Columns may be shared with later decodes: hand them back with {@link releaseLines}.
 *
 * @example
 * const table = scanLines('a:\n  # note\n  b: 1', true, 2);
 * table.count; // 2
 * releaseLines(table);
 */
export function scanLines(text: string, strict: boolean, indentSize: number): LineTable {
  const length = text.length;
  // One pass: the columns start at a guess of the line count and double when it falls short
  // (counting the lines first was a second pass over the text, a twelfth of a decode).
  let capacity = (length >> 5) + 16;
  const shared = !sharedInUse && capacity <= SHARED_LINES;
  let contentStart: Int32Array;
  let contentEnd: Int32Array;
  let depths: Int32Array;
  let blankBefore: Int32Array;
  if (shared) {
    sharedInUse = true;
    capacity = SHARED_LINES;
    ({ contentStart, contentEnd, depths, blankBefore } = sharedColumns);
  } else {
    contentStart = new Int32Array(capacity);
    contentEnd = new Int32Array(capacity);
    depths = new Int32Array(capacity);
    blankBefore = new Int32Array(capacity);
  }
  const measured = { contentStart: 0 };
  let k = 0;
  let pendingBlank = 0;
  let start = 0;
  for (;;) {
    let newline = text.indexOf('\n', start);
    const last = newline === -1;
    if (last) newline = length;
    const end = contentEndOf(text, start, newline);
    const depth = measureLine(text, start, end, strict, indentSize, measured);
    if (depth === LINE_BLANK) {
      if (pendingBlank === 0) pendingBlank = start + 1;
    } else if (depth !== LINE_COMMENT) {
      if (k === capacity) {
        capacity *= 2;
        contentStart = grown(contentStart, capacity);
        contentEnd = grown(contentEnd, capacity);
        depths = grown(depths, capacity);
        blankBefore = grown(blankBefore, capacity);
      }
      contentStart[k] = measured.contentStart;
      contentEnd[k] = end;
      blankBefore[k] = pendingBlank;
      depths[k] = depth;
      pendingBlank = 0;
      k++;
    }
    if (last) break;
    start = newline + 1;
  }
  return { count: k, contentStart, contentEnd, depths, blankBefore, shared };
}

/** `column` copied into a new array of `capacity` slots. */
function grown(column: Int32Array, capacity: number): Int32Array {
  const bigger = new Int32Array(capacity);
  bigger.set(column);
  return bigger;
}

/**
 * The 1-based column of `offset` on the line starting at `lineStart`, counted in Unicode
 * characters (the low half of a surrogate pair does not start a new one).
 *
 * @example
 * columnOf('😀x', 0, 2); // 2
 */
export function columnOf(text: string, lineStart: number, offset: number): number {
  let column = 1;
  for (let p = lineStart; p < offset && p < text.length; p++) {
    const c = text.charCodeAt(p);
    if (c >= 0xdc00 && c <= 0xdfff && p > 0) {
      const before = text.charCodeAt(p - 1);
      if (before >= 0xd800 && before <= 0xdbff) continue;
    }
    column++;
  }
  return column;
}
