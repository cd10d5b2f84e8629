// `--fields` checks: a field that no item has is almost always a typo, and projecting to it
// would report every item as `{}` and a large "saving" that is not one. So each unknown field is
// named with the closest field the items do have; when none of the fields exists, `pick` refuses
// (exit 1) instead of writing empty items, and `report` leaves that projection out.
import { isJsonObject } from '../codec/objects.js';
import type { JsonValue } from '../codec/types.js';
import { closest, editDistance } from '../compact/closest.js';
import { DEFAULT_ENVELOPE } from '../compact/index.js';

/** How many items lend their field names to the suggestions (the rest are only checked). */
const SAMPLED_ITEMS = 1000;
/** How deep nested objects are listed as dotted paths (`location.lat`). */
const PATH_DEPTH = 3;
/** At most this many distinct field names are kept for suggestions. */
const KNOWN_LIMIT = 2000;

/**
 * Which of `fields` (dotted paths) the items seen so far have, and the field paths they have,
 * for suggestions. Fed one item at a time, so streamed files are checked in the same pass that
 * reads them.
 *
 * @example
 * const presence = new FieldPresence(['name', 'nmae']);
 * presence.observe({ name: 'a', url: 'u' });
 * presence.missing(); // ['nmae']
 * presence.closest('nmae'); // 'name'
 */
export class FieldPresence {
  readonly #fields: readonly string[];
  readonly #paths: string[][];
  readonly #found = new Set<string>();
  readonly #known = new Set<string>();
  #sampled = 0;

  constructor(fields: readonly string[]) {
    this.#fields = fields;
    this.#paths = fields.map((field) => field.split('.'));
  }

  /** Records one item (a row of the root array, or of the envelope's array). */
  observe(item: JsonValue): void {
    this.#fields.forEach((field, index) => {
      if (!this.#found.has(field) && hasPath(item, this.#paths[index]!)) this.#found.add(field);
    });
    if (this.#sampled < SAMPLED_ITEMS) {
      this.#sampled++;
      collectPaths(item, '', PATH_DEPTH, this.#known);
    }
  }

  /** The fields no item had. */
  missing(): string[] {
    return this.#fields.filter((field) => !this.#found.has(field));
  }

  /** The field paths the items have (from the first 1000 items), in first-seen order. */
  known(): string[] {
    return [...this.#known];
  }

  /** The items' field closest to `field` (edit distance, ignoring case first), if any. */
  closest(field: string): string | undefined {
    return closest(field, this.#known, { distance: fieldDistance })[0];
  }
}

/**
 * The items of a parsed payload: a root array's elements, the array under `items` or `data`, or
 * the root object itself.
 *
 * @example
 * itemsOf({ total: 1, items: [{ id: 1 }] }); // [{ id: 1 }]
 */
export function itemsOf(value: JsonValue): JsonValue[] {
  if (Array.isArray(value)) return value;
  if (isJsonObject(value)) {
    for (const key of DEFAULT_ENVELOPE) {
      const items = Object.hasOwn(value, key) ? value[key] : undefined;
      if (Array.isArray(items)) return items;
    }
  }
  return [value];
}

/**
 * `fields` checked against every item of a parsed payload.
 *
 * @example
 * fieldPresence([{ name: 'a', url: 'u' }], ['name', 'nmae']).missing(); // ['nmae']
 */
export function fieldPresence(value: JsonValue, fields: readonly string[]): FieldPresence {
  const presence = new FieldPresence(fields);
  for (const item of itemsOf(value)) presence.observe(item);
  return presence;
}

/**
 * What to tell the user about `fields`: nothing when every field was found, a warning when some
 * were not (each with the closest real field), and `allMissing` when none was, so the caller
 * refuses (pick) or leaves the projection out (report).
 *
 * @example
 * fieldsProblem('places.json', ['name', 'nmae'], presence);
 * // { allMissing: false, message: "places.json: no item has the field 'nmae' (closest: 'name'); ..." }
 */
export function fieldsProblem(
  source: string,
  fields: readonly string[],
  presence: FieldPresence,
): { allMissing: boolean; message: string } | undefined {
  const missing = presence.missing();
  if (missing.length === 0) return undefined;
  const named = missing
    .map((field) => {
      const closest = presence.closest(field);
      return closest === undefined ? `'${field}'` : `'${field}' (closest: '${closest}')`;
    })
    .join(', ');
  const allMissing = missing.length === fields.length;
  const known = presence.known();
  const shown = known.slice(0, 12).join(', ') + (known.length > 12 ? ', ...' : '');
  const rest = allMissing
    ? `none of the fields exists, so nothing would be kept; ${known.length > 0 ? `the items' fields are ${shown}` : 'the items have no fields'}`
    : 'check the spelling (the fields that exist are kept)';
  const which =
    allMissing && missing.length > 1
      ? 'any of the fields'
      : `the field${missing.length > 1 ? 's' : ''}`;
  return { allMissing, message: `${source}: no item has ${which} ${named}; ${rest}` };
}

function hasPath(item: JsonValue, path: readonly string[]): boolean {
  let node = item;
  for (const segment of path) {
    if (!isJsonObject(node) || !Object.hasOwn(node, segment)) return false;
    node = node[segment]!;
  }
  return true;
}

function collectPaths(node: JsonValue, prefix: string, depth: number, into: Set<string>): void {
  if (!isJsonObject(node) || depth === 0) return;
  for (const key of Object.keys(node)) {
    if (into.size >= KNOWN_LIMIT) return;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    into.add(path);
    collectPaths(node[key]!, path, depth - 1, into);
  }
}

/** A case difference alone is closer than any edit; otherwise edits, adjacent swaps included. */
function fieldDistance(field: string, candidate: string): number {
  return candidate.toLowerCase() === field.toLowerCase()
    ? 0.5
    : editDistance(field, candidate, { swaps: true });
}
