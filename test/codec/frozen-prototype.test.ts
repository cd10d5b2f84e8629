// The codec under a hardened Object.prototype. Freezing it is a common defence against prototype
// pollution, and it turns `object.toString = value` into a TypeError (the "override mistake"):
// a document with a `toString` key then made decode throw a TypeError instead of returning the
// data `JSON.parse` returns, and encode fail on a Map or Date beside such a key. A setter on
// Object.prototype must not see decoded data either. The prototype is hardened only inside a
// synchronous window and restored before any assertion, so nothing else in the process runs
// under it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode, decodeFromLines } from '../../src/codec/decode.js';
import { encode } from '../../src/codec/encode.js';

const lines = (...text: string[]) => text.join('\n');

/**
 * Runs `body` with every data property of Object.prototype made read-only, as
 * `Object.freeze(Object.prototype)` makes them (which cannot be undone inside a test process),
 * and restores them before returning `body`'s outcome (its value or the error it threw).
 */
function withReadOnlyPrototype<T>(body: () => T): { value?: T; error?: unknown } {
  const names = Object.getOwnPropertyNames(Object.prototype).filter(
    (name) => Object.getOwnPropertyDescriptor(Object.prototype, name)?.writable === true,
  );
  for (const name of names) Object.defineProperty(Object.prototype, name, { writable: false });
  try {
    return { value: body() };
  } catch (error) {
    return { error };
  } finally {
    for (const name of names) Object.defineProperty(Object.prototype, name, { writable: true });
  }
}

/** Documents with inherited names in every position a decoded key can take. */
const DOCUMENTS: readonly [string, string, unknown][] = [
  ['object field', 'toString: 1\nvalueOf: x', { toString: 1, valueOf: 'x' }],
  ['nested field', lines('a:', '  constructor: 1'), { a: { constructor: 1 } }],
  ['table field', lines('t[1]{toString,id}:', '  1,2'), { t: [{ toString: 1, id: 2 }] }],
  [
    'nested field group',
    lines('t[1]{a{hasOwnProperty}}:', '  1'),
    { t: [{ a: { hasOwnProperty: 1 } }] },
  ],
  ['keyed entry key', lines('k[1:]{a}:', '  toString: 1'), { k: { toString: { a: 1 } } }],
  [
    'list item field',
    lines('[1]:', '  - valueOf: 1', '    toString: 2'),
    [{ valueOf: 1, toString: 2 }],
  ],
  ['list item header', lines('[1]:', '  - toString[1]: 1'), [{ toString: [1] }]],
];

describe('decode with a read-only Object.prototype (as frozen against pollution)', () => {
  for (const [where, text, expected] of DOCUMENTS) {
    for (const strict of [true, false]) {
      it(`reads an inherited name as data: ${where}, strict ${strict}`, () => {
        const outcome = withReadOnlyPrototype(() => ({
          decoded: decode(text, { strict }),
          fromLines: decodeFromLines(text.split('\n'), { strict }),
        }));
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.deepEqual(outcome.value?.decoded, expected);
        assert.deepEqual(outcome.value?.fromLines, expected);
      });
    }
  }

  it('still refuses a duplicate inherited name in strict mode, and keeps the last otherwise', () => {
    const text = 'toString: 1\ntoString: 2';
    const strict = withReadOnlyPrototype(() => decode(text));
    const lax = withReadOnlyPrototype(() => decode(text, { strict: false }));
    assert.equal((strict.error as Error | undefined)?.name, 'ToonDecodeError');
    assert.deepEqual(lax.value, { toString: 2 });
  });
});

describe('encode with a read-only Object.prototype', () => {
  const cases: readonly [string, () => unknown, string][] = [
    ['a Map', () => new Map([['toString', 1]]), 'toString: 1'],
    [
      'a Date beside the key',
      () => ({ toString: new Date(0) }),
      'toString: "1970-01-01T00:00:00.000Z"',
    ],
    ['a replacer', () => ({ valueOf: 1 }), 'valueOf: 1'],
  ];
  for (const [what, value, expected] of cases) {
    it(`writes an inherited name from ${what}`, () => {
      const input = value();
      const outcome = withReadOnlyPrototype(() =>
        encode(input, what === 'a replacer' ? { replacer: (_key, v) => v } : undefined),
      );
      assert.equal(outcome.error, undefined, String(outcome.error));
      assert.equal(outcome.value, expected);
    });
  }
});

describe('decode with a setter on Object.prototype', () => {
  it('makes own data and never hands the value to the setter', () => {
    const seen: unknown[] = [];
    const original = Object.getOwnPropertyDescriptor(Object.prototype, 'toLocaleString')!;
    Object.defineProperty(Object.prototype, 'toLocaleString', {
      configurable: true,
      get: () => undefined,
      set: (value: unknown) => seen.push(value),
    });
    let field: unknown;
    let row: unknown;
    try {
      field = decode('toLocaleString: secret');
      row = decode(lines('t[1]{toLocaleString}:', '  secret'));
    } finally {
      Object.defineProperty(Object.prototype, 'toLocaleString', original);
    }
    assert.deepEqual(seen, []);
    assert.deepEqual(field, { toLocaleString: 'secret' });
    assert.deepEqual(row, { t: [{ toLocaleString: 'secret' }] });
  });
});
