// toonwire/express: TOON content negotiation as Express middleware. Handlers keep calling
// res.json(obj); req.body holds decoded TOON bodies; errors become negotiated problem documents.

import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { isPlain } from '../codec/layout.js';
import { announcedBody, assertToonCharset, decodeToonBody, unsupportedMediaType } from './body.js';
import {
  attachSettings,
  DATA_VALIDATORS,
  decidedOnDataTags,
  hideTagsInNodeHeaders,
  isOptedOut,
  markOptedOut,
  namesFile,
  notAcceptableProblem,
  notFoundProblem,
  notModified,
  requestPath,
  responseFormat,
  restoreTags,
  retagForToon,
  retagNotModified,
} from './kit.js';
import { appendVary, isToonContentType, TOON_MEDIA_TYPE } from './media-types.js';
import { acceptsFormat } from './negotiate.js';
import { renderBody, renderProblem } from './render.js';
import { type ToonHttpOptions, ToonSettings } from './settings.js';

/** Options of the Express middleware. */
export interface ToonExpressOptions extends ToonHttpOptions {
  /**
   * Largest `text/toon` body, as a byte count or a string such as `'1mb'`: the same option,
   * default (`'100kb'`) and 413 error as `express.json`. Give both the same value.
   */
  limit?: number | string;
  /**
   * Accept only TOON primitive roots that `express.json({ strict })` would: with `true` (the
   * default, like `express.json`) a body that is a lone string, number, boolean or null is a 400.
   */
  strict?: boolean;
  /**
   * Refuse request bodies of any other Content-Type with a 415 problem: the types the API reads
   * besides `text/toon`, in `req.is` syntax (`'application/json'`, `'urlencoded'`,
   * `'multipart/*'`). Default: none refused; bodies the middleware does not parse are left to
   * the app's other parsers (`express.json()`, `express.urlencoded()`, `express.raw()`, ...).
   */
  bodyTypes?: readonly string[];
  /**
   * Leave a request out of negotiation: its `res.json` answers JSON and its errors JSON problems.
   * A handler can do the same for one response with `res.locals.toon = false`.
   */
  skip?: (req: Request) => boolean;
  /**
   * Keep the bytes of a `text/toon` body as `req.rawBody` (a Buffer, as inflated), next to the
   * decoded `req.body`: what NestJS's `rawBody: true` gives JSON bodies, for checking a webhook's
   * signature. Default `false`; toonwire/nest's `useToon` sets it from that option.
   */
  rawBody?: boolean;
}

/** The middleware, with its live settings and the companions to mount after the routes. */
export interface ToonMiddleware extends RequestHandler {
  /** Live negotiation settings: assign `defaultFormat` or `delimiter` to change them at runtime. */
  readonly settings: ToonSettings;
  /**
   * Error-handling middleware that answers every error with a negotiated problem document (an
   * error's `headers` go on the response). Mount it after the routes, and after error
   * middleware of your own that handles some errors and passes the rest on with `next(error)`.
   */
  readonly errorHandler: ErrorRequestHandler;
  /** Middleware that turns unmatched requests into a 404 problem. Mount it after the routes, before `errorHandler`. */
  readonly notFound: RequestHandler;
}

function skipped(req: Request, res: Response): boolean {
  return isOptedOut(req) || res.locals.toon === false;
}

// Does res.json write JSON.stringify(body) as it is in this app?
function writesPlainJson(app: Response['app']): boolean {
  return (
    app.get('json spaces') === undefined &&
    app.get('json replacer') === undefined &&
    !app.get('json escape')
  );
}

// What TOON carries of a body under the app's `json replacer` (which may redact fields or
// write BigInts): the data of the JSON it writes, as that JSON's value (in the JSON model
// already, which `renderBody` is told); the body as it is without one.
function replacedBody(body: unknown, replacer: unknown): [unknown, boolean] {
  if (typeof replacer !== 'function' && !Array.isArray(replacer)) return [body, false];
  const text = JSON.stringify(body, replacer as (key: string, value: unknown) => unknown);
  return text === undefined ? [body, false] : [JSON.parse(text), true];
}

// res.json is replaced on this response object only: other responses, and every other way of
// sending (res.send of a string or Buffer, res.sendFile, streams), are untouched. res.send(obj)
// calls res.json, so it is negotiated too. A Content-Type set before res.json is the handler's
// explicit choice and is kept, as is JSON for a request the app opted out.
function negotiateResJson(req: Request, res: Response, settings: ToonSettings): void {
  const json = res.json;
  // Middleware mounted before this one replaced res.json (to redact, wrap or log what the
  // handlers send, as express-mung does): its JSON is the answer's data.
  const wrapped = json !== express.response.json;
  res.json = function negotiatedJson(this: Response, body?: unknown) {
    // A Content-Type the handler set, or a file it named, is kept as JSON.
    if (
      this.get('Content-Type') !== undefined ||
      namesFile(this.get('Content-Disposition')) ||
      skipped(req, this)
    )
      return json.call(this, body);
    if (wrapped) return negotiateWrappedJson(req, this, settings, json, body);
    const [value, jsonModel] = replacedBody(body, this.app.get('json replacer'));
    return answer(req, this, settings, value, jsonModel, (picked) => {
      // 'auto' picked JSON, whose text the picker wrote already: JSON.stringify's, which is what
      // res.json writes unless the app set `json spaces`, `json replacer` or `json escape` (then
      // Express writes it its way) or the body is no plain object or array (its toJSON decides).
      if (
        picked !== undefined &&
        writesPlainJson(this.app) &&
        typeof body === 'object' &&
        body !== null &&
        isPlain(body)
      ) {
        this.set('Content-Type', 'application/json');
        return this.send(picked);
      }
      return json.call(this, body);
    });
  };
}

// Runs the app's res.json wrapper once, with res.send caught for the one call that ends it:
// the JSON text it writes is what JSON clients get, and its data is what TOON carries. What a
// wrapper sends that is not JSON (a string of its own, a problem document) goes out as it is.
function negotiateWrappedJson(
  req: Request,
  res: Response,
  settings: ToonSettings,
  json: Response['json'],
  body: unknown,
): Response {
  const ownSend = Object.hasOwn(res, 'send') ? res.send : undefined;
  const send = res.send;
  const restore = () => {
    if (ownSend === undefined) delete (res as Partial<Response>).send;
    else res.send = ownSend;
  };
  res.send = function sentByAppJson(this: Response, text?: unknown) {
    restore();
    const contentType = this.get('Content-Type');
    if (
      typeof text !== 'string' ||
      contentType === undefined ||
      !/^application\/json\b/i.test(contentType)
    )
      return send.call(this, text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return send.call(this, text);
    }
    // The JSON text goes out as the app wrote it, with its Content-Type; TOON replaces both.
    return answer(
      req,
      this,
      settings,
      value,
      true,
      () => send.call(this, text),
      () => this.removeHeader('Content-Type'),
    );
  };
  // Not restored when json returns: a wrapper may send later (after an await), and one that ends
  // the response otherwise sends nothing more; the catcher restores res.send on its one call.
  return json.call(res, body);
}

// A 304 the app answers itself (`if (req.fresh) return res.status(304).end()`, or with the body
// Express's own ETag check drops) never reaches res.json: it gets `Vary: Accept` as its headers
// go out, unless the request was left out of negotiation.
function varyNotModified(req: Request, res: Response): void {
  const writeHead = res.writeHead;
  res.writeHead = function varyingWriteHead(this: Response, ...args: unknown[]) {
    const status = typeof args[0] === 'number' ? args[0] : this.statusCode;
    if (notModified(status) && !skipped(req, this)) {
      this.setHeader('Vary', appendVary(this.getHeader('vary')));
      // Decided on the data's tags (the app's own check): the client holds the TOON answer's.
      retagNotModified(req, this.getHeader('etag') as string | undefined, (etag) =>
        this.setHeader('ETag', etag),
      );
    }
    return (writeHead as (...rest: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
}

// A request negotiated as TOON shows the app the If-None-Match of its data's tags (kit.ts,
// hideTagsOfOtherFormats) until something is sent: then Express's own ETag check in res.send
// compares the tag of what is sent (TOON's, or the handler's own bytes) with the client's header.
// A 304 sent with res.send (res.sendStatus(304)) is the app's, decided on the data's tags.
function showDataTags(req: Request, res: Response, settings: ToonSettings): void {
  if (isOptedOut(req)) return;
  hideTagsInNodeHeaders(req, req.headers, settings.defaultFormat);
  if (!decidedOnDataTags(req)) return;
  const send = res.send;
  res.send = function sendingWithClientTags(this: Response, ...args: unknown[]) {
    if (!notModified(this.statusCode)) restoreTags(req);
    return (send as (...rest: unknown[]) => Response).apply(this, args);
  } as Response['send'];
}

// Negotiates one answer of `value` (in the JSON model when `jsonModel`): TOON, a 406 problem,
// or `asJson(text)`, where `text` is the JSON the picker wrote when 'auto' picked it.
function answer(
  req: Request,
  res: Response,
  settings: ToonSettings,
  value: unknown,
  jsonModel: boolean,
  asJson: (picked?: string) => Response,
  beforeOther: () => void = () => {},
): Response {
  res.vary('Accept');
  const accept = req.headers.accept;
  // A redirect or error status the handler set is kept whatever Accept says (its body then goes as JSON).
  const format = responseFormat(accept, settings.defaultFormat, res.statusCode);
  if (format === undefined) {
    beforeOther();
    // The handler's validators name its data, not this problem (Express may tag the problem).
    for (const name of DATA_VALIDATORS) res.removeHeader(name);
    const problem = renderProblem(notAcceptableProblem(), {
      accept,
      settings,
      instance: requestPath(req.originalUrl),
    });
    res.status(problem.status).set('Content-Type', problem.contentType);
    return res.send(problem.body);
  }
  if (format === 'json') return asJson();
  const rendered = renderBody(value, format, settings.delimiter, {
    jsonModel,
    jsonAcceptable: () => acceptsFormat(accept, 'json'),
  });
  if (rendered.format === 'json') return asJson(rendered.body);
  beforeOther();
  // An ETag set by the handler names the JSON representation; Express's own ETag (computed
  // in res.send from the body) describes the TOON bytes.
  retagForToon(
    res.get('ETag'),
    (etag) => res.set('ETag', etag),
    () => res.removeHeader('ETag'),
  );
  res.set('Content-Type', rendered.contentType);
  return res.send(rendered.body);
}

/**
 * The Express middleware. Mount it once before the routes (next to `express.json()`), and its
 * `errorHandler` after them:
 * - `res.json(obj)` (and `res.send(obj)`) answers in TOON (`text/toon; charset=utf-8`) or JSON as
 *   `Accept` asks, with `Vary: Accept`; a Content-Type set before `res.json`, `res.locals.toon =
 *   false` and `skip(req)` keep JSON; a client refusing both formats gets a 406 problem;
 * - `text/toon` request bodies are read with the same limit semantics as `express.json` and
 *   decoded strictly into `req.body` (ill-formed UTF-8, malformed TOON and, under `strict`,
 *   primitive roots are 400 problems; too large the same 413 as JSON). Other bodies are left
 *   to the app's parsers, unless `bodyTypes` lists what to accept (then the rest is a 415);
 * - `errorHandler` renders every error as an RFC 9457 problem document in the negotiated format.
 *
 * @example
 * import express from 'express';
 * import { toon } from 'toonwire/express';
 *
 * const app = express();
 * const negotiation = toon({ limit: '1mb' });
 * app.use(express.json({ limit: '1mb' }), negotiation);
 * app.get('/orders', (req, res) => res.json({ data: [{ id: 1, status: 'paid' }] }));
 * app.use(negotiation.notFound, negotiation.errorHandler);
 * negotiation.settings.defaultFormat = 'toon'; // later, at runtime
 */
export function toon(options: ToonExpressOptions = {}): ToonMiddleware {
  const settings = new ToonSettings(options);
  const readBytes = express.raw({ type: TOON_MEDIA_TYPE, limit: options.limit ?? '100kb' });
  const accepted =
    options.bodyTypes === undefined ? undefined : [TOON_MEDIA_TYPE, ...options.bodyTypes];
  const containerRoot = options.strict ?? true;
  const { skip } = options;
  const keepRawBody = options.rawBody === true;

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    if (skip?.(req)) markOptedOut(req);
    attachSettings(req, settings);
    negotiateResJson(req, res, settings);
    varyNotModified(req, res);
    showDataTags(req, res, settings);
    const contentType = req.headers['content-type'];
    const body = announcedBody(req.headers['content-length'], req.headers['transfer-encoding']);
    if (accepted !== undefined && body === 'some' && !req.is(accepted)) {
      next(unsupportedMediaType(contentType, accepted));
      return;
    }
    // Like body-parser, an empty body counts when announced (Content-Length: 0, or chunked):
    // an empty TOON body is {}, as in every adapter; without either header there is no body.
    if (!isToonContentType(contentType) || body === 'none') {
      next();
      return;
    }
    try {
      assertToonCharset(contentType);
    } catch (error) {
      next(error);
      return;
    }
    readBytes(req, res, (error?: unknown) => {
      if (error) return next(error);
      // Another parser may have consumed the body already; then there are no bytes to decode.
      if (Buffer.isBuffer(req.body)) {
        if (keepRawBody) (req as unknown as { rawBody?: Buffer }).rawBody = req.body;
        try {
          req.body = decodeToonBody(req.body, { containerRoot });
        } catch (decodeError) {
          return next(decodeError);
        }
      }
      next();
    });
  };

  const errorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const rendered = renderProblem(error, {
      accept: req.headers.accept,
      settings,
      instance: requestPath(req.originalUrl),
      ...(skipped(req, res) ? { format: 'json' as const } : {}),
    });
    // Same policy as Express's final handler: server errors are logged, except under test.
    if (rendered.status >= 500 && req.app.get('env') !== 'test') console.error(error);
    res
      .set(rendered.headers)
      .status(rendered.status)
      .vary('Accept')
      .set('Content-Type', rendered.contentType)
      .send(rendered.body);
  };

  const notFound: RequestHandler = (req, _res, next) => {
    next(notFoundProblem(req.method, requestPath(req.originalUrl)));
  };

  return Object.assign(middleware, { settings, errorHandler, notFound });
}

export default toon;
export { HttpProblem, validationProblem } from './problem.js';
export { type ToonHttpOptions, ToonSettings } from './settings.js';
