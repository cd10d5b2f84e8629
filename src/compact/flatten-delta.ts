// Shared work between the `toon` and `toon-flatten` candidates. When every nested object of a
// value sits in the rows of a table (the common list response), flatten changes nothing but
// each table's header: TOON v4 writes a nested-uniform column as a field group `stats{runs,reads}`
// and the flattened rows as `stats.runs,stats.reads`, and the rows themselves are the same
// cells. The picker can then size toon-flatten from toon's size without flattening or encoding.
//
// The walk below follows the spec's shape rules, which canonical encoders MUST apply: §9.3
// (tabular detection), §9.4 (arrays inside lists never tabulate), §9.5 (keyed tables, which
// need nested objects outside rows and so are never in this case). Whenever anything falls
// outside the table-only case, or flatten would throw, it answers `undefined` and the picker
// flattens and encodes for real. The property tests compare pick() with a full measurement of
// every candidate, so a drift between this walk and the encoder shows up as a failing test.

import { type Field, fieldList, sharedLayout } from '../codec/layout.js';
import { encodeKey } from '../codec/lexical.js';
import { isJsonObject } from '../codec/objects.js';
import type { JsonObject, JsonValue } from '../codec/types.js';
import { DEFAULT_FLATTEN_MAX_DEPTH } from './flatten.js';
import { byteLength } from './size.js';

/**
 * `byteLength(encode(flatten(value))) - byteLength(encode(value))` (comma delimiter, default
 * maxDepth, dotted keys refused) when flatten only rewrites table headers; `undefined` when that
 * cannot be shown cheaply. `toonText`, the encoding of `value` when known, saves checking every
 * row of a root array: its header already says whether the array is a table.
 *
 * @example
 * flattenedHeaderDelta([{ id: 1, s: { a: 1 } }, { id: 2, s: { a: 2 } }]); // -1: `s.a` vs `s{a}`
 * flattenedHeaderDelta({ s: { a: 1 } }); // undefined: flatten lifts `s` itself
 */
export function flattenedHeaderDelta(value: JsonValue, toonText?: string): number | undefined {
  const walk = new HeaderWalk();
  if (
    Array.isArray(value) &&
    isJsonObject(value[0]) &&
    toonText?.startsWith(`[${value.length}]{`)
  ) {
    // A root array whose encoding opens with a fields segment is a table (§6, §9.3), so its
    // rows share the first one's layout: no need to check every row again.
    const columns = sharedLayout([value[0]]);
    return columns !== undefined && walk.table(columns, 0) ? walk.delta : undefined;
  }
  return walk.value(value, 0, false) ? walk.delta : undefined;
}

class HeaderWalk {
  delta = 0;
  private readonly maxDepth = DEFAULT_FLATTEN_MAX_DEPTH;

  /** False when flatten would change more than table headers here, or would throw. */
  value(value: JsonValue, depth: number, listItem: boolean): boolean {
    if (depth > this.maxDepth) return false;
    if (typeof value !== 'object' || value === null) return true;
    if (!Array.isArray(value)) return this.object(value, depth);
    let primitives = true;
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      if (typeof item === 'object' && item !== null) {
        primitives = false;
        break;
      }
    }
    if (primitives) return value.length === 0 || depth + 1 <= this.maxDepth;
    if (!listItem) {
      const columns = sharedLayout(value);
      if (columns !== undefined) return this.table(columns, depth);
    }
    for (let i = 0; i < value.length; i++) {
      if (!this.value(value[i]!, depth + 1, true)) return false;
    }
    return true;
  }

  /** An object outside a table: flatten leaves it alone only if it has no non-empty object. */
  private object(object: JsonObject, depth: number): boolean {
    for (const key of Object.keys(object)) {
      if (key.includes('.')) return false;
      const item = object[key]!;
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        for (const _ in item) return false;
        if (depth + 1 > this.maxDepth) return false;
        continue;
      }
      if (!this.value(item, depth + 1, false)) return false;
    }
    return true;
  }

  table(columns: Field[], depth: number): boolean {
    // Rows are at depth + 1, their top-level cells at depth + 2.
    if (depth + 1 + columnDepth(columns) > this.maxDepth) return false;
    const flat: string[] = [];
    if (!leafPaths(columns, '', flat)) return false;
    this.delta += byteLength(`{${flat.join(',')}}`) - byteLength(fieldList(columns, ','));
    return true;
  }
}

/** Levels below a row that its deepest cell sits at (1 for a flat row). */
function columnDepth(columns: readonly Field[]): number {
  let deepest = 1;
  for (const column of columns) {
    if (column.children !== undefined)
      deepest = Math.max(deepest, 1 + columnDepth(column.children));
  }
  return deepest;
}

/** The flattened header's field names, in the rows' depth-first order; false on a dotted key. */
function leafPaths(columns: readonly Field[], prefix: string, out: string[]): boolean {
  for (const column of columns) {
    if (column.key.includes('.')) return false;
    const path = prefix + column.key;
    if (column.children === undefined) out.push(encodeKey(path));
    else if (!leafPaths(column.children, `${path}.`, out)) return false;
  }
  return true;
}
