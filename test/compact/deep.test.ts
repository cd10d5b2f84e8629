// Never an error for a value JSON.stringify accepts, at any depth: deep values fall back to JSON,
// and nothing the picker ships fails to decode with default options.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringifyDeep } from '../../src/compact/deep-json.js';
import {
  flatten,
  measureCandidates,
  parseCompact,
  pick,
  stringifyCompact,
} from '../../src/compact/index.js';
import { jsonValue } from '../support/json.js';

function nested(depth: number, wrap: (inner: unknown, level: number) => unknown): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = wrap(value, level);
  return value;
}

const shapes: Array<[string, (inner: unknown, level: number) => unknown]> = [
  ['objects', (inner) => ({ a: inner })],
  ['arrays', (inner) => [inner]],
  ['rows', (inner, level) => ({ id: level, next: [inner, inner === 'leaf' ? 1 : null] })],
];

describe('deep values', () => {
  for (const depth of [999, 1001, 3000, 10_000]) {
    for (const [name, wrap] of shapes) {
      it(`${depth} levels of ${name}: pick ships text its own parseCompact reads`, () => {
        const value = nested(depth, wrap);
        for (const options of [
          undefined,
          { by: 'bytes' as const },
          { candidates: ['toon', 'toon-flatten', 'toon-tab'] as const },
        ]) {
          const result = pick(value, options);
          const decoded = parseCompact(result.text, result.strategy);
          assert.equal(stringifyDeep(decoded), stringifyDeep(value));
          if (depth > 1000) assert.equal(result.strategy, 'json');
        }
        assert.equal(stringifyCompact(value), pick(value).text);
        const measured = measureCandidates(value);
        assert.equal(measured[0]!.name, 'json');
        assert.equal(measured[0]!.size, pick(value, { by: 'bytes' }).sizes.json);
        if (depth > 1000) {
          for (const other of measured.slice(1))
            assert.match(String(other.error), /deeper than TOON/);
        }
      });
    }
  }

  it('one field 1,001 levels deep among shallow rows falls back to JSON', () => {
    const rows = Array.from({ length: 20 }, (_, id) => ({ id, name: `row ${id}` }));
    const value = { rows, deep: nested(1001, (inner) => ({ a: inner })) };
    const result = pick(value);
    assert.equal(result.strategy, 'json');
    assert.doesNotThrow(() => parseCompact(result.text, result.strategy));
    // With a projection that drops the deep field, TOON is back in play.
    const projected = pick(
      { items: [...rows, { id: 99, name: 'deep', deep: value.deep }] },
      { fields: 'id,name' },
    );
    assert.notEqual(projected.strategy, 'json');
  });

  it('flatten of a deep value throws a RangeError with a message, not a stack overflow', () => {
    assert.throws(() => flatten(nested(10_000, (inner) => ({ a: inner }))), /deeper than/);
  });

  it('a circular structure is still a TypeError, like JSON.stringify', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    assert.throws(() => pick(cycle), TypeError);
    let deep: Record<string, unknown> = cycle;
    for (let i = 0; i < 2000; i++) deep = { a: deep };
    assert.throws(() => pick(deep), TypeError);
  });
});

describe('stringifyDeep', () => {
  it('writes what JSON.stringify writes for JSON values', () => {
    fc.assert(
      fc.property(jsonValue(true), (value) => {
        assert.equal(stringifyDeep(value), JSON.stringify(value));
      }),
    );
  });

  it("follows normalize's rules for host values", () => {
    const value = {
      at: new Date(0),
      skip: undefined,
      f: () => 1,
      list: [undefined, Number.NaN, new Number(2), new String('s'), new Boolean(false)],
      big: 2n ** 64n,
      small: 5n,
      map: new Map<unknown, unknown>([[1, 'one']]),
      set: new Set(['a']),
    };
    assert.equal(
      stringifyDeep(value),
      '{"at":"1970-01-01T00:00:00.000Z","list":[null,null,2,"s",false],"big":"18446744073709551616","small":5,"map":{"1":"one"},"set":["a"]}',
    );
    assert.equal(stringifyDeep(undefined), 'null');
  });
});
