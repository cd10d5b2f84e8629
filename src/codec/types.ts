/** A JSON primitive: what a TOON scalar token decodes to. */
export type JsonPrimitive = string | number | boolean | null;
/** A JSON object. Keys keep their insertion order. */
export interface JsonObject {
  [key: string]: JsonValue;
}
/** A JSON array. */
export type JsonArray = JsonValue[];
/** Any value of the JSON data model, which is exactly TOON's data model (spec §2). */
export type JsonValue = JsonPrimitive | JsonObject | JsonArray;

/**
 * A JSON array that may be `readonly` (an `as const` literal, a `ReadonlyArray` from immutable
 * state). {@link JsonArray} is what `decode` returns, an array you may change; this is the type
 * to give data you pass in, which toonwire never changes.
 *
 * @example
 * const tags = ['a', 'b'] as const;
 * const value: ReadonlyJsonValue = { tags }; // a JsonValue would refuse the readonly array
 * encode(value); // 'tags[2]: a,b'
 */
export type ReadonlyJsonArray = readonly ReadonlyJsonValue[];
/** A JSON object whose properties may be `readonly`, at any depth; see {@link ReadonlyJsonArray}. */
export interface ReadonlyJsonObject {
  readonly [key: string]: ReadonlyJsonValue;
}
/**
 * Any JSON value, readonly at any depth: every {@link JsonValue} is one, and so is every value of
 * the reference implementation's `JsonValue` (whose arrays may be readonly). See
 * {@link ReadonlyJsonArray}.
 */
export type ReadonlyJsonValue = JsonPrimitive | ReadonlyJsonObject | ReadonlyJsonArray;

/** The three delimiters TOON knows (spec §11): comma (default), pipe, and tab. */
export type Delimiter = ',' | '|' | '\t';

/**
 * How `encode` writes a BigInt.
 * - `'auto'` (default, lossless): a safe integer becomes a number, anything larger becomes a
 *   quoted decimal string (spec Appendix F.2), so no digit is ever lost.
 * - `'string'`: always a quoted decimal string.
 * - `'throw'`: a `TypeError`, as `JSON.stringify` does.
 */
export type BigIntPolicy = 'auto' | 'string' | 'throw';

/**
 * Transforms or filters values while encoding, like `JSON.stringify`'s replacer but with the
 * path (the reference implementation's contract). Called for the root (`key` `''`, `path` `[]`)
 * and then for every property and element of what it returned, top-down, with normalized
 * values. Returning `undefined` omits the property or element (at the root: no change); any
 * other return value is normalized again and encoded in place of the original.
 */
export type EncodeReplacer = (
  key: string,
  value: JsonValue,
  path: readonly (string | number)[],
) => unknown;

/**
 * Options the reference implementation (`@toon-format/toon`) removed, which code written for it
 * still passes. Accepted and ignored by every entry point, as the reference 4.4.0 ignores them;
 * any other unknown option is a `TypeError`.
 */
export interface RemovedReferenceOptions {
  /** @deprecated Ignored: key folding left the spec in 4.0; dotted keys stay literal keys. */
  keyFolding?: 'off' | 'safe';
  /** @deprecated Ignored: went with key folding (spec 4.0). */
  flattenDepth?: number;
  /** @deprecated Ignored: path expansion left the spec in 4.0; dotted keys stay literal keys. */
  expandPaths?: 'off' | 'safe';
  /** @deprecated Ignored: the `[#N]` length marker left the spec in 2.0. */
  lengthMarker?: '#' | false;
}

/** Options of {@link encode} and `encodeLines`. Names follow the spec (§13). */
export interface EncodeOptions extends RemovedReferenceOptions {
  /** Document delimiter for tables and inline arrays: `','` (default), `'|'` or `'\t'`. */
  delimiter?: Delimiter;
  /** Spaces per indentation level, default 2. */
  indentSize?: number;
  /** @deprecated The reference implementation's old name of `indentSize`. */
  indent?: number;
  /**
   * Transforms or omits values on the way in; see {@link EncodeReplacer}. `null` (or `false`) is
   * no replacer, as for `JSON.stringify` and the reference.
   */
  replacer?: EncodeReplacer | null | false | undefined;
  /** BigInt policy, default `'auto'` (lossless). A toonwire extension. */
  bigint?: BigIntPolicy;
}

/**
 * Encode options with their defaults applied: every option `encode` reads, under its spec name
 * (`indent` folded into `indentSize`, no replacer as `undefined`). The reference implementation's
 * type of the same name, plus toonwire's `bigint`; an object of this type is valid
 * {@link EncodeOptions} too.
 *
 * @example
 * const defaults: ResolvedEncodeOptions = { indentSize: 2, delimiter: ',', bigint: 'auto' };
 * encode({ a: [1, 2] }, defaults); // 'a[2]: 1,2'
 */
export interface ResolvedEncodeOptions {
  readonly indentSize: number;
  readonly delimiter: Delimiter;
  readonly replacer?: EncodeReplacer | undefined;
  /** Optional here so that an object written for the reference's type is one of these too. */
  readonly bigint?: BigIntPolicy;
}

/** Options of {@link decode} and the stream decoders. Names follow the spec (§13). */
export interface DecodeOptions extends RemovedReferenceOptions {
  /** Enforce every strict-mode rule of spec §14 (default `true`). */
  strict?: boolean;
  /** Spaces per indentation level, default 2. */
  indentSize?: number;
  /** @deprecated The reference implementation's old name of `indentSize`. */
  indent?: number;
  /**
   * Deepest nesting accepted before failing with a `ToonDecodeError` (default 1000, the root
   * container being level 1). A toonwire extension.
   */
  maxDepth?: number;
}

/**
 * Decode options with their defaults applied (`indent` folded into `indentSize`): the reference
 * implementation's type of the same name, plus toonwire's `maxDepth`; an object of this type is
 * valid {@link DecodeOptions} too.
 *
 * @example
 * const lenient: ResolvedDecodeOptions = { indentSize: 2, strict: false };
 * decode('a[2]: 1', lenient); // { a: [1] }
 */
export interface ResolvedDecodeOptions {
  readonly indentSize: number;
  readonly strict: boolean;
  /** Optional here so that an object written for the reference's type is one of these too. */
  readonly maxDepth?: number;
}

/** Options of `decodeStream` and `decodeStreamSync` (the same as {@link DecodeOptions}). */
export type DecodeStreamOptions = DecodeOptions;

/**
 * One event of the stream decoders, the reference implementation's shape: a depth-first walk
 * of the decoded value. Every `key` event is followed by the events of that key's value.
 */
export type JsonStreamEvent =
  | { type: 'startObject' }
  | { type: 'endObject' }
  | { type: 'startArray'; length: number }
  | { type: 'endArray' }
  | { type: 'key'; key: string }
  | { type: 'primitive'; value: JsonPrimitive };
