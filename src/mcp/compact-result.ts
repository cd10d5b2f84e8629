// A tool result whose text is the picker's choice while structuredContent stays the payload
// itself: what the model reads shrinks, what programs and outputSchema validation read does not
// change.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { normalize } from '../codec/normalize.js';
import { isJsonObject, isPlainObject } from '../codec/objects.js';
import type { JsonValue } from '../codec/types.js';
import type { FieldSpec } from '../compact/index.js';
import {
  type ClientInfo,
  checkStructuredContentSetting,
  structuredContentModeFor,
} from './clients.js';
/** The `_meta` key that names the winning encoding unless told otherwise. */
import { DEFAULT_META_KEY } from './defaults.js';
import { projectFields } from './fields.js';
import { type ModelTextOptions, modelTextWithInput } from './model-text.js';

export { DEFAULT_META_KEY };

/** Options of {@link compactResult}: the picker's options, the format hint and the `_meta` key. */
export interface CompactResultOptions extends Omit<ModelTextOptions, 'fields'> {
  /**
   * Project the text view to these fields (see `projectFields`: the proxy's `--fields-param`
   * projection); `undefined` or blank for all of them, so that a handler can pass its optional
   * `fields` argument straight on (`{ fields }`), also under `exactOptionalPropertyTypes`.
   * A field no item has, or a malformed list, adds a second text content that tells the model.
   */
  fields?: FieldSpec | undefined;
  /**
   * The `_meta` key naming the strategy (default `'toonwire/encodingStrategy'`); pass e.g.
   * `'com.apify/encodingStrategy'` to keep an existing telemetry key.
   */
  metaKey?: string;
  /**
   * Whether the result carries `structuredContent` (default `'auto'`): `'keep'` always (for an
   * object payload), `'strip'` never, `'auto'` unless `client` is one known to show the model
   * `structuredContent` instead of the text (Claude Code, Codex, VS Code, Copilot CLI), where the
   * compacted text would never be read. Pass `server.server.getClientVersion()` as `client`.
   */
  structuredContent?: 'auto' | 'keep' | 'strip';
  /**
   * The client's `clientInfo`, for `structuredContent: 'auto'`: `server.server.getClientVersion()`,
   * which is `undefined` before `initialize` (then `'auto'` keeps `structuredContent`).
   */
  client?: ClientInfo | undefined;
}

/**
 * Builds a `CallToolResult` for `payload`: one text content holding the smallest of JSON and the
 * TOON candidates (never larger than JSON), `structuredContent` set to the payload's JSON view
 * (plain JSON data is the same object, untouched, so it validates against the tool's
 * `outputSchema` exactly as before; a Date, Map, Set, BigInt or `toJSON()` inside is converted as
 * `JSON.stringify` and the picker convert it, so both views hold the same data and the wire can
 * carry it), and `_meta[metaKey]` naming the strategy, which {@link parseCompact} needs to read
 * the text back.
 *
 * MCP requires `structuredContent` to be an object, so a payload whose JSON is not an object (an
 * array, a string) gets the text only; wrap lists as `{ items: [...] }` to keep both views. A
 * string payload (a file's text, a document) is the text itself, exactly as given, with the
 * strategy `'verbatim'`: quoting would only escape it.
 * `fields` projects the text view only, as the proxy's `--fields-param` does: the items of a
 * root array, of an `items` / `data` envelope or of an object's only list of objects (`rows`),
 * else the object itself; a field that no item has (or a malformed list, which leaves the text
 * whole) adds a second text content saying so and listing the fields there are.
 * For clients that show the model `structuredContent`
 * instead of the text, pass `client` (`server.server.getClientVersion()`): `'auto'` then leaves
 * `structuredContent` out, so that the model reads the compacted text (a tool that declares an
 * `outputSchema` needs `registerCompactTool` for that, since the SDK refuses such a result).
 * Throws only for bad options (a `fields` that is neither a string nor an array of strings among
 * them), or a circular payload.
 *
 * @example
 * server.registerTool('list-runs', { outputSchema: { items: z.array(runSchema) } }, async () => {
 *   const items = await fetchRuns();
 *   return compactResult({ items }, { metaKey: 'com.apify/encodingStrategy' });
 * });
 * // { content: [{ type: 'text', text: 'items[20]{id,status,...}:\n  ...' }],
 * //   structuredContent: { items }, _meta: { 'com.apify/encodingStrategy': 'toon' } }
 */
export function compactResult(
  payload: unknown,
  options: CompactResultOptions = {},
): CallToolResult {
  const {
    metaKey = DEFAULT_META_KEY,
    structuredContent = 'auto',
    client,
    fields,
    envelope,
    ...textOptions
  } = options;
  checkMetaKey(metaKey, 'compactResult');
  checkStructuredContentSetting(structuredContent, 'compactResult', ['auto', 'keep', 'strip']);
  // A string is text already (a file, a document): quoting it as JSON or TOON would only escape
  // it, so it ships exactly as it is, as the proxy ships a tool's string value.
  let projected: { value: unknown; note: string | undefined } = { value: payload, note: undefined };
  // The payload in the JSON model, once it is known (the picker normalizes it anyway).
  let data: JsonValue | undefined;
  if (typeof payload !== 'string' && fields !== undefined) {
    try {
      data = jsonData(payload);
      projected = projectFields(data, fields, { envelope });
    } catch (error) {
      throw new TypeError(`compactResult: ${(error as Error).message}`);
    }
  }
  let text: string;
  let strategy: string;
  if (typeof payload === 'string') {
    text = payload;
    strategy = VERBATIM_STRATEGY;
  } else {
    const picked = modelTextWithInput(projected.value, textOptions);
    ({ text, strategy } = picked.result);
    if (fields === undefined) data = picked.input;
  }
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  if (projected.note !== undefined) content.push({ type: 'text', text: projected.note });
  const result: CallToolResult = { content, _meta: { [metaKey]: strategy } };
  const { mode } = structuredContentModeFor(structuredContent, client);
  if (mode === 'strip') return result;
  // Undefined when the payload nests too deep for the picker to normalize.
  const view = data ?? jsonView(payload);
  // A class instance is an object to JSON, but the SDK wants a plain record: its own fields.
  if (isJsonObject(view)) {
    result.structuredContent = isPlainObject(view) ? view : { ...(view as object) };
  }
  return result;
}

/** The `_meta` strategy of a string payload, which ships as its own text. */
const VERBATIM_STRATEGY = 'verbatim';

/**
 * The payload as the JSON data model, the view the text was picked from: plain JSON is the same
 * object, while a Date, Map, Set, BigInt or `toJSON()` is converted as the picker converts it.
 * Without this, `structuredContent` would hold what the wire cannot carry (a BigInt makes the
 * SDK's transport throw and the call never gets an answer), what it carries differently from the
 * text (a Map is `{}` to `JSON.stringify`), or what fails `outputSchema` validation although its
 * JSON would pass (a Date against `z.string()`).
 */
function jsonView(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload;
  try {
    return normalize(payload);
  } catch {
    // Too deep for normalize (the picker fell back to JSON text): plain data as it is.
    return payload;
  }
}

/**
 * The payload as JSON data, for projecting: converted as the picker converts it (a Date, Map,
 * `toJSON()`), or as it is when too deep to convert (the picker then writes JSON text, and a
 * projection keeps only the listed fields, which may be shallow). A circular payload throws here,
 * as it would in the picker.
 */
function jsonData(payload: unknown): JsonValue {
  try {
    return normalize(payload);
  } catch (error) {
    if (error instanceof RangeError) return payload as JsonValue;
    throw error;
  }
}

/** Throws a TypeError naming `caller` unless `metaKey` is a non-empty string. */
export function checkMetaKey(metaKey: unknown, caller: string): asserts metaKey is string {
  if (typeof metaKey !== 'string' || metaKey === '') {
    throw new TypeError(
      `${caller}: metaKey must be a non-empty string such as 'toonwire/encodingStrategy', got ${JSON.stringify(metaKey)}`,
    );
  }
}
