// toonwire/express: TOON content negotiation as Express middleware. Handlers keep calling
// res.json(obj); req.body holds decoded TOON bodies; errors become negotiated problem documents.

import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { assertToonCharset, decodeToonBody, requestHasBody, unsupportedMediaType } from './body.js';
import { isToonContentType, mediaTypeOf, TOON_MEDIA_TYPE } from './media-types.js';
import { negotiateFormat } from './negotiate.js';
import { HttpProblem } from './problem.js';
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
   * Request Content-Types the API reads besides `text/toon`, in `req.is` syntax (`'application/json'`,
   * `'urlencoded'`, `'multipart/*'`, `'*\/*'`). A request body of any other type is refused with
   * a 415 problem. Default `['application/json']`; add the types your other parsers handle.
   */
  bodyTypes?: readonly string[];
}

/** The middleware, with its live settings and the companions to mount after the routes. */
export interface ToonMiddleware extends RequestHandler {
  /** Live negotiation settings: assign `defaultFormat` or `delimiter` to change them at runtime. */
  readonly settings: ToonSettings;
  /** Error-handling middleware that answers every error with a negotiated problem document. Mount it after the routes. */
  readonly errorHandler: ErrorRequestHandler;
  /** Middleware that turns unmatched requests into a 404 problem. Mount it after the routes, before `errorHandler`. */
  readonly notFound: RequestHandler;
}

function requestPath(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

// res.json is replaced on this response object only: other responses, and every other way of
// sending (res.send of a string, res.sendFile, streams), are untouched. res.send(obj) calls
// res.json, so it is negotiated too.
function negotiateResJson(req: Request, res: Response, settings: ToonSettings): void {
  const json = res.json;
  res.json = function negotiatedJson(this: Response, body?: unknown) {
    const contentType = this.get('Content-Type');
    // A handler that chose a JSON flavour on purpose (application/hal+json, ...) keeps it.
    if (contentType !== undefined && mediaTypeOf(contentType) !== 'application/json')
      return json.call(this, body);
    this.vary('Accept');
    const format = negotiateFormat(req.headers.accept, settings.defaultFormat);
    if (format === 'json') return json.call(this, body);
    const rendered = renderBody(body, format, settings.delimiter);
    // 'auto' may pick JSON: let Express write it, with its `json spaces`/`json replacer` settings.
    if (rendered.format === 'json') return json.call(this, body);
    this.set('Content-Type', rendered.contentType);
    return this.send(rendered.body);
  };
}

/**
 * The Express middleware. Mount it once before the routes (next to `express.json()`), and its
 * `errorHandler` after them:
 * - `res.json(obj)` (and `res.send(obj)`) answers in TOON (`text/toon; charset=utf-8`) or JSON as
 *   `Accept` asks, with `Vary: Accept`;
 * - `text/toon` request bodies are read with the same limit semantics as `express.json` and
 *   decoded strictly into `req.body`; malformed is a 400 naming line and column, too large the
 *   same 413 as JSON, a Content-Type outside `bodyTypes` a 415;
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
  const readText = express.text({ type: TOON_MEDIA_TYPE, limit: options.limit ?? '100kb' });
  const accepted = [TOON_MEDIA_TYPE, ...(options.bodyTypes ?? ['application/json'])];

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    negotiateResJson(req, res, settings);
    if (!requestHasBody(req.headers['content-length'], req.headers['transfer-encoding'])) {
      next();
      return;
    }
    const contentType = req.headers['content-type'];
    if (!req.is(accepted)) {
      next(unsupportedMediaType(contentType, accepted));
      return;
    }
    if (!isToonContentType(contentType)) {
      next();
      return;
    }
    try {
      assertToonCharset(contentType);
    } catch (error) {
      next(error);
      return;
    }
    readText(req, res, (error?: unknown) => {
      if (error) return next(error);
      // Another parser may have consumed the body already; then there is no text to decode.
      if (typeof req.body === 'string') {
        try {
          req.body = decodeToonBody(req.body);
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
      instance: requestPath(req),
    });
    // Same policy as Express's final handler: server errors are logged, except under test.
    if (rendered.status >= 500 && req.app.get('env') !== 'test') console.error(error);
    const headers = (error as { headers?: unknown } | null)?.headers;
    if (typeof headers === 'object' && headers !== null) res.set(headers as Record<string, string>);
    res
      .status(rendered.status)
      .vary('Accept')
      .set('Content-Type', rendered.contentType)
      .send(rendered.body);
  };

  const notFound: RequestHandler = (req, _res, next) => {
    next(
      new HttpProblem({
        status: 404,
        detail: `There is no route for ${req.method} ${requestPath(req)}. Check the method and path against the API's OpenAPI document.`,
      }),
    );
  };

  return Object.assign(middleware, { settings, errorHandler, notFound });
}

export default toon;
export { HttpProblem, validationProblem } from './problem.js';
export { type ToonHttpOptions, ToonSettings } from './settings.js';
