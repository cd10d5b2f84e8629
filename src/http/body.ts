import { ToonDecodeError } from '../codec/errors.js';
import type { JsonValue } from '../codec/types.js';
import { decodeAsJsonTwin } from './json-twin.js';
import { contentTypeParameter, mediaTypeOf, TOON_MEDIA_TYPE } from './media-types.js';
import { HttpProblem } from './problem.js';

/** What to do with a prototype-poisoning key in a request body (Fastify's `onProtoPoisoning` values). */
export type PrototypeKeyAction = 'error' | 'remove' | 'ignore';

/** Options of {@link guardPrototypeKeys}: one action per kind of key, both `'error'` by default. */
export interface PrototypeKeyOptions {
  /** A `__proto__` key. */
  onProto?: PrototypeKeyAction;
  /** A `constructor` key whose value is an object with a `prototype` key. */
  onConstructor?: PrototypeKeyAction;
}

// Whether the ASCII `word` occurs in `source` (text, or UTF-8 bytes: an ASCII byte never occurs
// inside a multi-byte sequence). TOON has no escape that could spell a key another way.
function mentions(source: string | Uint8Array, word: string): boolean {
  if (typeof source === 'string') return source.includes(word);
  const first = word.charCodeAt(0);
  const last = source.length - word.length;
  for (
    let at = source.indexOf(first);
    at !== -1 && at <= last;
    at = source.indexOf(first, at + 1)
  ) {
    let i = 1;
    while (i < word.length && source[at + i] === word.charCodeAt(i)) i++;
    if (i === word.length) return true;
  }
  return false;
}

function guardWalk(
  value: JsonValue,
  onProto: PrototypeKeyAction,
  onConstructor: PrototypeKeyAction,
): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) guardWalk(item, onProto, onConstructor);
    return;
  }
  for (const key of Object.keys(value)) {
    const child = value[key] as JsonValue;
    const poisoned =
      (key === '__proto__' && onProto !== 'ignore') ||
      (key === 'constructor' &&
        onConstructor !== 'ignore' &&
        typeof child === 'object' &&
        child !== null &&
        Object.hasOwn(child, 'prototype'));
    if (!poisoned) {
      guardWalk(child, onProto, onConstructor);
      continue;
    }
    if ((key === '__proto__' ? onProto : onConstructor) === 'remove') {
      delete value[key];
      continue;
    }
    throw new HttpProblem({
      status: 400,
      detail: `The text/toon request body contains a forbidden "${key === '__proto__' ? '__proto__' : 'constructor.prototype'}" key. Remove it and send the request again.`,
    });
  }
}

/**
 * The prototype-key guard of Fastify's JSON parser, for decoded bodies of any format: a
 * `__proto__` key, or a `constructor` key holding a `prototype`, is a 400 {@link HttpProblem}
 * (`'error'`, the default), deleted (`'remove'`) or kept (`'ignore'`). The codec never lets such a
 * key reach a prototype (every key becomes an own property), but code downstream that merges or
 * copies the body might. With the `source` text or bytes, a body that mentions neither word is
 * not walked at all (one scan, as Fastify's secure-json-parse does). Returns `value`.
 *
 * @example
 * guardPrototypeKeys(decode('a: 1')); // { a: 1 }
 * guardPrototypeKeys(decode('__proto__:\n  admin: true')); // throws HttpProblem 400
 * guardPrototypeKeys(decode('__proto__: x\nb: 1'), { onProto: 'remove' }); // { b: 1 }
 */
export function guardPrototypeKeys(
  value: JsonValue,
  options: PrototypeKeyOptions = {},
  source?: string | Uint8Array,
): JsonValue {
  const onProto = options.onProto ?? 'error';
  const onConstructor = options.onConstructor ?? 'error';
  const proto = onProto !== 'ignore' && (source === undefined || mentions(source, '__proto__'));
  const prototypes =
    onConstructor !== 'ignore' && (source === undefined || mentions(source, 'prototype'));
  if (proto || prototypes)
    guardWalk(value, proto ? onProto : 'ignore', prototypes ? onConstructor : 'ignore');
  return value;
}

/** Options of {@link decodeToonBody}. */
export interface DecodeBodyOptions {
  /**
   * Prototype-poisoning keys ({@link guardPrototypeKeys}). Default: kept, as `JSON.parse` (and
   * so `express.json()` and Hono) keeps them; the Fastify and Koa adapters refuse them.
   */
  prototypeKeys?: PrototypeKeyOptions;
  /**
   * Refuse a body whose root is not an object or array, as `express.json()` does by default
   * (`strict`). Default `false`: any TOON document, as Fastify and Hono accept any JSON one.
   */
  containerRoot?: boolean;
  /**
   * The request's Content-Encoding, on a framework that reads bodies as they are sent (Fastify
   * and Hono; a plugin may have inflated the body and left the header): named in the problem
   * when the bytes are not UTF-8, since compressed bytes nobody inflated are the likely cause.
   */
  contentEncoding?: string | null;
}

/**
 * Decodes a `text/toon` request body strictly (declared lengths, table widths, indentation,
 * escapes and duplicate keys are all checked), so a handler receives exactly the data the same
 * body sent as JSON would give: an empty body is `{}` (what `decode('')` returns, and the JSON
 * body `{}`), and an unquoted number a double cannot hold is ±Infinity, as `JSON.parse` reads it
 * (the codec's own `decode` keeps it as its decimal string). Pass the raw bytes: ill-formed UTF-8
 * is then refused too, with the byte offset (an `offset` extension), instead of being replaced
 * by U+FFFD. A malformed body becomes a 400 {@link HttpProblem} whose detail names the line and
 * column, with `line` and `column` extensions for tools.
 *
 * @example
 * decodeToonBody(Buffer.from('items[1]{sku,quantity}:\n  TEA,2')); // { items: [{ sku: 'TEA', quantity: 2 }] }
 * decodeToonBody(''); // {}
 * decodeToonBody('quantity: 1e400'); // { quantity: Infinity }, as JSON.parse('{"quantity":1e400}')
 * decodeToonBody('sku: "1e400"'); // { sku: '1e400' }: quoted, a string in both formats
 * decodeToonBody('items[2]{sku}:\n  TEA'); // throws HttpProblem 400 "... line 2, column ...: ..."
 * decodeToonBody(Buffer.from([0x61, 0x3a, 0x20, 0xff])); // throws HttpProblem 400 "... byte offset 3 ..."
 * decodeToonBody(new Uint8Array([0x1f, 0x8b, 0x08]), { contentEncoding: 'gzip' }); // throws HttpProblem 400 "... declares Content-Encoding: gzip ..."
 * decodeToonBody('42', { containerRoot: true }); // throws HttpProblem 400 (primitive root)
 */
export function decodeToonBody(
  input: string | Uint8Array,
  options: DecodeBodyOptions = {},
): JsonValue {
  let value: JsonValue;
  try {
    value = decodeAsJsonTwin(input);
  } catch (error) {
    if (!(error instanceof ToonDecodeError)) throw error;
    if (error.offset !== undefined) {
      const encoding = contentCoding(options.contentEncoding);
      const advice =
        encoding === 'identity'
          ? 'Send the body encoded as UTF-8.'
          : `The request declares Content-Encoding: ${encoding}, and this server reads request bodies as they are sent, without inflating them: send the body unencoded.`;
      throw new HttpProblem({
        status: 400,
        detail: `The text/toon request body is not valid UTF-8 at byte offset ${error.offset} (line ${error.line}, column ${error.column}). ${advice}`,
        offset: error.offset,
        line: error.line,
        column: error.column,
      });
    }
    throw new HttpProblem({
      status: 400,
      detail: `The text/toon request body is malformed at line ${error.line}, column ${error.column}: ${error.reason}`,
      line: error.line,
      column: error.column,
    });
  }
  if (options.prototypeKeys !== undefined) guardPrototypeKeys(value, options.prototypeKeys, input);
  if (options.containerRoot && (typeof value !== 'object' || value === null)) {
    throw new HttpProblem({
      status: 400,
      detail:
        'The text/toon request body is a single primitive value; this API reads objects and arrays only (as for JSON bodies). Send key: value lines or an array.',
    });
  }
  return value;
}

/**
 * Throws a 415 {@link HttpProblem} unless a `text/toon` request declares UTF-8 or no charset:
 * TOON is UTF-8 by definition, and guessing another encoding would corrupt the data silently.
 *
 * @example
 * assertToonCharset('text/toon; charset=utf-8'); // ok
 * assertToonCharset('text/toon; charset=latin1'); // throws HttpProblem 415
 */
export function assertToonCharset(contentType: string | null | undefined): void {
  const charset = contentTypeParameter(contentType, 'charset');
  if (charset === undefined || /^utf-?8$/i.test(charset)) return;
  throw new HttpProblem({
    status: 415,
    detail: `TOON request bodies must be UTF-8, but the Content-Type declares charset=${charset}. Send the body as UTF-8 (or omit the charset).`,
  });
}

/**
 * A request's Content-Encoding header as one coding name, lower case: `'identity'` when there is
 * none.
 *
 * @example
 * contentCoding(' GZip '); // 'gzip'
 * contentCoding(undefined); // 'identity'
 */
export function contentCoding(header: string | null | undefined): string {
  return (header ?? '').trim().toLowerCase() || 'identity';
}

/**
 * The 415 problem for a request body whose Content-Type the API does not read.
 *
 * @example
 * unsupportedMediaType('application/xml', ['application/json', 'text/toon']);
 * // HttpProblem 415 "Content-Type application/xml is not supported. Send the body as application/json or text/toon."
 */
export function unsupportedMediaType(
  contentType: string | null | undefined,
  supported: readonly string[],
): HttpProblem {
  const given = mediaTypeOf(contentType);
  const list =
    supported.length <= 1
      ? supported.join('')
      : `${supported.slice(0, -1).join(', ')} or ${supported.at(-1)}`;
  return new HttpProblem({
    status: 415,
    detail: `${given === undefined ? 'A request body without a Content-Type' : `Content-Type ${given}`} is not supported. Send the body as ${list}.`,
  });
}

/**
 * The 413 problem for a request body over the configured limit.
 *
 * @example
 * payloadTooLarge(1024); // HttpProblem 413 "The request body is larger than the limit of 1024 bytes."
 */
export function payloadTooLarge(limitBytes?: number): HttpProblem {
  return new HttpProblem({
    status: 413,
    detail:
      limitBytes === undefined
        ? 'The request body is larger than this API accepts.'
        : `The request body is larger than the limit of ${limitBytes} bytes.`,
  });
}

/**
 * The request types Fastify reads out of the box, TOON added: named in its 415 problem. (The
 * Express and Hono adapters refuse nothing unless given `bodyTypes`.)
 */
export const DEFAULT_BODY_TYPES: readonly string[] = ['application/json', TOON_MEDIA_TYPE];

/** What a request's framing headers say about its body (see {@link announcedBody}). */
export type AnnouncedBody = 'none' | 'empty' | 'some';

/**
 * What a request's Content-Length and Transfer-Encoding headers announce: `'some'` for chunked
 * or a length other than 0, `'empty'` for `Content-Length: 0`, `'none'` without either header
 * (or with an empty Content-Length). A Content-Length that is not a number counts as `'some'`:
 * Node's HTTP parser answers such a request with a 400 before any app code runs, and elsewhere
 * (a hand-built `Request`) a body whose length cannot be read is not taken for no body.
 *
 * @example
 * announcedBody('12', undefined); // 'some'
 * announcedBody('0', undefined); // 'empty'
 * announcedBody(undefined, 'chunked'); // 'some'
 * announcedBody(undefined, undefined); // 'none'
 */
export function announcedBody(
  contentLength: string | null | undefined,
  transferEncoding: string | null | undefined,
): AnnouncedBody {
  if (transferEncoding != null) return 'some';
  const length = contentLength?.trim() ?? '';
  return length === '' ? 'none' : length === '0' ? 'empty' : 'some';
}

/**
 * Whether a request carries a body worth parsing, from its Content-Length and
 * Transfer-Encoding headers: chunked, or a length other than zero ({@link announcedBody} is
 * `'some'`). An empty body is never refused for its Content-Type, since there is nothing to read.
 *
 * @example
 * requestHasBody('0', undefined); // false
 * requestHasBody(undefined, 'chunked'); // true
 */
export function requestHasBody(
  contentLength: string | null | undefined,
  transferEncoding: string | null | undefined,
): boolean {
  return announcedBody(contentLength, transferEncoding) === 'some';
}
