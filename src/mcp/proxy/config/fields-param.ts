// `--fields-param`: model-driven projection for every upstream tool. The proxy offers an optional
// `fields` argument in tools/list, takes it out of the call before the upstream sees it, and
// projects the result's JSON text with the compact layer's `project`.

import { isJsonObject, isPlainObject } from '../../../codec/objects.js';
import type { JsonValue } from '../../../codec/types.js';
import { DEFAULT_ENVELOPE, project } from '../../../compact/index.js';

/** The description of the `fields` argument the proxy adds: what the model reads. */
export const FIELDS_PARAM_DESCRIPTION =
  'Comma-separated fields to return for each item of the result, dotted paths allowed, e.g. "name,url,rating" or "name,location.lat". Omit for all fields. Applied by the toonwire proxy to the text of the result; structuredContent stays whole.';

/** At most this many field names are listed when a projection matches nothing. */
const MAX_LISTED_FIELDS = 60;

/**
 * The tool with an optional `fields` string added to its `inputSchema`, or `undefined` when the
 * tool is left alone: its input schema is not an object schema, or it declares its own `fields`.
 *
 * @example
 * withFieldsParam({ name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
 * // { name: 'search', inputSchema: { type: 'object', properties: { q: ..., fields: { type: 'string', description: ... } } } }
 */
export function withFieldsParam(tool: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(tool)) return undefined;
  const schema = tool.inputSchema;
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties) || Object.hasOwn(properties, 'fields')) return undefined;
  return {
    ...tool,
    inputSchema: {
      ...schema,
      properties: {
        ...properties,
        fields: { type: 'string', description: FIELDS_PARAM_DESCRIPTION },
      },
    },
  };
}

/**
 * Splits the `fields` argument off a tools/call's arguments: `fields` is the trimmed spec
 * (`undefined` when absent or blank), `args` what the upstream gets (the same object when there
 * was no `fields`).
 *
 * @example
 * takeFieldsArgument({ q: 'x', fields: 'id,name' }); // { args: { q: 'x' }, fields: 'id,name' }
 */
export function takeFieldsArgument(args: unknown): { args: unknown; fields: string | undefined } {
  if (!isPlainObject(args) || !Object.hasOwn(args, 'fields')) return { args, fields: undefined };
  const { fields, ...rest } = args;
  const spec = typeof fields === 'string' && fields.trim() !== '' ? fields.trim() : undefined;
  return { args: rest, fields: spec };
}

/** What {@link projectFields} did. */
export interface Projection {
  /** The projected value (the input itself when the spec could not be used). */
  value: JsonValue;
  /** For the model, when some or all fields do not exist or the spec is malformed. */
  note: string | undefined;
}

/**
 * Projects `value` to `spec` with `project`. The items are the elements of a root array; else of
 * the array under `items` or `data`; else of the object's only top-level array of objects (the
 * `rows` of a SQL-style result); else the object itself is the one item. When no listed field
 * exists in the list's items but some exist in the object itself, the object is the item.
 * Not silent: when a listed field exists in no item, the note says so and lists the fields that
 * do exist; a malformed spec leaves the value whole and the note says why.
 *
 * @example
 * projectFields({ query: 'q', rows: [{ id: 1, name: 'a' }] }, 'id').value; // { query: 'q', rows: [{ id: 1 }] }
 * projectFields([{ id: 1, name: 'a' }], 'id,nme').note;
 * // 'toonwire proxy: fields: no item has "nme"; the fields are id, name.'
 */
export function projectFields(value: JsonValue, spec: string): Projection {
  const paths = spec.split(',').map((path) => path.trim());
  const key = isJsonObject(value) ? listKey(value) : undefined;
  const attempt = (envelope: string[]) => {
    const projected = project(value, spec, { envelope });
    const rows = items(value, envelope);
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
      note: `toonwire proxy: fields ignored, the whole result follows: ${reason}. The fields are ${available(items(value, key === undefined ? [] : [key]))}.`,
    };
  }
  const { projected, rows, missing } = outcome;
  if (missing.length === 0) return { value: projected, note: undefined };
  const named = missing.map((path) => JSON.stringify(path)).join(', ');
  return {
    value: projected,
    note: `toonwire proxy: fields: no item has ${named}; the fields are ${available(rows)}.`,
  };
}

/** The envelope key of an object's list: `items` or `data`, else its only array of objects. */
function listKey(value: Record<string, JsonValue>): string | undefined {
  for (const key of DEFAULT_ENVELOPE)
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
