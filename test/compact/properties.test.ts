// Property tests of the picker's guarantees, on arbitrary JSON with hostile keys and strings.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import {
  byteLength,
  type Candidate,
  flatten,
  loadTokenizer,
  measureCandidates,
  type PickOptions,
  parseCompact,
  pick,
} from '../../src/compact/index.js';
import { jsonEqual, jsonValue, rowsJson } from '../support/json.js';

const anyJson = fc.oneof(jsonValue(true), rowsJson(true), rowsJson(false));
const all = ['toon', 'toon-flatten', 'toon-tab'] as const;
/** A custom measure unrelated to bytes: characters other than spaces and newlines. */
const inkCount = (text: string): number => text.replace(/[ \n]/g, '').length;
const broken: Candidate = {
  name: 'broken',
  encode() {
    throw new Error('broken on purpose');
  },
};

/** The text each built-in strategy's full encoder writes for `value`. */
function fullEncoding(value: JsonValue, strategy: string): string {
  switch (strategy) {
    case 'json':
      return JSON.stringify(value);
    case 'toon':
      return encode(value);
    case 'toon-flatten':
      return encode(flatten(value, { dottedKeys: 'throw' }));
    case 'toon-tab':
      return encode(value, { delimiter: '\t' });
    default:
      throw new Error(`unexpected strategy ${strategy}`);
  }
}

function checkPick(
  value: JsonValue,
  options: PickOptions,
  measure: (text: string) => number,
): void {
  const result = pick(value, options);
  assert.ok(
    jsonEqual(parseCompact(result.text, result.strategy), value),
    `${result.strategy}:\n${result.text}`,
  );
  assert.equal(result.text, fullEncoding(value, result.strategy));
  assert.equal(result.size, measure(result.text));
  assert.ok(result.size <= measure(JSON.stringify(value)));
  assert.equal(result.sizes[result.strategy], result.size);
  // The budgeted pick agrees with sizing every candidate in full (first smallest wins), and
  // every size it reports, measured or derived, is exact.
  let best = { name: 'json', size: Infinity };
  const measured = measureCandidates(value, options);
  for (const m of measured) {
    if (m.size !== undefined && m.size < best.size) best = { name: m.name, size: m.size };
  }
  assert.equal(result.strategy, best.name);
  for (const [name, size] of Object.entries(result.sizes)) {
    assert.equal(size, measured.find((m) => m.name === name)?.size, name);
  }
}

describe('pick properties', () => {
  let tokens: (text: string) => number;
  before(async () => {
    tokens = await loadTokenizer('o200k_base');
  });

  it('ships text that parseCompact reads back to the value, never larger than JSON in bytes', () => {
    fc.assert(
      fc.property(anyJson, (value) =>
        checkPick(value, { candidates: all, by: 'bytes' }, byteLength),
      ),
      { numRuns: 1000 },
    );
  });

  it('under the default measure ships the byte pick or JSON, and reads back', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const result = pick(value, { candidates: all });
        const byBytes = pick(value, { candidates: all, by: 'bytes' });
        assert.ok(jsonEqual(parseCompact(result.text, result.strategy), value));
        assert.ok(result.strategy === byBytes.strategy || result.strategy === 'json');
        assert.equal(result.size, byteLength(result.text));
        assert.ok(result.size <= byteLength(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps both guarantees under a custom measure', () => {
    fc.assert(
      fc.property(anyJson, (value) =>
        checkPick(value, { candidates: all, by: inkCount }, inkCount),
      ),
      { numRuns: 300 },
    );
  });

  it('keeps both guarantees under o200k_base tokens', () => {
    fc.assert(
      fc.property(anyJson, (value) => checkPick(value, { candidates: all, by: 'tokens' }, tokens)),
      { numRuns: 150 },
    );
  });

  it('ships the same result with a throwing custom candidate as without it', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        let errors = 0;
        const withBroken = pick(value, { candidates: [broken, ...all], onError: () => errors++ });
        const without = pick(value, { candidates: all });
        assert.equal(withBroken.text, without.text);
        assert.equal(withBroken.strategy, without.strategy);
        assert.ok(errors >= 1);
      }),
      { numRuns: 200 },
    );
  });

  it('ships JSON when every other candidate throws', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const result = pick(value, { candidates: [broken] });
        assert.equal(result.strategy, 'json');
        assert.equal(result.text, JSON.stringify(value));
      }),
      { numRuns: 100 },
    );
  });

  it('never touches Object.prototype', () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const result = pick(value, { candidates: all });
        parseCompact(result.text, result.strategy);
        assert.deepEqual(Object.keys(Object.prototype), []);
        assert.equal(({} as Record<string, unknown>)['constructor'], Object);
      }),
      { numRuns: 200 },
    );
  });
});
