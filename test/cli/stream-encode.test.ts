import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ArrayShape } from '../../src/cli/stream/encode.js';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import { jsonValue, rowsJson } from '../support/json.js';

function streamed(values: JsonValue[], batch: number, options = {}): string {
  const shape = new ArrayShape(options);
  for (const value of values) shape.observe(value);
  let text = shape.header();
  for (let i = 0; i < values.length; i += batch) text += shape.batch(values.slice(i, i + batch));
  return text;
}

describe('ArrayShape (two-pass streaming encode of a root array)', () => {
  it('writes exactly what encode writes for the whole array, for any batch size', () => {
    const arrays = fc.oneof(
      fc.array(jsonValue(true), { maxLength: 12 }),
      rowsJson(true).filter(Array.isArray),
      rowsJson(false).filter(Array.isArray),
      fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 12 }),
    ) as fc.Arbitrary<JsonValue[]>;
    fc.assert(
      fc.property(
        arrays,
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(',', '\t', '|'),
        (values, batch, delimiter) => {
          const options = { delimiter } as const;
          // A value encode refuses (an unpaired surrogate) is refused by both.
          const outcome = (run: () => string) => {
            try {
              return run();
            } catch (error) {
              return `threw ${(error as Error).name}`;
            }
          };
          assert.equal(
            outcome(() => streamed(values, batch, options)),
            outcome(() => encode(values, options)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('handles the three forms and the empty array', () => {
    for (const values of [
      [],
      [1, 'a', null],
      [{ a: 1 }, { a: 2 }, { a: 3 }],
      [{ a: 1 }, { b: 2 }, 3, [1]],
    ] as JsonValue[][]) {
      assert.equal(streamed(values, 1), encode(values));
      assert.equal(streamed(values, 2, { indentSize: 4 }), encode(values, { indentSize: 4 }));
    }
  });
});
