// `--fields` checks: a field that no item has is almost always a typo, and projecting to it
// would report every item as `{}` and a large "saving" that is not one.
import { isJsonObject } from '../codec/objects.js';
import type { JsonValue } from '../codec/types.js';
import { DEFAULT_ENVELOPE } from '../compact/index.js';

/**
 * The fields (dotted paths) of `fields` that no item of `value` has: items are a root array's
 * elements, the array under `items` or `data`, or the root object itself.
 *
 * @example
 * missingFields([{ name: 'a', url: 'u' }], ['name', 'nmae']); // ['nmae']
 */
export function missingFields(value: JsonValue, fields: readonly string[]): string[] {
  const items = itemsOf(value);
  return fields.filter((field) => !items.some((item) => hasPath(item, field.split('.'))));
}

function itemsOf(value: JsonValue): JsonValue[] {
  if (Array.isArray(value)) return value;
  if (isJsonObject(value)) {
    for (const key of DEFAULT_ENVELOPE) {
      const items = Object.hasOwn(value, key) ? value[key] : undefined;
      if (Array.isArray(items)) return items;
    }
  }
  return [value];
}

function hasPath(item: JsonValue, path: readonly string[]): boolean {
  let node = item;
  for (const segment of path) {
    if (!isJsonObject(node) || !Object.hasOwn(node, segment)) return false;
    node = node[segment]!;
  }
  return true;
}

/**
 * The stderr warning for fields no item has, or `undefined` when every field was found.
 *
 * @example
 * fieldsWarning('places.json', ['nmae'], ['name', 'nmae']);
 * // "places.json: no item has the field 'nmae'; check the spelling (found fields are kept)"
 */
export function fieldsWarning(
  source: string,
  missing: readonly string[],
  fields: readonly string[],
): string | undefined {
  if (missing.length === 0) return undefined;
  const names = missing.map((field) => `'${field}'`).join(', ');
  const rest =
    missing.length === fields.length
      ? 'the projection keeps nothing, so its sizes are not reported; check the spelling'
      : 'check the spelling (the fields that exist are kept)';
  return `${source}: no item has the field${missing.length > 1 ? 's' : ''} ${names}; ${rest}`;
}
