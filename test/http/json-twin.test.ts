// TOON request bodies read as their JSON twins (src/http/json-twin.ts): numbers beyond a double
// become ±Infinity as JSON.parse reads them, quoted strings stay strings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import { decodeToonBody } from '../../src/http/index.js';
import { decodeAsJsonTwin, jsonText, overflowsDouble } from '../../src/http/json-twin.js';
import { isWellFormedJson, jsonEqual, jsonValue } from '../support/json.js';

describe('decodeToonBody reads a body as JSON.parse reads its twin', () => {
  // Each TOON body next to the JSON text of the same tokens: decodeToonBody gives what
  // JSON.parse gives, numbers beyond a double included.
  const TWINS: ReadonlyArray<readonly [toon: string, json: string]> = [
    ['q: 1e400', '{"q":1e400}'],
    ['q: -1e400', '{"q":-1e400}'],
    ['q: 1E+400', '{"q":1E+400}'],
    [`q: 1${'0'.repeat(400)}`, `{"q":1${'0'.repeat(400)}}`],
    ['q: 1e-400', '{"q":1e-400}'],
    ['q: "1e400"', '{"q":"1e400"}'],
    ['q[3]: 1e400,"1e400",-2e999', '{"q":[1e400,"1e400",-2e999]}'],
    [
      'rows[2]{a,b}:\n  1e400,"1e400"\n  "-1e400",-1e400',
      '{"rows":[{"a":1e400,"b":"1e400"},{"a":"-1e400","b":-1e400}]}',
    ],
    ['[3]:\n  - 1e400\n  - "1e400"\n  - x: 1e400', '[1e400,"1e400",{"x":1e400}]'],
    ['"1e400": 1e400\n"x1e400": "1e400"', '{"1e400":1e400,"x1e400":"1e400"}'],
    ['a: 21e400\nb: 1e400\nc: "21e400 1e400"', '{"a":21e400,"b":1e400,"c":"21e400 1e400"}'],
    ['q: "02"', '{"q":"02"}'],
    ['q: "1e5"', '{"q":"1e5"}'],
    ['q: 1e5', '{"q":1e5}'],
    ['b: "true"', '{"b":"true"}'],
    ['b: true', '{"b":true}'],
    ['n: 12345678901234567890123', '{"n":12345678901234567890123}'],
    ['1e400', '1e400'],
    ['"1e400"', '"1e400"'],
  ];
  for (const [toon, json] of TWINS) {
    it(`reads ${JSON.stringify(toon.length > 40 ? `${toon.slice(0, 40)}...` : toon)} as JSON.parse reads its twin`, () => {
      assert.deepEqual(decodeToonBody(toon), JSON.parse(json));
      assert.deepEqual(decodeToonBody(Buffer.from(toon)), JSON.parse(json));
      assert.deepEqual(decodeAsJsonTwin(toon), JSON.parse(json));
      assert.deepEqual(decodeAsJsonTwin(Buffer.from(toon)), JSON.parse(json));
    });
  }

  it('decodes once: the decoder reports an unquoted number beyond a double at its token', () => {
    // Tokens in every position the decoder reads one: field, root, inline array, table cell,
    // keyed-table cell, list item; the quoted twins beside them stay strings.
    const toon =
      'a: 1e400\nb[2]: -1e400,"1e400"\nc[1]{x,y}:\n  1E+400,"-1e400"\nd[1:]{x}:\n  k: 2e999\ne[2]:\n  - 1e400\n  - "1e400"';
    assert.deepEqual(decodeAsJsonTwin(toon), {
      a: Infinity,
      b: [-Infinity, '1e400'],
      c: [{ x: Infinity, y: '-1e400' }],
      d: { k: { x: Infinity } },
      e: [Infinity, '1e400'],
    });
  });

  it('keeps strings where a token has no JSON twin: leading zeros, Infinity', () => {
    assert.deepEqual(decodeToonBody('q: 02\nr: Infinity\ns: 1.e400'), {
      q: '02',
      r: 'Infinity',
      s: '1.e400',
    });
  });

  it('writes JSON text that JSON.parse reads back to the same body, ±Infinity included', () => {
    for (const [toon, json] of TWINS) {
      assert.deepEqual(JSON.parse(jsonText(decodeToonBody(toon))), JSON.parse(json));
    }
    assert.equal(jsonText({ a: [1, null, 'null'] }), '{"a":[1,null,"null"]}');
    assert.equal(jsonText({ a: -Infinity, b: null }), '{"a":-1e999,"b":null}');
  });

  it('knows which texts are JSON numbers beyond a double', () => {
    assert.equal(overflowsDouble('1e400'), true);
    assert.equal(overflowsDouble('-1.5e309'), true);
    assert.equal(overflowsDouble('1.7976931348623157e308'), false);
    assert.equal(overflowsDouble('1e-400'), false);
    assert.equal(overflowsDouble('-Infinity'), false);
    assert.equal(overflowsDouble('01e400'), false);
    assert.equal(overflowsDouble('1.e400'), false);
    assert.equal(overflowsDouble(''), false);
  });
});

// A finite number whose canonical TOON text stands in for an unquoted 1e400 in the properties.
const STAND_IN = 4.25e299;
const STAND_IN_TEXT = encode(STAND_IN);

// A copy of `value` with each number replaced by `replace(number, index)`, in walk order.
function mapNumbers(
  value: JsonValue,
  replace: (number: number, index: number) => number,
): JsonValue {
  let index = 0;
  const walk = (node: JsonValue): JsonValue => {
    if (typeof node === 'number') return replace(node, index++);
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const copy: Record<string, JsonValue> = {};
    for (const key of Object.keys(node)) {
      const item = walk(node[key]!);
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return walk(value);
}

describe('decodeToonBody on generated bodies', () => {
  it('gives back every value the encoder wrote, strings that look like 1e400 included (they are quoted)', () => {
    const overflowing = fc.constantFrom(
      '1e400',
      '-1e400',
      '1E+999',
      '21e400',
      `9${'9'.repeat(310)}`,
    );
    fc.assert(
      fc.property(
        jsonValue(),
        fc.array(overflowing, { minLength: 1, maxLength: 4 }),
        (value, strings) => {
          const body: JsonValue = { strings, value, [strings[0]!]: strings };
          fc.pre(isWellFormedJson(body));
          assert.ok(jsonEqual(decodeToonBody(encode(body)), body));
          assert.ok(jsonEqual(decodeAsJsonTwin(encode(body)), body));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads unquoted numbers beyond a double as ±Infinity wherever they stand (tables, lists, keyed tables)', () => {
    fc.assert(
      fc.property(
        jsonValue(),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('1e400', '-1e400', '1E+999'),
        (value, chosen, token) => {
          fc.pre(isWellFormedJson(value));
          let count = 0;
          const marked = mapNumbers(value, (number, i) => {
            if (!chosen[i % chosen.length]) return number;
            count++;
            return STAND_IN;
          });
          fc.pre(count > 0);
          const text = encode(marked);
          // The stand-in's text only where its numbers are, never inside a string.
          fc.pre(text.split(STAND_IN_TEXT).length - 1 === count);
          const expected = mapNumbers(marked, (number) =>
            number === STAND_IN ? Number(token) : number,
          );
          const body = text.replaceAll(STAND_IN_TEXT, token);
          assert.ok(jsonEqual(decodeToonBody(body), expected), `${JSON.stringify(text)}`);
          assert.ok(jsonEqual(decodeAsJsonTwin(body), expected), `${JSON.stringify(text)}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
