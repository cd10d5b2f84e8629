// The batch reader of a streamed JSON array: the same values as JSON.parse of the whole text in
// every layout and however the text is cut into chunks, whole batches parsed at once where the
// layout allows it, and the character scanner's errors, at the same line and column.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { lineAndColumn, locateJsonError } from '../../src/cli/json-input.js';
import { ArrayBatches } from '../../src/cli/stream/array-batches.js';
import { ArraySyntaxError } from '../../src/cli/stream/array-scanner.js';
import { jsonValue } from '../support/json.js';
import { scannerFailure } from './array-errors.js';

/** Every element of `text` read in chunks cut at `cuts`. */
function read(text: string, cuts: readonly number[] = []): unknown[] {
  const batches = new ArrayBatches();
  const out: unknown[] = [];
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    out.push(...batches.push(text.slice(at, cut)));
    at = cut;
  }
  out.push(...batches.push(text.slice(at)), ...batches.end());
  return out;
}

/** The error reading `text` in chunks cut at `cuts` throws, as `line:column: message`. */
function failure(text: string, cuts: readonly number[] = []): string {
  try {
    read(text, cuts);
  } catch (error) {
    assert.ok(error instanceof ArraySyntaxError, String(error));
    return `${error.line}:${error.column}: ${error.message}`;
  }
  assert.fail(`no error for ${text}`);
}

/** The array's text in one of the layouts files come in. */
function layout(items: unknown[], style: number): string {
  if (style === 0) return JSON.stringify(items);
  if (style === 1) return JSON.stringify(items, null, 2);
  if (style === 2) return `[\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]\n`;
  return `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;
}

const rows = fc.array(
  fc.oneof(
    fc.dictionary(fc.string({ maxLength: 4 }), jsonValue(true), { maxKeys: 4 }),
    fc.array(jsonValue(true), { maxLength: 3 }),
    jsonValue(true),
  ),
  { maxLength: 12 },
);

describe('the streamed array batch reader', () => {
  it('reads the elements JSON.parse reads, in every layout, however the text is cut', () => {
    fc.assert(
      fc.property(rows, fc.nat(3), fc.array(fc.nat(), { maxLength: 8 }), (items, style, cuts) => {
        const text = layout(items, style);
        assert.deepEqual(
          read(
            text,
            cuts.map((cut) => cut % (text.length + 1)),
          ),
          JSON.parse(text),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('parses many rows with one JSON.parse when they repeat a layout', () => {
    const items = Array.from({ length: 200 }, (_, i) => ({
      id: i,
      text: `a "quoted" },{ line\n${i}`,
      nested: [{ a: i }, { a: -i }],
    }));
    for (const style of [0, 1, 2]) {
      const text = layout(items, style);
      const parse = JSON.parse;
      let calls = 0;
      JSON.parse = ((...args: Parameters<typeof JSON.parse>) => {
        calls++;
        return parse(...args);
      }) as typeof JSON.parse;
      let values: unknown[];
      try {
        const third = Math.floor(text.length / 3);
        values = read(text, [third, 2 * third]);
      } finally {
        JSON.parse = parse;
      }
      assert.deepEqual(values, JSON.parse(text));
      // Whole batches: a few parses per chunk (a failed cut at most three times), not 200.
      assert.ok(calls < 20, `style ${style}: ${calls} calls of JSON.parse`);
    }
  });

  it('holds no more than a few megabytes when the separator stops occurring', () => {
    const row = (i: number) => JSON.stringify({ id: i, text: 'x'.repeat(100) });
    // Two rows one per line, then a minified rest: `},\n{"id"` is learned, never seen again.
    const text = `[\n${row(0)},\n${row(1)},${Array.from({ length: 60_000 }, (_, i) => row(i + 2)).join(',')}]`;
    const batches = new ArrayBatches();
    let held = 0;
    let count = 0;
    for (let at = 0; at < text.length; at += 1 << 20) {
      count += batches.push(text.slice(at, at + (1 << 20))).length;
      held = Math.max(held, (at + (1 << 20)) / 120 - count);
    }
    count += batches.end().length;
    assert.equal(count, 60_002);
    // Rows read but not yet returned: never more than about 6 MB of them.
    assert.ok(held < (6 << 20) / 120, `${held} rows held back`);
  });

  it('reports the scanner’s errors at the same line and column, however the text is cut', () => {
    const good = Array.from({ length: 30 }, (_, i) => JSON.stringify({ id: i, s: `x${i}` }));
    const broken = [
      `[\n${good.join(',\n')},\n]`,
      `[\n${good.slice(0, 20).join(',\n')},\n{"id": tru},\n${good.slice(20).join(',\n')}\n]`,
      `[\n${good.join(',\n')}\n{"a":1}\n]`,
      `[${good.join(',')}] 2`,
      `[${good.join(',')},`,
      `[${good.slice(0, 10).join(',')},,${good.slice(10).join(',')}]`,
      '{"a":1}',
      '',
      '[1,]',
      '[{"a":1},{"a":2},]',
    ];
    for (const text of broken) {
      const expected = scannerFailure(text);
      for (let cut = 0; cut <= text.length; cut += 7) {
        assert.equal(failure(text, [cut]), expected, `${JSON.stringify(text)} cut at ${cut}`);
      }
    }
  });
});

describe('a malformed streamed array', () => {
  /** `line:column` of the first error, as the streamed reader reports it with chunks of `size`. */
  function streamedPlace(text: string, size: number): string | undefined {
    const batches = new ArrayBatches();
    try {
      for (let at = 0; at < text.length; at += size) batches.push(text.slice(at, at + size));
      batches.end();
    } catch (error) {
      assert.ok(error instanceof ArraySyntaxError, String(error));
      return `${error.line}:${error.column}`;
    }
    return undefined;
  }

  /** `line:column` of the first error, as the whole-file reader reports it. */
  function wholePlace(text: string): string | undefined {
    const problem = locateJsonError(text);
    if (problem === undefined) return undefined;
    const { line, column } = lineAndColumn(text, problem.offset);
    return `${line}:${column}`;
  }

  it('is reported where the whole-file reader reports it', () => {
    // Was: `[1,x 2]` streamed reported 1:6 "unexpected '2'" (the scanner stopped after the bare
    // scalar `x` before it was parsed), in memory 1:4 "unexpected 'x'".
    for (const text of ['[1,x 2]', '[{"a":x} 2]', '[1,tru 2]', '[1,x', '[1,\u001b 2]'])
      assert.equal(streamedPlace(text, 3), wholePlace(text), text);
    fc.assert(
      fc.property(
        fc.array(jsonValue(true), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(0, 1, 2),
        fc.nat(),
        fc.constantFrom('x', ' ', ',', ']', '[', '{', '}', '"', ':', '2', '\u0000', 'tru'),
        fc.integer({ min: 1, max: 40 }),
        (values, indent, where, insert, size) => {
          const valid = JSON.stringify(values, null, indent);
          // Inside the root array, so the whole-file reader's root errors stay out of it.
          const at = 1 + (where % (valid.length - 1));
          const text = valid.slice(0, at) + insert + valid.slice(at);
          if (wholePlace(text) === undefined) return;
          assert.equal(streamedPlace(text, size), wholePlace(text), JSON.stringify(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
