import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decode } from '../../src/codec/decode.js';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import { flatten, unflatten } from '../../src/compact/index.js';
import { isWellFormedJson, jsonEqual, jsonValue, objectOf, rowsJson } from '../support/json.js';

/** A chain of `levels` nested objects around `leaf`: chain(2, 1) is { k: { k: 1 } }. */
function chain(levels: number, leaf: JsonValue): JsonValue {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { k: value };
  return value;
}

describe('flatten', () => {
  it("turns the seed's example rows into dotted columns that TOON tabulates", () => {
    const rows = [
      { id: 1, stats: { runs: 10, reads: 5 } },
      { id: 2, stats: { runs: 20, reads: 8 } },
      { id: 3, stats: { runs: 30, reads: 12 } },
    ];
    const flat = flatten(rows);
    assert.deepEqual(flat, [
      { id: 1, 'stats.runs': 10, 'stats.reads': 5 },
      { id: 2, 'stats.runs': 20, 'stats.reads': 8 },
      { id: 3, 'stats.runs': 30, 'stats.reads': 12 },
    ]);
    assert.equal(
      encode({ items: flat }),
      'items[3]{id,stats.runs,stats.reads}:\n  1,10,5\n  2,20,8\n  3,30,12',
    );
  });

  it('recurses into arrays at any level and keeps them arrays', () => {
    assert.deepEqual(flatten({ runs: [{ a: { b: 1 } }, [{ c: { d: 2 } }]] }), {
      runs: [{ 'a.b': 1 }, [{ 'c.d': 2 }]],
    });
  });

  it('keeps inline scalar arrays as they are on the flattened key', () => {
    assert.deepEqual(flatten({ meta: { tags: ['a', 'b'] } }), { 'meta.tags': ['a', 'b'] });
  });

  it('keeps an array of objects under its key and flattens its elements', () => {
    assert.deepEqual(
      flatten({ id: 1, offer: { pricingInfos: [{ price: { usd: 1 } }, { price: { usd: 2 } }] } }),
      {
        id: 1,
        'offer.pricingInfos': [{ 'price.usd': 1 }, { 'price.usd': 2 }],
      },
    );
  });

  it('returns scalars and null unchanged', () => {
    for (const scalar of ['x', 0, -1.5, true, false, null]) assert.equal(flatten(scalar), scalar);
  });

  it("replaces every '.' in a source key with '_'", () => {
    assert.deepEqual(flatten({ 'a.b.c': 1, n: { 'x.y': 2 } }), { a_b_c: 1, 'n.x_y': 2 });
  });

  it("throws a RangeError when the '.' to '_' rename makes two keys collide", () => {
    assert.throws(() => flatten({ 'a.b': 1, a_b: 2 }), RangeError);
    assert.throws(() => flatten({ a_b: 1, 'a.b': 2 }), RangeError);
    assert.throws(() => flatten({ n: { 'a.b': { c: 1 }, a_b: { c: 2 } } }), /becomes "n\.a_b\.c"/);
  });

  it("refuses dotted keys under dottedKeys: 'throw'", () => {
    assert.throws(() => flatten({ ok: { 'a.b': 1 } }, { dottedKeys: 'throw' }), /contains '\.'/);
    assert.deepEqual(flatten({ ok: { a: 1 } }, { dottedKeys: 'throw' }), { 'ok.a': 1 });
  });

  it('accepts nesting down to maxDepth (default 20) and throws a RangeError beyond it', () => {
    // The root is depth 0, so a chain of 20 objects puts its leaf at depth 20.
    assert.deepEqual(flatten(chain(20, 1)), { [Array(20).fill('k').join('.')]: 1 });
    assert.throws(() => flatten(chain(21, 1)), { name: 'RangeError', message: /maxDepth 20/ });
    assert.throws(() => flatten(chain(21, {})), RangeError);
    assert.throws(() => flatten(chain(3, [[[1]]]), { maxDepth: 5 }), RangeError);
    assert.deepEqual(flatten(chain(3, [[1]]), { maxDepth: 5 }), { 'k.k.k': [[1]] });
    assert.throws(() => flatten([[[[[[1]]]]]], { maxDepth: 5 }), RangeError);
  });

  it('stops at maxDepth on deep input instead of walking all of it', () => {
    assert.throws(() => flatten(chain(500, 1)), {
      name: 'RangeError',
      message: /beyond maxDepth 20/,
    });
    // Deeper than TOON documents may be, normalization refuses it first, with a message.
    assert.throws(() => flatten(chain(2_000, 1)), { name: 'RangeError', message: /deeper than/ });
  });

  it('rejects a maxDepth that is not a non-negative integer', () => {
    assert.throws(() => flatten({}, { maxDepth: -1 }), TypeError);
    assert.throws(() => flatten({}, { maxDepth: 1.5 }), TypeError);
  });

  it('keeps an empty nested object as {} on its dotted key, so it survives the round trip', () => {
    assert.deepEqual(flatten({ a: {}, b: { c: {}, d: 1 } }), { a: {}, 'b.c': {}, 'b.d': 1 });
    assert.deepEqual(unflatten(flatten({ a: {}, b: { c: {}, d: 1 } })), {
      a: {},
      b: { c: {}, d: 1 },
    });
  });

  it('keeps empty source keys in the path', () => {
    assert.deepEqual(flatten({ '': { a: 1, '': 2 } }), { '.a': 1, '.': 2 });
    assert.deepEqual(unflatten({ '.a': 1, '.': 2 }), { '': { a: 1, '': 2 } });
  });

  it('keeps __proto__, constructor and prototype as data and never touches prototypes', () => {
    const input = JSON.parse(
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"a":{"__proto__":2}}',
    );
    const flat = flatten(input) as Record<string, JsonValue>;
    assert.deepEqual(Object.keys(flat), [
      '__proto__.polluted',
      'constructor.prototype.x',
      'a.__proto__',
    ]);
    assert.equal(Object.getPrototypeOf(flat), Object.prototype);
    const back = unflatten(flat) as Record<string, JsonValue>;
    assert.ok(jsonEqual(back, input));
    assert.equal(Object.getPrototypeOf(back), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    const topLevel = JSON.parse('{"__proto__":{},"x":{"y":1}}');
    const flatTop = flatten(topLevel) as Record<string, JsonValue>;
    assert.ok(Object.hasOwn(flatTop, '__proto__'));
    assert.ok(jsonEqual(unflatten(flatTop), topLevel));
  });

  it('normalizes host values first, like JSON.stringify', () => {
    assert.deepEqual(flatten({ at: { when: new Date(0) }, skip: undefined, n: NaN }), {
      'at.when': '1970-01-01T00:00:00.000Z',
      n: null,
    });
  });

  it('returns data with nothing to flatten as the same object', () => {
    const flat = [
      { id: 1, tags: ['a'] },
      { id: 2, tags: [], empty: {} },
    ];
    assert.equal(flatten(flat), flat);
  });

  it('does not modify its input', () => {
    const input = { a: { b: 1 }, list: [{ c: { d: 2 } }] };
    const copy = structuredClone(input);
    flatten(input);
    assert.deepEqual(input, copy);
  });
});

describe('unflatten', () => {
  it('rebuilds the nesting of dotted keys, inside arrays too', () => {
    assert.deepEqual(unflatten([{ id: 1, 'stats.runs': 10, 'stats.reads': 5 }]), [
      { id: 1, stats: { runs: 10, reads: 5 } },
    ]);
  });

  it('merges keys that share a prefix and objects given under a prefix', () => {
    assert.deepEqual(unflatten({ 'a.b': 1, 'a.c': 2, x: { y: 1 }, 'x.z': 2 }), {
      a: { b: 1, c: 2 },
      x: { y: 1, z: 2 },
    });
  });

  it('does not modify its input when merging into an object it was given', () => {
    const x = { y: 1 };
    unflatten({ x, 'x.z': 2 });
    assert.deepEqual(x, { y: 1 });
  });

  it('throws a RangeError when two keys set the same path', () => {
    assert.throws(() => unflatten({ a: 1, 'a.b': 2 }), RangeError);
    assert.throws(() => unflatten({ 'a.b': 2, a: 1 }), RangeError);
    assert.throws(() => unflatten({ 'a.b': 1, a: { b: 2 } }), RangeError);
  });

  it('returns data without dotted keys as the same object', () => {
    const plain = { a: [{ b: 1 }], c: {} };
    assert.equal(unflatten(plain), plain);
  });

  it('inverts flatten for every JSON value whose keys contain no dot', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue(false), rowsJson(false)), (value) => {
        assert.ok(jsonEqual(unflatten(flatten(value)), value));
      }),
      { numRuns: 500 },
    );
  });

  it('inverts flatten through a TOON round trip: unflatten(decode(encode(flatten(x)))) equals x', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue(false), rowsJson(false)), (value) => {
        fc.pre(isWellFormedJson(value)); // TOON refuses unpaired surrogates (see the codec tests)
        assert.ok(jsonEqual(unflatten(decode(encode(flatten(value)))), value));
      }),
      { numRuns: 500 },
    );
  });

  it('gives ordinary objects for hostile keys', () => {
    const value = objectOf([
      ['__proto__', objectOf([['constructor', 1]])],
      ['prototype', { a: 1 }],
    ]);
    const back = unflatten(flatten(value)) as Record<string, JsonValue>;
    assert.ok(jsonEqual(back, value));
  });
});
