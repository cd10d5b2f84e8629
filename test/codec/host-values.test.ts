import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode as referenceEncode } from '@toon-format/toon';
import fc from 'fast-check';
import { decode } from '../../src/codec/decode.js';
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

/**
 * docs/codec.md, "Differences from the reference": values the reference 4.4.0 writes as `null`
 * (or, in an object, as `key: null`) and toonwire writes as `JSON.stringify` does, so that the
 * TOON text decodes to what the JSON text parses to. Each case pins both sides: if the
 * reference changes, the table in the docs has to change too.
 */
describe('non-plain values: what JSON.stringify writes, where the reference writes null', () => {
  /** Encodes `{ k: value }` with both, and checks toonwire's text decodes to the JSON view. */
  function both(value: unknown): { toonwire: string; reference: string } {
    const document = { k: value };
    const toonwire = encode(document);
    assert.deepEqual(decode(toonwire), JSON.parse(JSON.stringify(document)));
    return { toonwire, reference: referenceEncode(document) };
  }

  it('a class instance: its own enumerable properties', () => {
    class Point {
      x = 1;
      label = 'a';
      get norm(): number {
        return 1;
      }
    }
    assert.deepEqual(both(new Point()), {
      toonwire: 'k:\n  x: 1\n  label: a',
      reference: 'k: null',
    });
  });

  it('an Error: its own enumerable properties (message and stack are not)', () => {
    const error = Object.assign(new Error('boom'), { code: 'E_BOOM' });
    assert.deepEqual(both(error), { toonwire: 'k:\n  code: E_BOOM', reference: 'k: null' });
    assert.deepEqual(both(new Error('boom')), { toonwire: 'k:', reference: 'k: null' });
  });

  it('a typed array: an object of its indices, as JSON.stringify writes it', () => {
    assert.deepEqual(both(new Uint8Array([7, 9])), {
      toonwire: 'k:\n  "0": 7\n  "1": 9',
      reference: 'k: null',
    });
    assert.deepEqual(both(new Float64Array([1.5])), {
      toonwire: 'k:\n  "0": 1.5',
      reference: 'k: null',
    });
  });

  it('an object with another prototype: its own properties; Object.create(null) is plain in both', () => {
    const child = Object.assign(Object.create({ inherited: 1 }), { own: 2 });
    assert.deepEqual(both(child), { toonwire: 'k:\n  own: 2', reference: 'k: null' });
    assert.deepEqual(both(/x/), { toonwire: 'k:', reference: 'k: null' });
    const bare = Object.assign(Object.create(null), { a: 1 });
    assert.deepEqual(both(bare), { toonwire: 'k:\n  a: 1', reference: 'k:\n  a: 1' });
  });

  it('a boxed primitive: unwrapped; a boxed BigInt follows the BigInt policy', () => {
    assert.deepEqual(both(Object(5)), { toonwire: 'k: 5', reference: 'k: null' });
    assert.deepEqual(both(Object('s')), { toonwire: 'k: s', reference: 'k: null' });
    assert.deepEqual(both(Object(false)), { toonwire: 'k: false', reference: 'k: null' });
    // JSON.stringify throws on a BigInt; the policy ('auto': a number when safe) applies.
    assert.equal(encode({ k: Object(5n) }), 'k: 5');
    assert.equal(encode({ k: Object(2n ** 64n) }), 'k: "18446744073709551616"');
    assert.equal(referenceEncode({ k: Object(5n) }), 'k: null');
  });

  it('toJSON: called once per position, as JSON.stringify does (not again on what it returns)', () => {
    // `toJSON() { return this; }` overflowed the call stack; the object is its own data.
    class Model {
      a = 1;
      toJSON(): unknown {
        return this;
      }
    }
    assert.deepEqual(both(new Model()), { toonwire: 'k:\n  a: 1', reference: 'k: null' });
    const literal = {
      a: 1,
      toJSON(): unknown {
        return literal;
      },
    };
    assert.deepEqual(both(literal), {
      toonwire: 'k:\n  a: 1',
      reference: 'k:\n  a: 1\n  toJSON: null',
    });
    assert.equal(encode(new Model()), 'a: 1');
    assert.equal(encode([new Model(), new Model()]), '[2]{a}:\n  1\n  1');
    // What toJSON returns is not asked for its own toJSON: a Date returned is an object with no
    // own properties, as in JSON's text; the reference calls them in turn.
    assert.deepEqual(both({ toJSON: () => new Date(0) }), {
      toonwire: 'k:',
      reference: 'k: "1970-01-01T00:00:00.000Z"',
    });
    assert.deepEqual(both({ toJSON: () => ({ toJSON: () => 1 }) }), {
      toonwire: 'k:',
      reference: 'k: 1',
    });
    // Inside what it returns, toJSON applies as anywhere.
    const nested = { toJSON: () => ({ at: new Date(0) }) };
    assert.deepEqual(both(nested), {
      toonwire: 'k:\n  at: "1970-01-01T00:00:00.000Z"',
      reference: 'k:\n  at: "1970-01-01T00:00:00.000Z"',
    });
  });

  it('undefined, a function or a symbol in an object: the key is left out', () => {
    for (const value of [undefined, () => 1, Symbol('s')]) {
      assert.equal(encode({ k: value, b: 1 }), 'b: 1');
      assert.equal(referenceEncode({ k: value, b: 1 }), 'k: null\nb: 1');
    }
    // In an array both write null, as JSON.stringify does.
    assert.equal(encode([undefined]), referenceEncode([undefined]));
  });
});
