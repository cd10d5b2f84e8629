// Lexical rules shared by the encoder and the decoder: quoting (§7.2), key syntax (§7.3),
// escapes (§7.1), canonical numbers (§2) and scalar typing (§4). Both directions call the same
// functions, so "what the encoder quotes" and "what the decoder reads back as a string" cannot
// drift apart.

import * as codes from './char-codes.js';
import type { RawString } from './raw-string.js';
import { TextBuilder } from './text-builder.js';
import type { Delimiter, JsonPrimitive } from './types.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const {
  BACKSLASH: CHAR_BACKSLASH,
  BOM,
  BRACE_CLOSE,
  BRACE_OPEN,
  BRACKET_CLOSE,
  BRACKET_OPEN,
  COLON,
  COMMA,
  PIPE,
  CR,
  HASH: CHAR_HASH,
  LF,
  MINUS: CHAR_MINUS,
  NINE: CHAR_NINE,
  PLUS: CHAR_PLUS,
  QUOTE: CHAR_QUOTE,
  SPACE: CHAR_SPACE,
  TAB: CHAR_TAB,
  ZERO: CHAR_ZERO,
  DOT,
  UNDERSCORE,
} = codes;

/** §7.2: numeric-like strings (including `+1`, `05`) must be quoted by encoders. */
const NUMERIC_LIKE = /^[+-]?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i;

/**
 * Characters that force quotes anywhere in a string (§7.2): controls (tab included), colon,
 * quote, backslash, brackets and braces, plus the relevant delimiter. One regular expression per
 * delimiter: the engine's compiled scan beats a character loop in JavaScript. Global, so that a
 * `test` leaves where it stopped in `lastIndex` (`search` would say the same, a tenth slower).
 */
const FORCES_QUOTES_COMMA = /[\x00-\x1f:"\\[\]{},]/g;
const FORCES_QUOTES_PIPE = /[\x00-\x1f:"\\[\]{}|]/g;
const FORCES_QUOTES_TAB = /[\x00-\x1f:"\\[\]{}]/g;

/** The index of the first character of `value` that forces quotes (§7.2, §11.1), or -1. */
function firstForcingQuotes(value: string, delimiter: Delimiter): number {
  const forcesQuotes =
    delimiter === ','
      ? FORCES_QUOTES_COMMA
      : delimiter === '|'
        ? FORCES_QUOTES_PIPE
        : FORCES_QUOTES_TAB;
  forcesQuotes.lastIndex = 0;
  return forcesQuotes.test(value) ? forcesQuotes.lastIndex - 1 : -1;
}

/**
 * The §7.2 rules that look at a string's shape rather than at each character: empty, a leading
 * `-`, `#` or space, a trailing space, numeric-like, or one of the literals.
 */
function shapeNeedsQuotes(value: string): boolean {
  const length = value.length;
  if (length === 0) return true;
  const first = value.charCodeAt(0);
  if (first === CHAR_MINUS || first === CHAR_HASH || first === CHAR_SPACE) return true;
  if (value.charCodeAt(length - 1) === CHAR_SPACE) return true;
  if (first === CHAR_PLUS || (first >= CHAR_ZERO && first <= CHAR_NINE))
    return NUMERIC_LIKE.test(value);
  return value === 'true' || value === 'false' || value === 'null';
}

/**
 * Per ASCII code, what it may be in an unquoted key (§7.3: `[A-Za-z_][A-Za-z0-9_.]*`): its first
 * character ({@link KEY_START}, which may also continue one) or a later one only (`KEY_LATER`).
 * A table lookup per character: keys are checked on every field line that is written.
 */
const KEY_START = 2;
const KEY_LATER = 1;
const KEY_CODES = (() => {
  const table = new Uint8Array(128);
  for (let code = 0; code < 128; code++) {
    const folded = code | 0x20; // A-Z onto a-z; nothing else lands in a-z
    if ((folded >= 0x61 && folded <= 0x7a) || code === UNDERSCORE) table[code] = KEY_START;
    else if ((code >= CHAR_ZERO && code <= CHAR_NINE) || code === DOT) table[code] = KEY_LATER;
  }
  return table;
})();

/** May `key` stand unquoted as an object key, field name or entry key (§7.3)? */
function isUnquotedKey(key: string): boolean {
  // A loop rather than a regular expression: keys are short, and for short strings the call
  // into the regular expression engine costs more than the scan itself.
  const length = key.length;
  if (length === 0) return false;
  const first = key.charCodeAt(0);
  if (first >= 128 || KEY_CODES[first] !== KEY_START) return false;
  for (let i = 1; i < length; i++) {
    const code = key.charCodeAt(i);
    if (code >= 128 || KEY_CODES[code] === 0) return false;
  }
  return true;
}

/**
 * `JSON.stringify` of a string writes §7.1's escapes (`\\`, `\"`, `\n`, `\r`, `\t`, and
 * `\u00xx` in lower-case hex for the other control characters) with three exceptions: U+0008 and
 * U+000C as `\b` and `\f`, and an unpaired surrogate as `\udxxx`. {@link jsonQuotedUnless} looks for
 * those in the source string (two native character searches and a well-formedness check, far
 * cheaper than a scan of JSON's text for two-character sequences) and, in the rare text that has
 * one, rewrites JSON's escapes that start with `\\`, `\b`, `\f` or `\ud8`-`\udf`, left to right
 * (a `\\b` is an escaped backslash and a `b`, which the left-to-right match keeps apart).
 */
const JSON_ESCAPE = /\\(?:\\|[bf]|u(d[89a-f][0-9a-f]{2}))/g;
/** A character §7.1 escapes. */
const NEEDS_ESCAPE = /["\\\x00-\x1f]/;

/** The §7.1 form of one match of {@link JSON_ESCAPE}; an unpaired surrogate stays as it is. */
function toonEscape(sequence: string, surrogate: string | undefined): string {
  if (surrogate !== undefined) return String.fromCharCode(Number.parseInt(surrogate, 16));
  return sequence === '\\b' ? '\\u0008' : sequence === '\\f' ? '\\u000c' : sequence;
}

/**
 * Wraps `value` in double quotes with the §7.1 escapes. With `refuse`, an unpaired surrogate is
 * refused as that kind of text (see {@link assertWellFormed}).
 */
function quote(value: string, refuse?: 'key' | 'string'): string {
  return quoteUnlessJson(value, refuse) ?? JSON.stringify(value);
}

/** {@link quote}, or `undefined` when its text is exactly `JSON.stringify(value)`. */
function quoteUnlessJson(value: string, refuse?: 'key' | 'string'): string | undefined {
  if (NEEDS_ESCAPE.test(value)) return jsonQuotedUnless(value, refuse);
  // Nothing to escape (a URL, a time of day): the marks alone, without the serializer's set-up.
  if (refuse !== undefined) assertWellFormed(value, refuse);
  return `"${value}"`;
}

/**
 * {@link quote}, or `undefined` when `JSON.stringify(value)` is its quoted text exactly (the
 * engine's serializer finds and writes the escapes in one native pass, at any length): when the
 * value holds no U+0008, U+000C or unpaired surrogate, the only characters JSON writes otherwise.
 */
function jsonQuotedUnless(value: string, refuse?: 'key' | 'string'): string | undefined {
  if (value.isWellFormed()) {
    if (value.indexOf('\b') === -1 && value.indexOf('\f') === -1) return undefined;
  } else if (refuse !== undefined) {
    assertWellFormed(value, refuse);
  }
  return JSON.stringify(value).replace(JSON_ESCAPE, toonEscape);
}

/**
 * `JSON.stringify` of each of `values`, from one call: for short strings the call's set-up costs
 * more than the escaping, and the encoder quotes the strings of a whole document together (see
 * {@link encodeStringUnlessJson}). JSON writes an array of strings as `["a","b"]`: the seam
 * between two of them is a `","` whose first quote is not escaped (a string's own `\",` can be
 * followed by its closing quote).
 *
 * @example
 * jsonStrings(['say "hi"', '",', 'a\nb']); // ['"say \\"hi\\""', '"\\","', '"a\\nb"']
 */
export function jsonStrings(values: readonly string[]): string[] {
  const json = JSON.stringify(values);
  const texts: string[] = new Array(values.length);
  const last = values.length - 1;
  let start = 1; // the opening quote of values[i]
  for (let i = 0; i < last; i++) {
    // Its text is at least as long as the value and its quotes: the search starts at the
    // earliest place the closing quote can be, so it looks at the escapes only.
    let close = json.indexOf('","', start + values[i]!.length + 1);
    while (isEscaped(json, close)) close = json.indexOf('","', close + 1);
    texts[i] = json.slice(start, close + 1);
    start = close + 2;
  }
  texts[last] = json.slice(start, json.length - 1);
  return texts;
}

/** Is `json[at]` escaped, that is preceded by an odd number of backslashes? */
function isEscaped(json: string, at: number): boolean {
  let backslashes = 0;
  while (json.charCodeAt(at - 1 - backslashes) === CHAR_BACKSLASH) backslashes++;
  return (backslashes & 1) === 1;
}

/**
 * Escapes `value` for use inside double quotes (§7.1): backslash, quote, `\n`, `\r`, `\t`, and
 * the other control characters as `\u00XX`. The reference implementation's `escapeString`
 * (an unpaired surrogate, which the encoder refuses, is left as it is, as there).
 *
 * @example
 * escapeString('say "hi"\n'); // 'say \\"hi\\"\\n'
 * rawString(`"${escapeString(text)}"`); // a quoted string, whatever `text` holds
 */
export function escapeString(value: string): string {
  const quoted = quote(value);
  return quoted.length === value.length + 2 ? value : quoted.slice(1, -1);
}

/** A key as the encoder writes it: bare when §7.3 allows, quoted otherwise. */
export function encodeKey(key: string): string {
  return isUnquotedKey(key) ? key : quote(key, 'key');
}

/**
 * A string value as the encoder writes it, quoted only when §7.2 requires.
 *
 * @throws {TypeError} for a string with an unpaired surrogate (see below).
 * @example
 * encodeString('a,b', ','); // '"a,b"'
 * encodeString('a,b', '|'); // 'a,b'
 */
export function encodeString(value: string, delimiter: Delimiter): string {
  return encodeStringUnlessJson(value, delimiter) ?? JSON.stringify(value);
}

/**
 * {@link encodeString}, or `undefined` when its text is exactly `JSON.stringify(value)`: a string
 * with §7.1 escapes (a quote, a line break) that JSON writes as TOON does, which is to say with
 * no U+0008, U+000C or unpaired surrogate. The encoder collects those and quotes them together
 * with {@link jsonStrings}.
 *
 * @throws {TypeError} for a string with an unpaired surrogate.
 * @example
 * encodeStringUnlessJson('a,b', ','); // '"a,b"'
 * encodeStringUnlessJson('say "hi"', ','); // undefined
 */
export function encodeStringUnlessJson(value: string, delimiter: Delimiter): string | undefined {
  if (value.length <= SHORT_STRING) {
    const text = encodeShortString(value, delimiter);
    if (text !== NOT_SHORT) return text;
  }
  const at = firstForcingQuotes(value, delimiter);
  if (at === -1) {
    // No character forces quotes, so none needs an escape either: quoted at most for its shape.
    assertWellFormed(value, 'string');
    return shapeNeedsQuotes(value) ? `"${value}"` : value;
  }
  // Text with escapes nearly always has one early on (a quote, a line break in a review): then
  // the search has already found it, and JSON's serializer is the only other pass. Text that
  // only has to be quoted (a URL after its colon) is looked through for escapes: quoting it here
  // costs less than handing it to JSON.
  const code = value.charCodeAt(at);
  return code === CHAR_QUOTE || code === CHAR_BACKSLASH || code < 0x20
    ? jsonQuotedUnless(value, 'string')
    : quoteUnlessJson(value, 'string');
}

/** What {@link encodeShortString} returns for a string it leaves to the general path. */
const NOT_SHORT: unique symbol = Symbol('toonwire.notShort');

/**
 * Strings up to this length are classified in one loop over a table: for them the call into the
 * regular expression engine costs more than the scan itself (as for keys; most cells of real
 * tables are short). Longer strings take the regular expressions, which stop at the first
 * character that forces quotes.
 */
const SHORT_STRING = 32;

/** Per ASCII code: what it asks of a string value (§7.2 quotes; §7.1 escapes, inside quotes). */
const PLAIN = 0;
const QUOTES = 1;
const ESCAPES = 2;

function quotingTable(delimiter: number | undefined): Uint8Array {
  const table = new Uint8Array(128);
  for (let code = 0; code < 0x20; code++) table[code] = ESCAPES;
  table[CHAR_QUOTE] = ESCAPES;
  table[CHAR_BACKSLASH] = ESCAPES;
  for (const code of [COLON, BRACKET_OPEN, BRACKET_CLOSE, BRACE_OPEN, BRACE_CLOSE]) {
    table[code] = QUOTES;
  }
  if (delimiter !== undefined) table[delimiter] = QUOTES; // the tab is a control character
  return table;
}

const QUOTING_COMMA = quotingTable(COMMA);
const QUOTING_PIPE = quotingTable(PIPE);
const QUOTING_TAB = quotingTable(undefined);

/**
 * {@link encodeStringUnlessJson} for a short string in one pass, with the same rules as its
 * general path; {@link NOT_SHORT} for a string holding a surrogate (paired or not), which the
 * general path checks.
 */
function encodeShortString(
  value: string,
  delimiter: Delimiter,
): string | undefined | typeof NOT_SHORT {
  const table = delimiter === ',' ? QUOTING_COMMA : delimiter === '|' ? QUOTING_PIPE : QUOTING_TAB;
  const length = value.length;
  let asks = PLAIN;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x80) {
      const ask = table[code]!;
      if (ask > asks) asks = ask;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      return NOT_SHORT;
    }
  }
  if (asks === ESCAPES) return jsonQuotedUnless(value);
  // No escapes needed, so quoting is just the two marks.
  return asks === QUOTES || shapeNeedsQuotes(value) ? `"${value}"` : value;
}

/**
 * TOON is UTF-8 text (§1.2), which cannot carry an unpaired surrogate, and §7.1 forbids
 * escaping one; written as is, it would turn into U+FFFD on the wire. So encoding refuses it
 * (as the reference implementation does), and the picker ships JSON, which escapes it losslessly.
 */
function assertWellFormed(value: string, what: 'key' | 'string'): void {
  if (value.isWellFormed()) return;
  const index = loneSurrogateAt(value);
  const code = value.charCodeAt(index).toString(16).toUpperCase();
  throw new TypeError(
    `cannot encode a ${what} with an unpaired surrogate (U+${code} at index ${index} of ${JSON.stringify(value.slice(0, 40))}): TOON is UTF-8 text and cannot carry it; repair the text (for example with toWellFormed()) or send JSON`,
  );
}

/**
 * The index of the first unpaired surrogate in `value`, or -1 when it is well-formed Unicode.
 * The encoder refuses such strings, and the strict decoder such documents (§1.2, §7.1).
 *
 * @example
 * loneSurrogateAt('a\ud800b'); // 1
 * loneSurrogateAt('😀'); // -1
 */
export function loneSurrogateAt(value: string): number {
  if (value.isWellFormed()) return -1;
  return value.search(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
}

/**
 * A finite number in canonical form (§2). JavaScript's own shortest round-trip formatting already
 * avoids exponents exactly on the canonical range [1e-6, 1e21) and writes `e-7` / `e+21` with an
 * explicit sign outside it, so only -0 and non-finite values need care.
 *
 * @example
 * formatNumber(-0); // '0'
 * formatNumber(1e21); // '1e+21'
 */
export function formatNumber(value: number): string {
  if (value === 0) return '0'; // also -0
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * A root primitive as the encoder writes it: like any primitive, except that a string starting
 * with U+FEFF is quoted (§7.2 allows quoting any string). Bare, that character would be the
 * document's first, and a byte decoder takes a leading U+FEFF for a byte order mark and drops
 * it; quoted, the document starts with `"` and the string survives a trip through bytes.
 *
 * @example
 * encodeRootPrimitive('\uFEFFhi', ','); // '"\uFEFFhi"'
 */
export function encodeRootPrimitive(value: JsonPrimitive, delimiter: Delimiter): string {
  if (typeof value === 'string' && value.charCodeAt(0) === BOM) return quote(value, 'string');
  return encodePrimitive(value, delimiter);
}

/** Encodes any primitive for a position whose relevant delimiter is `delimiter`. */
export function encodePrimitive(value: JsonPrimitive, delimiter: Delimiter): string {
  return encodePrimitiveUnlessJson(value, delimiter) ?? JSON.stringify(value);
}

/**
 * {@link encodePrimitive}, or `undefined` for a string whose text is exactly
 * `JSON.stringify(value)` (see {@link encodeStringUnlessJson}).
 *
 * @example
 * encodePrimitiveUnlessJson(1.5, ','); // '1.5'
 * encodePrimitiveUnlessJson('a\nb', ','); // undefined
 */
export function encodePrimitiveUnlessJson(
  value: JsonPrimitive,
  delimiter: Delimiter,
): string | undefined {
  // `typeof value === '...'` tests rather than a switch on `typeof value`: the engine folds each
  // test into a type check, while the switch computes the type's name first (a call per cell).
  if (typeof value === 'string') return encodeStringUnlessJson(value, delimiter);
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  // null, or a RawString (which isPrimitive admits): its text goes out verbatim.
  return value === null ? 'null' : (value as unknown as RawString).value;
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Why a quoted token could not be read; the decoder turns this into a ToonDecodeError. */
export class QuotedTokenError extends Error {
  /** Offset in the scanned text where the problem is. */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

function hexValue(c: number): number {
  if (c >= CHAR_ZERO && c <= CHAR_NINE) return c - CHAR_ZERO;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** The result of {@link readQuoted}: the unescaped text and the offset just past the closing quote. */
export interface QuotedToken {
  value: string;
  end: number;
}

/**
 * The length of the §7.1 escape whose backslash is at `text[at]` (2, or 6 for `\uXXXX`), or 0
 * when it is not one TOON allows (an unknown escape, a short `\u`, a `\u` naming a surrogate,
 * or one cut off by `end`). {@link readQuoted} says why.
 *
 * @example
 * escapeLengthAt('a\\nb', 1, 4); // 2
 * escapeLengthAt('\\u00e9', 0, 6); // 6
 * escapeLengthAt('\\x', 0, 2); // 0
 */
export function escapeLengthAt(text: string, at: number, end: number): number {
  if (at + 1 >= end) return 0;
  const next = text.charCodeAt(at + 1);
  if (
    next === CHAR_BACKSLASH ||
    next === CHAR_QUOTE ||
    next === 0x6e || // n
    next === 0x72 || // r
    next === 0x74 // t
  ) {
    return 2;
  }
  if (next !== 0x75 || at + 6 > end) return 0; // u, with its four digits on the line
  let code = 0;
  for (let k = 2; k <= 5; k++) {
    const digit = hexValue(text.charCodeAt(at + k));
    if (digit < 0) return 0;
    code = code * 16 + digit;
  }
  return code >= 0xd800 && code <= 0xdfff ? 0 : 6;
}

/**
 * The value of the quoted token `text[start, close]` (both quotes included) whose escapes are all
 * valid ({@link escapeLengthAt} checked each one). §7.1's escapes are a subset of JSON's, so the
 * engine's own JSON string reader resolves them in one native pass; a token JSON refuses (a raw
 * control character, which TOON allows inside quotes) is resolved by {@link readQuoted}.
 *
 * @example
 * unescapeQuoted('"a\\"b"', 0, 5); // 'a"b'
 */
export function unescapeQuoted(text: string, start: number, close: number): string {
  try {
    return JSON.parse(text.slice(start, close + 1)) as string;
  } catch {
    return readQuoted(text, start, close + 1).value;
  }
}

/**
 * Reads the quoted string that opens at `text[start]` (a `"`), unescaping per §7.1. Throws
 * {@link QuotedTokenError} on an unknown escape, a short or surrogate `\u` escape, or a missing
 * closing quote before `end` (the decoder passes the end of the current line, so an unterminated
 * string can never swallow the lines after it). A string without escapes is one slice of `text`;
 * one with escapes is built from slices and a bounded buffer, in memory close to its own size.
 */
export function readQuoted(text: string, start: number, end: number = text.length): QuotedToken {
  let built: TextBuilder | null = null;
  let runStart = start + 1;
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === CHAR_QUOTE) {
      if (built === null) return { value: text.slice(runStart, i), end: i + 1 };
      built.run(text, runStart, i);
      return { value: built.finish(), end: i + 1 };
    }
    if (c !== CHAR_BACKSLASH) continue;
    built ??= new TextBuilder();
    built.run(text, runStart, i);
    const next = i + 1 < end ? text.charCodeAt(i + 1) : Number.NaN;
    switch (next) {
      case CHAR_BACKSLASH:
      case CHAR_QUOTE:
        built.unit(next);
        break;
      case 0x6e: // n
        built.unit(LF);
        break;
      case 0x72: // r
        built.unit(CR);
        break;
      case 0x74: // t
        built.unit(CHAR_TAB);
        break;
      case 0x75: {
        // u
        let code = 0;
        for (let k = 2; k <= 5; k++) {
          const digit = i + k < end ? hexValue(text.charCodeAt(i + k)) : -1;
          if (digit < 0) {
            throw new QuotedTokenError(
              'a \\u escape needs exactly four hex digits, as in \\u00e9; write a backslash itself as \\\\',
              i,
            );
          }
          code = code * 16 + digit;
        }
        if (code >= 0xd800 && code <= 0xdfff) {
          throw new QuotedTokenError(
            `\\u${text.slice(i + 2, i + 6)} is a lone surrogate; write the character itself instead`,
            i,
          );
        }
        built.unit(code);
        i += 4;
        break;
      }
      default:
        if (Number.isNaN(next))
          throw new QuotedTokenError('unterminated string: add the closing "', start);
        throw new QuotedTokenError(
          `invalid escape \\${text[i + 1]}; only \\\\ \\" \\n \\r \\t and \\uXXXX are allowed`,
          i,
        );
    }
    i += 1;
    runStart = i + 1;
  }
  throw new QuotedTokenError('unterminated string: add the closing "', start);
}

// ---------------------------------------------------------------------------------------------
// Scalar typing (§4), read in place from the document text

/** Exact powers of ten: every 10^k with k <= 22 is representable in a float64. */
const EXACT_POWERS_OF_TEN: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** 2^53: integers below it are exact in a float64. */
const EXACT_INTEGER_LIMIT = 2 ** 53;

/**
 * Types the already trimmed, unquoted token `text[start, end)` per §4 without slicing it first:
 * `true`, `false`, `null`, numbers (the §4 grammar, leading zeros excepted), else the token as a
 * string; the empty token is the empty string (§11.2). The number grammar is checked by char
 * codes (a property test pins it to the spec's regular expression) and the value is computed
 * exactly when the digits fit in
 * 2^53 and the decimal exponent in ±22 (one IEEE multiplication or division of two exact values
 * is correctly rounded), falling back to `Number()` for everything else.
 *
 * A number token that a double cannot hold (`1e400`) is handed to `beyondDouble`, whose result
 * is the token's value: by default the token itself, its lossless decimal string.
 *
 * @example
 * parseUnquotedRange('a: 1.5', 3, 6); // 1.5
 * parseUnquotedRange('1e400', 0, 5); // '1e400'
 * parseUnquotedRange('1e400', 0, 5, Number); // Infinity
 */
export function parseUnquotedRange(
  text: string,
  start: number,
  end: number,
  beyondDouble: BeyondDouble = keepToken,
): JsonPrimitive {
  const length = end - start;
  if (length === 0) return '';
  const first = text.charCodeAt(start);
  if (first === CHAR_MINUS || (first >= CHAR_ZERO && first <= CHAR_NINE))
    return parseNumberRange(text, start, end, beyondDouble);
  if (length === 4) {
    if (first === 0x74 && text.startsWith('true', start)) return true;
    if (first === 0x6e && text.startsWith('null', start)) return null;
  } else if (length === 5 && first === 0x66 && text.startsWith('false', start)) {
    return false;
  }
  return text.slice(start, end);
}

/** A token starting with `-` or a digit: its number when it fits the §4 grammar, else the text. */
function parseNumberRange(
  text: string,
  start: number,
  end: number,
  beyondDouble: BeyondDouble,
): JsonPrimitive {
  let p = start;
  const negative = text.charCodeAt(p) === CHAR_MINUS;
  if (negative) p++;
  const integerStart = p;
  let mantissa = 0;
  let c = text.charCodeAt(p);
  while (p < end && c >= CHAR_ZERO && c <= CHAR_NINE) {
    mantissa = mantissa * 10 + (c - CHAR_ZERO);
    c = text.charCodeAt(++p);
  }
  const integerDigits = p - integerStart;
  if (integerDigits === 0) return text.slice(start, end);
  // "05", "-0001": a leading zero followed by another digit makes the token a string.
  if (integerDigits > 1 && text.charCodeAt(integerStart) === CHAR_ZERO)
    return text.slice(start, end);
  let fractionDigits = 0;
  if (p < end && c === DOT) {
    const fractionStart = ++p;
    c = text.charCodeAt(p);
    while (p < end && c >= CHAR_ZERO && c <= CHAR_NINE) {
      mantissa = mantissa * 10 + (c - CHAR_ZERO);
      c = text.charCodeAt(++p);
    }
    fractionDigits = p - fractionStart;
    if (fractionDigits === 0) return text.slice(start, end);
  }
  let exponent = 0;
  if (p < end && (c === 0x65 || c === 0x45)) {
    c = text.charCodeAt(++p);
    let exponentNegative = false;
    if (c === CHAR_PLUS || c === CHAR_MINUS) {
      exponentNegative = c === CHAR_MINUS;
      c = text.charCodeAt(++p);
    }
    const exponentStart = p;
    while (p < end && c >= CHAR_ZERO && c <= CHAR_NINE) {
      if (exponent < 100_000) exponent = exponent * 10 + (c - CHAR_ZERO);
      c = text.charCodeAt(++p);
    }
    if (p === exponentStart) return text.slice(start, end);
    if (exponentNegative) exponent = -exponent;
  }
  if (p !== end) return text.slice(start, end);

  const scale = exponent - fractionDigits;
  if (mantissa < EXACT_INTEGER_LIMIT && scale >= -22 && scale <= 22) {
    const value =
      scale >= 0 ? mantissa * EXACT_POWERS_OF_TEN[scale]! : mantissa / EXACT_POWERS_OF_TEN[-scale]!;
    if (value === 0) return 0; // -0 decodes to 0
    return negative ? -value : value;
  }
  const token = text.slice(start, end);
  const value = Number(token);
  if (value === 0) return 0;
  // Out of the float64 domain (1e400): by default the token stays its own lossless decimal string.
  return Number.isFinite(value) ? value : beyondDouble(token);
}

/**
 * What an unquoted number token that a double cannot hold decodes to, given the token (§4 lets
 * a decoder choose). The codec keeps the token ({@link keepToken}); the HTTP layer reads it as
 * `JSON.parse` does, ±Infinity.
 */
export type BeyondDouble = (token: string) => JsonPrimitive;

/** The codec's {@link BeyondDouble}: the token itself, lossless. */
export function keepToken(token: string): JsonPrimitive {
  return token;
}
