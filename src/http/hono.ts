// toonwire/hono: TOON content negotiation as Hono middleware. Handlers keep calling c.json(obj)
// and c.req.json() (validators included); errors become negotiated problem documents. Only
// web-standard APIs are used, so it runs wherever Hono runs.
import type { Context, ErrorHandler, MiddlewareHandler, Next, NotFoundHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  type AnnouncedBody,
  announcedBody,
  assertToonCharset,
  decodeToonBody,
  payloadTooLarge,
  unsupportedMediaType,
} from './body.js';
import { jsonText } from './json-twin.js';
import {
  clientTags,
  decidedOnDataTags,
  hideTagsOfOtherFormats,
  holdsTag,
  namesFile,
  notAcceptableProblem,
  notFoundProblem,
  notModified,
  responseFormat,
  restoreTags,
  retagForToon,
  retagNotModified,
} from './kit.js';
import {
  appendVary,
  isToonContentType,
  JSON_CONTENT_TYPE,
  matchesMediaType,
  TOON_MEDIA_TYPE,
} from './media-types.js';
import { acceptsFormat } from './negotiate.js';
import { HttpProblem } from './problem.js';
import { abortedByClient, bodyEndedEarly } from './read-body.js';
import { renderBody, renderProblem } from './render.js';
import { type ResponseFormat, type ToonHttpOptions, ToonSettings } from './settings.js';

/** Options of the Hono middleware. */
export interface ToonHonoOptions extends ToonHttpOptions {
  /**
   * Largest request body in bytes, JSON and TOON alike (Hono has no default limit). Enforced
   * with Hono's own body-limit middleware, answering a negotiated 413 problem; use this instead
   * of a separate `bodyLimit()` so both formats get the same answer. Default: no limit.
   */
  maxSize?: number;
  /**
   * Refuse request bodies of any other Content-Type with a 415 problem: the types the API reads
   * besides `text/toon` (exact media types, `type/*` or `*\/*`). Default: none refused; other
   * bodies reach the handlers untouched (`c.req.parseBody()`, `c.req.arrayBuffer()`, ...).
   */
  bodyTypes?: readonly string[];
  /**
   * Leave a request out of negotiation: its `c.json` answers JSON and its errors (through
   * `onError`) JSON problems, for example `(c) => c.req.path === '/openapi.json'`.
   */
  skip?: (c: Context) => boolean;
}

/** The middleware, with its live settings and the handlers to give `app.onError` and `app.notFound`. */
export interface ToonHonoMiddleware extends MiddlewareHandler {
  /** Live negotiation settings: assign `defaultFormat` or `delimiter` to change them at runtime. */
  readonly settings: ToonSettings;
  /**
   * For `app.onError`: answers every error with a negotiated problem document, its `headers` on
   * the response. Call it from your own `onError` for the errors you do not answer yourself.
   */
  readonly onError: ErrorHandler;
  /** For `app.notFound`: a negotiated 404 problem document. */
  readonly notFound: NotFoundHandler;
}

// Requests `skip` selects are marked on their Context, which onError and notFound receive too
// (the Request is not: a TOON body replaces it).
const SKIPPED = Symbol('toonwire.skipped');
// The ETag (or null) of the answer c.json built, for revalidatedBelow.
const BUILT_ETAG = Symbol('toonwire.builtEtag');
type MarkedContext = Context & { [SKIPPED]?: boolean; [BUILT_ETAG]?: string | null };

function problemResponse(c: Context, error: unknown, settings: ToonSettings): Response {
  const forced: ResponseFormat | undefined =
    (c as MarkedContext)[SKIPPED] === true ? 'json' : undefined;
  const rendered = renderProblem(error, {
    accept: c.req.header('accept'),
    settings,
    instance: c.req.path,
    ...(forced === undefined ? {} : { format: forced }),
  });
  const headers = new Headers(rendered.headers);
  headers.set('content-type', rendered.contentType);
  headers.set('vary', 'Accept');
  return new Response(rendered.body, { status: rendered.status, headers });
}

// c.req.json(), c.req.valid('json') and validator('json') all read through c.req: replacing the
// request with a JSON one lets them work unchanged. The TOON bytes are read from raw directly, not
// through c.req.text(), whose cache would later be parsed as JSON, and decoded by the codec with a
// fatal UTF-8 decoder. An empty TOON body is `{}`, as in every adapter.
//
// The decoded value is handed over as it is: c.req.json() returns it on its first call, instead
// of the value being written as JSON text only for Hono to parse that text back (for a body of
// 70,000 keys that round trip cost as much as the decode). Later calls decode the bytes again, so
// each call gets a fresh copy as JSON.parse gives one. The replacement request's body is that JSON
// text (jsonText: numbers beyond a double stay numbers), written only if something reads it
// (c.req.text(), c.req.arrayBuffer(), c.req.raw itself).
async function replaceToonBody(c: Context): Promise<void> {
  const raw = c.req.raw;
  const bytes = new Uint8Array(await raw.arrayBuffer());
  const value = decodeToonBody(bytes, { contentEncoding: raw.headers.get('content-encoding') });
  const headers = new Headers(raw.headers);
  headers.set('content-type', JSON_CONTENT_TYPE);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  // highWaterMark 0: a stream pulls to fill its queue as soon as it is made, unless it holds none.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(jsonText(decodeToonBody(bytes))));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  // duplex: web-standard for a stream body (Node's fetch requires it; others ignore it).
  c.req.raw = new Request(raw, { body, headers, duplex: 'half' } as RequestInit);
  let handedOver = false;
  c.req.json = (() => {
    if (handedOver) return Promise.resolve(decodeToonBody(bytes));
    handedOver = true;
    return Promise.resolve(value);
  }) as Context['req']['json'];
}

// HTTP/1.1 announces a body with Content-Length or Transfer-Encoding; HTTP/2 and some runtimes
// stream bodies with neither, so a declared Content-Type on a request with a body stream counts
// as a body too.
function bodyOf(raw: Request, contentType: string | null): AnnouncedBody {
  const length = raw.headers.get('content-length');
  const encoding = raw.headers.get('transfer-encoding');
  if (length !== null || encoding !== null) return announcedBody(length, encoding);
  // Content-Type first: reading `body` makes @hono/node-server build the full Request.
  return contentType !== null && raw.body !== null ? 'some' : 'none';
}

// @hono/node-server sends a response whose body is still a string without streaming it; changing
// its headers in place keeps it that way, while c.header() on a finished response rebuilds it
// around a body stream. Headers of a fetched response are immutable: those are rebuilt.
function setHeader(c: Context, response: Response, name: string, value: string): void {
  try {
    response.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

function addVary(c: Context, response: Response): void {
  setHeader(c, response, 'vary', appendVary(response.headers.get('vary')));
}

// hono/etag mounted after this middleware reads If-None-Match before the handler runs, so it saw
// the data's tags (showDataTags) and cannot match the tag it computes from the TOON bytes. When
// the answer c.json built got its ETag below (etag middleware, after the render) and the client's
// own header holds that tag, the answer is the 304 that middleware would have sent: the client
// holds the representation it would get now. Headers kept as hono/etag keeps them on its 304s.
function revalidatedBelow(c: Context): void {
  const held = clientTags(c);
  const built = (c as MarkedContext)[BUILT_ETAG];
  if (held === undefined || built === undefined) return;
  const response = c.res;
  const etag = response.headers.get('etag');
  if (response.status !== 200 || etag === null || etag === built || !holdsTag(held, etag)) return;
  void response.body?.cancel();
  const headers = new Headers();
  for (const name of HEADERS_OF_NOT_MODIFIED) {
    const value = response.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  // Unset first: assigning over a response merges its headers into the new one.
  c.res = undefined;
  c.res = new Response(null, { status: 304, headers });
}

/** What a 304 carries of its 200 (RFC 9110, section 15.4.5), as hono/etag keeps it. */
const HEADERS_OF_NOT_MODIFIED = [
  'cache-control',
  'content-location',
  'date',
  'etag',
  'expires',
  'vary',
] as const;

// A request negotiated as TOON shows the handler the If-None-Match of its data's tags (kit.ts,
// hideTagsOfOtherFormats), through c.req.header, which handlers and hono/etag read it with: a
// check against the data's tag then answers 304 only for the TOON answer's tag. The client's
// header is back once c.json renders, or the handler answered otherwise, for etag() to compare
// the tag of what is sent.
function showDataTags(c: Context, settings: ToonSettings): void {
  let ifNoneMatch = c.req.header('if-none-match');
  hideTagsOfOtherFormats(
    c,
    ifNoneMatch,
    () => responseFormat(c.req.header('accept'), settings.defaultFormat, 200),
    (value) => {
      ifNoneMatch = value;
    },
  );
  if (!decidedOnDataTags(c)) return;
  const header = c.req.header.bind(c.req) as (name?: string) => unknown;
  c.req.header = ((name?: string) => {
    if (name === undefined) {
      const all = header() as Record<string, string>;
      if (ifNoneMatch !== undefined) all['if-none-match'] = ifNoneMatch;
      return all;
    }
    return name.toLowerCase() === 'if-none-match' ? ifNoneMatch : header(name);
  }) as Context['req']['header'];
}

// Does a HeadersInit given to c.json name a header (`name` in lower case)? In any of its three
// forms: a Headers, an array of [name, value] pairs, or a record.
function namesHeader(headers: unknown, name: string): boolean {
  if (typeof headers !== 'object' || headers === null) return false;
  if (headers instanceof Headers) return headers.has(name);
  if (Array.isArray(headers))
    return headers.some((pair) => Array.isArray(pair) && String(pair[0]).toLowerCase() === name);
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

type JsonArguments = [object: unknown, arg?: unknown, headers?: Record<string, string | string[]>];

// c.json(obj) answers in the negotiated format straight from obj: the one response the
// middleware negotiates. Everything else (c.body, c.text, streams, new Response(...), c.json
// with an explicit Content-Type) is the handler's own bytes and is left alone, so compress,
// etag and streaming work whatever the middleware order.
function negotiatingJson(c: Context, settings: ToonSettings): Context['json'] {
  // Hono keeps c.status(...) and the headers c.header(...) prepares private: note them on the way
  // in. Asking Hono for them instead (c.res, or a response built to read them and thrown away)
  // costs a Response per answer, and a second build appends the Set-Cookie of c.json's
  // ResponseInit to the prepared headers twice.
  let statusSet: number | undefined;
  const setStatus = c.status;
  c.status = (status) => {
    statusSet = status;
    setStatus(status);
  };
  let fileNamed = false;
  const setHeader = c.header;
  c.header = ((name: string, value?: string, options?: { append?: boolean }) => {
    if (name.toLowerCase() === 'content-disposition') fileNamed = value !== undefined;
    setHeader(name, value as string, options);
  }) as Context['header'];
  const json = c.json as (...args: JsonArguments) => Response;
  const body = c.body as (
    data: string | null,
    arg?: unknown,
    headers?: Record<string, string | string[]>,
  ) => Response;
  const negotiating = (...[object, arg, headers]: JsonArguments): Response => {
    const init = (arg as { headers?: unknown } | undefined)?.headers;
    if (namesHeader(headers, 'content-type') || namesHeader(init, 'content-type'))
      return json(object, arg, headers);
    const accept = c.req.header('accept');
    // A redirect or error status the handler set (c.json(obj, 404)) is kept whatever Accept says.
    const status =
      typeof arg === 'number'
        ? arg
        : ((arg as ResponseInit | undefined)?.status ?? statusSet ?? 200);
    const format = responseFormat(accept, settings.defaultFormat, status);
    if (!notModified(status)) restoreTags(c);
    if (format === undefined) return problemResponse(c, notAcceptableProblem(), settings);
    let response: Response;
    if (
      format === 'json' ||
      // A file the handler named (c.header('Content-Disposition', ...), or in c.json's headers):
      // its bytes stay JSON, as in the other adapters, and no TOON is rendered to be thrown away.
      fileNamed ||
      namesHeader(headers, 'content-disposition') ||
      namesHeader(init, 'content-disposition')
    ) {
      response = json(object, arg, headers);
    } else {
      const rendered = renderBody(object, format, settings.delimiter, {
        jsonAcceptable: () => acceptsFormat(accept, 'json'),
      });
      // One response, built by Hono as c.json builds it (status, prepared and given headers).
      response = body(rendered.body, arg, { ...headers, 'Content-Type': rendered.contentType });
      const responseHeaders = response.headers;
      if (namesFile(responseHeaders.get('content-disposition'))) {
        // Named by middleware mounted before this one, before the note above was in place: rare,
        // and answered as JSON from the headers already built (building again would repeat them).
        responseHeaders.set('content-type', JSON_CONTENT_TYPE);
        response = new Response(JSON.stringify(object), {
          status: response.status,
          headers: responseHeaders,
        });
      } else if (rendered.format === 'toon') {
        // An ETag the handler set names the JSON representation, not this one.
        retagForToon(
          responseHeaders.get('etag'),
          (etag) => responseHeaders.set('etag', etag),
          () => responseHeaders.delete('etag'),
        );
      }
    }
    addVary(c, response);
    if (clientTags(c) !== undefined)
      (c as MarkedContext)[BUILT_ETAG] = response.headers.get('etag');
    return response;
  };
  return negotiating as Context['json'];
}

/**
 * The Hono middleware. Mount it with `app.use` before the routes, and give its `onError` (and,
 * if you like, `notFound`) to the app:
 * - `c.json(obj)` answers in TOON (`text/toon; charset=utf-8`) or JSON as `Accept` asks, with
 *   `Vary: Accept`; every other response (streams, `c.body`, `new Response`, `c.json` with an
 *   explicit Content-Type, requests `skip(c)` selects) passes untouched; a client refusing both
 *   formats gets a 406 problem;
 * - `text/toon` request bodies are decoded strictly and the request is replaced by its JSON
 *   equivalent, so `c.req.json()` and `validator('json', ...)` see the same data as for JSON;
 *   ill-formed UTF-8 and malformed TOON are 400 problems, over `maxSize` a 413 for both formats;
 *   other bodies are left to the handlers unless `bodyTypes` lists what to accept (then 415);
 * - `onError` renders every error as an RFC 9457 problem document in the negotiated format
 *   (without it, Hono's default handler still sends an `HttpProblem` with its status and
 *   headers, as JSON, through `HttpProblem.getResponse()`).
 *
 * @example
 * import { Hono } from 'hono';
 * import { toon } from 'toonwire/hono';
 *
 * const app = new Hono();
 * const negotiation = toon({ maxSize: 1024 * 1024, skip: (c) => c.req.path === '/openapi.json' });
 * app.use(negotiation);
 * app.onError(negotiation.onError);
 * app.notFound(negotiation.notFound);
 * app.get('/orders', (c) => c.json({ data: [{ id: 1, status: 'paid' }] }));
 * negotiation.settings.defaultFormat = 'toon'; // later, at runtime
 */
export function toon(options: ToonHonoOptions = {}): ToonHonoMiddleware {
  const settings = new ToonSettings(options);
  const accepted =
    options.bodyTypes === undefined ? undefined : [TOON_MEDIA_TYPE, ...options.bodyTypes];
  const { maxSize, skip } = options;
  const limit =
    maxSize === undefined
      ? undefined
      : bodyLimit({
          maxSize,
          onError: (c) => problemResponse(c, payloadTooLarge(maxSize), settings),
        });

  const negotiate = async (c: Context, next: Next): Promise<Response | undefined> => {
    const raw = c.req.raw;
    const skipped = skip?.(c) === true;
    if (skipped) (c as MarkedContext)[SKIPPED] = true;
    const contentType = raw.headers.get('content-type');
    const method = c.req.method;
    const toonBody = isToonContentType(contentType);
    // A GET or HEAD Request never has a body; looking would make @hono/node-server build it.
    if (method !== 'GET' && method !== 'HEAD' && (accepted !== undefined || toonBody)) {
      const body = bodyOf(raw, contentType);
      // An empty body is refused for nothing, but an empty TOON body is decoded, for parity.
      if (accepted !== undefined && body === 'some' && !matchesMediaType(contentType, accepted))
        return problemResponse(c, unsupportedMediaType(contentType, accepted), settings);
      if (toonBody && body !== 'none') {
        try {
          assertToonCharset(contentType);
          await replaceToonBody(c);
        } catch (error) {
          // A client that closed the connection mid-body gets the 400 body-parser gives (Hono
          // would answer a 500 and log it); anything else that is not a malformed body propagates.
          if (abortedByClient(error)) return problemResponse(c, bodyEndedEarly(), settings);
          if (!(error instanceof HttpProblem)) throw error;
          return problemResponse(c, error, settings);
        }
      }
    }
    if (!skipped) {
      c.json = negotiatingJson(c, settings);
      showDataTags(c, settings);
    }
    try {
      await next();
    } catch (thrown) {
      // Hono hands only Errors to onError and rethrows anything else (`throw 'x'`), which
      // @hono/node-server answers with an empty 500: answer it with a problem, as every other
      // adapter does, and log it as Hono's own error handler logs what it answers.
      if (thrown instanceof Error) throw thrown;
      console.error(thrown);
      return problemResponse(c, thrown, settings);
    }
    // A 304 the handler or etag middleware below answers (c.body(null, 304)) never went through
    // c.json: it gets `Vary: Accept` here, and the TOON answer's tag when the handler decided it
    // on the data's tags.
    if (!skipped && notModified(c.res.status)) {
      const response = c.res;
      addVary(c, response);
      retagNotModified(c, response.headers.get('etag'), (etag) =>
        setHeader(c, response, 'etag', etag),
      );
    } else {
      restoreTags(c);
      if (!skipped) revalidatedBelow(c);
    }
    return undefined;
  };

  const middleware: MiddlewareHandler = (c, next) => {
    const method = c.req.method;
    if (limit === undefined || method === 'GET' || method === 'HEAD') return negotiate(c, next);
    return limit(c, async () => {
      const early = await negotiate(c, next);
      if (early !== undefined) c.res = early;
    });
  };

  const onError: ErrorHandler = (error, c) => {
    // An HTTPException built with its own Response is the app's explicit answer: keep it.
    const custom = error as { res?: unknown; getResponse?: () => Response };
    if (
      !(error instanceof HttpProblem) &&
      custom.res !== undefined &&
      typeof custom.getResponse === 'function'
    )
      return custom.getResponse();
    const response = problemResponse(c, error, settings);
    if (response.status >= 500) console.error(error);
    return response;
  };

  const notFound: NotFoundHandler = (c) =>
    problemResponse(c, notFoundProblem(c.req.method, c.req.path), settings);

  return Object.assign(middleware, { settings, onError, notFound });
}

export default toon;
export { HttpProblem, validationProblem } from './problem.js';
export { type ToonHttpOptions, ToonSettings } from './settings.js';
