import { isJsonObject } from '../codec/objects.js';
import { contentTypeParameter, mediaTypeOf, TOON_MEDIA_TYPE } from './media-types.js';

/** The TOON media type listed next to `application/json` in OpenAPI documents. */
export const OPENAPI_TOON = TOON_MEDIA_TYPE;
/** The TOON media type listed next to `application/problem+json` in OpenAPI documents. */
export const OPENAPI_TOON_PROBLEM = 'text/toon; profile=problem';

type Json = Record<string, unknown>;

const OPERATION_KEYS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;

// Each helper returns its input unchanged when nothing under it needs TOON, and a copy with
// the additions otherwise: the caller's document is never modified and untouched parts are
// shared rather than cloned.

function withToonMediaTypes(content: Json): Json {
  let hasToon = false;
  let hasToonProblem = false;
  for (const key of Object.keys(content)) {
    if (mediaTypeOf(key) !== TOON_MEDIA_TYPE) continue;
    if (contentTypeParameter(key, 'profile') === 'problem') hasToonProblem = true;
    else hasToon = true;
  }
  const result: Json = {};
  let changed = false;
  for (const [key, media] of Object.entries(content)) {
    result[key] = media;
    const type = mediaTypeOf(key);
    const addition =
      type === 'application/json' && !hasToon
        ? OPENAPI_TOON
        : type === 'application/problem+json' && !hasToonProblem
          ? OPENAPI_TOON_PROBLEM
          : undefined;
    if (addition === undefined || addition in result || addition in content) continue;
    // A copy, not a second reference: YAML writers turn shared objects into anchors and aliases.
    result[addition] = isJsonObject(media) ? structuredClone(media) : media;
    changed = true;
  }
  return changed ? result : content;
}

function withToonInContentHolder(holder: unknown): unknown {
  if (!isJsonObject(holder) || !isJsonObject(holder.content)) return holder;
  const content = withToonMediaTypes(holder.content);
  return content === holder.content ? holder : { ...holder, content };
}

function mapValues(record: unknown, transform: (value: unknown) => unknown): unknown {
  if (!isJsonObject(record)) return record;
  let changed = false;
  const result: Json = {};
  for (const [key, value] of Object.entries(record)) {
    const next = transform(value);
    if (next !== value) changed = true;
    result[key] = next;
  }
  return changed ? result : record;
}

function withToonInOperation(operation: unknown): unknown {
  if (!isJsonObject(operation)) return operation;
  const requestBody = withToonInContentHolder(operation.requestBody);
  const responses = mapValues(operation.responses, withToonInContentHolder);
  // callbacks: { name: { expression: PathItem } }
  const callbacks = mapValues(operation.callbacks, (callback) =>
    mapValues(callback, withToonInPathItem),
  );
  if (
    requestBody === operation.requestBody &&
    responses === operation.responses &&
    callbacks === operation.callbacks
  ) {
    return operation;
  }
  const result: Json = { ...operation };
  if (requestBody !== undefined) result.requestBody = requestBody;
  if (responses !== undefined) result.responses = responses;
  if (callbacks !== undefined) result.callbacks = callbacks;
  return result;
}

function withToonInPathItem(pathItem: unknown): unknown {
  if (!isJsonObject(pathItem)) return pathItem;
  let result: Json | undefined;
  for (const key of OPERATION_KEYS) {
    if (!(key in pathItem)) continue;
    const next = withToonInOperation(pathItem[key]);
    if (next === pathItem[key]) continue;
    result ??= { ...pathItem };
    result[key] = next;
  }
  return result ?? pathItem;
}

function withToonInComponents(components: unknown): unknown {
  if (!isJsonObject(components)) return components;
  const replacements: Json = {
    requestBodies: mapValues(components.requestBodies, withToonInContentHolder),
    responses: mapValues(components.responses, withToonInContentHolder),
    pathItems: mapValues(components.pathItems, withToonInPathItem),
    callbacks: mapValues(components.callbacks, (callback) =>
      mapValues(callback, withToonInPathItem),
    ),
  };
  let result: Json | undefined;
  for (const [key, value] of Object.entries(replacements)) {
    if (value === components[key]) continue;
    result ??= { ...components };
    result[key] = value;
  }
  return result ?? components;
}

/**
 * Lists TOON wherever an OpenAPI 3.x document offers JSON: `text/toon` next to every
 * `application/json` request body and response, and `text/toon; profile=problem` next to every
 * `application/problem+json`, with the same schema and examples (TOON carries the same data).
 * Covers paths, webhooks (3.1), callbacks and the reusable `components` (request bodies,
 * responses, path items, callbacks), so `$ref`s resolve to entries that list TOON too. Media
 * types that already list TOON are left as they are, so applying it twice changes nothing.
 *
 * Pure: returns a new document and never modifies its input (unchanged parts are shared).
 *
 * @throws {TypeError} for anything that is not an OpenAPI 3.x document (Swagger 2.0 included).
 * @example
 * const document = addToonToOpenApi({
 *   openapi: '3.1.0',
 *   info: { title: 'Orders', version: '1.0.0' },
 *   paths: { '/orders': { get: { responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } } } } } },
 * });
 * Object.keys(document.paths['/orders'].get.responses[200].content); // ['application/json', 'text/toon']
 */
export function addToonToOpenApi<T extends object>(document: T): T {
  const source = document as Json;
  if (
    !isJsonObject(source) ||
    typeof source.openapi !== 'string' ||
    !source.openapi.startsWith('3.')
  ) {
    const found =
      isJsonObject(source) && typeof source.swagger === 'string'
        ? `Swagger ${source.swagger}`
        : 'no "openapi" field';
    throw new TypeError(
      `addToonToOpenApi expects an OpenAPI 3.x document (with openapi: "3.x.y"), got ${found}. ` +
        'Generate OpenAPI 3 (for @fastify/swagger: the `openapi` option) and pass the whole document.',
    );
  }
  const paths = mapValues(source.paths, withToonInPathItem);
  const webhooks = mapValues(source.webhooks, withToonInPathItem);
  const components = withToonInComponents(source.components);
  const result: Json = { ...source };
  if (paths !== undefined) result.paths = paths;
  if (webhooks !== undefined) result.webhooks = webhooks;
  if (components !== undefined) result.components = components;
  return result as T;
}
