// One validator for the options of every codec entry point. Unknown options are a TypeError, not
// silently ignored: a migration from another TOON library that passes an option toonwire does not
// know (a misspelt `replacer` that was meant to drop a password) must fail loudly. The options the
// reference implementation removed (key folding and path expansion, spec 4.0; the length marker,
// spec 2.0) are known, and ignored by every entry point, as the reference 4.4.0 ignores them: code
// written for it still passes them (`keyFolding: 'safe'` was in 6 of the first 10 public call
// sites a code search found).

import { DEFAULT_INDENT_SIZE, DEFAULT_MAX_DEPTH, DELIMITERS } from './constants.js';
import type {
  BigIntPolicy,
  DecodeOptions,
  Delimiter,
  EncodeOptions,
  EncodeReplacer,
  ResolvedDecodeOptions,
  ResolvedEncodeOptions,
} from './types.js';

/** Encode options after validation, defaults applied: the public resolved type, all of it set. */
export interface EncodeSettings extends ResolvedEncodeOptions {
  readonly replacer: EncodeReplacer | undefined;
  readonly bigint: BigIntPolicy;
}

/** Decode options after validation, defaults applied: the public resolved type, all of it set. */
export interface DecodeSettings extends ResolvedDecodeOptions {
  readonly maxDepth: number;
}

/** Options the reference removed; accepted and ignored, whatever their value. */
export const REMOVED_OPTIONS = [
  'keyFolding',
  'flattenDepth',
  'expandPaths',
  'lengthMarker',
] as const;
const ENCODE_KEYS = ['delimiter', 'indentSize', 'indent', 'replacer', 'bigint'] as const;
const DECODE_KEYS = ['strict', 'indentSize', 'indent', 'maxDepth'] as const;
const REMOVED: readonly string[] = REMOVED_OPTIONS;
const DELIMITER_VALUES: readonly string[] = Object.values(DELIMITERS);
const BIGINT_POLICIES: readonly string[] = ['auto', 'string', 'throw'];

/** The settings of a call without options, built once: most calls pass none. */
const DEFAULT_ENCODE_SETTINGS: EncodeSettings = {
  delimiter: DELIMITERS.comma,
  indentSize: DEFAULT_INDENT_SIZE,
  replacer: undefined,
  bigint: 'auto',
};
const DEFAULT_DECODE_SETTINGS: DecodeSettings = {
  strict: true,
  indentSize: DEFAULT_INDENT_SIZE,
  maxDepth: DEFAULT_MAX_DEPTH,
};

function checkKeys(
  caller: string,
  options: object | undefined,
  known: readonly string[],
): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  // The reference reads any primitive as "no options"; a number here is more likely an indent
  // meant for JSON.stringify's third argument, which would be silently lost.
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(
      `${caller}: options must be an object such as { indentSize: 4 }, got ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key) && !REMOVED.includes(key)) {
      throw new TypeError(
        `${caller}: unknown option ${JSON.stringify(key)}; the known options are ${known.join(', ')}`,
      );
    }
  }
  return options as Record<string, unknown>;
}

/**
 * What a value is, for a message about an option that is wrong: its type and, for primitives,
 * the value itself (`the string "4"`, `NaN`, `an array`), as zod's "expected …, received …".
 *
 * @example
 * describeValue('4'); // 'the string "4"'
 * describeValue([]); // 'an array'
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value)}`;
    case 'number':
      return Number.isNaN(value) ? 'NaN' : `the number ${String(value)}`;
    case 'bigint':
      return `the bigint ${String(value)}n`;
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/**
 * `indentSize`, or its deprecated alias `indent`; a finite integer >= 1 either way. `null` is
 * "not given", as in the reference (`indentSize ?? indent ?? 2`).
 */
function indentSizeOf(caller: string, options: Record<string, unknown>): number {
  const given = options.indentSize ?? options.indent;
  if (given === undefined || given === null) return DEFAULT_INDENT_SIZE;
  const name = options.indentSize != null ? 'indentSize' : 'indent';
  // The reference takes any value here and writes what `' '.repeat(value)` makes of it: no
  // indentation at all for 0, NaN or a string that is no number, which reads back as other data.
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1) {
    throw new TypeError(
      `${caller}: ${name} must be a positive integer (spaces per level, such as 2 or 4), got ${describeValue(given)}`,
    );
  }
  return given;
}

/**
 * The `replacer` option: a function, or none. Like the reference (which tests the value's truth)
 * and `JSON.stringify`, `null`, `false` and the other falsy values mean "no replacer", so
 * `{ replacer: redact ? drop : null }` works; anything else that is no function is refused,
 * since the reference would throw "replacer is not a function" from inside the encode.
 */
function replacerOf(caller: string, replacer: unknown): EncodeReplacer | undefined {
  if (typeof replacer === 'function') return replacer as EncodeReplacer;
  if (!replacer) return undefined;
  const allowlist = Array.isArray(replacer)
    ? "; an array of keys (JSON.stringify's allow-list) is not supported here: return undefined from the function for the keys to drop"
    : '';
  throw new TypeError(
    `${caller}: replacer must be a function (key, value, path) => value, or null for none, got ${describeValue(replacer)}${allowlist}`,
  );
}

/**
 * Validates `encode`/`encodeLines` options.
 *
 * @example
 * resolveEncodeOptions('encode', { indent: 4 }).indentSize; // 4
 * resolveEncodeOptions('encode', { keyFolding: 'safe' }).indentSize; // 2 (removed option, ignored)
 * resolveEncodeOptions('encode', { indnet: 4 }); // TypeError: encode: unknown option "indnet"; ...
 */
export function resolveEncodeOptions(
  caller: string,
  options: EncodeOptions | undefined,
): EncodeSettings {
  if (options === undefined) return DEFAULT_ENCODE_SETTINGS;
  const given = checkKeys(caller, options, ENCODE_KEYS);
  const delimiter = given.delimiter ?? DELIMITERS.comma;
  if (typeof delimiter !== 'string' || !DELIMITER_VALUES.includes(delimiter)) {
    throw new TypeError(
      `${caller}: delimiter must be ',', '|' or '\\t' (tab), got ${describeValue(delimiter)}`,
    );
  }
  const bigint = given.bigint ?? 'auto';
  if (typeof bigint !== 'string' || !BIGINT_POLICIES.includes(bigint)) {
    throw new TypeError(
      `${caller}: bigint must be 'auto', 'string' or 'throw', got ${describeValue(bigint)}`,
    );
  }
  return {
    delimiter: delimiter as Delimiter,
    indentSize: indentSizeOf(caller, given),
    replacer: replacerOf(caller, given.replacer),
    bigint: bigint as BigIntPolicy,
  };
}

/**
 * Validates `decode` and stream-decoder options.
 *
 * @example
 * resolveDecodeOptions('decode', { strict: false }).maxDepth; // 1000
 * resolveDecodeOptions('decode', { indentSize: Infinity }); // TypeError
 */
export function resolveDecodeOptions(
  caller: string,
  options: DecodeOptions | undefined,
): DecodeSettings {
  if (options === undefined) return DEFAULT_DECODE_SETTINGS;
  const given = checkKeys(caller, options, DECODE_KEYS);
  const strict = given.strict ?? true;
  // The reference tests the value's truth, so `strict: 'false'` (from an environment variable
  // or a query string) would quietly be strict: a non-boolean is refused instead.
  if (typeof strict !== 'boolean') {
    throw new TypeError(`${caller}: strict must be true or false, got ${describeValue(strict)}`);
  }
  const maxDepth = given.maxDepth ?? DEFAULT_MAX_DEPTH;
  // Infinity is a deliberate "no limit" for trusted input; the call stack still bounds it.
  if (
    typeof maxDepth !== 'number' ||
    !(maxDepth === Number.POSITIVE_INFINITY || (Number.isInteger(maxDepth) && maxDepth >= 0))
  ) {
    throw new TypeError(
      `${caller}: maxDepth must be a non-negative integer or Infinity, got ${describeValue(maxDepth)}`,
    );
  }
  return { strict, indentSize: indentSizeOf(caller, given), maxDepth };
}
