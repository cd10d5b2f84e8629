// Byte input (spec §4): UTF-8, decoded with a fatal decoder in strict mode so ill-formed bytes are
// an error instead of a silent U+FFFD. A leading byte order mark is removed here and only here:
// it is an artifact of how bytes were stored, while in a string (already decoded text) U+FEFF is
// a character like any other, and stripping it there loses data (`decode(encode('\ufeffhi'))`).

import * as codes from './char-codes.js';
import { reasons } from './decode/messages.js';
import { ToonDecodeError } from './errors.js';

// Copied into module constants once: imported bindings are live (getter calls under some
// loaders, tsx among them), and these are read for every character.
const { LF } = codes;

// Made on first use, so that string-only callers in hosts without TextDecoder never need one.
let fatalDecoder: TextDecoder | undefined;
let lenientDecoder: TextDecoder | undefined;
const fatal = (): TextDecoder =>
  (fatalDecoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }));
const lenient = (): TextDecoder =>
  (lenientDecoder ??= new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }));

/**
 * Is `value` a `Uint8Array` (a Node `Buffer` included), from this realm or another one? Bytes
 * made by a host's `TextEncoder`, an iframe or a `vm` context fail `instanceof Uint8Array`.
 *
 * @example
 * isBytes(new TextEncoder().encode('a: 1')); // true
 * isBytes('a: 1'); // false
 */
export function isBytes(value: unknown): value is Uint8Array {
  return (
    value instanceof Uint8Array ||
    (ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]')
  );
}

/**
 * Decodes `bytes` as UTF-8 text, without a leading byte order mark. In strict mode ill-formed
 * UTF-8 (invalid or truncated sequences, encoded surrogates, overlong forms) throws a
 * {@link ToonDecodeError} naming the byte offset; otherwise it becomes U+FFFD.
 *
 * @example
 * decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), true); // 'a'
 * decodeUtf8(new Uint8Array([0x61, 0xff]), true); // throws: ... byte offset 1 ...
 */
export function decodeUtf8(bytes: Uint8Array, strict: boolean): string {
  const start = hasBom(bytes) ? 3 : 0;
  const body = start === 0 ? bytes : bytes.subarray(start);
  if (!strict) return lenient().decode(body);
  try {
    return fatal().decode(body);
  } catch {
    throw illFormed(bytes, firstIllFormed(bytes, start));
  }
}

/**
 * The text of `bytes`, well-formed UTF-8 that starts a document (`atDocumentStart`) or continues
 * one: a byte order mark is dropped only where the document starts, as {@link decodeUtf8} drops
 * it; anywhere else EF BB BF is the character U+FEFF, which counts in a column like any other.
 *
 * @example
 * textOfBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), true); // 'a'
 * textOfBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]), false); // '\ufeffa'
 */
export function textOfBytes(bytes: Uint8Array, atDocumentStart: boolean): string {
  return lenient().decode(atDocumentStart && hasBom(bytes) ? bytes.subarray(3) : bytes);
}

function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** The error for ill-formed UTF-8 at byte `offset`, with its line and column. */
export function illFormed(bytes: Uint8Array, offset: number): ToonDecodeError {
  let line = 1;
  let lineStart = hasBom(bytes) ? 3 : 0;
  for (let i = lineStart; i < offset; i++) {
    if (bytes[i] === LF) {
      line++;
      lineStart = i + 1;
    }
  }
  const before = lenient().decode(bytes.subarray(lineStart, offset));
  const column = [...before].length + 1;
  const shown = bytes[offset]?.toString(16).toUpperCase().padStart(2, '0');
  return new ToonDecodeError(reasons.illFormedUtf8(offset, shown), line, column, { offset });
}

/**
 * Offset of the first byte that does not start or continue a well-formed UTF-8 sequence
 * (Unicode Table 3-7), from `from`; `bytes.length` for a sequence truncated by the end. Only
 * called after the platform decoder has already failed, so it favours clarity over speed.
 */
export function firstIllFormed(bytes: Uint8Array, from = 0): number {
  const length = bytes.length;
  let i = from;
  while (i < length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      else if (b === 0xed) high = 0x9f; // U+D800..U+DFFF are not scalar values
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      else if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= length) return i;
      const c = bytes[i + k]!;
      if (c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += need + 1;
  }
  return length;
}
