// toonwire/hono: TOON content negotiation as Hono middleware. Handlers keep calling c.json(obj)
// and c.req.json() (validators included); errors become negotiated problem documents. Only
// web-standard APIs are used, so it runs wherever Hono runs.
import type { Context, ErrorHandler, MiddlewareHandler, Next, NotFoundHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  assertToonCharset,
  decodeToonBody,
  payloadTooLarge,
  requestHasBody,
  unsupportedMediaType,
} from './body.js';
import {
  appendVary,
  isToonContentType,
  JSON_CONTENT_TYPE,
  matchesMediaType,
  mediaTypeOf,
  TOON_MEDIA_TYPE,
} from './media-types.js';
import { negotiateFormat } from './negotiate.js';
import { HttpProblem } from './problem.js';
import { renderBody, renderProblem } from './render.js';
import { type ToonHttpOptions, ToonSettings } from './settings.js';

/** Options of the Hono middleware. */
export interface ToonHonoOptions extends ToonHttpOptions {
  /**
   * Largest request body in bytes, JSON and TOON alike (Hono has no default limit). Enforced
   * with Hono's own body-limit middleware, answering a negotiated 413 problem; use this instead
   * of a separate `bodyLimit()` so both formats get the same answer. Default: no limit.
   */
  maxSize?: number;
  /**
   * Request Content-Types the API reads besides `text/toon`: exact media types, `type/*` or
   * `*\/*`. A request body of any other type is refused with a 415 problem. Default
   * `['application/json']`; add the types your handlers read (for example
   * `'application/x-www-form-urlencoded'`).
   */
  bodyTypes?: readonly string[];
}

/** The middleware, with its live settings and the handlers to give `app.onError` and `app.notFound`. */
export interface ToonHonoMiddleware extends MiddlewareHandler {
  /** Live negotiation settings: assign `defaultFormat` or `delimiter` to change them at runtime. */
  readonly settings: ToonSettings;
  /** For `app.onError`: answers every error with a negotiated problem document. */
  readonly onError: ErrorHandler;
  /** For `app.notFound`: a negotiated 404 problem document. */
  readonly notFound: NotFoundHandler;
}

function problemResponse(c: Context, error: unknown, settings: ToonSettings): Response {
  const rendered = renderProblem(error, {
    accept: c.req.header('accept'),
    settings,
    instance: c.req.path,
  });
  return new Response(rendered.body, {
    status: rendered.status,
    headers: { 'content-type': rendered.contentType, vary: 'Accept' },
  });
}

// c.req.json(), c.req.valid('json') and validator('json') all read c.req.raw: replacing it with
// a JSON request carrying the decoded data lets them work unchanged. The TOON text is read from
// raw directly, not through c.req.text(), whose cache would later be parsed as JSON.
async function replaceToonBody(c: Context): Promise<void> {
  const raw = c.req.raw;
  const value = decodeToonBody(await raw.text());
  const headers = new Headers(raw.headers);
  headers.set('content-type', JSON_CONTENT_TYPE);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  c.req.raw = new Request(raw, { body: JSON.stringify(value), headers });
}

// HTTP/1.1 announces a body with Content-Length or Transfer-Encoding; HTTP/2 and some runtimes
// stream bodies with neither, so a declared Content-Type on a request with a body stream counts
// too. Empty bodies never count: there is nothing to refuse or decode.
function hasBody(raw: Request, contentType: string | null): boolean {
  const length = raw.headers.get('content-length');
  const encoding = raw.headers.get('transfer-encoding');
  if (length !== null || encoding !== null) return requestHasBody(length, encoding);
  // Content-Type first: reading `body` makes @hono/node-server build the full Request.
  return contentType !== null && raw.body !== null;
}

// @hono/node-server sends a response whose body is still a string without streaming it; changing
// its headers in place keeps it that way, while c.header() on a finished response rebuilds it
// around a body stream. Headers of a fetched response are immutable: those are rebuilt.
function addVary(c: Context, response: Response): void {
  const vary = appendVary(response.headers.get('vary'));
  try {
    response.headers.set('vary', vary);
  } catch {
    c.header('Vary', vary);
  }
}

function hasContentType(headers: Record<string, unknown>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
}

/** Responses c.json already negotiated: the after-handler step leaves them alone. */
const negotiatedResponses = new WeakSet<Response>();

type JsonArguments = [object: unknown, arg?: unknown, headers?: Record<string, string | string[]>];

// c.json(obj) answers in the negotiated format straight from obj. Re-encoding its finished JSON
// response instead means reading the body back as a stream and parsing it, which cost more than
// the encoding itself. A Content-Type the handler passes explicitly is left to Hono.
function negotiatingJson(c: Context, settings: ToonSettings): Context['json'] {
  const json = c.json as (...args: JsonArguments) => Response;
  const body = c.body as (
    data: string,
    arg?: unknown,
    headers?: Record<string, string | string[]>,
  ) => Response;
  const negotiating = (...[object, arg, headers]: JsonArguments): Response => {
    if (headers !== undefined && hasContentType(headers)) return json(object, arg, headers);
    const format = negotiateFormat(c.req.header('accept'), settings.defaultFormat);
    let response: Response;
    if (format === 'json') {
      response = json(object, arg, headers);
    } else {
      const rendered = renderBody(object, format, settings.delimiter);
      response = body(rendered.body, arg, { ...headers, 'Content-Type': rendered.contentType });
    }
    addVary(c, response);
    negotiatedResponses.add(response);
    return response;
  };
  return negotiating as Context['json'];
}

// The fallback for JSON responses built without c.json (new Response(...), c.body(...)):
// re-encode the finished response when the client asked for TOON.
async function negotiateJsonResponse(c: Context, settings: ToonSettings): Promise<void> {
  const res = c.res;
  if (
    negotiatedResponses.has(res) ||
    mediaTypeOf(res.headers.get('content-type')) !== 'application/json'
  )
    return;
  const format = negotiateFormat(c.req.header('accept'), settings.defaultFormat);
  if (format === 'json' || res.body === null) {
    addVary(c, res);
    return;
  }
  const text = await res.text();
  let body = text;
  const headers = new Headers(res.headers);
  try {
    const rendered = renderBody(JSON.parse(text), format, settings.delimiter);
    body = rendered.body;
    headers.set('content-type', rendered.contentType);
  } catch {
    // Not actually JSON: send it as it was rather than failing a response the handler finished.
  }
  // The old length describes the JSON text; the runtime computes the right one.
  headers.delete('content-length');
  headers.set('vary', appendVary(headers.get('vary')));
  // Assigning c.res merges the previous response's headers into the new one, which would bring
  // the stale content-length back; clearing it first makes the new response stand alone.
  c.res = undefined;
  c.res = new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * The Hono middleware. Mount it with `app.use` before the routes, and give its `onError` (and,
 * if you like, `notFound`) to the app:
 * - `c.json(obj)` answers in TOON (`text/toon; charset=utf-8`) or JSON as `Accept` asks, with
 *   `Vary: Accept`; JSON responses built another way (`new Response(...)`) are re-encoded after
 *   the handler, content-length dropped;
 * - `text/toon` request bodies are decoded strictly and the request is replaced by its JSON
 *   equivalent, so `c.req.json()` and `validator('json', ...)` see the same data as for JSON;
 *   malformed is a 400 naming line and column, over `maxSize` a 413 for both formats, a
 *   Content-Type outside `bodyTypes` a 415;
 * - `onError` renders every error as an RFC 9457 problem document in the negotiated format.
 *
 * @example
 * import { Hono } from 'hono';
 * import { toon } from 'toonwire/hono';
 *
 * const app = new Hono();
 * const negotiation = toon({ maxSize: 1024 * 1024 });
 * app.use(negotiation);
 * app.onError(negotiation.onError);
 * app.notFound(negotiation.notFound);
 * app.get('/orders', (c) => c.json({ data: [{ id: 1, status: 'paid' }] }));
 * negotiation.settings.defaultFormat = 'toon'; // later, at runtime
 */
export function toon(options: ToonHonoOptions = {}): ToonHonoMiddleware {
  const settings = new ToonSettings(options);
  const accepted = [TOON_MEDIA_TYPE, ...(options.bodyTypes ?? [JSON_CONTENT_TYPE])];
  const { maxSize } = options;
  const limit =
    maxSize === undefined
      ? undefined
      : bodyLimit({
          maxSize,
          onError: (c) => problemResponse(c, payloadTooLarge(maxSize), settings),
        });

  const negotiate = async (
    c: Context,
    next: Next,
    contentType: string | null,
    withBody: boolean,
  ): Promise<Response | undefined> => {
    if (withBody) {
      if (!matchesMediaType(contentType, accepted)) {
        return problemResponse(c, unsupportedMediaType(contentType, accepted), settings);
      }
      if (isToonContentType(contentType)) {
        try {
          assertToonCharset(contentType);
          await replaceToonBody(c);
        } catch (error) {
          // Anything else (a connection dropped mid-body) is not a malformed body: let it propagate.
          if (!(error instanceof HttpProblem)) throw error;
          return problemResponse(c, error, settings);
        }
      }
    }
    c.json = negotiatingJson(c, settings);
    await next();
    await negotiateJsonResponse(c, settings);
  };

  const middleware: MiddlewareHandler = (c, next) => {
    const contentType = c.req.raw.headers.get('content-type');
    const withBody = hasBody(c.req.raw, contentType);
    // A GET or HEAD Request never has a body; the limit would read `body` to find that out,
    // which makes @hono/node-server build the full Request.
    const method = c.req.method;
    if (limit === undefined || method === 'GET' || method === 'HEAD')
      return negotiate(c, next, contentType, withBody);
    return limit(c, async () => {
      const early = await negotiate(c, next, contentType, withBody);
      if (early !== undefined) c.res = early;
    });
  };

  const onError: ErrorHandler = (error, c) => {
    // An HTTPException built with its own Response is the app's explicit answer: keep it.
    const custom = error as { res?: unknown; getResponse?: () => Response };
    if (custom.res !== undefined && typeof custom.getResponse === 'function')
      return custom.getResponse();
    const response = problemResponse(c, error, settings);
    if (response.status >= 500) console.error(error);
    return response;
  };

  const notFound: NotFoundHandler = (c) =>
    problemResponse(
      c,
      new HttpProblem({
        status: 404,
        detail: `There is no route for ${c.req.method} ${c.req.path}. Check the method and path against the API's OpenAPI document.`,
      }),
      settings,
    );

  return Object.assign(middleware, { settings, onError, notFound });
}

export default toon;
export { HttpProblem, validationProblem } from './problem.js';
export { type ToonHttpOptions, ToonSettings } from './settings.js';
