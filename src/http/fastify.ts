// toonwire/fastify: TOON content negotiation as a Fastify plugin. Handlers keep calling
// reply.send(obj); request.body holds decoded TOON bodies; errors become negotiated problem
// documents. Fastify is imported for types only: the plugin works with the app's own copy.
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  RouteOptions,
} from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import {
  assertToonCharset,
  DEFAULT_BODY_TYPES,
  decodeToonBody,
  unsupportedMediaType,
} from './body.js';
import {
  DATA_VALIDATORS,
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
import { appendVary, JSON_CONTENT_TYPE, mediaTypeOf, TOON_MEDIA_TYPE } from './media-types.js';
import { acceptsFormat } from './negotiate.js';
import { addToonToOpenApi } from './openapi.js';
import { type ValidationIssue, validationProblem } from './problem.js';
import { contentTypeFor, renderBody, renderProblem } from './render.js';
import { compileProjection, UNSUPPORTED_VALUE } from './schema-projection.js';
import { type ToonHttpOptions, ToonSettings } from './settings.js';
import { compileToonSerializer } from './toon-serializer.js';

/** Options of the Fastify plugin. */
export interface ToonFastifyOptions extends ToonHttpOptions {
  /**
   * Largest `text/toon` body in bytes. Default: the same limit as JSON bodies (the server's
   * `bodyLimit`, or the route's), so both formats are refused with the same 413.
   */
  bodyLimit?: number;
  /**
   * Answer requests for unknown routes with a negotiated 404 problem document (installs a
   * not-found handler; leave it off if you set your own). Default `false`.
   */
  notFound?: boolean;
  /**
   * Install an error handler that answers every error with a negotiated problem document.
   * Default `true`; an error handler you set before registering the plugin is kept and runs
   * first (errors it throws become problem documents). `false`: install none, and call
   * {@link problemErrorHandler} from your own.
   */
  errorHandler?: boolean;
  /**
   * Leave a request out of negotiation: its replies and its errors answer JSON, as a route with
   * `config: { toon: false }` does. It applies to every route in the plugin's scope, those other
   * plugins register included (@fastify/swagger-ui's `/docs/json`), which route config cannot
   * reach; for example `(request) => request.url.startsWith('/docs')`.
   */
  skip?: (request: FastifyRequest) => boolean;
  /**
   * Keep the bytes of a `text/toon` body as `request.rawBody` (a Buffer, as sent), next to the
   * decoded `request.body`: what NestJS's `rawBody: true` gives JSON bodies, for checking a
   * webhook's signature. Default `false`; toonwire/nest's `useToon` sets it from that option.
   */
  rawBody?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Live TOON negotiation settings: assign `defaultFormat` or `delimiter` to change them at runtime. */
    toon: ToonSettings;
  }
  interface FastifyContextConfig {
    /** `false`: this route always answers JSON (problem documents too), whatever `Accept` says. */
    toon?: boolean;
  }
}

// The route's JSON serializer for the reply's status and the schema it was compiled from, as
// Fastify looks them up (getSchemaSerializer): by exact status, then by status class (`2xx`),
// then `default`, the first of these keys the route has deciding, even when its content map has
// no JSON entry (then Fastify serializes without a schema, and so does TOON).
function responseSerialization(
  request: FastifyRequest,
  reply: FastifyReply,
): { serialize: (payload: unknown) => string; schema: unknown } | undefined {
  const status = reply.statusCode;
  const schemas = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
  for (const key of [String(status), `${Math.floor(status / 100)}xx`, 'default']) {
    const entry = reply.getSerializationFunction(key) as unknown;
    if (entry === undefined) continue;
    const serialize = jsonSerializer(entry);
    return serialize === undefined
      ? undefined
      : { serialize, schema: jsonSchemaOf(schemas?.[key]) };
  }
  return undefined;
}

// A route's response schema decides which fields a JSON response contains (fast-json-stringify
// drops undeclared ones), and TOON responses must carry the same data. Returns the data of
// `payload` as the route's JSON serializer would write it, or `payload` itself when the route
// has no response schema for this status.
function asSerializedByResponseSchema(
  serialization: ReturnType<typeof responseSerialization>,
  payload: unknown,
): { value: unknown; jsonModel: boolean } {
  if (serialization === undefined) return { value: payload, jsonModel: false };
  const projection = compileProjection(serialization.schema);
  if (projection !== undefined) {
    try {
      return { value: projection(payload), jsonModel: true };
    } catch (error) {
      if (error !== UNSUPPORTED_VALUE) throw error;
    }
  }
  return { value: JSON.parse(serialization.serialize(payload)), jsonModel: true };
}

// Fastify's own symbols, which it does not export, found by their descriptions and remembered
// (looked up again for an object that lacks the one remembered: another copy of Fastify).
const fastifySymbols = new Map<string, symbol>();
function fastifySymbol(target: object, description: string): symbol | undefined {
  const known = fastifySymbols.get(description);
  if (known !== undefined && known in target) return known;
  for (
    let at: object | null = target;
    at !== null;
    at = Object.getPrototypeOf(at) as object | null
  ) {
    const found = Object.getOwnPropertySymbols(at).find((key) => key.description === description);
    if (found !== undefined) {
      fastifySymbols.set(description, found);
      return found;
    }
  }
  return undefined;
}

type ReplySerializer = (payload: unknown, statusCode: number) => string;

// The serializers this plugin sets on replies.
const ownSerializers = new WeakSet<object>();

// A serializer the app set for its JSON replies, which Fastify uses before any response schema:
// `reply.serializer(fn)` on this reply, else `app.setReplySerializer(fn)` of the route's scope
// (kept on the route's context). Fastify offers no way to read either, so they are read under
// its own symbols; on a Fastify that stores them otherwise none is found, as before.
function customSerializer(
  request: FastifyRequest,
  reply: FastifyReply,
): ReplySerializer | undefined {
  const own = fastifySymbol(reply, 'fastify.reply.serializer');
  const perReply: unknown = own === undefined ? undefined : (reply as never)[own];
  // Fastify keeps a reply's serializer on the error path: one of this plugin's, set before the
  // error, is not the app's.
  if (typeof perReply === 'function' && !ownSerializers.has(perReply))
    return perReply as ReplySerializer;
  const contextKey = fastifySymbol(request, 'fastify.context');
  const context: unknown = contextKey === undefined ? undefined : (request as never)[contextKey];
  if (typeof context !== 'object' || context === null) return undefined;
  const key = fastifySymbol(context, 'fastify.replySerializerDefault');
  const scoped: unknown = key === undefined ? undefined : (context as never)[key];
  return typeof scoped === 'function' ? (scoped as ReplySerializer) : undefined;
}

// Fastify keeps either one serializer per status, or one per media type (`content` maps).
function jsonSerializer(entry: unknown): ((payload: unknown) => string) | undefined {
  if (typeof entry === 'function') return entry as (payload: unknown) => string;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const byType = entry as Record<string, unknown>;
  const serializer = byType['application/json'] ?? byType['*/*'];
  return typeof serializer === 'function'
    ? (serializer as (payload: unknown) => string)
    : undefined;
}

function jsonSchemaOf(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const content = (entry as { content?: Record<string, { schema?: unknown } | undefined> }).content;
  if (typeof content !== 'object' || content === null) return entry;
  return (content['application/json'] ?? content['*/*'])?.schema;
}

function validationIssues(error: FastifyError): ValidationIssue[] {
  return (error.validation ?? []).map((issue) => ({
    pointer: issue.instancePath,
    message: issue.message ?? issue.keyword,
  }));
}

const passThrough = (payload: unknown): string => payload as string;
ownSerializers.add(passThrough);

// Routes with `config: { toon: false }` mark their requests in a route-level onRequest hook
// (added by onRoute below), so other routes pay nothing to find out; `skip` marks the requests
// it selects in an onRequest hook of the plugin's scope.
const optedOut = (request: FastifyRequest): boolean => isOptedOut(request);

function markRouteOptedOut(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  markOptedOut(request);
  done();
}

const fallbackSettings = new ToonSettings();

/**
 * The plugin's error handling as a Fastify error handler: answers `error` with a negotiated
 * RFC 9457 problem document (validation failures as a 400 with `errors`, an unsupported
 * Content-Type as a 415, an error's `headers` on the response). Call it from your own handler
 * for the errors you do not answer yourself, with the plugin registered as
 * `{ errorHandler: false }` (or after your handler, which the plugin then wraps).
 *
 * @example
 * import toon, { problemErrorHandler } from 'toonwire/fastify';
 *
 * await app.register(toon, { errorHandler: false });
 * app.setErrorHandler((error, request, reply) => {
 *   if (error instanceof TeapotError) return reply.code(418).send('short and stout');
 *   return problemErrorHandler(error, request, reply);
 * });
 */
export function problemErrorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const settings = (request.server as FastifyInstance & { toon?: ToonSettings }).toon;
  const fastifyError = (error ?? {}) as FastifyError;
  const source = fastifyError.validation
    ? validationProblem(validationIssues(fastifyError), {
        part: fastifyError.validationContext ?? 'body',
      })
    : fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
      ? unsupportedMediaType(request.headers['content-type'], DEFAULT_BODY_TYPES)
      : error;
  const rendered = renderProblem(source, {
    accept: request.headers.accept,
    settings: settings ?? fallbackSettings,
    instance: requestPath(request.url),
    ...(optedOut(request) ? { format: 'json' as const } : {}),
  });
  const message = error instanceof Error ? error.message : String(error);
  if (rendered.status >= 500) request.log.error({ err: error }, message);
  else request.log.info({ err: error }, message);
  reply.headers(rendered.headers);
  // The error path keeps a serializer set earlier for this reply; reset it so the finished
  // problem text is sent as it is.
  reply
    .code(rendered.status)
    .header('vary', appendVary(reply.getHeader('vary')))
    .type(rendered.contentType)
    .serializer(passThrough)
    .send(rendered.body);
}

type ErrorHandler = (
  this: FastifyInstance,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

// A handler set before the plugin is kept: it runs first, and what it throws (or rejects with)
// becomes a problem document.
function composeErrorHandler(own: ErrorHandler): ErrorHandler {
  return function composedErrorHandler(this: FastifyInstance, error, request, reply) {
    let result: unknown;
    try {
      result = own.call(this, error, request, reply);
    } catch (thrown) {
      problemErrorHandler(thrown, request, reply);
      return undefined;
    }
    if (result !== null && typeof (result as PromiseLike<unknown>)?.then === 'function') {
      return (result as Promise<unknown>).then(undefined, (thrown: unknown) => {
        problemErrorHandler(thrown, request, reply);
      });
    }
    return result;
  };
}

const plugin: FastifyPluginCallback<ToonFastifyOptions> = (app, options, done) => {
  const settings = new ToonSettings(options);
  app.decorate('toon', settings);

  const { skip } = options;
  if (skip !== undefined) {
    // A hook of the scope the plugin is registered in reaches every route of that scope and its
    // children, whoever registers them and in whichever order, and the not-found handler.
    app.addHook('onRequest', (request, _reply, done) => {
      if (skip(request)) markOptedOut(request);
      done();
    });
  }

  const prototypeKeys = {
    onProto: app.initialConfig.onProtoPoisoning ?? 'error',
    onConstructor: app.initialConfig.onConstructorPoisoning ?? 'error',
  } as const;
  const keepRawBody = options.rawBody === true;
  app.addContentTypeParser(
    TOON_MEDIA_TYPE,
    {
      // Bytes, not a string: the codec decodes them with a fatal UTF-8 decoder, so ill-formed
      // UTF-8 is a 400 naming the byte offset instead of silently becoming U+FFFD.
      parseAs: 'buffer',
      ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    },
    (
      request: FastifyRequest,
      body: string | Buffer,
      parsed: (error: Error | null, value?: unknown) => void,
    ) => {
      if (keepRawBody) (request as FastifyRequest & { rawBody?: unknown }).rawBody = body;
      try {
        assertToonCharset(request.headers['content-type']);
        // An empty TOON body is the empty object (`encode({})` is the empty text), validated
        // like the JSON body {}; Fastify refuses an empty JSON body, but that has no TOON twin.
        parsed(
          null,
          decodeToonBody(body, {
            prototypeKeys,
            contentEncoding: request.headers['content-encoding'],
          }),
        );
      } catch (error) {
        parsed(error as Error);
      }
    },
  );

  // Fastify picks a `schema.body.content` entry by exact media type and skips validation for
  // types it does not list: give text/toon the JSON entry so TOON bodies are validated alike.
  app.addHook('onRoute', (route: RouteOptions) => {
    if ((route.config as { toon?: boolean } | undefined)?.toon === false) {
      const own = route.onRequest;
      route.onRequest = [
        ...(own === undefined ? [] : Array.isArray(own) ? own : [own]),
        markRouteOptedOut,
      ] as RouteOptions['onRequest'];
    }
    const body = route.schema?.body as { content?: Record<string, unknown> } | undefined;
    const content = body?.content;
    if (typeof content !== 'object' || content === null) return;
    const types = Object.keys(content);
    const jsonType = types.find((type) => mediaTypeOf(type) === 'application/json');
    if (jsonType === undefined || types.some((type) => mediaTypeOf(type) === TOON_MEDIA_TYPE))
      return;
    route.schema = {
      ...route.schema,
      body: { ...body, content: { ...content, [TOON_MEDIA_TYPE]: content[jsonType] } },
    };
  });

  // A request negotiated as TOON shows the handler the If-None-Match of its data's tags (kit.ts,
  // hideTagsOfOtherFormats): its own check then answers 304 only for the TOON answer's tag. The
  // client's header is back once something is sent (preSerialization, or onSend for the
  // handler's own bytes), for @fastify/etag to compare the tag of what is sent. preHandler: the
  // routes' own opt-outs are marked by then (route-level onRequest hooks run after the plugin's).
  app.addHook('preHandler', (request, _reply, done) => {
    if (!optedOut(request))
      hideTagsInNodeHeaders(request, request.raw.headers, settings.defaultFormat);
    done();
  });

  // A 304 the handler answers itself (reply.code(304).send()) is never serialized, so it gets
  // `Vary: Accept` here, and the TOON answer's tag when it was decided on the data's tags; one
  // @fastify/etag answers keeps what preSerialization set on its way.
  app.addHook('onSend', (request, reply, payload, next) => {
    if (notModified(reply.statusCode) && !optedOut(request)) {
      reply.header('vary', appendVary(reply.getHeader('vary')));
      retagNotModified(request, reply.getHeader('etag') as string | undefined, (etag) =>
        reply.header('etag', etag),
      );
    } else restoreTags(request);
    next(null, payload);
  });

  // Only object payloads that Fastify is about to serialize as JSON reach this hook, so strings,
  // buffers, streams and explicitly typed responses (any type but application/json) pass
  // through untouched, as does a file the handler named (Content-Disposition), which stays JSON.
  app.addHook('preSerialization', (request, reply, payload, next) => {
    if (!notModified(reply.statusCode)) restoreTags(request);
    if (
      optedOut(request) ||
      namesFile(reply.getHeader('content-disposition')) ||
      mediaTypeOf(reply.getHeader('content-type') as string | undefined) !== 'application/json'
    ) {
      next(null, payload);
      return;
    }
    reply.header('vary', appendVary(reply.getHeader('vary')));
    const accept = request.headers.accept;
    // A redirect or error status the handler set (reply.code(404).send(...)) is kept whatever Accept says.
    const format = responseFormat(accept, settings.defaultFormat, reply.statusCode);
    if (format === undefined) {
      for (const name of DATA_VALIDATORS) reply.removeHeader(name);
      (next as (error: Error) => void)(notAcceptableProblem());
      return;
    }
    if (format !== 'json') {
      // Serialize in the serializer, not here: later preSerialization hooks may still change
      // the payload, and the serializer sees the final one.
      const delimiter = settings.delimiter;
      const custom = customSerializer(request, reply);
      const serializer = (final: unknown): string => {
        let body: string | undefined;
        let contentType = contentTypeFor('toon');
        if (custom !== undefined) {
          // The app's own serializer writes the JSON (redacting, BigInts, ...): TOON carries
          // what it wrote, and JSON stays its text; text that is not JSON is sent as it is.
          const text = custom(final, reply.statusCode);
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            return text;
          }
          const rendered = renderBody(value, format, delimiter, {
            jsonModel: true,
            jsonAcceptable: () => acceptsFormat(accept, 'json'),
          });
          body = rendered.format === 'json' ? text : rendered.body;
          contentType = rendered.contentType;
        } else {
          const serialization = responseSerialization(request, reply);
          if (format === 'toon' && serialization !== undefined) {
            // The schema-compiled writer gives the same text as projection + encode, faster;
            // it returns undefined for data only the generic encoder can decide.
            body = compileToonSerializer(serialization.schema, delimiter)?.(final);
          }
          if (body === undefined) {
            const { value, jsonModel } = asSerializedByResponseSchema(serialization, final);
            const rendered = renderBody(value, format, delimiter, {
              jsonModel,
              jsonAcceptable: () => acceptsFormat(accept, 'json'),
            });
            body = rendered.body;
            contentType = rendered.contentType;
          }
        }
        // JSON ('auto' picked it, or TOON could not carry the data) keeps the Content-Type
        // Fastify set for it (application/json; charset=utf-8), as without the plugin.
        if (contentType !== JSON_CONTENT_TYPE) {
          reply.type(contentType);
          // An ETag the handler set names the JSON representation, not this one.
          retagForToon(
            reply.getHeader('etag') as string | undefined,
            (etag) => reply.header('etag', etag),
            () => reply.removeHeader('etag'),
          );
        }
        return body;
      };
      ownSerializers.add(serializer);
      reply.serializer(serializer);
    }
    next(null, payload);
  });

  if (options.errorHandler !== false) {
    // Fastify stores handlers bound to their instance: compare by name, the only thing kept.
    const own = app.errorHandler as ErrorHandler | undefined;
    const userHandler = own !== undefined && own.name !== 'defaultErrorHandler' ? own : undefined;
    const installed =
      userHandler === undefined ? problemErrorHandler : composeErrorHandler(userHandler);
    const overridable =
      (app.initialConfig as { allowErrorHandlerOverride?: boolean }).allowErrorHandlerOverride !==
      false;
    if (userHandler !== undefined && !overridable) {
      app.log.warn(
        'toonwire: allowErrorHandlerOverride is false and an error handler is already set, so the plugin installed none. Call problemErrorHandler from your handler for problem documents.',
      );
    } else {
      app.setErrorHandler(installed);
      // A handler set after the plugin, in the same scope, replaces it: say how to compose.
      app.addHook('onReady', function warnIfReplaced(this: FastifyInstance, ready) {
        const current = this.errorHandler?.name;
        if (current !== installed.name && current !== `bound ${installed.name}`)
          this.log.warn(
            'toonwire: an error handler set after the toonwire plugin replaced its problem documents. Register the plugin after setErrorHandler (it then wraps yours), or call problemErrorHandler from your handler.',
          );
        ready();
      });
    }
  }

  if (options.notFound) {
    app.setNotFoundHandler((request, reply) => {
      reply.send(notFoundProblem(request.method, requestPath(request.url)));
    });
  }

  done();
};

/**
 * The Fastify plugin. Register it once, before the routes it should cover; it applies to the
 * scope it is registered in and all child scopes (it is wrapped with fastify-plugin):
 * - `reply.send(obj)` answers in TOON (`text/toon; charset=utf-8`) or JSON as `Accept` asks,
 *   with `Vary: Accept` (response schemas filter TOON responses exactly as JSON ones); strings,
 *   Buffers, streams and other JSON flavours pass untouched; a client refusing both formats
 *   gets a 406 problem; routes with `config: { toon: false }`, and requests `skip(request)`
 *   selects on any route of the scope, always answer JSON;
 * - `text/toon` request bodies are decoded strictly, from the bytes, into `request.body` and
 *   validated by the route's schema like their JSON twins (`schema.body.content` maps included;
 *   an empty body is `{}`, numbers beyond a double are ±Infinity as in JSON); ill-formed UTF-8
 *   and malformed TOON are 400s, too large a 413, unknown Content-Types stay Fastify's 415;
 * - errors, validation failures included, become RFC 9457 problem documents in the negotiated
 *   format, an error's `headers` on the response (installs an error handler that wraps one set
 *   before it; `errorHandler: false` and {@link problemErrorHandler} to compose your own).
 * `app.toon` holds the live settings.
 *
 * @example
 * import Fastify from 'fastify';
 * import toon from 'toonwire/fastify';
 *
 * const app = Fastify();
 * await app.register(toon, {
 *   defaultFormat: 'json',
 *   delimiter: ',',
 *   skip: (request) => request.url.startsWith('/docs'), // @fastify/swagger-ui stays JSON
 * });
 * app.get('/orders', async () => ({ data: [{ id: 1, status: 'paid' }] }));
 * app.toon.defaultFormat = 'toon'; // later, at runtime
 */
export const toon = fastifyPlugin(plugin, { fastify: '5.x', name: 'toonwire' });
export default toon;

/** What @fastify/swagger hands to `transformObject`. */
export type SwaggerDocumentObject = { openapiObject: object } | { swaggerObject: object };

/**
 * Wraps @fastify/swagger options so the generated OpenAPI 3 document lists TOON next to JSON
 * (see `addToonToOpenApi`). Your own `transformObject`, if any, runs first and its result is
 * extended: nothing is replaced. Swagger 2.0 output is returned unchanged.
 *
 * @example
 * import swagger from '@fastify/swagger';
 * import { withToonOpenApi } from 'toonwire/fastify';
 *
 * await app.register(swagger, withToonOpenApi({ openapi: { info: { title: 'Orders', version: '1.0.0' } } }));
 */
export function withToonOpenApi<Options extends object>(options: Options): Options {
  const own = (options as { transformObject?: (input: SwaggerDocumentObject) => object })
    .transformObject;
  const transformObject = (input: SwaggerDocumentObject): object => {
    const document = own
      ? own(input)
      : 'openapiObject' in input
        ? input.openapiObject
        : input.swaggerObject;
    return 'openapiObject' in input ? addToonToOpenApi(document) : document;
  };
  return { ...options, transformObject };
}

export { HttpProblem, validationProblem } from './problem.js';
/** Re-exported for `app.toon` typing and custom setups. */
export { type ToonHttpOptions, ToonSettings } from './settings.js';
