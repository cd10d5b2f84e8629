import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encode, encodeWithin } from '../../src/codec/encode.js';
import { normalize } from '../../src/codec/normalize.js';
import { hostileKey, primitive } from '../support/json.js';

class Point {
  constructor(
    public x: number,
    public y: unknown,
  ) {}
}

/** Values JavaScript programs actually pass in: JSON data mixed with host types at any depth. */
const hostValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    primitive,
    fc.constantFrom(undefined, NaN, Infinity, -Infinity, () => 1, Symbol('s')),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
    fc.date({ noInvalidDate: true }),
    fc.constant(new Date(Number.NaN)),
    tie('value').map((inner) => ({ toJSON: () => inner })),
    fc.tuple(fc.double({ noNaN: true }), tie('value')).map(([x, y]) => new Point(x, y)),
    fc.oneof(fc.integer(), fc.string(), fc.boolean()).map((inner) => Object(inner) as unknown),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => new Set(items)),
    fc
      .array(fc.tuple(hostileKey(), tie('value')), { maxLength: 4 })
      .map((entries) => new Map(entries)),
    fc
      .uniqueArray(fc.tuple(hostileKey(), tie('value')), { maxLength: 4, selector: ([key]) => key })
      .map((entries) => {
        const object: Record<string, unknown> = {};
        for (const [key, value] of entries)
          Object.defineProperty(object, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        return object;
      }),
    // Tables whose rows, or a nested group in them, are class instances or carry toJSON.
    fc
      .array(fc.tuple(fc.integer(), primitive), { minLength: 2, maxLength: 3 })
      .map((pairs) => pairs.map(([x, y]) => new Point(x, y))),
    fc
      .array(fc.tuple(fc.integer(), primitive), { minLength: 2, maxLength: 3 })
      .map((pairs) => pairs.map(([x, y]) => ({ id: x, at: new Point(x, y) }))),
    fc
      .array(fc.integer(), { minLength: 2, maxLength: 3 })
      .map((ids) => ids.map((id) => ({ id, toJSON: () => ({ id, replaced: true }) }))),
    // Boxed strings have index keys, so a list of equally long ones looks like a table.
    fc
      .array(fc.string({ minLength: 2, maxLength: 2 }), { minLength: 2, maxLength: 3 })
      .map((texts) => texts.map((text) => Object(text) as unknown)),
    // Numeric rows (arrays of number arrays) where one row is not a plain array.
    fc
      .array(fc.array(fc.integer(), { maxLength: 3 }), { minLength: 1, maxLength: 3 })
      .map((rows) => [...rows, Object.assign([1, 2], { toJSON: () => 'replaced' })]),
    // Rows that would form a table but for one host value somewhere in them.
    fc
      .tuple(fc.integer({ min: 1, max: 3 }), tie('value'))
      .map(([count, odd]) =>
        Array.from({ length: count + 1 }, (_, i) => ({ id: i, v: i === count ? odd : i })),
      ),
  ),
}));

/** The text, or the error class and message when it throws (unpaired surrogates do). */
function outcome(write: () => string | undefined): string | undefined {
  try {
    return write();
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('host values', () => {
  it('encode(x) writes exactly what encoding normalize(x) writes', () => {
    fc.assert(
      fc.property(hostValue.value, (value) => {
        assert.equal(
          outcome(() => encode(value)),
          outcome(() => encodeWithin(normalize(value), undefined, Number.POSITIVE_INFINITY)),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('a cycle reached only after plain data still fails as a TypeError naming it', () => {
    const rows: Record<string, unknown>[] = [{ id: 1 }, { id: 2 }];
    rows[1]!.parent = rows;
    assert.throws(() => encode({ rows }), {
      name: 'TypeError',
      message: /\$\.rows\[1\]\.parent points back to \$\.rows/,
    });
  });
});
