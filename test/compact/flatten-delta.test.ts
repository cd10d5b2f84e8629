// The picker sizes toon-flatten from toon's size when flatten only rewrites table headers; this
// checks that shortcut against real encodes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import { flattenedHeaderDelta } from '../../src/compact/flatten-delta.js';
import { byteLength, flatten } from '../../src/compact/index.js';
import { isWellFormedJson, jsonValue, rowsJson } from '../support/json.js';

function realDelta(value: JsonValue): number {
  return byteLength(encode(flatten(value, { dottedKeys: 'throw' }))) - byteLength(encode(value));
}

describe('flattenedHeaderDelta', () => {
  it('sizes a nested table header against its flattened form', () => {
    const rows = [
      { id: 1, s: { a: 1 } },
      { id: 2, s: { a: 2 } },
    ];
    assert.equal(flattenedHeaderDelta(rows), -1); // `s.a` is one byte shorter than `s{a}`
    assert.equal(flattenedHeaderDelta({ total: 2, items: rows }), -1);
    const deeper = rows.map((row) => ({ ...row, t: { u: { v: 1, w: 2 } } }));
    assert.equal(flattenedHeaderDelta(deeper), realDelta(deeper));
  });

  it('uses the toon text of a root table instead of checking every row', () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({
      id: i,
      meta: { owner: `u${i}`, tier: { level: i } },
    }));
    const text = encode(rows);
    assert.ok(text.startsWith('[5]{'));
    assert.equal(flattenedHeaderDelta(rows, text), realDelta(rows));
  });

  it('gives up when flatten would lift an object outside a table, or throw', () => {
    assert.equal(flattenedHeaderDelta({ s: { a: 1 } }), undefined);
    assert.equal(flattenedHeaderDelta([{ s: { a: 1 } }, { s: { b: 1 } }]), undefined);
    assert.equal(flattenedHeaderDelta([{ 'a.b': 1 }, { 'a.b': 2 }]), undefined);
    assert.equal(flattenedHeaderDelta({ a: { x: { n: 1 } }, b: { x: { n: 2 } } }), undefined);
    let deep: JsonValue = 1;
    for (let i = 0; i < 25; i++) deep = { k: deep };
    assert.equal(flattenedHeaderDelta([deep, deep]), undefined);
  });

  it('is 0 when there is nothing to flatten', () => {
    assert.equal(flattenedHeaderDelta([{ a: 1 }, { a: 2 }]), 0);
    assert.equal(flattenedHeaderDelta({ a: [1, 2], b: {} }), 0);
  });

  it('matches real encodes whenever it answers', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.oneof(rowsJson(false), rowsJson(true), jsonValue(true)), (value) => {
        fc.pre(isWellFormedJson(value)); // else no real encode exists to compare with
        const delta = flattenedHeaderDelta(value);
        if (delta === undefined) return;
        answered++;
        assert.equal(delta, realDelta(value));
        assert.equal(flattenedHeaderDelta(value, encode(value)), delta);
      }),
      { numRuns: 1000 },
    );
    assert.ok(answered > 100, `answered only ${answered} of 1000`);
  });
});
