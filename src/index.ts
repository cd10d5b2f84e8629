// toonwire: the portable core. Everything exported here uses only web-standard APIs, so it runs
// in Node, Workers, Deno, Bun, browsers and sandboxed isolates alike.

// The codec: the reference implementation's (@toon-format/toon) public surface, same names.
export { DEFAULT_DELIMITER, DELIMITERS, type DelimiterKey } from './codec/constants.js';
export { decodeStream, decodeStreamSync, type StreamInput } from './codec/decode/stream.js';
export { decode, decodeFromLines } from './codec/decode.js';
export { encode, encodeLines } from './codec/encode.js';
export {
  type ReferenceErrorContext,
  ToonDecodeError,
  type ToonDecodeErrorContext,
} from './codec/errors.js';
export { escapeString } from './codec/lexical.js';
export { type RawString, rawString } from './codec/raw-string.js';
export type {
  BigIntPolicy,
  DecodeOptions,
  DecodeStreamOptions,
  Delimiter,
  EncodeOptions,
  EncodeReplacer,
  JsonArray,
  JsonObject,
  JsonPrimitive,
  JsonStreamEvent,
  JsonValue,
  ReadonlyJsonArray,
  ReadonlyJsonObject,
  ReadonlyJsonValue,
  RemovedReferenceOptions,
  ResolvedDecodeOptions,
  ResolvedEncodeOptions,
} from './codec/types.js';
export * from './compact/index.js';
