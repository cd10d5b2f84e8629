// JSON equality for the report's round-trip check: objects compare as unordered key sets (JSON
// semantics), arrays by position, numbers by value (so -0 equals 0, as JSON.stringify agrees).
import type { JsonValue } from '../../codec/types.js';

/**
 * The path of the first place where two JSON values differ, with what differs, or `undefined`
 * when they are equal.
 *
 * @example
 * firstDifference({ a: [1, 2] }, { a: [1, 3] }); // '$.a[1]: expected 2, got 3'
 * firstDifference({ a: 1, b: 2 }, { b: 2, a: 1 }); // undefined
 */
export function firstDifference(
  expected: JsonValue,
  actual: JsonValue,
  path = '$',
): string | undefined {
  if (expected === actual) return undefined;
  const expectedKind = kindOf(expected);
  const actualKind = kindOf(actual);
  if (expectedKind !== actualKind)
    return `${path}: expected ${expectedKind} ${preview(expected)}, got ${actualKind} ${preview(actual)}`;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const difference = firstDifference(expected[i]!, actual[i]!, `${path}[${i}]`);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (expectedKind === 'object') {
    const a = expected as Record<string, JsonValue>;
    const b = actual as Record<string, JsonValue>;
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key)) return `${path}: key ${JSON.stringify(key)} is missing`;
      const difference = firstDifference(a[key]!, b[key]!, `${path}${memberAccess(key)}`);
      if (difference !== undefined) return difference;
    }
    for (const key of Object.keys(b)) {
      if (!Object.hasOwn(a, key)) return `${path}: unexpected key ${JSON.stringify(key)}`;
    }
    return undefined;
  }
  return `${path}: expected ${preview(expected)}, got ${preview(actual)}`;
}

function kindOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function memberAccess(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
