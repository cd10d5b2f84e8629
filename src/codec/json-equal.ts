// JSON equality, for the report's round-trip check and the proxy's evidence that two texts hold
// the same data: objects compare as unordered key sets (JSON semantics), arrays by position,
// numbers by value (so -0 equals 0, as JSON.stringify agrees).
import { excerpt } from './excerpt.js';
import type { JsonValue } from './types.js';

/**
 * The path of the first place where two JSON values differ, with what differs, or `undefined`
 * when they are equal. The path is assembled only once a difference is found, so comparing two
 * equal values allocates nothing (the report compares every decoded candidate with its input,
 * and a 10 MB payload has hundreds of thousands of members).
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
  const found = difference(expected, actual);
  if (found === undefined) return undefined;
  return `${path}${found.steps.reverse().join('')}: ${found.what}`;
}

/**
 * Whether two JSON values are equal (see {@link firstDifference}). Values nested too deep to
 * compare on the stack count as different, so the answer errs towards "not the same data".
 *
 * @example
 * jsonEqual({ a: [1, 2] }, { a: [1, 2] }); // true
 * jsonEqual([1], ['1']); // false
 */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  try {
    return difference(a, b) === undefined;
  } catch {
    return false; // RangeError: nested deeper than the stack
  }
}

/** What differs, and the member accesses leading to it, innermost first. */
interface Difference {
  steps: string[];
  what: string;
}

function difference(expected: JsonValue, actual: JsonValue): Difference | undefined {
  if (expected === actual) return undefined;
  const expectedKind = kindOf(expected);
  const actualKind = kindOf(actual);
  if (expectedKind !== actualKind)
    return at(
      `expected ${expectedKind} ${preview(expected)}, got ${actualKind} ${preview(actual)}`,
    );
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      return at(`expected ${expected.length} elements, got ${actual.length}`);
    for (let i = 0; i < expected.length; i++) {
      const found = difference(expected[i]!, actual[i]!);
      if (found !== undefined) return within(found, `[${i}]`);
    }
    return undefined;
  }
  if (expectedKind === 'object') {
    const a = expected as Record<string, JsonValue>;
    const b = actual as Record<string, JsonValue>;
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key)) return at(`key ${JSON.stringify(key)} is missing`);
      const found = difference(a[key]!, b[key]!);
      if (found !== undefined) return within(found, memberAccess(key));
    }
    for (const key of Object.keys(b)) {
      if (!Object.hasOwn(a, key)) return at(`unexpected key ${JSON.stringify(key)}`);
    }
    return undefined;
  }
  return at(`expected ${preview(expected)}, got ${preview(actual)}`);
}

function at(what: string): Difference {
  return { steps: [], what };
}

function within(found: Difference, step: string): Difference {
  found.steps.push(step);
  return found;
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
  // JSON.stringify writes NaN and Infinity as null, which would read as "expected number null".
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return excerpt(JSON.stringify(value), 60);
}
