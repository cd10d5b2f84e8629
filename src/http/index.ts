// toonwire/http: the framework-agnostic core of TOON content negotiation. The adapters
// (toonwire/fastify, toonwire/express, toonwire/hono, toonwire/koa, toonwire/nest) are thin
// layers over these functions, and a server on any other framework can use them directly.

export {
  assertToonCharset,
  DEFAULT_BODY_TYPES,
  type DecodeBodyOptions,
  decodeToonBody,
  guardPrototypeKeys,
  type PrototypeKeyAction,
  type PrototypeKeyOptions,
  payloadTooLarge,
  requestHasBody,
  unsupportedMediaType,
} from './body.js';
export {
  notAcceptableProblem,
  notFoundProblem,
  requestPath,
  responseFormat,
  toonEtag,
} from './kit.js';
export {
  appendVary,
  contentTypeParameter,
  isToonContentType,
  JSON_CONTENT_TYPE,
  matchesMediaType,
  mediaTypeOf,
  PROBLEM_JSON_CONTENT_TYPE,
  TOON_CONTENT_TYPE,
  TOON_MEDIA_TYPE,
  TOON_PROBLEM_CONTENT_TYPE,
} from './media-types.js';
export {
  acceptsFormat,
  type ClientPreference,
  clientPreference,
  type DocumentKind,
  negotiateFormat,
} from './negotiate.js';
export { addToonToOpenApi, OPENAPI_TOON, OPENAPI_TOON_PROBLEM } from './openapi.js';
export {
  HttpProblem,
  PROBLEM_JSON_SCHEMA,
  type ProblemDetails,
  type ProblemInit,
  problemFromError,
  problemHeaders,
  statusTitle,
  type ValidationIssue,
  validationProblem,
} from './problem.js';
export {
  type BodySource,
  DEFAULT_BODY_LIMIT,
  type ReadBodyOptions,
  readBody,
} from './read-body.js';
export {
  contentTypeFor,
  jsonTwinModel,
  type RenderedBody,
  type RenderedProblem,
  type RenderedResponse,
  type RenderOptions,
  renderBody,
  renderNegotiated,
  renderOrProblem,
  renderProblem,
  toonOnlyProblem,
} from './render.js';
export {
  type DefaultFormat,
  type ResponseFormat,
  type ToonHttpOptions,
  ToonSettings,
} from './settings.js';
