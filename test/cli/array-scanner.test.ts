// The scanner that splits a streamed JSON array into its elements: the same values as
// JSON.parse of the whole text, however the text is cut into chunks, and errors at the right
// line and column.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ArrayScanner } from '../../src/cli/stream/array-scanner.js';
import { jsonValue } from '../support/json.js';
import { scannerFailure as failure } from './array-errors.js';

/** Every element of `text` read in chunks cut at `cuts`, parsed. */
function scan(text: string, cuts: readonly number[] = []): unknown[] {
  const scanner = new ArrayScanner();
  const out: unknown[] = [];
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    for (const element of scanner.push(text.slice(at, cut))) out.push(JSON.parse(element.text));
    at = cut;
  }
  for (const element of scanner.push(text.slice(at))) out.push(JSON.parse(element.text));
  for (const element of scanner.end()) out.push(JSON.parse(element.text));
  return out;
}

describe('the streamed array scanner', () => {
  it('finds the elements JSON.parse finds, however the text is cut', () => {
    fc.assert(
      fc.property(
        fc.array(jsonValue(true), { maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (items, pretty, cuts) => {
          const text = pretty ? JSON.stringify(items, null, 2) : JSON.stringify(items);
          const elements = scan(
            text,
            cuts.map((cut) => cut % (text.length + 1)),
          );
          assert.deepEqual(elements, JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads escaped quotes and backslashes split across chunks', () => {
    const text = '["a\\\\", "b\\"c", {"k\\\\\\"":"\\\\"}, "\\\\\\\\"]';
    const expected = JSON.parse(text);
    for (let cut = 0; cut <= text.length; cut++) {
      assert.deepEqual(scan(text, [cut]), expected, `cut at ${cut}`);
      assert.deepEqual(scan(text, [cut, cut + 1, cut + 2]), expected, `cuts from ${cut}`);
    }
  });

  it('reads bare scalars, empty arrays and surrounding whitespace', () => {
    assert.deepEqual(scan(' [ 1 , -2.5e3,true,null , "x" ] \n'), [1, -2500, true, null, 'x']);
    assert.deepEqual(scan('[]'), []);
    assert.deepEqual(scan('[\n]\n'), []);
    assert.deepEqual(scan('[1,2]', [1, 2, 3, 4]), [1, 2]);
  });

  it('reports errors between elements at their line and column', () => {
    assert.equal(failure('[1,]'), "1:4: unexpected ']'; expected a value");
    assert.equal(failure('[1 2]'), "1:4: unexpected '2'; expected ',' or ']'");
    assert.equal(failure('[\n  {"a":1}\n  {"b":2}\n]'), "3:3: unexpected '{'; expected ',' or ']'");
    assert.equal(failure('{"a":1}'), "1:1: unexpected '{'; expected '['");
    assert.equal(failure('[1] 2'), "1:5: unexpected '2' after the end of the array");
    assert.equal(failure('[1,\n2'), '2:2: unexpected end of input; the array is incomplete');
    assert.equal(failure(''), '1:1: the input is empty; expected a JSON array');
  });

  it('reports errors inside an element at their line and column in the file', () => {
    assert.equal(failure('[1,\n {"a":}]'), "2:7: unexpected '}'; expected a value");
    assert.equal(failure('[{"a":\n  tru}]'), "2:3: unexpected 't'; expected a value");
  });
});
