// A TOON request body read as its JSON twin would be. The codec keeps an unquoted number that a
// double cannot hold (`1e400`) as its own decimal string: spec §4 lets a decoder choose, and
// lossless is right for data interchange. JSON.parse reads the same number as ±Infinity, and
// validators treat the two apart: Ajv's coerceTypes (Fastify's default) turns the string "1e400"
// into Infinity without checking it, while it refuses the number Infinity. So the HTTP layer
// reads such numbers as JSON does, and a TOON body meets exactly the checks its JSON twin meets.
// Only unquoted tokens are numbers: a quoted "1e400" stays a string in both formats.
import { decodeWith } from '../codec/decode.js';
import type { JsonValue } from '../codec/types.js';

// RFC 8259 §6. TOON's number grammar (§4) is the same, with `e` in either case and leading zeros
// making a string in TOON where JSON has no token at all, so a string matching this came from a
// number token or from quotes, never from another unquoted token.
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * Whether `text` is a JSON number that a double cannot hold, which JSON.parse reads as ±Infinity.
 *
 * @example
 * overflowsDouble('1e400'); // true
 * overflowsDouble('1e300'); // false
 * overflowsDouble('1e-400'); // false (JSON.parse reads 0, as the codec does)
 */
export function overflowsDouble(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first !== MINUS && (first < ZERO || first > NINE)) return false;
  return JSON_NUMBER.test(text) && !Number.isFinite(Number(text));
}

/** JSON.parse's reading of a number token beyond a double: ±Infinity. */
function asJsonReadsIt(token: string): number {
  return Number(token);
}

/**
 * Decodes a TOON body strictly, as its JSON twin parses: an unquoted number that a double cannot
 * hold is ±Infinity (the codec's `decode` keeps its decimal string), a quoted one stays a string.
 * One decode: the decoder reports such numbers at the token, where quoted and unquoted differ.
 * Throws the codec's `ToonDecodeError` for a malformed body.
 *
 * @example
 * decodeAsJsonTwin('q: 1e400'); // { q: Infinity }, as JSON.parse('{"q":1e400}')
 * decodeAsJsonTwin('q: "1e400"'); // { q: '1e400' }
 */
export function decodeAsJsonTwin(input: string | Uint8Array): JsonValue {
  return decodeWith(input, { strict: true }, { beyondDouble: asJsonReadsIt });
}

function hasNonFinite(value: JsonValue): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) if (hasNonFinite(value[key] as JsonValue)) return true;
  return false;
}

// JSON text with ±Infinity written as numbers JSON.parse reads back as ±Infinity.
function writeJson(value: JsonValue): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return value > 0 ? '1e999' : '-1e999';
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const members: string[] = [];
  for (const key of Object.keys(value))
    members.push(`${JSON.stringify(key)}:${writeJson(value[key] as JsonValue)}`);
  return `{${members.join(',')}}`;
}

/**
 * The JSON text of a decoded body, for frameworks that read bodies as JSON text (Hono): the same
 * as `JSON.stringify`, except that ±Infinity (see {@link readNumbersAsJson}) is written as a
 * number that JSON.parse reads back as ±Infinity, where `JSON.stringify` would write `null`.
 *
 * @example
 * jsonText({ q: Infinity }); // '{"q":1e999}'
 * jsonText({ q: 1 }); // '{"q":1}'
 */
export function jsonText(value: JsonValue): string {
  const text = JSON.stringify(value);
  // JSON.stringify writes a non-finite number as null; a text without one has none.
  return text.includes('null') && hasNonFinite(value) ? writeJson(value) : text;
}
