import {
  JSON_CONTENT_TYPE,
  mediaTypeOf,
  mediaTypeParameters,
  PROBLEM_JSON_CONTENT_TYPE,
  splitOutsideQuotes,
  TOON_CONTENT_TYPE,
  TOON_PROBLEM_CONTENT_TYPE,
} from './media-types.js';
import type { DefaultFormat, ResponseFormat } from './settings.js';

/** What kind of document is being negotiated: ordinary data, or an RFC 9457 problem document. */
export type DocumentKind = 'data' | 'problem';

/**
 * The client's preference between JSON and TOON: one format; `'either'` when its `Accept` does
 * not prefer one over the other (absent, equal q-values and specificity, or naming neither);
 * `'neither'` when it refuses both with `q=0`.
 */
export type ClientPreference = ResponseFormat | 'either' | 'neither';

interface MediaRange {
  type: string;
  subtype: string;
  params: ReadonlyArray<readonly [string, string]>;
  q: number;
}

interface Offer {
  type: string;
  subtype: string;
  params: ReadonlyMap<string, string>;
}

// The `type/subtype` of a media type or range, lowercased; empty parts where it has none.
function essenceOf(text: string): { type: string; subtype: string } {
  const essence = mediaTypeOf(text) ?? '';
  const slash = essence.indexOf('/');
  if (slash === -1) return { type: essence, subtype: '' };
  return { type: essence.slice(0, slash).trim(), subtype: essence.slice(slash + 1).trim() };
}

// A parameter's value as compared: case-insensitive, and `charset=utf8`, a common spelling of
// UTF-8 (the request side accepts it too), as `utf-8`.
function parameterValue(name: string, value: string): string {
  const lower = value.toLowerCase();
  return name === 'charset' && lower === 'utf8' ? 'utf-8' : lower;
}

// The parameters that tell the adapter's offers apart (`charset`, and `profile=problem`). Any
// other parameter of a range selects a variant the app serves within the format, not the format
// (`application/json;v=2` is Nest's media-type versioning, and the app answers it in version 2):
// it is left to the app, and the range names its format as if it were not there.
const FORMAT_PARAMETERS: ReadonlySet<string> = new Set(['charset', 'profile']);

// RFC 9110 §12.5.1: `type/subtype *( ";" parameter ) [ weight ]`; the weight ends the media
// range's own parameters. Entries that do not parse, or carry an invalid q, are ignored.
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const entry of splitOutsideQuotes(accept, ',')) {
    const { type, subtype } = essenceOf(entry);
    if (type === '' || subtype === '' || (type === '*' && subtype !== '*')) continue;
    const params: Array<readonly [string, string]> = [];
    let q = 1;
    for (const [name, value] of mediaTypeParameters(entry)) {
      if (name === 'q') {
        q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : Number.NaN;
        break;
      }
      if (FORMAT_PARAMETERS.has(name)) params.push([name, parameterValue(name, value)]);
    }
    if (!Number.isNaN(q)) ranges.push({ type, subtype, params, q });
  }
  return ranges;
}

function parseOffer(contentType: string): Offer {
  const params = new Map<string, string>();
  for (const [name, value] of mediaTypeParameters(contentType))
    params.set(name, parameterValue(name, value));
  return { ...essenceOf(contentType), params };
}

/** How an Accept header treats one offer: the most specific range that applies decides its q. */
interface Verdict {
  q: number;
  /** 2: named exactly (`text/toon`), 1: by `type/*`, 0: by `*\/*`. */
  level: number;
}

// RFC 9110 §12.5.1: "media ranges can be overridden by more specific media ranges or specific
// media types. If more than one media range applies to a given type, the most specific
// reference has precedence." A range with parameters applies only when the offer has them all.
function verdictFor(ranges: readonly MediaRange[], offer: Offer): Verdict | undefined {
  let best: Verdict | undefined;
  let bestPrecision = -1;
  for (const range of ranges) {
    if (range.type !== '*' && range.type !== offer.type) continue;
    if (range.subtype !== '*' && range.subtype !== offer.subtype) continue;
    if (!range.params.every(([name, value]) => offer.params.get(name) === value)) continue;
    const level = range.type === '*' ? 0 : range.subtype === '*' ? 1 : 2;
    const precision = level * 100 + range.params.length;
    if (precision > bestPrecision) {
      best = { q: range.q, level };
      bestPrecision = precision;
    }
  }
  return best;
}

// JSON is UTF-8 (RFC 8259 §8.1), and Fastify, Express and Koa label it `application/json;
// charset=utf-8`: clients that ask for exactly that (`Accept: application/json;charset=UTF-8`,
// Spring's APPLICATION_JSON_UTF8, for one) ask for JSON, whatever the default.
const JSON_OFFER = `${JSON_CONTENT_TYPE}; charset=utf-8`;

// The representations offered, written as the Content-Types actually sent, so an Accept
// entry's parameters are matched against them (`text/toon; charset=utf-8` selects TOON, and
// for problems `text/toon; profile=problem` too).
const OFFERS: Record<DocumentKind, Record<ResponseFormat, readonly Offer[]>> = {
  data: { json: [parseOffer(JSON_OFFER)], toon: [parseOffer(TOON_CONTENT_TYPE)] },
  problem: {
    json: [parseOffer(PROBLEM_JSON_CONTENT_TYPE), parseOffer(JSON_OFFER)],
    toon: [parseOffer(TOON_PROBLEM_CONTENT_TYPE)],
  },
};

/** A format's standing: refused (q=0 by the range that applies), unmatched, or acceptable. */
type Standing = 'refused' | 'unmatched' | Verdict;

// A format offered under several Content-Types stands as well as its best one: acceptable
// (higher q, then higher level) beats unmatched, which beats refused.
function standingOf(ranges: readonly MediaRange[], offers: readonly Offer[]): Standing {
  let best: Standing = 'refused';
  for (const offer of offers) {
    const verdict = verdictFor(ranges, offer);
    if (verdict === undefined) {
      if (best === 'refused') best = 'unmatched';
    } else if (
      verdict.q > 0 &&
      (typeof best !== 'object' ||
        verdict.q > best.q ||
        (verdict.q === best.q && verdict.level > best.level))
    ) {
      best = verdict;
    }
  }
  return best;
}

function rank(accept: string, kind: DocumentKind): ClientPreference {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'either';
  const json = standingOf(ranges, OFFERS[kind].json);
  const toon = standingOf(ranges, OFFERS[kind].toon);
  if (json === 'refused') return toon === 'refused' ? 'neither' : 'toon';
  if (toon === 'refused') return 'json';
  if (json === 'unmatched') return toon === 'unmatched' ? 'either' : 'toon';
  if (toon === 'unmatched') return 'json';
  if (json.q !== toon.q) return json.q > toon.q ? 'json' : 'toon';
  if (json.level !== toon.level) return json.level > toon.level ? 'json' : 'toon';
  return 'either';
}

/**
 * Does the client accept `format` at all: no `Accept` header (or none that parses), or one under
 * which the format's most specific range has `q` above 0? Unlike {@link clientPreference}, a
 * format the header does not name is not acceptable (`Accept: text/toon` accepts TOON alone), so
 * this tells when a fallback from TOON to JSON would send what the client did not ask for.
 *
 * @example
 * acceptsFormat('text/toon', 'json'); // false
 * acceptsFormat('*\/*', 'json'); // true
 * acceptsFormat(undefined, 'json'); // true
 * acceptsFormat('application/json;q=0, *\/*', 'json'); // false
 */
export function acceptsFormat(
  accept: string | undefined,
  format: ResponseFormat,
  kind: DocumentKind = 'data',
): boolean {
  if (accept === undefined) return true;
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return true;
  return typeof standingOf(ranges, OFFERS[kind][format]) === 'object';
}

// Real traffic repeats a handful of Accept values; caching their ranking keeps negotiation off
// the per-request cost. The cache is bounded so hostile, ever-changing headers cannot grow it.
const CACHE_LIMIT = 500;
const cache: Record<DocumentKind, Map<string, ClientPreference>> = {
  data: new Map(),
  problem: new Map(),
};

/**
 * The client's preference between JSON and TOON according to its `Accept` header (RFC 9110
 * §12.5.1). Each format's q-value comes from the most specific range that applies to it; the
 * higher q wins, then the more specific reference (`application/json` beats `*\/*`). The order
 * of the entries never matters: equal q and specificity is `'either'`, as are an absent header
 * and one naming neither type. A format whose applicable range has `q=0` is refused: the other
 * one is preferred, and `'neither'` means both are refused.
 *
 * @example
 * clientPreference('text/toon, application/json;q=0.5'); // 'toon'
 * clientPreference('text/toon, application/json'); // 'either'
 * clientPreference('application/json, *\/*'); // 'json'
 * clientPreference('text/toon;q=0'); // 'json'
 * clientPreference('*\/*;q=0'); // 'neither'
 * clientPreference('application/json;v=2'); // 'json' (a version is the app's to serve)
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
 * `'auto'` is returned only from the default, and means "whichever is smaller". `undefined`
 * means the client refused both formats (`q=0`): answer 406 (the adapters send a 406
 * problem document).
 *
 * @example
 * negotiateFormat('application/json', 'toon'); // 'json'
 * negotiateFormat(undefined, 'toon'); // 'toon'
 * negotiateFormat('text/toon;q=0', 'toon'); // 'json'
 * negotiateFormat('*\/*;q=0', 'json'); // undefined
 */
export function negotiateFormat(
  accept: string | undefined,
  defaultFormat: DefaultFormat,
  kind: DocumentKind = 'data',
): DefaultFormat | undefined {
  const preference = clientPreference(accept, kind);
  if (preference === 'neither') return undefined;
  return preference === 'either' ? defaultFormat : preference;
}
