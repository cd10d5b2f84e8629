import { encode, encodeJson } from '../codec/encode.js';
import type { Delimiter, JsonValue } from '../codec/types.js';
import { type Candidate, type CandidateName, pick } from '../compact/index.js';
import {
  JSON_CONTENT_TYPE,
  PROBLEM_JSON_CONTENT_TYPE,
  TOON_CONTENT_TYPE,
  TOON_PROBLEM_CONTENT_TYPE,
} from './media-types.js';
import { type DocumentKind, negotiateFormat } from './negotiate.js';
import { type ProblemDetails, problemFromError, problemHeaders } from './problem.js';
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
}

/**
 * Serializes a response body in a negotiated format: JSON text, TOON text in the given
 * delimiter, or for `'auto'` the picker's choice (`pick` with its default measure): the smaller of
 * the two in UTF-8 bytes, TOON only where it also costs no more tokens than JSON, JSON on ties.
 *
 * A value TOON cannot carry (a string with an unpaired surrogate) is sent as JSON instead, with
 * the JSON content type, so a client that asked for TOON still gets its data.
 *
 * @throws {TypeError} for a circular structure (as `JSON.stringify` does).
 * @example
 * renderBody({ ok: true }, 'toon', ','); // { body: 'ok: true', contentType: 'text/toon; charset=utf-8', format: 'toon' }
 * renderBody({ error: 'x' }, 'json', ',', { kind: 'problem' }).contentType; // 'application/problem+json; charset=utf-8'
 */
export function renderBody(
  value: unknown,
  format: DefaultFormat,
  delimiter: Delimiter,
  options: RenderOptions = {},
): RenderedBody {
  const kind = options.kind ?? 'data';
  if (format === 'toon') {
    const encodeOptions = delimiter === ',' ? undefined : { delimiter };
    try {
      // JSON.parse output needs no normalization (no Dates, toJSON, undefined or cycles), which
      // is a third of the encoder's time on typical API payloads.
      const body = options.jsonModel
        ? encodeJson(value as JsonValue, encodeOptions)
        : encode(value, encodeOptions);
      return { body, contentType: CONTENT_TYPES[kind].toon, format: 'toon' };
    } catch (error) {
      // Data TOON cannot carry (an unpaired surrogate: UTF-8 text has no way to hold it) goes out
      // as JSON, labelled as such, rather than failing the request; a cycle fails below as well.
      if (!(error instanceof TypeError)) throw error;
    }
  }
  if (format === 'json' || format === 'toon') {
    return {
      body: JSON.stringify(value) ?? 'null',
      contentType: CONTENT_TYPES[kind].json,
      format: 'json',
    };
  }
  // The picker's default measure: smaller in bytes, and TOON only where it also costs no more
  // tokens than JSON, since the clients that ask for either format include language models.
  const picked = pick(value, { candidates: AUTO_CANDIDATES[delimiter] });
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
