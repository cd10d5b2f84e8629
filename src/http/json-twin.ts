// A TOON request body read as its JSON twin would be. The codec keeps an unquoted number that a
// double cannot hold (`1e400`) as its own decimal string: spec §4 lets a decoder choose, and
// lossless is right for data interchange. JSON.parse reads the same number as ±Infinity, and
// validators treat the two apart: Ajv's coerceTypes (Fastify's default) turns the string "1e400"
// into Infinity without checking it, while it refuses the number Infinity. So the HTTP layer
// reads such numbers as JSON does, and a TOON body meets exactly the checks its JSON twin meets.
// Only unquoted tokens are numbers: a quoted "1e400" stays a string in both formats.
import { decode } from '../codec/decode.js';
import { setOwn } from '../codec/objects.js';
import type { JsonObject, JsonValue } from '../codec/types.js';

// RFC 8259 §6. TOON's number grammar (§4) is the same, with `e` in either case and leading zeros
// making a string in TOON where JSON has no token at all, so a string matching this came from a
// number token or from quotes, never from another unquoted token.
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

// A maximal run of the characters numbers are written with. Every unquoted number token is one:
// tokens end at spaces, delimiters, colons and line ends, none of which can continue a number.
// (A quoted one is one too; other runs, inside longer strings or keys, do not matter.) Matching
// runs and looking them up keeps the probe linear in the text, however many numbers it holds.
const NUMBER_RUN = /-?[0-9][0-9.eE+-]*/g;

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

function collectOverflowing(value: JsonValue, found: Set<string>): void {
  if (typeof value === 'string') {
    if (overflowsDouble(value)) found.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectOverflowing(item, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) collectOverflowing(value[key] as JsonValue, found);
  }
}

/** One string of the decoded body to replace by the number JSON reads. */
type Update = [container: JsonObject | JsonValue[], key: string | number, number: number];

// Walks the body and the probe together (the same documents up to token contents, so the same
// shape) and lists the strings that were unquoted: the probe has a number where they stood.
// False when the shapes differ, which a probe that changed structure would show.
function findUnquoted(
  value: JsonValue,
  probe: JsonValue,
  found: ReadonlySet<string>,
  updates: Update[],
): boolean {
  if (Array.isArray(value)) {
    if (!Array.isArray(probe) || probe.length !== value.length) return false;
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      if (typeof item === 'string' && found.has(item)) {
        if (typeof probe[i] === 'number') updates.push([value, i, Number(item)]);
      } else if (!findUnquoted(item, probe[i]!, found, updates)) return false;
    }
    return true;
  }
  if (typeof value !== 'object' || value === null) return true;
  if (typeof probe !== 'object' || probe === null || Array.isArray(probe)) return false;
  // The probe's keys may differ from the body's (a key can contain a replaced number), but their
  // order is the same: keys that look like array indices, which JavaScript lists first, are never
  // made or unmade by the probe (its numbers have a fraction).
  const keys = Object.keys(value);
  const probed = Object.values(probe);
  if (probed.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const item = value[keys[i]!] as JsonValue;
    if (typeof item === 'string' && found.has(item)) {
      if (typeof probed[i] === 'number') updates.push([value, keys[i]!, Number(item)]);
    } else if (!findUnquoted(item, probed[i] as JsonValue, found, updates)) return false;
  }
  return true;
}

// The shortest run of nines that `text` does not contain: it starts every probe number, so no
// probe number is already in the text, nor two of them alike.
function absentNines(text: string): string {
  let nines = '9';
  while (text.includes(nines)) nines += '9';
  return nines;
}

/**
 * Reads the numbers of a decoded TOON body as JSON.parse reads them: an unquoted number that a
 * double cannot hold becomes ±Infinity instead of the codec's lossless decimal string, so the
 * body is exactly what its JSON twin parses to. Quoted strings are kept. `source` gives the TOON
 * text, asked for only when the body holds such a string (the common case costs one walk).
 *
 * The strings that came from quotes are found by decoding the text again with every such number
 * replaced by an in-range one (one pass over the text): where the number was unquoted, the probe
 * decodes a number. A body
 * whose probe fails to decode (keys built from several such numbers, that the replacement makes
 * alike) keeps the codec's strings.
 *
 * @example
 * readNumbersAsJson({ q: '1e400' }, () => 'q: 1e400'); // { q: Infinity }
 * readNumbersAsJson({ q: '1e400' }, () => 'q: "1e400"'); // { q: '1e400' }
 */
export function readNumbersAsJson(value: JsonValue, source: () => string): JsonValue {
  const found = new Set<string>();
  collectOverflowing(value, found);
  if (found.size === 0) return value;
  const text = source();
  const nines = absentNines(text);
  const probeOf = new Map([...found].map((number, i) => [number, `${nines}${i}.5`]));
  let probe: JsonValue;
  try {
    probe = decode(
      text.replace(NUMBER_RUN, (run) => probeOf.get(run) ?? run),
      { strict: true },
    );
  } catch {
    return value;
  }
  if (typeof value === 'string') return typeof probe === 'number' ? Number(value) : value;
  const updates: Update[] = [];
  if (!findUnquoted(value, probe, found, updates)) return value;
  for (const [container, key, number] of updates) {
    if (Array.isArray(container)) container[key as number] = number;
    else setOwn(container, key as string, number);
  }
  return value;
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
