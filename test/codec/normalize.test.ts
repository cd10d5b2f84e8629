import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalize } from '../../src/codec/normalize.js';

describe('normalize (host values to the JSON model)', () => {
  it('returns plain JSON data as the very same objects (copy-on-write)', () => {
    const value = { a: [1, { b: 'x' }], c: null };
    assert.equal(normalize(value), value);
  });

  it('copies only the path that changed', () => {
    const untouched = { keep: true };
    const value = { untouched, changed: { at: new Date(0) } };
    const result = normalize(value) as Record<string, unknown>;
    assert.notEqual(result, value);
    assert.equal(result.untouched, untouched);
    assert.deepEqual(result.changed, { at: '1970-01-01T00:00:00.000Z' });
    assert.ok(value.changed.at instanceof Date, 'the input is not mutated');
  });

  it('matches JSON.stringify on the values JSON itself can express', () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
    }
    const value = {
      p: new Point(1, 2),
      list: [undefined, NaN, new Date(5)],
      skip: undefined,
      fn() {},
    };
    // Class instances pass through as they are (their own enumerable keys are their data).
    assert.equal(JSON.stringify(normalize(value)), JSON.stringify(value));
    assert.deepEqual((normalize(value) as { list: unknown[] }).list, [
      null,
      null,
      '1970-01-01T00:00:00.005Z',
    ]);
  });

  it('keeps __proto__ as an own data key when it has to copy an object', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "d": "x"}') as Record<
      string,
      unknown
    >;
    value.d = new Date(0) as unknown as string;
    const result = normalize(value) as Record<string, unknown>;
    assert.deepEqual(Object.keys(result), ['__proto__', 'd']);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('uses a toJSON on BigInt.prototype when one is installed, as JSON.stringify would', () => {
    const proto = BigInt.prototype as unknown as { toJSON?: () => string };
    proto.toJSON = function (this: bigint) {
      return `big:${this.toString()}`;
    };
    try {
      assert.equal(normalize(5n), 'big:5');
    } finally {
      delete proto.toJSON;
    }
  });

  it('calls a BigInt toJSON that returns the BigInt itself once, then applies the policy', () => {
    const proto = BigInt.prototype as unknown as { toJSON?: () => unknown };
    // A strict function returns the primitive, a sloppy one (new Function) the boxed BigInt:
    // either used to recurse until the call stack overflowed.
    for (const self of [
      function (this: bigint) {
        return this;
      },
      new Function('return this') as () => unknown,
    ]) {
      proto.toJSON = self;
      try {
        assert.deepEqual(normalize({ a: 5n, b: 2n ** 64n }), { a: 5, b: '18446744073709551616' });
      } finally {
        delete proto.toJSON;
      }
    }
  });
});
