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

/** Options of {@link encode}. Names follow the spec (§13). */
export interface EncodeOptions {
  /** Document delimiter for tables and inline arrays: `','` (default), `'|'` or `'\t'`. */
  delimiter?: Delimiter;
  /** Spaces per indentation level, default 2. */
  indentSize?: number;
  /** BigInt policy, default `'auto'` (lossless). */
  bigint?: BigIntPolicy;
}

/** Options of {@link decode}. Names follow the spec (§13). */
export interface DecodeOptions {
  /** Enforce every strict-mode rule of spec §14 (default `true`). */
  strict?: boolean;
  /** Spaces per indentation level, default 2. */
  indentSize?: number;
  /** Deepest nesting accepted before failing with a `ToonDecodeError` (default 1000). */
  maxDepth?: number;
}
