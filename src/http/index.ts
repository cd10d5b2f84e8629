// toonwire/http: the framework-agnostic core of TOON content negotiation. The adapters
// (toonwire/fastify, toonwire/express, toonwire/hono) are thin layers over these functions, and
// a server on any other framework can use them directly.
export {
  TOON_MEDIA_TYPE,
  TOON_CONTENT_TYPE,
  TOON_PROBLEM_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  PROBLEM_JSON_CONTENT_TYPE,
  appendVary,
  contentTypeParameter,
  isToonContentType,
  matchesMediaType,
  mediaTypeOf,
} from './media-types.js';
export {
  type DefaultFormat,
  type ResponseFormat,
  type ToonHttpOptions,
  ToonSettings,
} from './settings.js';
export {
  type ClientPreference,
  type DocumentKind,
  clientPreference,
  negotiateFormat,
} from './negotiate.js';
export {
  type RenderedBody,
  type RenderOptions,
  type RenderedProblem,
  contentTypeFor,
  renderBody,
  renderNegotiated,
  renderProblem,
} from './render.js';
export {
  type ProblemDetails,
  type ProblemInit,
  type ValidationIssue,
  HttpProblem,
  problemFromError,
  statusTitle,
  validationProblem,
  PROBLEM_JSON_SCHEMA,
} from './problem.js';
export {
  DEFAULT_BODY_TYPES,
  assertToonCharset,
  decodeToonBody,
  payloadTooLarge,
  requestHasBody,
  unsupportedMediaType,
} from './body.js';
export { OPENAPI_TOON, OPENAPI_TOON_PROBLEM, addToonToOpenApi } from './openapi.js';
