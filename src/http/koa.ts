// toonwire/koa: TOON content negotiation as Koa middleware. Handlers keep setting
// ctx.body = obj; ctx.request.body holds decoded TOON bodies; errors become negotiated problem
// documents. Koa is imported for types only: the middleware works with the app's own copy.
import type { Context, Middleware, Next } from 'koa';
import {
  announcedBody,
  assertToonCharset,
  decodeToonBody,
  type PrototypeKeyOptions,
  unsupportedMediaType,
} from './body.js';
import {
  DATA_VALIDATORS,
  hideTagsInNodeHeaders,
  namesFile,
  notFoundProblem,
  notModified,
  responseFormat,
  restoreTags,
  retagForToon,
  retagNotModified,
} from './kit.js';
import { appendVary, isToonContentType, mediaTypeOf, TOON_MEDIA_TYPE } from './media-types.js';
import { HttpProblem } from './problem.js';
import { DEFAULT_BODY_LIMIT, readBody } from './read-body.js';
import { renderOrProblem, renderProblem } from './render.js';
import { type ToonHttpOptions, ToonSettings } from './settings.js';

/** Options of the Koa middleware. */
export interface ToonKoaOptions extends ToonHttpOptions {
  /**
   * Largest `text/toon` body in bytes, after inflation (gzip, deflate and br bodies are inflated
   * as @koa/bodyparser inflates JSON). Default 1 MiB, @koa/bodyparser's JSON limit: give both the
   * same value so both formats get the same 413.
   */
  limit?: number;
  /**
   * The methods whose `text/toon` bodies are read, as @koa/bodyparser's `parsedMethods`, whose
   * default this is: a DELETE's TOON body is left unread (and unchecked), as its JSON body is.
   * Give both the same list. Default `['POST', 'PUT', 'PATCH']`.
   */
  parsedMethods?: readonly string[];
  /**
   * Accept only TOON roots that are objects or arrays, as @koa/bodyparser's `jsonStrict` (its
   * default) does for JSON. Default `true`.
   */
  strict?: boolean;
  /**
   * Refuse request bodies of any other Content-Type with a 415 problem: the types the API reads
   * besides `text/toon`, in `ctx.is` syntax (`'json'`, `'application/json'`, `'multipart/*'`).
   * Default: none refused; other bodies are left to the app's parsers.
   */
  bodyTypes?: readonly string[];
  /**
   * Prototype-poisoning keys in TOON bodies: refused with a 400 by default, as Fastify refuses
   * them in JSON (see `guardPrototypeKeys` in toonwire/http).
   */
  prototypeKeys?: PrototypeKeyOptions;
  /**
   * Answer every error thrown below the middleware with a negotiated problem document (an
   * error's `headers` on the response, with those middleware mounted before this one set, such
   * as CORS headers, while those set below it for the failed answer are dropped; 5xx errors are
   * still emitted on the app's `error` event for logging). Default `true`; `false` lets errors
   * propagate to Koa's own handling.
   */
  errors?: boolean;
  /**
   * Answer requests nothing answered (Koa's 404 with no body) with a negotiated 404 problem, and
   * the 405 and 501 that @koa/router's `allowedMethods()` sets without a body (a route matched
   * the path, not the method) with a negotiated problem of that status, its `Allow` kept.
   * Default `false`.
   */
  notFound?: boolean;
  /** Leave a request out of negotiation: its bodies answer JSON and its errors JSON problems. */
  skip?: (ctx: Context) => boolean;
}

/** The middleware, with its live settings. */
export interface ToonKoaMiddleware extends Middleware {
  /** Live negotiation settings: assign `defaultFormat` or `delimiter` to change them at runtime. */
  readonly settings: ToonSettings;
}

// What Koa serializes as JSON itself: an object that is no Buffer, stream, web stream, Blob or
// Response, under a JSON Content-Type (a JSON flavour the handler set stays the handler's), and
// not a file the handler named (`ctx.attachment('orders.json')` sets Content-Disposition, and the
// type from the name: the file stays JSON, as Express keeps `res.attachment(...)`'s type).
// The ETag of a 304 decided on the data's tags becomes the TOON answer's (kit.ts).
function retagAnsweredOnDataTags(ctx: Context): void {
  retagNotModified(ctx, ctx.response.get('ETag') || undefined, (etag) => ctx.set('ETag', etag));
}

function negotiable(ctx: Context): boolean {
  const body: unknown = ctx.body;
  if (typeof body !== 'object' || body === null) return false;
  if (namesFile(ctx.res.getHeader('Content-Disposition'))) return false;
  if (
    body instanceof Uint8Array ||
    body instanceof ReadableStream ||
    body instanceof Blob ||
    body instanceof Response ||
    typeof (body as { pipe?: unknown }).pipe === 'function'
  )
    return false;
  return mediaTypeOf(ctx.response.get('Content-Type')) === 'application/json';
}

// @koa/bodyparser's default `parsedMethods`.
const DEFAULT_PARSED_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH'];

function requestBodyOf(ctx: Context): { body?: unknown } {
  return ctx.request as unknown as { body?: unknown };
}

/**
 * The Koa middleware. Mount it first (before @koa/bodyparser and the router), so it sees every
 * error and every response body:
 * - `ctx.body = obj` answers in TOON (`text/toon; charset=utf-8`) or JSON as `Accept` asks, with
 *   `Vary: Accept`; strings, Buffers, streams, an explicit JSON flavour and a file the handler
 *   named (`ctx.attachment('orders.json')`) pass untouched; a client
 *   refusing both formats gets a 406 problem, except under a redirect or error status the handler
 *   set (kept, with the body as JSON); a body that cannot be rendered (a BigInt, a cycle) is a 500
 *   problem, never Koa's `text/plain`. The answer is rendered when Koa writes it, so middleware
 *   mounted before this one that edits `ctx.body` after `await next()` edits the data
 *   ({@link renderToon} renders sooner, for middleware that must see the text);
 * - `text/toon` request bodies are read (up to `limit`, gzip, deflate and br inflated) and
 *   decoded strictly into `ctx.request.body`; ill-formed UTF-8, malformed TOON, primitive roots
 *   under `strict` and `__proto__` keys are 400 problems, too large a 413;
 * - errors thrown below it become RFC 9457 problem documents in the negotiated format.
 *
 * @example
 * import Koa from 'koa';
 * import { bodyParser } from '@koa/bodyparser';
 * import { toon } from 'toonwire/koa';
 *
 * const app = new Koa();
 * const negotiation = toon({ notFound: true });
 * app.use(negotiation);
 * app.use(bodyParser());
 * app.use((ctx) => {
 *   ctx.body = { data: [{ id: 1, status: 'paid' }] };
 * });
 * negotiation.settings.defaultFormat = 'toon'; // later, at runtime
 */
export function toon(options: ToonKoaOptions = {}): ToonKoaMiddleware {
  const settings = new ToonSettings(options);
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const containerRoot = options.strict ?? true;
  const prototypeKeys = options.prototypeKeys ?? {};
  const accepted =
    options.bodyTypes === undefined ? undefined : [TOON_MEDIA_TYPE, ...options.bodyTypes];
  const parsedMethods = new Set(
    (options.parsedMethods ?? DEFAULT_PARSED_METHODS).map((method) => method.toUpperCase()),
  );
  const { skip } = options;
  const answerErrors = options.errors !== false;

  async function readToonBody(ctx: Context): Promise<void> {
    const method = ctx.method;
    if (method === 'GET' || method === 'HEAD') return;
    const contentType = ctx.get('Content-Type') || undefined;
    const announced = announcedBody(
      ctx.get('Content-Length') || undefined,
      ctx.get('Transfer-Encoding') || undefined,
    );
    if (accepted !== undefined && announced === 'some' && ctx.is(accepted) === false)
      throw unsupportedMediaType(contentType, accepted);
    if (!isToonContentType(contentType) || announced === 'none') return;
    if (!parsedMethods.has(method)) return;
    assertToonCharset(contentType);
    if (ctx.req.readableDidRead || ctx.req.readableEnded) {
      // Middleware mounted before this one read the body already: decode the text or bytes it
      // left (@koa/bodyparser with `text` enabled for text/*), keep data already decoded (this
      // middleware mounted twice), never the nothing left on the stream.
      const request = requestBodyOf(ctx);
      const read = request.body;
      if (typeof read === 'string' || read instanceof Uint8Array) {
        request.body = decodeToonBody(read, { containerRoot, prototypeKeys });
        return;
      }
      if (read !== undefined) return;
      throw new Error(
        'toonwire/koa: the text/toon request body was read by middleware mounted before toon(); mount toon() first, before body parsers, so that it reads TOON bodies itself.',
      );
    }
    const bytes = await readBody(ctx.req, {
      limit,
      encoding: ctx.get('Content-Encoding'),
      length: ctx.get('Content-Length'),
    });
    requestBodyOf(ctx).body = decodeToonBody(bytes, { containerRoot, prototypeKeys });
  }

  function answer(ctx: Context, skipped: boolean): void {
    // A 304 answered below (the handler's `if (ctx.fresh) ctx.status = 304`, or koa-etag and
    // koa-conditional-get mounted after this middleware) has no body left to negotiate.
    if (notModified(ctx.status) && !skipped) {
      ctx.set('Vary', appendVary(ctx.response.get('Vary') || undefined));
      retagAnsweredOnDataTags(ctx);
    }
    if (!negotiable(ctx)) {
      // The handler's own bytes (or nothing): koa-etag mounted before this one tags them.
      if (!notModified(ctx.status)) restoreTags(ctx);
      return;
    }
    ctx.set('Vary', appendVary(ctx.response.get('Vary') || undefined));
    if (skipped) return;
    // A client refusing both formats is answered now, so middleware mounted before this one
    // sees the 406 it gets; the data itself is rendered when Koa writes it (renderWhenKoaResponds).
    if (
      responseFormat(ctx.get('Accept') || undefined, settings.defaultFormat, ctx.status) ===
      undefined
    )
      render(ctx);
    else
      renderWhenKoaResponds(ctx, () => {
        // What middleware mounted before this one left: the data (edited, wrapped or replaced by
        // another object) is rendered; text, bytes, a stream or no body are theirs, sent as is.
        if (ctx.headerSent || !ctx.writable) return;
        // A 304 middleware mounted before this one answered (koa-conditional-get) on the data's
        // tags the handler set: it names the TOON answer's tag.
        if (notModified(ctx.status)) retagAnsweredOnDataTags(ctx);
        else if (negotiable(ctx)) render(ctx);
        else if (!warnedWrittenAbove && writtenAsBytes(ctx.body) && wantsToon(ctx)) {
          warnedWrittenAbove = true;
          console.warn(WRITTEN_ABOVE);
        }
      });
  }

  // Whether a client that got bytes from middleware above would have been answered TOON.
  function wantsToon(ctx: Context): boolean {
    const accept = ctx.get('Accept') || undefined;
    return responseFormat(accept, settings.defaultFormat, ctx.status) !== 'json';
  }
  /** Said once per middleware: see {@link WRITTEN_ABOVE}. */
  let warnedWrittenAbove = false;

  function render(ctx: Context): void {
    // What is rendered now is tagged and compared by middleware mounted before this one (koa-etag
    // and koa-conditional-get after renderToon) with the client's own If-None-Match.
    restoreTags(ctx);
    const rendered = renderOrProblem(ctx.body, {
      accept: ctx.get('Accept') || undefined,
      settings,
      status: ctx.status,
      instance: ctx.path,
    });
    if (rendered.status !== undefined) {
      // A problem document went in the data's place: the data's validators do not name it.
      for (const name of DATA_VALIDATORS) ctx.remove(name);
      ctx.status = rendered.status;
      ctx.set(rendered.headers);
    }
    ctx.body = rendered.body;
    // JSON data keeps the Content-Type Koa set for it (application/json; charset=utf-8, or the
    // handler's own), as without the middleware; TOON and problem documents bring their own.
    if (rendered.status !== undefined || rendered.format !== 'json')
      ctx.set('Content-Type', rendered.contentType);
    // An ETag the handler set names the JSON representation, not this one.
    if (rendered.format === 'toon') {
      retagForToon(
        ctx.response.get('ETag') || undefined,
        (etag) => ctx.set('ETag', etag),
        () => ctx.remove('ETag'),
      );
    }
  }

  function problem(
    ctx: Context,
    error: unknown,
    skipped: boolean,
    outer: Record<string, unknown> | undefined,
    report = true,
  ): void {
    const rendered = renderProblem(error, {
      accept: ctx.get('Accept') || undefined,
      settings,
      instance: ctx.path,
      ...(skipped ? { format: 'json' as const } : {}),
    });
    if (report && rendered.status >= 500) ctx.app.emit('error', asError(error), ctx);
    // An error thrown after headers were set for another answer: start from a clean response,
    // but keep what middleware mounted before this one set on the way in (@koa/cors's
    // Access-Control-Allow-Origin, koa-helmet's headers, a request id), since the problem
    // document is answered here and never reaches their error handling.
    for (const name of Object.keys(ctx.response.headers)) {
      if (name.toLowerCase() !== 'vary') ctx.remove(name);
    }
    if (outer !== undefined) {
      for (const [name, value] of Object.entries(outer)) {
        if (keptOnProblems(name)) ctx.response.set(name, value as string | string[]);
      }
    }
    ctx.set(rendered.headers);
    ctx.set('Vary', appendVary(ctx.response.get('Vary') || undefined));
    ctx.status = rendered.status;
    ctx.set('Content-Type', rendered.contentType);
    ctx.body = rendered.body;
  }

  const middleware = async (ctx: Context, next: Next): Promise<void> => {
    const skipped = skip?.(ctx) === true;
    // A request negotiated as TOON shows the app the If-None-Match of its data's tags (kit.ts):
    // ctx.fresh, in the handler or koa-conditional-get, then answers 304 only for the TOON
    // answer's tag, whatever tag the app computes from the data.
    if (!skipped) hideTagsInNodeHeaders(ctx, ctx.req.headers, settings.defaultFormat);
    // Headers middleware mounted before this one has set so far, kept on problem documents.
    const outer = ctx.res.getHeaderNames().length === 0 ? undefined : ctx.res.getHeaders();
    try {
      await readToonBody(ctx);
      await next();
      if (options.notFound && ctx.body == null) {
        if (ctx.status === 404) throw notFoundProblem(ctx.method, ctx.path);
        // Koa's response.get gives undefined for a header never set.
        const allow = ctx.response.get('Allow') || '';
        if ((ctx.status === 405 || ctx.status === 501) && allow !== '') {
          // The router's answer, not a failure: a 501 is not reported as a server error.
          problem(
            ctx,
            methodProblem(ctx.status, ctx.method, ctx.path, allow),
            skipped,
            outer,
            false,
          );
          return;
        }
      }
    } catch (error) {
      if (!answerErrors || ctx.headerSent) throw error;
      problem(ctx, error, skipped, outer);
      return;
    }
    answer(ctx, skipped);
  };

  return Object.assign(middleware, { settings });
}

// Runs `render` once every middleware has run, as Koa starts writing the response: Koa's
// respond() reads `ctx.respond` first (to let an app bypass it with `ctx.respond = false`), after
// the whole middleware chain has settled, so a getter there is the one moment after the last
// `await next()` and before the body is written. Rendering any sooner (when this middleware
// returns) hands text to middleware mounted before it that edits `ctx.body` on its way out: an
// envelope wrapped the rendered text as a string, a redaction deleted nothing and the field
// went out in both formats. A value the app assigns to `ctx.respond` is kept and still honoured
// (`false`: nothing is rendered). `render` middleware (renderPending) runs it sooner, where the
// app mounts it; so does anything that reads `ctx.respond` sooner. Mounted twice, the adapter
// renders once.
function renderWhenKoaResponds(ctx: Context, render: () => void): void {
  const pending = ctx as PendingContext;
  if (pending[PENDING_RENDER] !== undefined) return;
  const own = ctx as { respond?: unknown };
  let assigned: unknown;
  let wasAssigned = false;
  pending[PENDING_RENDER] = () => {
    delete pending[PENDING_RENDER];
    delete own.respond;
    if (wasAssigned) own.respond = assigned;
    if (!(wasAssigned && assigned === false)) render();
  };
  Object.defineProperty(ctx, 'respond', {
    configurable: true,
    enumerable: true,
    get() {
      renderPending(ctx);
      return own.respond;
    },
    set(value: unknown) {
      assigned = value;
      wasAssigned = true;
    },
  });
}

const PENDING_RENDER = Symbol('toonwire.pendingRender');

/**
 * Why a TOON client got JSON when middleware mounted before `toon()` wrote the data as bytes or a
 * stream (koa-compress does, and koa-etag tags it) before it could be rendered: the answer is
 * right, the saving lost, and nothing else would tell the app.
 */
const WRITTEN_ABOVE =
  'toonwire/koa: middleware mounted before toon() wrote the answer as bytes or a stream (as koa-compress does) before toon() could render it, so a client asking for TOON got JSON. Mount renderToon after that middleware (docs/http.md, Koa). Said once.';

/** Bytes or a stream: what body-writing middleware (koa-compress) leaves in `ctx.body`. */
function writtenAsBytes(body: unknown): boolean {
  return (
    body instanceof Uint8Array ||
    body instanceof ReadableStream ||
    (typeof body === 'object' &&
      body !== null &&
      typeof (body as { pipe?: unknown }).pipe === 'function')
  );
}
type PendingContext = Context & { [PENDING_RENDER]?: () => void };

// Renders the answer toon() left pending for this request, if any (renderWhenKoaResponds).
function renderPending(ctx: Context): void {
  (ctx as PendingContext)[PENDING_RENDER]?.();
}

/**
 * Middleware that renders, on its way out, the answer `toon()` left for Koa to render when it
 * writes the response: mount it before `toon()` and after the middleware that must see the
 * rendered text rather than the data (koa-compress, koa-etag, koa-conditional-get), which
 * otherwise write or tag the data as JSON. Middleware mounted between the two still edits the
 * data. Without it, the answer is rendered once every middleware has run.
 *
 * @example
 * import { renderToon, toon } from 'toonwire/koa';
 *
 * app.use(compress()); // sees TOON text
 * app.use(renderToon);
 * app.use(envelope); // sees, and wraps, the data
 * app.use(toon());
 */
export const renderToon: Middleware = async (ctx, next) => {
  await next();
  renderPending(ctx);
};

// The problem for the bodyless 405 or 501 of a router that matched the path but not the method
// (@koa/router's allowedMethods()), with the Allow header it set.
function methodProblem(
  status: 405 | 501,
  method: string,
  path: string,
  allow: string,
): HttpProblem {
  return new HttpProblem({
    status,
    detail:
      status === 405
        ? `${method} is not allowed on ${path}. Send the request with one of the methods in Allow: ${allow}.`
        : `The server does not implement ${method}. Send the request with one of the methods in Allow: ${allow}.`,
    headers: { Allow: allow },
  });
}

// Headers set before the middleware ran that do not stay on a problem document: those that
// describe the data's representation, its validators, and Vary, which is kept as it is.
// (Content-Security-Policy and the like are not the representation's: they stay.)
const NOT_KEPT_ON_PROBLEMS: ReadonlySet<string> = new Set([
  'vary',
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
  'content-range',
  'content-disposition',
  ...DATA_VALIDATORS,
]);

function keptOnProblems(name: string): boolean {
  return !NOT_KEPT_ON_PROBLEMS.has(name.toLowerCase());
}

/**
 * `thrown` as Koa's own error handling passes it to the app's 'error' event: a non-Error (`throw
 * 'x'`) wrapped, since Koa's default listener throws on anything but an Error.
 */
function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  let text: string;
  try {
    text = JSON.stringify(thrown) ?? String(thrown);
  } catch {
    text = typeof thrown;
  }
  return new Error(`non-error thrown: ${text}`);
}

export default toon;
export { HttpProblem, validationProblem } from './problem.js';
export { type ToonHttpOptions, ToonSettings } from './settings.js';
