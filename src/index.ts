// toonwire: the portable core. Everything exported here uses only web-standard APIs, so it runs
// in Node, Workers, Deno, Bun, browsers and sandboxed isolates alike.

export { decode } from './codec/decode.js';
export { encode } from './codec/encode.js';
export { ToonDecodeError } from './codec/errors.js';
export type {
  BigIntPolicy,
  DecodeOptions,
  Delimiter,
  EncodeOptions,
  JsonArray,
  JsonObject,
  JsonPrimitive,
  JsonValue,
} from './codec/types.js';
export * from './compact/index.js';
