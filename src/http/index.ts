// toonwire/http: the framework-agnostic core of TOON content negotiation. The adapters
// (toonwire/fastify, toonwire/express, toonwire/hono) are thin layers over these functions, and
// a server on any other framework can use them directly.

export {
  assertToonCharset,
  DEFAULT_BODY_TYPES,
  type DecodeBodyOptions,
  decodeToonBody,
  payloadTooLarge,
  requestHasBody,
  unsupportedMediaType,
} from './body.js';
export { notAcceptableProblem, notFoundProblem, requestPath, toonEtag } from './kit.js';
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
  contentTypeFor,
  type RenderedBody,
  type RenderedProblem,
  type RenderOptions,
  renderBody,
  renderNegotiated,
  renderProblem,
} from './render.js';
export {
  type DefaultFormat,
  type ResponseFormat,
  type ToonHttpOptions,
  ToonSettings,
} from './settings.js';
