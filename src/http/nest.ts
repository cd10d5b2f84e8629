// toonwire/nest: TOON content negotiation for NestJS, on Express and on Fastify. The platform's
// own adapter (toonwire/express or toonwire/fastify) negotiates data and reads TOON bodies; this
// module wires it for Nest (useToon), answers every exception as a negotiated problem document
// (ToonExceptionFilter, which Nest's own exception handling would otherwise replace), turns
// ValidationPipe failures into problems with JSON Pointers, and documents problems in OpenAPI.

import { createRequire } from 'node:module';
import {
  type ArgumentMetadata,
  type ArgumentsHost,
  BadRequestException,
  Catch,
  type ExceptionFilter,
  HttpException,
  type INestApplication,
  type ValidationError,
  ValidationPipe,
  type ValidationPipeOptions,
} from '@nestjs/common';
import { attachedSettings, isOptedOut, notFoundProblem } from './kit.js';
import { appendVary } from './media-types.js';
import { OPENAPI_TOON_PROBLEM } from './openapi.js';
import {
  HttpProblem,
  PROBLEM_JSON_SCHEMA,
  statusTitle,
  type ValidationIssue,
  validationProblem,
} from './problem.js';
import { renderOrProblem, renderProblem } from './render.js';
import { type ToonHttpOptions, ToonSettings } from './settings.js';

type Swagger = typeof import('@nestjs/swagger');

// @nestjs/swagger, loaded when ApiProblemResponse is first used (decorators run synchronously, so
// it is required: Node 20.19+ and 22.12+ require ES modules), so apps without it never load it.
let swagger: Swagger | undefined;
function loadSwagger(): Swagger {
  try {
    swagger ??= createRequire(import.meta.url)('@nestjs/swagger') as Swagger;
    return swagger;
  } catch (error) {
    throw new Error(
      'toonwire/nest: ApiProblemResponse needs @nestjs/swagger (npm install @nestjs/swagger) and a Node.js that can require it (20.19+, 22.12+).',
      { cause: error },
    );
  }
}

interface RequestLike {
  method?: string;
  url?: string;
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  server?: { toon?: ToonSettings };
}

interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  getHeader(name: string): unknown;
  type(contentType: string): FastifyReplyLike;
  serializer(serialize: (payload: unknown) => string): FastifyReplyLike;
  send(body: string): unknown;
  sent?: boolean;
  raw: NodeResponseLike;
}

// node:http's ServerResponse: what Express's response extends, a Fastify reply wraps as `raw`,
// and what Nest middleware on Fastify (run by @fastify/middie) is given as the response.
interface NodeResponseLike {
  statusCode: number;
  headersSent: boolean;
  writableEnded?: boolean;
  setHeader(name: string, value: string | number): unknown;
  getHeader(name: string): unknown;
  end(body?: string): unknown;
}

interface ExpressResponseLike {
  status(status: number): ExpressResponseLike;
  set(name: string, value: string): ExpressResponseLike;
  get(name: string): string | undefined;
  send(body: string): unknown;
  headersSent?: boolean;
  locals?: { toon?: unknown };
}

const PARTS: Readonly<Record<string, string>> = {
  body: 'body',
  query: 'querystring',
  param: 'path parameters',
};

/** The 400 a {@link ProblemValidationPipe} throws: Nest's BadRequestException, the problem as its cause. */
export class ValidationProblemException extends BadRequestException {
  /** The failed checks, each located by a JSON Pointer into the validated value. */
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], part = 'body') {
    const problem = validationProblem(issues, { part });
    // The problem document is also the response body Nest's own exception handling sends.
    super(problem.problem, { cause: problem });
    this.issues = issues;
  }
}

function pointerSegment(property: string): string {
  return `/${property.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function collectIssues(
  errors: readonly ValidationError[],
  base: string,
  into: ValidationIssue[],
): void {
  for (const error of errors) {
    const pointer = base + pointerSegment(error.property);
    for (const message of Object.values(error.constraints ?? {})) into.push({ pointer, message });
    if (error.children !== undefined) collectIssues(error.children, pointer, into);
  }
}

/**
 * class-validator's errors as {@link ValidationIssue}s: one per failed constraint, located by a
 * JSON Pointer (RFC 6901) into the validated value, nested objects and array items included.
 *
 * @example
 * validationIssues(errors); // [{ pointer: '/items/0/quantity', message: 'quantity must not be less than 1' }]
 */
export function validationIssues(errors: readonly ValidationError[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  collectIssues(errors, '', issues);
  return issues;
}

/**
 * A `ValidationPipe` `exceptionFactory`: a {@link ValidationProblemException} (a 400 whose body
 * is the validation problem document, with an `errors` list of `{ pointer, message }`).
 *
 * @example
 * app.useGlobalPipes(new ValidationPipe({ transform: true, exceptionFactory: validationExceptionFactory }));
 */
export function validationExceptionFactory(errors: ValidationError[]): ValidationProblemException {
  return new ValidationProblemException(validationIssues(errors));
}

/**
 * Nest's `ValidationPipe` with {@link validationExceptionFactory} as its default, naming the part
 * of the request that failed (`body`, `querystring`, `path parameters`) in the problem's detail.
 *
 * @example
 * app.useGlobalPipes(new ProblemValidationPipe({ transform: true, whitelist: true }));
 */
export class ProblemValidationPipe extends ValidationPipe {
  constructor(options: ValidationPipeOptions = {}) {
    super({ exceptionFactory: validationExceptionFactory, ...options });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof ValidationProblemException && metadata.type !== 'body') {
        throw new ValidationProblemException(error.issues, PARTS[metadata.type] ?? metadata.type);
      }
      throw error;
    }
  }
}

// Nest answers an error that is no HttpException with a 500, or with its `statusCode` when it
// has one (http-errors' convention: body-parser's and Fastify's errors). A `status` alone is
// not this request's: an HTTP client's error for its upstream's answer carries it (axios's, say),
// and a failed upstream call is not the client's 404 or 401, nor is its message the client's.
function asNestSeesIt(exception: unknown): unknown {
  if (typeof exception !== 'object' || exception === null) return exception;
  const { status, statusCode } = exception as { status?: unknown; statusCode?: unknown };
  return statusCode === undefined && status !== undefined
    ? new HttpProblem({ status: 500 })
    : exception;
}

// The messages of a list (Nest's default ValidationPipe gives one) as a problem's detail and
// `errors`, without pointers.
function messagesProblem(
  status: number,
  messages: readonly unknown[],
  rest: Record<string, unknown> = {},
): HttpProblem {
  return new HttpProblem({
    ...rest,
    status,
    detail: messages.map(String).join('; '),
    errors: messages.map((text) => ({ pointer: '', message: String(text) })),
  });
}

/**
 * What an exception is as a problem document: a toonwire {@link HttpProblem} (thrown, or wrapped
 * as the `cause` of a Nest exception) as it is; any other `HttpException` with its status and
 * message (a list of messages, as Nest's default ValidationPipe gives, as `errors` without
 * pointers) and the other members of its response as extensions (`headers` among them: a member
 * of the body, as Nest sends it, never response headers); anything else as Nest sees it, then as
 * `problemFromError` does (a 500 that hides its message, unless the error carries an http-errors
 * `statusCode`).
 *
 * @example
 * problemOf(new NotFoundException('No order 7')); // HttpProblem 404 "No order 7"
 */
export function problemOf(exception: unknown): unknown {
  if (exception instanceof HttpProblem) return exception;
  const cause = (exception as { cause?: unknown } | null)?.cause;
  if (cause instanceof HttpProblem) return cause;
  if (!(exception instanceof HttpException)) return asNestSeesIt(exception);
  const status = exception.getStatus();
  const response = exception.getResponse();
  // Nest's own answer to a request no route matches: the 404 every toonwire adapter writes.
  const unrouted =
    status === 404 &&
    /^Cannot ([A-Z]+) (\S*)$/.exec(String((response as { message?: unknown }).message));
  if (unrouted) return notFoundProblem(unrouted[1]!, unrouted[2]!.split('?')[0]!);
  if (typeof response === 'string') return new HttpProblem({ status, detail: response });
  // `new HttpException(['a', 'b'], 400)`: Nest sends the list as the body.
  if (Array.isArray(response)) return messagesProblem(status, response);
  const {
    message,
    error,
    statusCode: _statusCode,
    headers,
    ...members
  } = response as Record<string, unknown>;
  const rest: Record<string, unknown> = {
    // Nest's `error` is the status's name, which the title says, unless the app gave its own
    // (`new BadRequestException('Email taken', 'EMAIL_TAKEN')`): a code clients key on, kept.
    ...(error === undefined || isNestStatusName(status, error) ? {} : { error }),
    // A message that is no text (`{ message: { email: 'taken' } }`) is data: kept as it is.
    ...(message === undefined || typeof message === 'string' || Array.isArray(message)
      ? {}
      : { message }),
    ...members,
  };
  if (Array.isArray(message))
    return withHeadersMember(messagesProblem(status, message, rest), headers);
  const detail = typeof message === 'string' && message !== '' ? message : undefined;
  return withHeadersMember(
    new HttpProblem({
      ...rest,
      status,
      ...(detail === undefined || (status >= 500 && detail === statusTitle(status))
        ? {}
        : { detail }),
    }),
    headers,
  );
}

// The names Nest's exceptions give statuses where they differ from the RFC 9110 titles.
const NEST_STATUS_NAMES: Readonly<Record<number, string>> = {
  413: 'Payload Too Large',
  418: "I'm a teapot",
  421: 'Misdirected',
  422: 'Unprocessable Entity',
};

// Is `error` the `error` member Nest writes for the status by default (the status's name)?
function isNestStatusName(status: number, error: unknown): boolean {
  return error === statusTitle(status) || error === NEST_STATUS_NAMES[status];
}

// A `headers` member of an exception's response is data the app put in the body: it stays a
// member of the document (an HttpProblem's own `headers` option would send it as headers).
function withHeadersMember(problem: HttpProblem, headers: unknown): HttpProblem {
  if (headers !== undefined) problem.problem.headers = headers;
  return problem;
}

// An HttpException thrown with a success or redirect status (`new HttpException(body, 302)`):
// no problem, but an answer Nest sends with that status and the exception's response as its body
// (a string as `{ statusCode, message }`), as data.
function nonErrorAnswer(exception: unknown): { status: number; body: unknown } | undefined {
  if (!(exception instanceof HttpException)) return undefined;
  const status = exception.getStatus();
  if (!Number.isInteger(status) || status < 200 || status >= 400) return undefined;
  const response = exception.getResponse();
  return {
    status,
    body:
      typeof response === 'object' && response !== null
        ? response
        : { statusCode: status, message: response },
  };
}

function isFastifyReply(response: unknown): response is FastifyReplyLike {
  const reply = response as Partial<FastifyReplyLike>;
  return typeof reply.code === 'function' && typeof reply.serializer === 'function';
}

const passThrough = (payload: unknown): string => payload as string;

// A response whose headers have gone out (a handler wrote to it, then threw) cannot carry a
// problem any more: it is ended, as Nest's own exception filter ends it, so the client is not
// left waiting for a body that never comes.
function endStarted(response: NodeResponseLike): void {
  if (response.writableEnded !== true) response.end();
}

// Sends an HttpException's non-error answer as data, through the platform as Nest sends it:
// Express's res.json and Fastify's reply.send, which the adapter negotiates; Node's own
// response (Nest middleware on Fastify) negotiated here.
function sendData(
  response: unknown,
  answer: { status: number; body: unknown },
  context: { accept: string | string[] | undefined; settings: ToonSettings; json: boolean },
): void {
  if (isFastifyReply(response)) {
    if (response.sent || response.raw.headersSent) {
      endStarted(response.raw);
      return;
    }
    response.code(answer.status).send(answer.body as string);
    return;
  }
  const res = response as ExpressResponseLike & NodeResponseLike;
  if (res.headersSent) {
    endStarted(res);
    return;
  }
  if (typeof res.status === 'function') {
    res.status(answer.status);
    (res as unknown as { json(body: unknown): unknown }).json(answer.body);
    return;
  }
  const accept = Array.isArray(context.accept) ? context.accept.join(', ') : context.accept;
  const rendered = renderOrProblem(answer.body, {
    accept: context.json ? 'application/json' : accept,
    settings: context.settings,
    status: answer.status,
  });
  writeNodeAnswer(res, {
    status: rendered.status ?? answer.status,
    headers: rendered.headers,
    vary: !context.json,
    contentType:
      rendered.format === 'json' && rendered.status === undefined
        ? 'application/json; charset=utf-8'
        : rendered.contentType,
    body: rendered.body,
  });
}

// Writes a whole answer on Node's own response (Nest middleware on Fastify gets one, without
// Express's methods): status, the answer's headers, `Vary: Accept` when negotiated, its type
// and length, and the body.
function writeNodeAnswer(
  res: NodeResponseLike,
  answer: {
    status: number;
    headers: Record<string, string>;
    vary: boolean;
    contentType: string;
    body: string;
  },
): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  if (answer.vary) res.setHeader('Vary', appendVary(res.getHeader('vary') as string | undefined));
  res.setHeader('Content-Type', answer.contentType);
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}

/**
 * Answers every exception Nest sees as an RFC 9457 problem document in the format the client
 * negotiated (`text/toon; charset=utf-8; profile=problem` or `application/problem+json`), on
 * Express and on Fastify alike: `HttpException`s with their status, ValidationPipe failures and
 * toonwire's own problems (malformed TOON bodies keep their `line` and `column`) as they are,
 * other errors as Nest answers them (a 500 that hides its message, unless the error carries an
 * http-errors `statusCode`). An HttpException thrown with a success or redirect status is no
 * problem: it is answered as Nest answers it, that status with its response as negotiated data. Requests a route or `skip` left out of
 * negotiation get JSON problems. The settings are the adapter's, read from the request; those
 * given here are used where there are none. Exceptions from Nest middleware are answered too (on
 * Fastify, @fastify/middie hands middleware Node's own request and response, and runs it before
 * the plugin's hooks, so `skip`, given here, is asked for such a request itself); a response
 * whose headers went out before the exception (a handler wrote to it, then threw) is ended, as
 * Nest's own filter ends it, since no problem can follow.
 *
 * @example
 * app.useGlobalFilters(new ToonExceptionFilter());
 */
export class ToonExceptionFilter implements ExceptionFilter {
  readonly #settings: ToonSettings;
  readonly #skip: ((request: NestRequest) => boolean) | undefined;

  /**
   * @param settings Used where the request carries no adapter's settings.
   * @param skip The `skip` of {@link ToonNestOptions} (`useToon` passes it): asked for a request
   *   that Nest middleware on Fastify failed, which the plugin's hooks have not seen yet.
   */
  constructor(
    settings: ToonSettings = new ToonSettings(),
    skip?: (request: NestRequest) => boolean,
  ) {
    this.#settings = settings;
    this.#skip = skip;
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<RequestLike>();
    const response = http.getResponse<unknown>();
    const settings = attachedSettings(request) ?? request.server?.toon ?? this.#settings;
    const url = request.originalUrl ?? request.url ?? '';
    // Node's own response, without Express's or Fastify's methods: Nest middleware on Fastify,
    // which runs before the plugin's onRequest hook, so `skip` has not marked its request.
    const nodeResponse =
      !isFastifyReply(response) && typeof (response as ExpressResponseLike).status !== 'function';
    const json =
      isOptedOut(request) ||
      (response as ExpressResponseLike).locals?.toon === false ||
      (nodeResponse &&
        this.#skip?.({ method: request.method ?? 'GET', url, headers: request.headers }) === true);
    const query = url.indexOf('?');
    const accept = request.headers.accept;
    const answer = nonErrorAnswer(exception);
    if (answer !== undefined) {
      sendData(response, answer, { accept, settings, json });
      return;
    }
    const rendered = renderProblem(problemOf(exception), {
      accept: Array.isArray(accept) ? accept.join(', ') : accept,
      settings,
      instance: query === -1 ? url : url.slice(0, query),
      ...(json ? { format: 'json' as const } : {}),
    });
    if (rendered.status >= 500) console.error(exception);
    if (isFastifyReply(response)) {
      if (response.sent || response.raw.headersSent) {
        endStarted(response.raw);
        return;
      }
      response.code(rendered.status);
      for (const [name, value] of Object.entries(rendered.headers)) response.header(name, value);
      response
        .header('vary', appendVary(response.getHeader('vary') as string | undefined))
        .type(rendered.contentType)
        // A serializer set for this reply before the error would re-encode the problem text.
        .serializer(passThrough)
        .send(rendered.body);
      return;
    }
    const res = response as ExpressResponseLike & NodeResponseLike;
    if (res.headersSent) {
      endStarted(res);
      return;
    }
    if (nodeResponse) {
      writeNodeAnswer(res, {
        status: rendered.status,
        headers: rendered.headers,
        vary: true,
        contentType: rendered.contentType,
        body: rendered.body,
      });
      return;
    }
    res.status(rendered.status);
    for (const [name, value] of Object.entries(rendered.headers)) res.set(name, value);
    res
      .set('Vary', appendVary(res.get('Vary')))
      .set('Content-Type', rendered.contentType)
      .send(rendered.body);
  }
}
Catch()(ToonExceptionFilter);

/** What {@link ToonNestOptions}' `skip` is given: the platform's request (Express or Fastify). */
export interface NestRequest {
  method: string;
  /** The request URL, query string included. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Options of {@link useToon}: the platform adapter's, less what Nest itself does. */
export interface ToonNestOptions extends ToonHttpOptions {
  /** Largest `text/toon` body in bytes. Default: Express 100 kB (as Nest's JSON parser), Fastify the server's `bodyLimit`. */
  bodyLimit?: number;
  /**
   * Leave a request out of negotiation: its answers and problems are JSON (an OpenAPI route,
   * say). On Fastify, for an exception thrown by Nest middleware, it is given Node's request
   * (with `url` as sent), since that middleware runs before the plugin's hooks.
   */
  skip?: (request: NestRequest) => boolean;
  /**
   * Express only: refuse request bodies of any other Content-Type with a 415 problem (as
   * toonwire/express's `bodyTypes`). Fastify refuses types it has no parser for itself.
   */
  bodyTypes?: readonly string[];
}

/**
 * Wires TOON negotiation into a Nest application, before `app.listen` (or `app.init`): on
 * Express `app.use(toon())` from toonwire/express, on Fastify the toonwire/fastify plugin with
 * `errorHandler: false` (Nest installs its own; replacing it is Fastify's FSTWRN004 warning), and
 * a global {@link ToonExceptionFilter}. An app created with `rawBody: true` gets a TOON body's
 * bytes as `req.rawBody`, as Nest gives a JSON body's. Returns the live settings. The filter catches everything,
 * and Nest lets a global filter registered later shadow one registered earlier: register your own
 * global filters for particular exceptions after `useToon`, or the problem filter answers them.
 *
 * @example
 * const app = await NestFactory.create(AppModule);
 * const settings = await useToon(app, { defaultFormat: 'auto' });
 * app.useGlobalFilters(new PaymentDeclinedFilter()); // after useToon, so it answers its exceptions
 * app.useGlobalPipes(new ProblemValidationPipe({ transform: true, whitelist: true }));
 * await app.listen(3000);
 */
export async function useToon(
  app: INestApplication,
  options: ToonNestOptions = {},
): Promise<ToonSettings> {
  const adapter = app.getHttpAdapter();
  const { bodyLimit, ...shared } = options;
  // Nest's `rawBody: true` (NestFactory.create's option) keeps JSON bodies' bytes as
  // `req.rawBody`; TOON bodies, which the platform adapter reads, get theirs too.
  const rawBody = (app as { appOptions?: { rawBody?: unknown } }).appOptions?.rawBody === true;
  let settings: ToonSettings;
  if (adapter.getType() === 'fastify') {
    const { toon } = await import('./fastify.js');
    const instance = adapter.getInstance() as {
      register(plugin: unknown, options: object): PromiseLike<unknown>;
      toon: ToonSettings;
    };
    const { bodyTypes: _express, ...fastifyOptions } = shared;
    await instance.register(toon, {
      ...fastifyOptions,
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
      rawBody,
      errorHandler: false,
    });
    settings = instance.toon;
  } else {
    const { toon } = await import('./express.js');
    const middleware = toon({
      ...shared,
      ...(bodyLimit === undefined ? {} : { limit: bodyLimit }),
      rawBody,
    });
    app.use(middleware);
    settings = middleware.settings;
  }
  app.useGlobalFilters(new ToonExceptionFilter(settings, options.skip));
  return settings;
}

/**
 * `@ApiResponse` for a problem document (needs `@nestjs/swagger`): the status, with
 * `application/problem+json` and `text/toon; profile=problem` both described by
 * `PROBLEM_JSON_SCHEMA`. Put it on a controller or a handler, once per status.
 *
 * @example
 * @Get(':id')
 * @ApiProblemResponse(404, 'No such order')
 * findOne(@Param('id') id: string) { ... }
 */
export function ApiProblemResponse(
  status: number | 'default',
  description?: string,
): MethodDecorator & ClassDecorator {
  const schema = PROBLEM_JSON_SCHEMA as unknown as Record<string, unknown>;
  return loadSwagger().ApiResponse({
    status,
    description: description ?? (status === 'default' ? 'Problem' : statusTitle(status)),
    content: {
      'application/problem+json': { schema },
      [OPENAPI_TOON_PROBLEM]: { schema },
    },
  });
}

export { addToonToOpenApi } from './openapi.js';
export { HttpProblem, PROBLEM_JSON_SCHEMA, validationProblem } from './problem.js';
export { type ToonHttpOptions, ToonSettings } from './settings.js';
