// Field projection with the semantics of Apify's `fields` / `omit` dataset parameters: the
// dominant size lever in the TOON adoption proposal for Apify's MCP server (1.01 MB to 12.3 KB before any encoding choice).

import { isJsonObject, setOwn } from '../codec/objects.js';
import type { JsonObject, JsonValue } from '../codec/types.js';

/** A field list: `'name,url,location.lat'` or `['name', 'url', 'location.lat']`. */
export type FieldSpec = string | readonly string[];

/** Options of {@link project} and {@link omit}. */
export interface ProjectOptions {
  /**
   * Keys under which a response object carries its list of items, tried in order (default
   * `['items', 'data']`). A root object whose first such key holds an array has that array's
   * items projected; the rest of the envelope (`total`, `offset`, ...) is kept as is.
   */
  envelope?: string | readonly string[];
}

/** The envelope keys API list responses commonly use. */
export const DEFAULT_ENVELOPE: readonly string[] = ['items', 'data'];

/**
 * Keeps only the listed fields of each item, in the listed order, as Apify's `fields` parameter
 * does. Items are the elements of a root array, or of the array under an envelope key (`items`,
 * `data` by default); a root object without such an array is itself the one item.
 *
 * A dotted path (`location.lat`) selects a nested value and keeps its nesting
 * (`{ location: { lat } }`); selecting a field and a path inside it keeps the whole field. A field
 * missing from an item is left out, never invented (no `null`, no empty parent object).
 * Elements that are not objects are kept unchanged. The input is not modified.
 *
 * A string spec is split on commas and each name trimmed; an array spec takes each element as
 * one path. Use the array form for a key that contains a comma.
 *
 * @throws {TypeError} for an empty spec, an empty name or path segment (`'a,,b'`, `'a.'`), a
 *   non-string entry, or a bad envelope option.
 * @example
 * project([{ name: 'A', url: 'u', rating: 4.5, reviews: 10 }], 'name,rating');
 * // [{ name: 'A', rating: 4.5 }]
 * project({ total: 1, items: [{ id: 1, location: { lat: 1, lng: 2 } }] }, ['location.lat']);
 * // { total: 1, items: [{ location: { lat: 1 } }] }
 */
export function project(value: JsonValue, fields: FieldSpec, options?: ProjectOptions): JsonValue {
  const tree = parseFields(fields, 'project');
  return applyToItems(value, options, 'project', (item) => keep(item, tree));
}

/**
 * {@link project} with the field spec parsed once, for projecting many values with the same
 * fields (the rows of a file streamed a batch at a time): `projector(fields, options)(value)`
 * returns exactly `project(value, fields, options)`.
 *
 * @throws {TypeError} when created, for the same bad specs and envelopes as {@link project}.
 * @example
 * const keepNames = projector('name');
 * keepNames([{ name: 'A', url: 'u' }]); // [{ name: 'A' }]
 * keepNames({ items: [{ name: 'B', id: 2 }] }); // { items: [{ name: 'B' }] }
 */
export function projector(
  fields: FieldSpec,
  options?: ProjectOptions,
): (value: JsonValue) => JsonValue {
  const tree = parseFields(fields, 'project');
  envelopeKeys(options, 'project');
  return (value) => applyToItems(value, options, 'project', (item) => keep(item, tree));
}

/**
 * The complement of {@link project}: removes the listed fields from each item (Apify's `omit`)
 * and keeps everything else in its original order. A dotted path removes only the nested value
 * (`omit(x, 'location.lat')` keeps `location.lng`). Items are found the same way as in project.
 *
 * @throws {TypeError} for the same bad specs as {@link project}.
 * @example
 * omit([{ id: 1, html: '<p>…</p>', title: 'T' }], 'html'); // [{ id: 1, title: 'T' }]
 */
export function omit(value: JsonValue, fields: FieldSpec, options?: ProjectOptions): JsonValue {
  const tree = parseFields(fields, 'omit');
  return applyToItems(value, options, 'omit', (item) => drop(item, tree));
}

/**
 * A parsed field list: each key maps to `WHOLE` (take or drop the whole value) or to the subtree
 * of the paths that continue below it. Map order is the listed order.
 */
type FieldTree = Map<string, FieldTree | typeof WHOLE>;
const WHOLE = true;

function parseFields(fields: FieldSpec, caller: string): FieldTree {
  let paths: readonly unknown[];
  if (typeof fields === 'string') paths = fields.split(',').map((name) => name.trim());
  else if (Array.isArray(fields)) paths = fields;
  else {
    throw new TypeError(
      `${caller}: fields must be a comma-separated string or an array of strings, got ${describe(fields)}`,
    );
  }
  if (paths.length === 0) {
    throw new TypeError(`${caller}: fields is empty; list at least one field, e.g. 'name,url'`);
  }
  const tree: FieldTree = new Map();
  for (const path of paths) {
    if (typeof path !== 'string') {
      throw new TypeError(`${caller}: every field must be a string, got ${describe(path)}`);
    }
    const segments = path.split('.');
    if (segments.some((segment) => segment === '')) {
      throw new TypeError(
        `${caller}: ${JSON.stringify(path)} is not a field name: names and the parts of dotted paths must be non-empty`,
      );
    }
    insertPath(tree, segments);
  }
  return tree;
}

function insertPath(tree: FieldTree, segments: readonly string[]): void {
  let node = tree;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const existing = node.get(segment);
    if (existing === WHOLE) return; // an enclosing field is already selected whole
    if (i === segments.length - 1) {
      node.set(segment, WHOLE); // keeps the key's first-listed position
      return;
    }
    if (existing === undefined) {
      const child: FieldTree = new Map();
      node.set(segment, child);
      node = child;
    } else {
      node = existing;
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : typeof value;
}

function envelopeKeys(options: ProjectOptions | undefined, caller: string): readonly string[] {
  const envelope = options?.envelope ?? DEFAULT_ENVELOPE;
  const keys = typeof envelope === 'string' ? [envelope] : envelope;
  if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string')) {
    throw new TypeError(
      `${caller}: envelope must be a key or an array of keys, got ${describe(envelope)}`,
    );
  }
  return keys;
}

function applyToItems(
  value: JsonValue,
  options: ProjectOptions | undefined,
  caller: string,
  transform: (item: JsonObject) => JsonObject,
): JsonValue {
  const keys = envelopeKeys(options, caller);
  const mapItems = (items: JsonValue[]): JsonValue[] =>
    items.map((item) => (isJsonObject(item) ? transform(item) : item));
  if (Array.isArray(value)) return mapItems(value);
  if (!isJsonObject(value)) return value;
  for (const key of keys) {
    const items = Object.hasOwn(value, key) ? value[key] : undefined;
    if (!Array.isArray(items)) continue;
    const out: JsonObject = {};
    for (const name of Object.keys(value))
      setOwn(out, name, name === key ? mapItems(items) : value[name]!);
    return out;
  }
  return transform(value);
}

function keep(item: JsonObject, tree: FieldTree): JsonObject {
  const out: JsonObject = {};
  for (const [key, sub] of tree) {
    if (!Object.hasOwn(item, key)) continue;
    const value = item[key]!;
    if (sub === WHOLE) {
      setOwn(out, key, value);
    } else if (isJsonObject(value)) {
      const nested = keep(value, sub);
      // Only the listed leaves exist: an empty parent would be invented structure.
      if (Object.keys(nested).length > 0) setOwn(out, key, nested);
    }
  }
  return out;
}

function drop(item: JsonObject, tree: FieldTree): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(item)) {
    const value = item[key]!;
    const sub = tree.get(key);
    if (sub === WHOLE) continue;
    setOwn(out, key, sub !== undefined && isJsonObject(value) ? drop(value, sub) : value);
  }
  return out;
}
