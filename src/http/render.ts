import { DEFAULT_MAX_DEPTH } from '../codec/constants.js';
import { encode, encodeIfPlain, encodeJson } from '../codec/encode.js';
import { isPlain } from '../codec/layout.js';
import { normalizeTracked } from '../codec/normalize.js';
import type { Delimiter, EncodeOptions, JsonValue } from '../codec/types.js';
import { type Candidate, type CandidateName, pick } from '../compact/index.js';
import { notAcceptableProblem, responseFormat } from './kit.js';
import {
  JSON_CONTENT_TYPE,
  PROBLEM_JSON_CONTENT_TYPE,
  TOON_CONTENT_TYPE,
  TOON_PROBLEM_CONTENT_TYPE,
} from './media-types.js';
import { acceptsFormat, type DocumentKind, negotiateFormat } from './negotiate.js';
import { HttpProblem, type ProblemDetails, problemFromError, problemHeaders } from './problem.js';
import type { DefaultFormat, ResponseFormat, ToonSettings } from './settings.js';

/** A response body ready to send, with the Content-Type that labels it. */
export interface RenderedBody {
  body: string;
  contentType: string;
  /** The format the body is written in (for `'auto'`: the one the picker chose). */
  format: ResponseFormat;
}

const CONTENT_TYPES: Record<DocumentKind, Record<ResponseFormat, string>> = {
  data: { json: JSON_CONTENT_TYPE, toon: TOON_CONTENT_TYPE },
  problem: { json: PROBLEM_JSON_CONTENT_TYPE, toon: TOON_PROBLEM_CONTENT_TYPE },
};

/**
 * The Content-Type for a document of `kind` written in `format`.
 *
 * @example
 * contentTypeFor('toon', 'problem'); // 'text/toon; charset=utf-8; profile=problem'
 */
export function contentTypeFor(format: ResponseFormat, kind: DocumentKind = 'data'): string {
  return CONTENT_TYPES[kind][format];
}

// The picker only compares JSON with plain TOON in the response delimiter: dot-flattening
// would change the shape of the data a client receives, so it is never a candidate here.
const PIPE_CANDIDATE: Candidate = {
  name: 'toon-pipe',
  encode: (value) => encode(value, { delimiter: '|' }),
};
const AUTO_CANDIDATES: Record<Delimiter, ReadonlyArray<CandidateName | Candidate>> = {
  ',': ['json', 'toon'],
  '\t': ['json', 'toon-tab'],
  '|': ['json', PIPE_CANDIDATE],
};

/** Options of {@link renderBody}. */
export interface RenderOptions {
  /** Ordinary data (default) or a problem document: decides the Content-Type. */
  kind?: DocumentKind;
  /**
   * The value is already plain JSON data (for example straight from `JSON.parse`), so the
   * encoder may skip normalization. Never set it for values from application code.
   */
  jsonModel?: boolean;
  /**
   * Does the client accept JSON (default `true`)? Decides what happens to data TOON cannot
   * carry: JSON when it does, a 406 {@link HttpProblem} when the client accepts TOON alone (see
   * `acceptsFormat`). A function is called only when that happens. Problem documents always go
   * out, as JSON if need be.
   */
  jsonAcceptable?: boolean | (() => boolean);
}

/**
 * The data a value's JSON text carries, as `JSON.stringify` writes it: `toJSON`, Dates,
 * `undefined` and NaN by JSON's rules, a Map or a Set as their own enumerable properties (`{}` for
 * most), and a BigInt a `TypeError` (unless `BigInt.prototype.toJSON` says otherwise). The value
 * itself when it is plain JSON data already (one read-only walk), so TOON responses carry exactly
 * the data of their JSON twins.
 *
 * @throws {TypeError} for a BigInt or a circular structure, as `JSON.stringify` does.
 * @throws {RangeError} for a value nested deeper than TOON may be (1000 levels).
 * @example
 * jsonTwinModel({ tags: new Set(['a']), at: new Date(0) }); // { tags: {}, at: '1970-01-01T00:00:00.000Z' }
 * jsonTwinModel({ n: 1n }); // throws TypeError
 */
export function jsonTwinModel(value: unknown): JsonValue {
  if (isJsonData(value, 0)) return value;
  const normalized = normalizeTracked(value, { bigint: 'throw' });
  if (!normalized.collections) return normalized.value;
  // A Map or a Set: normalize wrote their entries, JSON.stringify writes their own properties.
  return JSON.parse(JSON.stringify(value) ?? 'null') as JsonValue;
}

// Is `value` plain JSON data already, which jsonTwinModel returns as it is? A read-only walk that
// allocates nothing, where normalize's walk (which must be ready to copy) cost 2 to 2.5 times as
// much on typical responses: for a response picked under 'auto' that walk was 5-9% of the pick
// itself. It stops at the first value that is not (a Date in the first row, a cycle at the depth
// limit), so data that needs normalizing pays little for the look.
function isJsonData(value: unknown, depth: number): value is JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= DEFAULT_MAX_DEPTH || !isPlain(value)) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isJsonData(value[i], depth + 1)) return false;
        return true;
      }
      // for-in also visits enumerable keys a polluted Object.prototype adds: a stricter look.
      for (const key in value) {
        if (!isJsonData((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// TOON text of a value by the JSON twin's rules: plain data in the codec's one optimistic pass
// (what `encode` does first), anything else through jsonTwinModel, never a second walk of data
// that needed none.
function toonText(value: unknown, options: EncodeOptions | undefined, jsonModel: boolean): string {
  if (jsonModel) return encodeJson(value as JsonValue, options);
  const text = encodeIfPlain(value, options);
  if (typeof text === 'string') return text;
  return encodeJson(jsonTwinModel(value), options);
}

/**
 * The 406 problem for data TOON cannot carry (nested deeper than 1000 levels, or a string
 * UTF-8 cannot hold) asked for by a client that accepts TOON alone.
 *
 * @example
 * toonOnlyProblem().status; // 406
 */
export function toonOnlyProblem(): HttpProblem {
  return new HttpProblem({
    status: 406,
    detail:
      'This response cannot be written as TOON (it nests deeper than 1000 levels, or holds text UTF-8 cannot carry), and the Accept header accepts text/toon only. Accept application/json too.',
  });
}

function jsonBody(value: unknown, kind: DocumentKind): RenderedBody {
  return {
    body: JSON.stringify(value) ?? 'null',
    contentType: CONTENT_TYPES[kind].json,
    format: 'json',
  };
}

// TOON's failure was TOON's own (depth, an unpaired surrogate) when JSON can write the value;
// otherwise JSON.stringify throws what the JSON path would (a cycle, a BigInt).
function fallBackToJson(value: unknown, kind: DocumentKind, options: RenderOptions): RenderedBody {
  const rendered = jsonBody(value, kind);
  const acceptable = options.jsonAcceptable;
  if (kind === 'data' && (typeof acceptable === 'function' ? !acceptable() : acceptable === false))
    throw toonOnlyProblem();
  return rendered;
}

const carriesNoToon = (error: unknown): boolean =>
  error instanceof TypeError || error instanceof RangeError;

/**
 * Serializes a response body in a negotiated format: JSON text, TOON text in the given
 * delimiter, or for `'auto'` the picker's choice (`pick` with its default measure): the smaller of
 * the two in UTF-8 bytes, TOON only where it also costs no more tokens than JSON, JSON on ties.
 *
 * TOON carries the data of the JSON twin (see {@link jsonTwinModel}: a Map or Set as `{}`, a
 * BigInt fails as in JSON). A value TOON cannot carry (nested deeper than 1000 levels, a string
 * with an unpaired surrogate) is sent as JSON instead, with the JSON content type, so a client
 * that asked for TOON still gets its data; one that accepts TOON alone (`jsonAcceptable: false`)
 * gets a 406 {@link HttpProblem} thrown.
 *
 * @throws {TypeError} for a circular structure or a BigInt (as `JSON.stringify` does).
 * @example
 * renderBody({ ok: true }, 'toon', ','); // { body: 'ok: true', contentType: 'text/toon; charset=utf-8', format: 'toon' }
 * renderBody({ error: 'x' }, 'json', ',', { kind: 'problem' }).contentType; // 'application/problem+json; charset=utf-8'
 * renderBody({ tags: new Set(['a']) }, 'toon', ',').body; // 'tags:' (JSON sends {"tags":{}})
 */
export function renderBody(
  value: unknown,
  format: DefaultFormat,
  delimiter: Delimiter,
  options: RenderOptions = {},
): RenderedBody {
  const kind = options.kind ?? 'data';
  if (format === 'json') return jsonBody(value, kind);
  if (format === 'toon') {
    try {
      // JSON.parse output needs no normalization (no Dates, toJSON, undefined or cycles), which
      // is a third of the encoder's time on typical API payloads.
      const body = toonText(
        value,
        delimiter === ',' ? undefined : { delimiter },
        options.jsonModel === true,
      );
      return { body, contentType: CONTENT_TYPES[kind].toon, format: 'toon' };
    } catch (error) {
      if (!carriesNoToon(error)) throw error;
      return fallBackToJson(value, kind, options);
    }
  }
  let model: JsonValue;
  try {
    model = options.jsonModel ? (value as JsonValue) : jsonTwinModel(value);
  } catch (error) {
    if (!carriesNoToon(error)) throw error;
    return fallBackToJson(value, kind, options);
  }
  // The picker's default measure: smaller in bytes, and TOON only where it also costs no more
  // tokens than JSON, since the clients that ask for either format include language models.
  const picked = pick(model, { candidates: AUTO_CANDIDATES[delimiter] });
  const chosen: ResponseFormat = picked.strategy === 'json' ? 'json' : 'toon';
  return { body: picked.text, contentType: CONTENT_TYPES[kind][chosen], format: chosen };
}

/**
 * Negotiates and serializes in one step: the format the `Accept` header asks for (the
 * settings' default when it states no preference), in the settings' delimiter. When the client
 * refuses both formats the body is JSON; adapters check {@link negotiateFormat} first and
 * answer 406 instead.
 *
 * @example
 * const settings = new ToonSettings();
 * renderNegotiated({ ok: true }, 'text/toon', settings).body; // 'ok: true'
 * renderNegotiated({ ok: true }, undefined, settings).body; // '{"ok":true}'
 */
export function renderNegotiated(
  value: unknown,
  accept: string | undefined,
  settings: ToonSettings,
  kind: DocumentKind = 'data',
): RenderedBody {
  return renderBody(
    value,
    negotiateFormat(accept, settings.defaultFormat, kind) ?? 'json',
    settings.delimiter,
    { kind },
  );
}

/** A problem document ready to send, with the headers the error asked for (`Allow`, `Retry-After`). */
export interface RenderedProblem extends RenderedBody {
  status: number;
  problem: ProblemDetails;
  headers: Record<string, string>;
}

/**
 * Turns anything thrown while handling a request into a negotiated problem document (see
 * {@link problemFromError} for how errors map to members, {@link problemHeaders} for headers).
 * `format` forces one (routes opted out of TOON answer JSON problems); a client that refuses
 * both formats still gets the JSON one, since a problem has to be sent in something.
 *
 * @example
 * const { status, body, contentType } = renderProblem(new HttpProblem({ status: 404 }), {
 *   accept: 'text/toon', settings, instance: '/orders/42',
 * });
 * // 404, 'type: about:blank\ntitle: Not Found\nstatus: 404\ninstance: /orders/42', 'text/toon; charset=utf-8; profile=problem'
 */
export function renderProblem(
  error: unknown,
  context: {
    accept: string | undefined;
    settings: ToonSettings;
    instance?: string;
    format?: ResponseFormat;
  },
): RenderedProblem {
  const problem = problemFromError(error, context.instance);
  const format =
    context.format ??
    negotiateFormat(context.accept, context.settings.defaultFormat, 'problem') ??
    'json';
  return {
    ...renderBody(problem, format, context.settings.delimiter, { kind: 'problem' }),
    status: problem.status,
    problem,
    headers: problemHeaders(error),
  };
}

/** A negotiated response ready to send (see {@link renderOrProblem}). */
export interface RenderedResponse extends RenderedBody {
  /** The status to send: a problem's own, or `undefined` to keep the one the handler set. */
  status: number | undefined;
  /** Headers a problem asked for (`Allow`, `Retry-After`); empty for data. */
  headers: Record<string, string>;
}

/**
 * Negotiates and renders a handler's response body, and never fails: what cannot be rendered
 * becomes a negotiated problem document instead (a cycle or a BigInt a 500, data TOON cannot
 * carry for a client that accepts TOON alone a 406), as a framework's own error handling would
 * never write it (Koa's is `text/plain`). The statuses follow the adapters' rules: a client that
 * refuses both formats gets a 406 problem, unless the handler set a redirect or error status
 * (`status` of 300 or more), which is kept with its body sent as JSON.
 *
 * @example
 * const settings = new ToonSettings();
 * renderOrProblem({ ok: true }, { accept: 'text/toon', settings }); // { body: 'ok: true', status: undefined, ... }
 * renderOrProblem({ n: 1n }, { accept: 'text/toon', settings }).status; // 500
 * renderOrProblem({ error: 'gone' }, { accept: '*\/*;q=0', settings, status: 404 }).contentType; // 'application/json' (adapters keep their framework's own JSON Content-Type)
 */
export function renderOrProblem(
  value: unknown,
  context: {
    accept: string | undefined;
    settings: ToonSettings;
    /** The status the handler set (default 200). */
    status?: number;
    instance?: string;
  },
): RenderedResponse {
  const { accept, settings } = context;
  const format = responseFormat(accept, settings.defaultFormat, context.status ?? 200);
  try {
    if (format === undefined) throw notAcceptableProblem();
    const rendered = renderBody(value, format, settings.delimiter, {
      jsonAcceptable: () => acceptsFormat(accept, 'json'),
    });
    return { ...rendered, status: undefined, headers: {} };
  } catch (error) {
    const problem = renderProblem(error, {
      accept,
      settings,
      ...(context.instance === undefined ? {} : { instance: context.instance }),
    });
    return {
      body: problem.body,
      contentType: problem.contentType,
      format: problem.format,
      status: problem.status,
      headers: problem.headers,
    };
  }
}
