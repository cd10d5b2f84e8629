/** The media type of TOON documents. There is no registered suffix, so no `+toon` variant exists. */
export const TOON_MEDIA_TYPE = 'text/toon';
/** Content-Type of TOON responses. TOON text is always UTF-8, so the charset is stated outright. */
export const TOON_CONTENT_TYPE = 'text/toon; charset=utf-8';
/** Content-Type of RFC 9457 problem documents written in TOON (the `profile` marks them as problems). */
export const TOON_PROBLEM_CONTENT_TYPE = 'text/toon; charset=utf-8; profile=problem';
/** Content-Type of JSON responses. */
export const JSON_CONTENT_TYPE = 'application/json';
/**
 * Content-Type of RFC 9457 problem documents written in JSON, the same in every adapter. The
 * charset is stated as on every text this package writes: RFC 9457 §6.1 defines no parameters
 * (recipients ignore unknown ones), but clients that decode text by the header, such as Python
 * requests' `response.text`, otherwise guess the encoding of `application/problem+json`.
 */
export const PROBLEM_JSON_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The media type of a Content-Type header value (its `type/subtype`, lowercased, without
 * parameters), or `undefined` when the header is absent or empty.
 *
 * @example
 * mediaTypeOf('Text/TOON; charset=utf-8'); // 'text/toon'
 */
export function mediaTypeOf(contentType: string | null | undefined): string | undefined {
  if (!contentType) return undefined;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon))
    .trim()
    .toLowerCase();
  return essence === '' ? undefined : essence;
}

/**
 * `text` split at `separator` (`,` between Accept entries, `;` between parameters), except
 * inside quoted strings (RFC 9110 §5.6.4, backslash escapes included). Text without a quote,
 * nearly every header, is split by `String.prototype.split`.
 *
 * @example
 * splitOutsideQuotes('text/toon; note="a;b"', ';'); // ['text/toon', ' note="a;b"']
 */
export function splitOutsideQuotes(text: string, separator: ',' | ';'): string[] {
  if (!text.includes('"')) return text.split(separator);
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * The parameters of a media type or an Accept entry (RFC 9110 §5.6.6), in order: names
 * lowercased, values with their quotes removed and their case kept. Parts without `=` are
 * skipped.
 *
 * @example
 * mediaTypeParameters('text/toon; charset="UTF-8"; q=0.5'); // [['charset', 'UTF-8'], ['q', '0.5']]
 */
export function mediaTypeParameters(text: string): Array<[name: string, value: string]> {
  const parameters: Array<[string, string]> = [];
  const parts = splitOutsideQuotes(text, ';');
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    const equals = part.indexOf('=');
    if (equals === -1) continue;
    const value = part.slice(equals + 1).trim();
    parameters.push([
      part.slice(0, equals).trim().toLowerCase(),
      value.length >= 2 && value.startsWith('"') && value.endsWith('"')
        ? value.slice(1, -1).replace(/\\(.)/g, '$1')
        : value,
    ]);
  }
  return parameters;
}

/**
 * The value of one parameter of a Content-Type header (name matched case-insensitively, quotes
 * removed), or `undefined` when it is absent.
 *
 * @example
 * contentTypeParameter('text/toon; charset="UTF-8"', 'charset'); // 'UTF-8'
 */
export function contentTypeParameter(
  contentType: string | null | undefined,
  name: string,
): string | undefined {
  if (!contentType) return undefined;
  const wanted = name.toLowerCase();
  return mediaTypeParameters(contentType).find(([parameter]) => parameter === wanted)?.[1];
}

/**
 * Whether a Content-Type header names one of the given media types. A pattern may be an exact
 * media type (`application/json`), a subtype wildcard (`text/*`) or `*\/*`.
 *
 * @example
 * matchesMediaType('application/json; charset=utf-8', ['application/json']); // true
 * matchesMediaType('text/csv', ['text/*']); // true
 */
export function matchesMediaType(
  contentType: string | null | undefined,
  patterns: readonly string[],
): boolean {
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === undefined) return false;
  const slash = mediaType.indexOf('/');
  const type = mediaType.slice(0, slash);
  for (const raw of patterns) {
    const pattern = mediaTypeOf(raw);
    if (pattern === undefined) continue;
    if (pattern === '*/*' || pattern === mediaType) return true;
    if (pattern.endsWith('/*') && pattern.slice(0, -2) === type) return true;
  }
  return false;
}

/**
 * Whether a Content-Type header is TOON (`text/toon`, any parameters).
 *
 * @example
 * isToonContentType('text/toon; charset=utf-8'); // true
 */
export function isToonContentType(contentType: string | null | undefined): boolean {
  return mediaTypeOf(contentType) === TOON_MEDIA_TYPE;
}

/**
 * A `Vary` header value that includes `field`, keeping whatever the response already varies on.
 *
 * @example
 * appendVary('Origin', 'Accept'); // 'Origin, Accept'
 * appendVary('accept', 'Accept'); // 'accept'
 */
export function appendVary(
  existing: string | number | readonly string[] | null | undefined,
  field = 'Accept',
): string {
  const current = Array.isArray(existing)
    ? existing.join(', ')
    : existing == null
      ? ''
      : String(existing);
  if (current.trim() === '') return field;
  const wanted = field.toLowerCase();
  for (const name of current.split(',')) {
    const trimmed = name.trim().toLowerCase();
    if (trimmed === '*' || trimmed === wanted) return current;
  }
  return `${current}, ${field}`;
}
