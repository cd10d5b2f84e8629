// JSON numbers whose digits change on the way through a JavaScript double: the one test of "can
// this text be re-written without changing its data?" for every layer above. The CLI refuses to
// write such an input, the MCP proxy forwards such a result verbatim instead of re-encoding it.
//
// The rule is the round trip itself: a number is lossy when `JSON.stringify(JSON.parse(n))` is a
// different decimal value than `n`, so 12345678901234567891 (→ 12345678901234567000),
// 9007199254740993 (→ 9007199254740992), 0.10000000000000001 (→ 0.1), 1e400 (→ null) and 1e-400
// (→ 0) are lossy, while 1E+2 (→ 100), 1.50 (→ 1.5), 1e23 (→ 1e+23) and -0 (→ 0; JSON's numbers
// are decimals, which have one zero, and TOON writes -0 as 0) are not: only their spelling changes.
//
// Speed: the proxy asks this of every JSON result, so it is one pass with no regex and no
// backtracking: strings are jumped over by native `indexOf` searches for their closing quote,
// the characters between strings (structure and numbers) are read once, and only a number with
// an exponent or more than 15 characters is parsed (a candidate regex was tried first: V8 runs
// `\d[eE]|\d[\d.]{15}` at about a seventh of this loop's pace on number-heavy texts).

import { formatNumber } from '../codec/lexical.js';

/** A number of a JSON text that a double cannot carry, and where it starts. */
export interface LossyNumber {
  /** Offset of the number's first character (its `-`, if any) in the text, in UTF-16 code units. */
  offset: number;
  /** The number as written. */
  literal: string;
  /** What `JSON.stringify(JSON.parse(literal))` writes: `12345678901234567000`, `0.1`, `null`. */
  written: string;
}

/** Numbers this long or shorter, without an exponent, survive a double (DBL_DIG is 15). */
const SAFE_LENGTH = 15;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first number of `text` (JSON, or JSON Lines) whose digits change through a double, or
 * `undefined` when every number survives. Digits inside strings are not numbers. A text that is
 * not JSON gets no promise beyond linear time.
 *
 * @example
 * firstLossyNumber('{"id":12345678901234567891}'); // { offset: 6, literal: '12345678901234567891', written: '12345678901234567000' }
 * firstLossyNumber('[0.10000000000000001]'); // { offset: 1, literal: '0.10000000000000001', written: '0.1' }
 * firstLossyNumber('{"id":"12345678901234567891","n":1E+2,"z":-0}'); // undefined
 */
export function firstLossyNumber(text: string): LossyNumber | undefined {
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const close = closingQuote(text, i + 1);
      if (close === -1) return undefined; // unterminated: the rest is one string
      i = close + 1;
    } else if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) {
      const start = i;
      let exponent = false;
      for (i += 1; i < length; i++) {
        const next = text.charCodeAt(i);
        if (next === 0x65 || next === 0x45) exponent = true;
        else if (!isNumberChar(next)) break;
      }
      // Most numbers are short, and a short one without an exponent is safe as it is.
      if (!exponent && i - start <= SAFE_LENGTH) continue;
      const literal = text.slice(start, i);
      const written = lossyAs(literal);
      if (written !== undefined) return { offset: start, literal, written };
    } else {
      i += 1;
    }
  }
  return undefined;
}

/** The offset of the quote that closes a string whose text starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Escaped when an odd number of backslashes precedes it. Each run of backslashes is counted
    // once, by the quote that follows it, so the whole search stays linear.
    let backslashes = 0;
    while (
      quote - backslashes - 1 >= from &&
      text.charCodeAt(quote - backslashes - 1) === BACKSLASH
    )
      backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

function isNumberChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2e /* . */ ||
    code === 0x65 /* e */ ||
    code === 0x45 /* E */ ||
    code === 0x2b /* + */ ||
    code === 0x2d /* - */
  );
}

/** What JSON.stringify writes for the number `literal` when its value changes; else undefined. */
function lossyAs(literal: string): string | undefined {
  const given = decimal(literal);
  if (given === undefined) return undefined; // not a JSON number: JSON.parse refused the text
  const parsed = Number(literal);
  if (!Number.isFinite(parsed)) return 'null';
  const written = formatNumber(parsed);
  if (given.digits === '') return undefined; // a zero, -0 included, stays zero
  if (parsed === 0) return written;
  const back = decimal(String(parsed))!;
  return back.negative === given.negative &&
    back.digits === given.digits &&
    back.exponent === given.exponent
    ? undefined
    : written;
}

/** A decimal's value as sign, significant digits (no leading or trailing zeros) and exponent. */
interface Decimal {
  negative: boolean;
  /** '' for zero. */
  digits: string;
  /** The value is `digits × 10^exponent`. */
  exponent: number;
}

/**
 * `literal` as a {@link Decimal} when it is a JSON number (`String(double)` spellings such as
 * `1e+21` included), else `undefined`. One pass over its characters, no regex: a hostile literal
 * of a million zeros costs a million steps.
 */
function decimal(literal: string): Decimal | undefined {
  const length = literal.length;
  let i = 0;
  const negative = literal.charCodeAt(0) === 0x2d;
  if (negative) i++;
  const wholeStart = i;
  while (i < length && isDigit(literal.charCodeAt(i))) i++;
  const wholeEnd = i;
  if (wholeEnd === wholeStart) return undefined;
  if (literal.charCodeAt(wholeStart) === 0x30 && wholeEnd - wholeStart > 1) return undefined;
  let fractionStart = i;
  let fractionEnd = i;
  if (literal.charCodeAt(i) === 0x2e) {
    fractionStart = ++i;
    while (i < length && isDigit(literal.charCodeAt(i))) i++;
    fractionEnd = i;
    if (fractionEnd === fractionStart) return undefined;
  }
  let exponent = 0;
  if (i < length) {
    const code = literal.charCodeAt(i);
    if (code !== 0x65 && code !== 0x45) return undefined;
    i++;
    const exponentStart = i;
    if (literal.charCodeAt(i) === 0x2b || literal.charCodeAt(i) === 0x2d) i++;
    const exponentDigits = i;
    while (i < length && isDigit(literal.charCodeAt(i))) i++;
    if (i !== length || i === exponentDigits) return undefined;
    exponent = Number(literal.slice(exponentStart, length));
  }
  // The significant digits run from the first non-zero digit to the last, across the point.
  const all = `${literal.slice(wholeStart, wholeEnd)}${literal.slice(fractionStart, fractionEnd)}`;
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 0x30) first++;
  if (first === all.length) return { negative, digits: '', exponent: 0 };
  let last = all.length;
  while (all.charCodeAt(last - 1) === 0x30) last--;
  const fractionLength = fractionEnd - fractionStart;
  return {
    negative,
    digits: all.slice(first, last),
    exponent: exponent - fractionLength + (all.length - last),
  };
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
