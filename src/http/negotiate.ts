import Negotiator from 'negotiator';
import {
  JSON_CONTENT_TYPE,
  PROBLEM_JSON_CONTENT_TYPE,
  TOON_CONTENT_TYPE,
  TOON_PROBLEM_CONTENT_TYPE,
} from './media-types.js';
import type { DefaultFormat, ResponseFormat } from './settings.js';

/** What kind of document is being negotiated: ordinary data, or an RFC 9457 problem document. */
export type DocumentKind = 'data' | 'problem';

/** The client's preference: one format, or `'either'` when it does not prefer one over the other. */
export type ClientPreference = ResponseFormat | 'either';

// The representations offered, written as the Content-Types actually sent: negotiator matches an
// Accept entry's parameters against these, so `Accept: text/toon; charset=utf-8` and
// `Accept: text/toon; profile=problem` (for problems) select TOON instead of being ignored.
const OFFERS: Record<DocumentKind, Record<ResponseFormat, readonly string[]>> = {
  data: { json: [JSON_CONTENT_TYPE], toon: [TOON_CONTENT_TYPE] },
  problem: {
    json: [PROBLEM_JSON_CONTENT_TYPE, JSON_CONTENT_TYPE],
    toon: [TOON_PROBLEM_CONTENT_TYPE],
  },
};

function formatOf(offer: string | undefined, kind: DocumentKind): ResponseFormat {
  return offer !== undefined && OFFERS[kind].toon.includes(offer) ? 'toon' : 'json';
}

function rank(accept: string, kind: DocumentKind): ClientPreference {
  const negotiator = new Negotiator({ headers: { accept } });
  const { json, toon } = OFFERS[kind];
  // negotiator orders by q-value, then specificity, then the order of the Accept entries, and
  // only then by the order of the offers. Asking twice with the offers swapped therefore tells
  // a real preference (same winner both times) from a tie that only the offer order decided.
  const jsonFirst = negotiator.mediaTypes([...json, ...toon]);
  if (jsonFirst.length === 0) return 'either';
  const toonFirst = negotiator.mediaTypes([...toon, ...json]);
  const a = formatOf(jsonFirst[0], kind);
  const b = formatOf(toonFirst[0], kind);
  return a === b ? a : 'either';
}

// Real traffic repeats a handful of Accept values; caching their ranking keeps negotiation off
// the per-request cost. The cache is bounded so hostile, ever-changing headers cannot grow it.
const CACHE_LIMIT = 500;
const cache: Record<DocumentKind, Map<string, ClientPreference>> = {
  data: new Map(),
  problem: new Map(),
};

/**
 * The client's preference between JSON and TOON according to its `Accept` header, with
 * q-values, wildcards and specificity as the `negotiator` package applies them.
 * `'either'` means the header does not decide: it is absent, both types are matched by the
 * same entry (`*\/*`), or neither is acceptable. When both are listed with equal q-values and
 * equal specificity, the one listed first wins (negotiator's rule, the same as Express's
 * `req.accepts`).
 *
 * @example
 * clientPreference('text/toon, application/json;q=0.5'); // 'toon'
 * clientPreference('*\/*'); // 'either'
 * clientPreference('text/*'); // 'toon'
 */
export function clientPreference(
  accept: string | undefined,
  kind: DocumentKind = 'data',
): ClientPreference {
  if (accept === undefined) return 'either';
  const known = cache[kind].get(accept);
  if (known !== undefined) return known;
  const preference = rank(accept, kind);
  if (cache[kind].size >= CACHE_LIMIT) cache[kind].clear();
  cache[kind].set(accept, preference);
  return preference;
}

/**
 * The format to answer in: the client's preference, or `defaultFormat` when it has none.
 * `'auto'` is returned only from the default, and means "whichever is smaller".
 *
 * @example
 * negotiateFormat('application/json', 'toon'); // 'json'
 * negotiateFormat(undefined, 'toon'); // 'toon'
 */
export function negotiateFormat(
  accept: string | undefined,
  defaultFormat: DefaultFormat,
  kind: DocumentKind = 'data',
): DefaultFormat {
  const preference = clientPreference(accept, kind);
  return preference === 'either' ? defaultFormat : preference;
}
