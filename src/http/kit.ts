// The adapter kit: what the Fastify, Express and Hono adapters share beyond negotiation and
// rendering, so the three cannot drift apart (request path, the 404 and 406 problems, ETags of
// re-encoded responses).
import { negotiateFormat } from './negotiate.js';
import { HttpProblem } from './problem.js';
import type { DefaultFormat, ToonSettings } from './settings.js';

/**
 * The format of a response whose status the handler chose: the negotiated one, `undefined` for
 * a 406 when the client refuses both formats, except where the handler's status stands: a
 * redirection or an error (300 or more), whose body describes the redirect or the error rather
 * than the resource the client refused, and goes out as JSON since it has to be sent in
 * something, and a status that sends no content (204, 205, 304), where there is nothing to
 * negotiate. Only a success with content becomes a 406.
 *
 * @example
 * responseFormat('*\/*;q=0', 'json', 200); // undefined (answer 406)
 * responseFormat('*\/*;q=0', 'json', 302); // 'json'
 * responseFormat('*\/*;q=0', 'json', 404); // 'json'
 * responseFormat('*\/*;q=0', 'json', 204); // 'json'
 * responseFormat('text/toon', 'json', 404); // 'toon'
 */
export function responseFormat(
  accept: string | undefined,
  defaultFormat: DefaultFormat,
  status: number,
): DefaultFormat | undefined {
  const format = negotiateFormat(accept, defaultFormat);
  if (format !== undefined) return format;
  return status >= 300 || NO_CONTENT_STATUSES.has(status) ? 'json' : undefined;
}

/**
 * Does the response name a file, by a Content-Disposition header (`attachment;
 * filename="orders.json"`, as Express's `res.attachment(...)` and Koa's `ctx.attachment(...)` set
 * it)? Such a body is that file's bytes and stays JSON, like a Content-Type the handler set: the
 * one rule every adapter asks before answering TOON, given the header's value as its framework
 * reads it (`undefined` or `null` when the handler set none).
 *
 * @example
 * namesFile('attachment; filename="orders.json"'); // true
 * namesFile(undefined); // false
 */
export function namesFile(contentDisposition: unknown): boolean {
  return contentDisposition !== undefined && contentDisposition !== null;
}

/**
 * Is this a 304 (Not Modified), which must carry the `Vary` its 200 would have (RFC 9110, section
 * 15.4.5)? A 304 has no body for an adapter to negotiate, and the app often answers it without
 * one (its own If-None-Match check, etag middleware), so every adapter adds `Vary: Accept` to
 * each 304 it sees: else a shared cache may revalidate a stored JSON answer for a TOON client,
 * or the other way round. A 304 on a resource that does not vary costs a cache no more than a
 * finer key.
 *
 * @example
 * notModified(304); // true
 * notModified(200); // false
 */
export function notModified(status: number): boolean {
  return status === 304;
}

/** Statuses whose responses carry no content (RFC 9110, sections 15.3.5, 15.3.6 and 15.4.5). */
const NO_CONTENT_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The path of a request URL without its query string: the `instance` of problem documents.
 *
 * @example
 * requestPath('/orders?limit=2'); // '/orders'
 */
export function requestPath(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The 404 problem every adapter answers for a request no route matches.
 *
 * @example
 * notFoundProblem('GET', '/nope').problem.detail;
 * // 'There is no route for GET /nope. Check the method and path against the API's OpenAPI document.'
 */
export function notFoundProblem(method: string, path: string): HttpProblem {
  return new HttpProblem({
    status: 404,
    detail: `There is no route for ${method} ${path}. Check the method and path against the API's OpenAPI document.`,
  });
}

/**
 * The 406 problem for a request whose `Accept` refuses both JSON and TOON with `q=0`.
 *
 * @example
 * notAcceptableProblem().status; // 406
 */
export function notAcceptableProblem(): HttpProblem {
  return new HttpProblem({
    status: 406,
    detail:
      'This resource is available as application/json or text/toon, and the Accept header refuses both (q=0). Accept one of them, or send no Accept header.',
  });
}

/**
 * The validators a handler sets for its data (ETag, Last-Modified), in lower case: a problem
 * document sent in the data's place (the 406) is not what they name, so the adapters remove them.
 *
 * @example
 * for (const name of DATA_VALIDATORS) reply.removeHeader(name);
 */
export const DATA_VALIDATORS: readonly string[] = ['etag', 'last-modified'];

/**
 * The ETag a response may keep once its JSON body is re-encoded as TOON: an ETag names one
 * representation, so a strong one is dropped (etag middleware then computes one from the TOON
 * bytes) and a weak one is made TOON's own (`W/"x"` becomes `W/"x-toon"`). `undefined`: send none.
 *
 * @example
 * toonEtag('"abc"'); // undefined
 * toonEtag('W/"abc"'); // 'W/"abc-toon"'
 */
export function toonEtag(etag: string | null | undefined): string | undefined {
  if (etag == null) return undefined;
  const weak = /^W\/"([^"]*)"$/.exec(etag.trim());
  return weak === null ? undefined : `W/"${weak[1]}-toon"`;
}

/**
 * Applies {@link toonEtag} to a response re-encoded as TOON, through the framework's own header
 * calls: a strong ETag is removed, a weak one replaced by TOON's own; no ETag, nothing to do.
 *
 * @example
 * // Express, in res.json once the body is TOON:
 * retagForToon(res.get('ETag'), (etag) => res.set('ETag', etag), () => res.removeHeader('ETag'));
 */
export function retagForToon(
  etag: string | null | undefined,
  replace: (etag: string) => void,
  remove: () => void,
): void {
  if (etag == null) return;
  const retagged = toonEtag(etag);
  if (retagged === undefined) remove();
  else replace(retagged);
}

/**
 * The If-None-Match the app sees while it answers a request negotiated as TOON, in the terms its
 * own conditional GET knows: the tags of the data, which a JSON answer carries as
 * they are. A TOON answer carries `W/"x-toon"` for the data's `W/"x"` ({@link toonEtag}), so that
 * tag becomes `W/"x"` here, and a check against the data's tag revalidates TOON. Every other tag
 * could name JSON (a cache holding the JSON answer sends its tag for a TOON request too) and is
 * hidden, so the app cannot answer 304 for a representation the client would not get; when none
 * is left, `W/""`, a tag no answer carries, keeps the header present (If-Modified-Since is then
 * ignored, as RFC 9110, section 13.1.3, says). `*` and a missing header are left alone.
 * Tags hashed from the TOON bytes (etag middleware) are compared after the adapter renders,
 * against the header as the client sent it (see {@link hideTagsOfOtherFormats}).
 *
 * @example
 * ifNoneMatchOfData('W/"abc-toon"'); // 'W/"abc"'
 * ifNoneMatchOfData('"abc", W/"def-toon"'); // 'W/"def"'
 * ifNoneMatchOfData('"abc"'); // 'W/""'
 * ifNoneMatchOfData('*'); // '*'
 */
export function ifNoneMatchOfData(header: string): string {
  if (header.trim() === '*') return header;
  const kept: string[] = [];
  for (const [, weak = '', opaque = ''] of header.matchAll(ENTITY_TAG)) {
    if (opaque.endsWith(TOON_TAG_SUFFIX))
      kept.push(`${weak}"${opaque.slice(0, -TOON_TAG_SUFFIX.length)}"`);
  }
  return kept.length === 0 ? NO_TAG : kept.join(', ');
}

/** What marks a TOON answer's ETag made from the data's (`W/"x"` becomes `W/"x-toon"`). */
const TOON_TAG_SUFFIX = '-toon';
/** An entity tag in a list (RFC 9110, section 8.8.3): its weakness and its opaque part. */
const ENTITY_TAG = /(W\/)?"([^"]*)"/g;
/** A tag no answer carries: If-None-Match with nothing the app can match. */
const NO_TAG = 'W/""';

/**
 * The ETag of a 304 the app answered on {@link ifNoneMatchOfData}'s header: it matched the tag
 * the client holds in the data's terms, so the 304 names the TOON answer's tag.
 *
 * @example
 * toonTagOfNotModified('W/"abc"'); // 'W/"abc-toon"'
 * toonTagOfNotModified('"abc"'); // 'W/"abc-toon"'
 */
export function toonTagOfNotModified(etag: string): string {
  const opaque = /"([^"]*)"/.exec(etag)?.[1] ?? etag.trim();
  return `W/"${opaque}${TOON_TAG_SUFFIX}"`;
}

// The If-None-Match a request came with, while the app sees ifNoneMatchOfData's instead.
const HIDDEN_TAGS = Symbol.for('toonwire.hiddenTags');
interface HiddenTags {
  original: string;
  set: (value: string) => void;
  restored: boolean;
}
type WithHiddenTags = { [HIDDEN_TAGS]?: HiddenTags };

/**
 * Shows the app the If-None-Match of {@link ifNoneMatchOfData} while it answers a request whose
 * answer would be TOON (`format`, asked only when there is a header), through the framework's
 * own header access `set`; {@link restoreTags}
 * gives the client's header back once the adapter renders, for etag middleware that hashes the
 * bytes sent. Nothing is done for a request with no If-None-Match, with `*`, negotiated as JSON,
 * refusing both, or left to `'auto'`: that client has no preference, so either representation
 * answers it, and a 304 for the one it holds is right (hiding its tags would only cost it the
 * 304 whenever the picker chose JSON).
 *
 * @example
 * // Express, before the routes:
 * hideTagsOfOtherFormats(req, req.headers['if-none-match'], () => responseFormat(accept, 'json', 200),
 *   (value) => { req.headers['if-none-match'] = value; });
 */
export function hideTagsOfOtherFormats(
  request: object,
  header: string | undefined,
  format: () => DefaultFormat | undefined,
  set: (value: string) => void,
): void {
  // The format is asked for only when there is a header (most requests send none).
  if (header === undefined || format() !== 'toon') return;
  const seen = ifNoneMatchOfData(header);
  if (seen === header) return;
  (request as WithHiddenTags)[HIDDEN_TAGS] = { original: header, set, restored: false };
  set(seen);
}

/**
 * {@link hideTagsOfOtherFormats} for a request whose headers are Node's (`IncomingMessage`'s,
 * which Express, Fastify and Koa all read): the header is replaced in place.
 *
 * @example
 * hideTagsInNodeHeaders(req, req.headers, settings.defaultFormat);
 */
export function hideTagsInNodeHeaders(
  request: object,
  headers: { accept?: string | undefined; 'if-none-match'?: string | undefined },
  defaultFormat: DefaultFormat,
): void {
  hideTagsOfOtherFormats(
    request,
    headers['if-none-match'],
    () => responseFormat(headers.accept, defaultFormat, 200),
    (value) => {
      headers['if-none-match'] = value;
    },
  );
}

/**
 * Gives back the If-None-Match {@link hideTagsOfOtherFormats} replaced: the adapter is rendering
 * the answer, whose tag etag middleware compares with what the client sent. Idempotent.
 *
 * @example
 * restoreTags(req); // in res.json, before res.send
 */
export function restoreTags(request: object): void {
  const hidden = (request as WithHiddenTags)[HIDDEN_TAGS];
  if (hidden === undefined || hidden.restored) return;
  hidden.restored = true;
  hidden.set(hidden.original);
}

/**
 * Was a 304 of this request decided on the data's tags ({@link hideTagsOfOtherFormats}, not
 * restored since)? Its ETag then becomes {@link toonTagOfNotModified}'s.
 *
 * @example
 * if (notModified(res.statusCode) && decidedOnDataTags(req)) res.set('ETag', toonTagOfNotModified(res.get('ETag')));
 */
export function decidedOnDataTags(request: object): boolean {
  const hidden = (request as WithHiddenTags)[HIDDEN_TAGS];
  return hidden !== undefined && !hidden.restored;
}

/**
 * The If-None-Match the client sent, when {@link hideTagsOfOtherFormats} showed the app another;
 * `undefined` otherwise.
 *
 * @example
 * clientTags(req); // '"abc", W/"def-toon"'
 */
export function clientTags(request: object): string | undefined {
  return (request as WithHiddenTags)[HIDDEN_TAGS]?.original;
}

/**
 * Does If-None-Match `header` hold `etag`, by the weak comparison If-None-Match uses (RFC 9110,
 * section 13.1.2)?
 *
 * @example
 * holdsTag('W/"abc", "def"', '"abc"'); // true
 * holdsTag('"abc"', '"abcd"'); // false
 */
export function holdsTag(header: string, etag: string): boolean {
  const opaque = /"([^"]*)"/.exec(etag)?.[1];
  if (opaque === undefined) return false;
  for (const [, , held] of header.matchAll(ENTITY_TAG)) if (held === opaque) return true;
  return false;
}

/**
 * Names a 304 decided on the data's tags ({@link decidedOnDataTags}) by the TOON answer's tag,
 * through the framework's header calls; other 304s are left alone.
 *
 * @example
 * retagNotModified(req, res.get('ETag'), (etag) => res.set('ETag', etag));
 */
export function retagNotModified(
  request: object,
  etag: string | null | undefined,
  replace: (etag: string) => void,
): void {
  if (etag != null && etag !== '' && decidedOnDataTags(request))
    replace(toonTagOfNotModified(etag));
}

// Marks an adapter leaves on a request for the code that answers it later (its own error
// handling, or a framework's: the NestJS filter reads them on Express and Fastify requests).
const OPTED_OUT = Symbol.for('toonwire.optedOut');
const SETTINGS = Symbol.for('toonwire.settings');
type Marked = { [OPTED_OUT]?: boolean; [SETTINGS]?: ToonSettings };

/**
 * Marks a request as left out of negotiation (a route's opt-out, or `skip`): its answers, its
 * problems included, are JSON.
 *
 * @example
 * markOptedOut(req); isOptedOut(req); // true
 */
export function markOptedOut(request: object): void {
  (request as Marked)[OPTED_OUT] = true;
}

/**
 * Was the request left out of negotiation ({@link markOptedOut})?
 *
 * @example
 * isOptedOut({}); // false
 */
export function isOptedOut(request: object): boolean {
  return (request as Marked)[OPTED_OUT] === true;
}

/**
 * Leaves the adapter's live settings on a request, for error handling outside the adapter.
 *
 * @example
 * attachSettings(req, negotiation.settings); attachedSettings(req) === negotiation.settings; // true
 */
export function attachSettings(request: object, settings: ToonSettings): void {
  (request as Marked)[SETTINGS] = settings;
}

/**
 * The settings an adapter left on a request ({@link attachSettings}), if any.
 *
 * @example
 * attachedSettings({}); // undefined
 */
export function attachedSettings(request: object): ToonSettings | undefined {
  return (request as Marked)[SETTINGS];
}
