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
  /** Transforms or omits values on the way in; see {@link EncodeReplacer}. */
  replacer?: EncodeReplacer;
  /** BigInt policy, default `'auto'` (lossless). A toonwire extension. */
  bigint?: BigIntPolicy;
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
