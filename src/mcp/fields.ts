// The `fields` parameter of an MCP tool result: which fields of which items the model reads. One
// semantics for `compactResult` (and so `registerCompactTool`) and the proxy's `--fields-param`,
// built on the compact layer's `project` (dotted paths, envelopes), with two things a tool result
// needs beyond it: finding the list in any response shape, and telling the model, in a note,
// when the fields it asked for do not exist (a model cannot see that a projection was empty).

import { isJsonObject } from '../codec/objects.js';
import type { JsonValue } from '../codec/types.js';
import { DEFAULT_ENVELOPE, type FieldSpec, project } from '../compact/index.js';

/** At most this many field names are listed when a projection matches nothing. */
const MAX_LISTED_FIELDS = 60;

/** What {@link projectFields} did. */
export interface FieldsProjection {
  /** The projected value (the input itself when the spec could not be used). */
  value: JsonValue;
  /** For the model, when some or all fields do not exist or the spec is malformed. */
  note: string | undefined;
}

/** Options of {@link projectFields}. */
export interface ProjectFieldsOptions {
  /** Keys under which an object carries its list of items, tried first (default `['items', 'data']`). */
  envelope?: string | readonly string[] | undefined;
  /** Who writes the note, its first words (default `'toonwire'`; the proxy's `'toonwire proxy'`). */
  source?: string;
}

/**
 * Projects `value` to `fields` with `project`. The items are the elements of a root array; else
 * of the array under an envelope key (`items` or `data`); else of the object's only top-level
 * array of objects (the `rows` of a SQL-style result); else the object itself is the one item.
 * When no listed field exists in the list's items but some exist in the object itself, the
 * object is the item. Not silent: when a listed field exists in no item, the note says so and
 * lists the fields that do exist; a malformed list (`'id,,total'`, `'a.'`) leaves the value whole
 * and the note says why. A blank string projects nothing (all fields, no note).
 *
 * @throws {TypeError} when `fields` is neither a string nor an array of strings, or the
 *   envelope is not a key or an array of keys: mistakes in code, not in what a model asked for.
 * @example
 * projectFields({ query: 'q', rows: [{ id: 1, name: 'a' }] }, 'id').value; // { query: 'q', rows: [{ id: 1 }] }
 * projectFields([{ id: 1, name: 'a' }], 'id,nme').note;
 * // 'toonwire: fields: no item has "nme"; the fields are id, name.'
 */
export function projectFields(
  value: JsonValue,
  fields: FieldSpec,
  options: ProjectFieldsOptions = {},
): FieldsProjection {
  const { source = 'toonwire' } = options;
  const envelope = envelopeKeys(options.envelope);
  const paths = fieldPaths(fields);
  if (paths === undefined) return { value, note: undefined };
  const key = isJsonObject(value) ? listKey(value, envelope) : undefined;
  const attempt = (keys: readonly string[]) => {
    const projected = project(value, fields, { envelope: keys });
    const rows = items(value, keys);
    const missing = paths.filter((path) => !rows.some((row) => hasPath(row, path)));
    return { projected, rows, missing };
  };
  let outcome: ReturnType<typeof attempt>;
  try {
    outcome = attempt(key === undefined ? [] : [key]);
    if (key !== undefined && outcome.missing.length === paths.length) {
      const whole = attempt([]);
      if (whole.missing.length < paths.length) outcome = whole;
    }
  } catch (error) {
    const reason = (error as Error).message.replace(/^project: /, '');
    return {
      value,
      note: `${source}: fields ignored, the whole result follows: ${reason}. The fields are ${available(items(value, key === undefined ? [] : [key]))}.`,
    };
  }
  const { projected, rows, missing } = outcome;
  if (missing.length === 0) return { value: projected, note: undefined };
  const named = missing.map((path) => JSON.stringify(path)).join(', ');
  return {
    value: projected,
    note: `${source}: fields: no item has ${named}; the fields are ${available(rows)}.`,
  };
}

/** The paths of a field list, as `project` reads them; `undefined` for a blank string. */
function fieldPaths(fields: FieldSpec): readonly string[] | undefined {
  if (typeof fields === 'string') {
    return fields.trim() === '' ? undefined : fields.split(',').map((path) => path.trim());
  }
  if (Array.isArray(fields) && fields.every((path) => typeof path === 'string')) return fields;
  throw new TypeError(
    `fields must be a comma-separated string such as 'name,url' or an array of strings, got ${JSON.stringify(fields) ?? typeof fields}`,
  );
}

function envelopeKeys(envelope: ProjectFieldsOptions['envelope']): readonly string[] {
  if (envelope === undefined) return DEFAULT_ENVELOPE;
  const keys = typeof envelope === 'string' ? [envelope] : envelope;
  if (Array.isArray(keys) && keys.every((key) => typeof key === 'string')) return keys;
  throw new TypeError(
    `envelope must be a key or an array of keys such as ['items', 'data'], got ${JSON.stringify(envelope) ?? typeof envelope}`,
  );
}

/** The key of an object's list: an envelope key holding an array, else its only array of objects. */
function listKey(
  value: Record<string, JsonValue>,
  envelope: readonly string[],
): string | undefined {
  for (const key of envelope)
    if (Object.hasOwn(value, key) && Array.isArray(value[key])) return key;
  let found: string | undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (!Array.isArray(child) || !child.some(isJsonObject)) continue;
    if (found !== undefined) return undefined; // several lists: the object itself is the item
    found = key;
  }
  return found;
}

/** The objects `project` treats as items under `envelope`. */
function items(value: JsonValue, envelope: readonly string[]): Record<string, JsonValue>[] {
  let list: JsonValue[] = [];
  if (Array.isArray(value)) list = value;
  else if (isJsonObject(value)) {
    const key = envelope.find((name) => Object.hasOwn(value, name) && Array.isArray(value[name]));
    list = key === undefined ? [value] : (value[key] as JsonValue[]);
  }
  return list.filter(isJsonObject);
}

function hasPath(row: Record<string, JsonValue>, path: string): boolean {
  let node: JsonValue = row;
  for (const segment of path.split('.')) {
    if (!isJsonObject(node) || !Object.hasOwn(node, segment)) return false;
    node = node[segment]!;
  }
  return true;
}

/** The fields of the items, with one level of nested object fields as dotted paths. */
function available(rows: readonly Record<string, JsonValue>[]): string {
  const names = new Set<string>();
  for (const row of rows) {
    for (const [key, child] of Object.entries(row)) {
      names.add(key);
      if (isJsonObject(child)) for (const inner of Object.keys(child)) names.add(`${key}.${inner}`);
    }
    if (names.size > MAX_LISTED_FIELDS) break;
  }
  if (names.size === 0) return '(none: the items are not objects)';
  const listed = [...names].slice(0, MAX_LISTED_FIELDS);
  return listed.join(', ') + (names.size > MAX_LISTED_FIELDS ? ', …' : '');
}
