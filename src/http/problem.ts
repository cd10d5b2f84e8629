import { PROBLEM_JSON_CONTENT_TYPE } from './media-types.js';

/**
 * An RFC 9457 problem document. `type` defaults to `about:blank`, whose `title` is the HTTP
 * status phrase; any other member is an extension (for example `errors` for validation).
 */
export interface ProblemDetails {
  /** URI reference naming the problem type; `about:blank` when the status says it all. */
  type: string;
  /** Short, human-readable summary of the problem type. */
  title: string;
  /** HTTP status code. */
  status: number;
  /** Explanation of this occurrence, written for the client developer. */
  detail?: string;
  /** URI reference of this occurrence (the adapters use the request path). */
  instance?: string;
  /** Extension members. */
  [extension: string]: unknown;
}

/**
 * The JSON Schema of the problem documents this package writes (RFC 9457 members plus the
 * `errors` extension of validation problems), for response schemas and OpenAPI components.
 *
 * @example
 * app.get('/orders/:id', { schema: { response: { 200: order, 404: PROBLEM_JSON_SCHEMA } } }, handler);
 */
export const PROBLEM_JSON_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { pointer: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

/**
 * What {@link HttpProblem} is built from: a status plus any problem members and extensions.
 * `headers` are response headers (`Allow` on a 405, `Retry-After` on a 429 or 503): they go on
 * the response, never into the document.
 */
export interface ProblemInit {
  status: number;
  type?: string;
  title?: string;
  detail?: string;
  instance?: string;
  headers?: Readonly<Record<string, string>>;
  [extension: string]: unknown;
}

/** One failed check of a request body, located by a JSON Pointer (RFC 6901) into the body. */
export interface ValidationIssue {
  /** JSON Pointer of the offending value, `''` for the whole body. */
  pointer: string;
  /** What is wrong, as the validator says it. */
  message: string;
}

const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  511: 'Network Authentication Required',
};

/**
 * The reason phrase of an HTTP status (RFC 9110), or a generic one for unlisted codes.
 *
 * @example
 * statusTitle(415); // 'Unsupported Media Type'
 */
export function statusTitle(status: number): string {
  return (
    STATUS_TITLES[status] ??
    (status >= 500 ? 'Server Error' : status >= 400 ? 'Client Error' : 'Error')
  );
}

function isErrorStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599;
}

/**
 * An error that becomes a problem document. Throw it from a handler (or pass it to `next`) and
 * the adapter's error handling answers with exactly these members, in JSON or TOON as the
 * client negotiated. It also carries `status`/`statusCode`/`expose` so frameworks that do not
 * know it still answer with the right status.
 *
 * `headers` are sent with the response in every adapter (and by frameworks that read an error's
 * `headers`, as Fastify's and Express's default handlers do). `getResponse()` gives a JSON
 * problem `Response`, which Hono's default error handler sends as it is, so the status survives
 * even without `app.onError`.
 *
 * @example
 * throw new HttpProblem({ status: 404, detail: `No order with id ${id}.` });
 * throw new HttpProblem({ status: 409, title: 'Order already paid', type: 'https://example.com/problems/paid', orderId: id });
 * throw new HttpProblem({ status: 405, detail: 'Use GET.', headers: { Allow: 'GET, HEAD' } });
 */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  /** The document sent to the client (type, title, status first; then detail, instance, extensions). */
  readonly problem: ProblemDetails;
  /** Messages of client errors are meant for the client (http-errors convention). */
  readonly expose: boolean;
  /** Response headers to send with the problem document (never part of the document). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(init: ProblemInit) {
    const status = isErrorStatus(init.status) ? init.status : 500;
    const { type, title, detail, instance, headers, ...rest } = init;
    const { status: _ignored, ...extensions } = rest;
    const problem: ProblemDetails = {
      type: type ?? 'about:blank',
      title: title ?? statusTitle(status),
      status,
      ...(detail === undefined ? {} : { detail }),
      ...(instance === undefined ? {} : { instance }),
      ...extensions,
    };
    super(detail ?? problem.title);
    this.problem = problem;
    this.expose = status < 500;
    this.headers = { ...headers };
  }

  /**
   * The problem as an `application/problem+json` `Response` with its headers: what Hono's
   * default error handler sends for an error that has this method. The adapters' own error
   * handling negotiates TOON instead.
   *
   * @example
   * new HttpProblem({ status: 503, headers: { 'Retry-After': '30' } }).getResponse().status; // 503
   */
  getResponse(): Response {
    const headers = new Headers(this.headers);
    headers.set('content-type', PROBLEM_JSON_CONTENT_TYPE);
    return new Response(JSON.stringify(this.problem), { status: this.problem.status, headers });
  }

  /** The HTTP status (also read by Express, Hono and http-errors-aware code). */
  get status(): number {
    return this.problem.status;
  }

  /**
   * Frameworks that write the status back (Koa's default error handler sets `err.status` to the
   * one it read) may: the document's status stays the one the problem was built with.
   */
  set status(_status: number) {}

  /** The HTTP status under Fastify's name for it. */
  get statusCode(): number {
    return this.problem.status;
  }
  set statusCode(_status: number) {}
}

/**
 * A 400 problem listing every failed check, as all three adapters report validation failures:
 * the `errors` extension holds `{ pointer, message }` items, `detail` sums them up.
 *
 * @example
 * validationProblem([{ pointer: '/items/0/quantity', message: 'must be >= 1' }]);
 * // detail: 'The request body is invalid: /items/0/quantity must be >= 1. Fix these fields and send the request again.'
 * validationProblem(issues, { part: 'querystring' }); // 'The request querystring is invalid: ...'
 */
export function validationProblem(
  issues: readonly ValidationIssue[],
  options: { part?: string; detail?: string } = {},
): HttpProblem {
  const summary = issues.map((issue) => `${issue.pointer || '(root)'} ${issue.message}`).join('; ');
  return new HttpProblem({
    status: 400,
    detail:
      options.detail ??
      `The request ${options.part ?? 'body'} is invalid: ${summary}. Fix these fields and send the request again.`,
    errors: issues.map((issue) => ({ pointer: issue.pointer, message: issue.message })),
  });
}

interface ErrorLike {
  status?: unknown;
  statusCode?: unknown;
  message?: unknown;
  code?: unknown;
  expose?: unknown;
}

/**
 * The problem document for anything thrown while handling a request:
 * - an {@link HttpProblem} gives its own document;
 * - an error carrying a 4xx `status`/`statusCode` (Fastify, http-errors, Hono's HTTPException)
 *   gives that status with its message as `detail`, and its string `code` as an extension;
 * - anything else is a 500 whose detail hides the internal message (log the error instead).
 * `instance` is filled from the request path when the problem does not name one.
 *
 * @example
 * problemFromError(Object.assign(new Error('Body is too large'), { statusCode: 413 }), '/orders');
 * // { type: 'about:blank', title: 'Content Too Large', status: 413, detail: 'Body is too large', instance: '/orders' }
 */
export function problemFromError(error: unknown, instance?: string): ProblemDetails {
  if (error instanceof HttpProblem) {
    if (error.problem.instance !== undefined || instance === undefined) return error.problem;
    const { type, title, status, detail, ...extensions } = error.problem;
    return {
      type,
      title,
      status,
      ...(detail === undefined ? {} : { detail }),
      instance,
      ...extensions,
    };
  }
  const like: ErrorLike = typeof error === 'object' && error !== null ? (error as ErrorLike) : {};
  const candidate = like.statusCode ?? like.status;
  const status = isErrorStatus(candidate) ? candidate : 500;
  const problem: ProblemDetails = { type: 'about:blank', title: statusTitle(status), status };
  // Server-side messages can leak internals (SQL, paths); only client errors explain themselves,
  // unless the error was explicitly marked as safe to expose (http-errors' `expose`).
  const exposed = like.expose === true || (status < 500 && like.expose !== false);
  if (exposed && typeof like.message === 'string' && like.message !== '')
    problem.detail = like.message;
  if (instance !== undefined) problem.instance = instance;
  if (exposed && typeof like.code === 'string') problem.code = like.code;
  return problem;
}

/**
 * The response headers an error asks for: an {@link HttpProblem}'s `headers`, or the `headers`
 * object that http-errors, Fastify and Hono errors may carry (string and number values).
 *
 * @example
 * problemHeaders(new HttpProblem({ status: 405, headers: { Allow: 'GET' } })); // { Allow: 'GET' }
 * problemHeaders(new Error('x')); // {}
 */
export function problemHeaders(error: unknown): Record<string, string> {
  const headers = (error as { headers?: unknown } | null | undefined)?.headers;
  const result: Record<string, string> = {};
  if (typeof headers !== 'object' || headers === null) return result;
  const entries =
    headers instanceof Headers ? [...headers.entries()] : Object.entries(headers as object);
  for (const [name, value] of entries) {
    if (typeof value === 'string' || typeof value === 'number') result[name] = String(value);
  }
  return result;
}
