// Request bodies as bytes, for frameworks that do not read them (Koa, node:http): a size limit
// and gzip/deflate/br inflation, the two things body-parser gives JSON bodies, so a TOON body
// meets the same limits and encodings as its JSON twin. node:zlib is loaded only for an encoded
// body, so importing this module costs nothing on runtimes without it.
import { contentCoding, payloadTooLarge } from './body.js';
import { HttpProblem } from './problem.js';

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** Largest body in bytes, after inflation (as body-parser counts). Default 1 MiB (koa-bodyparser's JSON limit). */
  limit?: number;
  /** The request's Content-Encoding: none, `identity`, `gzip` (`x-gzip`), `deflate` or `br`. Anything else is a 415. */
  encoding?: string | null;
  /** The request's Content-Length: an unencoded body declared over the limit is refused before it is read. */
  length?: string | number | null;
}

/** 1 MiB: the default limit of {@link readBody}. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const INFLATERS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;
type Inflater = (typeof INFLATERS)[number];

function unsupportedEncoding(encoding: string): HttpProblem {
  return new HttpProblem({
    status: 415,
    detail: `Content-Encoding ${encoding} is not supported. Send the body as it is, or gzip, deflate or br encoded.`,
  });
}

// One chunk is returned as it is; several are joined once.
function join(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** What {@link readBody} reads from: a Node request, a web stream, an array of chunks. */
export type BodySource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

function iterate(
  source: BodySource,
): AsyncIterator<Uint8Array | string> | Iterator<Uint8Array | string> {
  return Symbol.asyncIterator in source
    ? source[Symbol.asyncIterator]()
    : (source as Iterable<Uint8Array | string>)[Symbol.iterator]();
}

// Chunks up to the limit. Past it, reading stops without ending the source: breaking out of a
// Node request's iterator would destroy its socket before the 413 could be sent; Node discards
// the unread rest once the response is finished.
async function collect(source: BodySource, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const encoder = new TextEncoder();
  const iterator = iterate(source);
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const bytes = typeof next.value === 'string' ? encoder.encode(next.value) : next.value;
    total += bytes.length;
    if (total > limit) throw payloadTooLarge(limit);
    chunks.push(bytes);
  }
  return join(chunks, total);
}

async function inflate(source: BodySource, encoding: Inflater, limit: number): Promise<Uint8Array> {
  const zlib = await import('node:zlib');
  const inflater =
    encoding === 'br'
      ? zlib.createBrotliDecompress()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : zlib.createGunzip();
  // Fed by hand rather than piped, so a failure never destroys the source (see collect).
  const feed = async (): Promise<void> => {
    const iterator = iterate(source);
    for (;;) {
      const next = await iterator.next();
      if (next.done || inflater.destroyed) break;
      if (!inflater.write(next.value)) {
        await new Promise((resolve) => {
          inflater.once('drain', resolve);
          inflater.once('close', resolve);
        });
      }
    }
    if (!inflater.destroyed) inflater.end();
  };
  feed().catch((error: unknown) => inflater.destroy(error as Error));
  try {
    return await collect(inflater, limit);
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    const code = (error as { code?: unknown }).code;
    // zlib's own errors say the bytes are not what the header claims; others (the client went
    // away mid-body) are not the body's fault and propagate as they are.
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw new HttpProblem({
        status: 400,
        detail: `The request body is not valid ${encoding} data, as its Content-Encoding says it is. Send it encoded as declared.`,
      });
    }
    throw error;
  } finally {
    if (!inflater.destroyed) inflater.destroy();
  }
}

/**
 * Did reading a body fail because the client closed the connection before all of it arrived? A
 * Node request then fails with 'aborted' (ECONNRESET) and is left `readableAborted`, and a web
 * `Request` read from it (@hono/node-server's) fails with that error. body-parser answers this
 * with a 400 ("request aborted"); as anything else it would be a 500, logged as a server error
 * for every upload a client gave up on. `source` is what was read, if it can tell.
 *
 * @example
 * abortedByClient(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })); // true
 */
export function abortedByClient(error: unknown, source?: unknown): boolean {
  if (error instanceof HttpProblem) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'ECONNRESET' ||
    code === 'ECONNABORTED' ||
    (source as { readableAborted?: unknown } | undefined)?.readableAborted === true
  );
}

/**
 * The 400 for a body the client stopped sending ({@link abortedByClient}).
 *
 * @example
 * bodyEndedEarly().status; // 400
 */
export function bodyEndedEarly(): HttpProblem {
  return new HttpProblem({
    status: 400,
    detail:
      'The request body ended early: the connection closed before all of it arrived. Send the whole body again.',
  });
}

/**
 * Reads a request body to its bytes with a size limit, inflating gzip, deflate and br bodies as
 * body-parser does for JSON: a body over `limit` (after inflation) is a 413 {@link HttpProblem},
 * an unknown Content-Encoding a 415, bytes that are not what the encoding says a 400, and a
 * body the client stopped sending (it closed the connection mid-body) a 400 too. `source` is
 * anything that yields the body's chunks: a Node `IncomingMessage` (`ctx.req` in Koa), a web
 * `ReadableStream`, an array of chunks.
 *
 * @example
 * const bytes = await readBody(ctx.req, {
 *   limit: 1024 * 1024,
 *   encoding: ctx.get('Content-Encoding'),
 *   length: ctx.get('Content-Length'),
 * });
 * ctx.request.body = decodeToonBody(bytes);
 * await readBody([new TextEncoder().encode('a: 1')]); // Uint8Array of 'a: 1'
 */
export async function readBody(
  source: BodySource,
  options: ReadBodyOptions = {},
): Promise<Uint8Array> {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const encoding = contentCoding(options.encoding);
  if (encoding === 'identity') {
    const declared = Number(options.length ?? Number.NaN);
    if (declared > limit) throw payloadTooLarge(limit);
  } else if (!(INFLATERS as readonly string[]).includes(encoding)) {
    throw unsupportedEncoding(encoding);
  }
  try {
    return await (encoding === 'identity'
      ? collect(source, limit)
      : inflate(source, encoding as Inflater, limit));
  } catch (error) {
    if (!abortedByClient(error, source)) throw error;
    throw bodyEndedEarly();
  }
}
