// TOON v4.4 decoder (spec §4-§15): the public entry point. The work happens in decode/:
// lines.ts (line scanning: the line table, comments, blank lines, depths), tokens.ts (quoted
// tokens, keys, primitives, cells), header.ts (one immutable Header record per header line),
// reader.ts (line classification),
// messages.ts (every error reason) and tree.ts (the structural decoder). The stream decoders in
// decode/stream.ts reuse the same pieces.

import { BOM } from './char-codes.js';
import { reasons } from './decode/messages.js';
import { TreeDecoder } from './decode/tree.js';
import type { BeyondDouble } from './lexical.js';
import { keepToken } from './lexical.js';
import { resolveDecodeOptions } from './options.js';
import type { DecodeOptions, JsonValue } from './types.js';
import { decodeUtf8, isBytes } from './utf8.js';

/**
 * Decodes a TOON v4.4 document into a JSON value.
 *
 * Strict by default: declared lengths, row widths, indentation, delimiters, escapes, blank lines
 * inside arrays, duplicate keys, trailing root content and unpaired surrogates are all checked
 * (spec §14). `strict: false` keeps only the five recoveries of spec 4.4: declared counts are not
 * enforced, indentation depth is `floor(spaces / indentSize)` with a tab counting as one level, a
 * nested block's first line may sit more than one level deeper, blank lines inside arrays are
 * ignored, and duplicate keys resolve last-write-wins. Everything else (a malformed header, a
 * row of the wrong width, a line that belongs to no block, content after a root array) is an
 * error in both modes.
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
 *   `ToonDecodeError` whose `offset` is the byte offset). A leading byte order mark is dropped
 *   from both (spec 4.1), so a file read as text with one decodes like the file without; in
 *   strict mode a string with an unpaired surrogate is a `ToonDecodeError` at its line and
 *   column. CRLF line endings and comment lines (`# ...`) are accepted.
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
 *   // ToonDecodeError: Line 1: expected 3 values as declared by [3], found 2; ...
 * }
 */
export function decode(input: string | Uint8Array, options?: DecodeOptions): JsonValue {
  const { strict, indentSize, maxDepth } = resolveDecodeOptions('decode', options);
  // Text from bytes is well-formed already: strict mode decodes bytes with a fatal decoder.
  const checkText = strict && typeof input === 'string';
  return decodeText(textOf(input, strict), strict, indentSize, maxDepth, checkText, keepToken);
}

/** Internal ways to read a document differently from {@link decode}; see {@link decodeWith}. */
export interface DecodeHooks {
  /**
   * The value of an unquoted number token that a double cannot hold (`1e400`), given the token;
   * `decode` keeps the token, a lossless string. Quoted tokens never reach it.
   */
  beyondDouble?: BeyondDouble;
}

/**
 * {@link decode} with {@link DecodeHooks}, for the layers above the codec (not exported by the
 * package): the HTTP layer reads numbers beyond a double as `JSON.parse` does in the same one
 * decode, where telling an unquoted `1e400` from the quoted `"1e400"` afterwards took a second.
 *
 * @example
 * decodeWith('q: 1e400\ns: "1e400"', undefined, { beyondDouble: Number }); // { q: Infinity, s: '1e400' }
 */
export function decodeWith(
  input: string | Uint8Array,
  options: DecodeOptions | undefined,
  hooks: DecodeHooks,
): JsonValue {
  const { strict, indentSize, maxDepth } = resolveDecodeOptions('decode', options);
  const checkText = strict && typeof input === 'string';
  const beyondDouble = hooks.beyondDouble ?? keepToken;
  return decodeText(textOf(input, strict), strict, indentSize, maxDepth, checkText, beyondDouble);
}

/**
 * Decodes a document's text. `checkText` (strict string input): an unpaired surrogate is an
 * error, since Unicode text (§1.2, the §7.1 grammar) cannot hold one.
 */
function decodeText(
  text: string,
  strict: boolean,
  indentSize: number,
  maxDepth: number,
  checkText: boolean,
  beyondDouble: BeyondDouble,
): JsonValue {
  const decoder = new TreeDecoder(text, strict, indentSize, maxDepth);
  decoder.beyondDouble = beyondDouble;
  try {
    if (checkText) decoder.rejectLoneSurrogate();
    return decoder.decodeDocument();
  } catch (error) {
    // maxDepth keeps recursion far below the call stack limit, but a caller may raise maxDepth
    // (or call decode from an already deep stack); the contract still holds: a ToonDecodeError.
    if (error instanceof RangeError) {
      throw decoder.errorAtCursor(
        /call stack/i.test(error.message)
          ? reasons.stackTooDeep()
          : reasons.tooLarge(error.message),
      );
    }
    throw error;
  } finally {
    decoder.release();
  }
}

/**
 * The document text of a `decode` input without its byte order mark (spec 4.1: a leading U+FEFF
 * is no content): a string less a leading U+FEFF, bytes through the UTF-8 decoder (strict:
 * fatal) less a leading EF BB BF. Encoders quote a key or root string starting with U+FEFF, so
 * no value is lost.
 */
export function textOf(input: string | Uint8Array, strict: boolean): string {
  if (typeof input === 'string') return input.charCodeAt(0) === BOM ? input.slice(1) : input;
  if (isBytes(input)) return decodeUtf8(input, strict);
  throw new TypeError(
    `decode expects a string or a Uint8Array of UTF-8 bytes, got ${input === null ? 'null' : typeof input}`,
  );
}

/**
 * Decodes a document given as lines (without terminators), the reference implementation's
 * `decodeFromLines`: exactly `decode(lines.join('\n'), options)`, so the value and any error
 * (line numbers included) are the same as decoding the joined text.
 *
 * @example
 * decodeFromLines(['name: Ada', 'age: 30']); // { name: 'Ada', age: 30 }
 */
export function decodeFromLines(lines: Iterable<string>, options?: DecodeOptions): JsonValue {
  const { strict, indentSize, maxDepth } = resolveDecodeOptions('decodeFromLines', options);
  if (typeof lines === 'string') {
    throw new TypeError(
      "decodeFromLines expects an iterable of lines, got a string; pass text.split('\\n'), or use decode(text)",
    );
  }
  const all = Array.isArray(lines) ? (lines as string[]) : [...lines];
  for (const line of all) {
    if (typeof line !== 'string')
      throw new TypeError(`decodeFromLines expects strings, got ${typeof line}`);
  }
  const text = textOf(all.join('\n'), strict);
  return decodeText(text, strict, indentSize, maxDepth, strict, keepToken);
}
