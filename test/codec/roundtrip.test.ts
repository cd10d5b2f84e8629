import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode as referenceDecode, encode as referenceEncode } from '@toon-format/toon';
import fc from 'fast-check';
import { decode } from '../../src/codec/decode.js';
import { encode, encodeWithin } from '../../src/codec/encode.js';
import type { Delimiter, EncodeOptions, JsonValue } from '../../src/codec/types.js';
import { canonical, isWellFormedJson, jsonValue } from '../support/json.js';

const options: fc.Arbitrary<EncodeOptions> = fc.record({
  delimiter: fc.constantFrom<Delimiter>(',', '|', '\t'),
  indentSize: fc.constantFrom(2, 4),
});

describe('round trips (spec §2 equality)', () => {
  it('decode(encode(x)) equals x for any JSON value, delimiter and indent', () => {
    fc.assert(
      fc.property(jsonValue(), options, (value, opts) => {
        if (!isWellFormedJson(value)) {
          // UTF-8 text cannot carry an unpaired surrogate: refusing is the only lossless answer.
          assert.throws(() => encode(value, opts), {
            name: 'TypeError',
            message: /unpaired surrogate/,
          });
          return;
        }
        const text = encode(value, opts);
        assert.equal(
          canonical(decode(text, { indentSize: opts.indentSize })),
          canonical(value),
          text,
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('never writes trailing spaces, a trailing newline or a CR', () => {
    fc.assert(
      fc.property(jsonValue(), options, (value, opts) => {
        fc.pre(isWellFormedJson(value));
        const text = encode(value, opts);
        assert.doesNotMatch(text, / \n| $|\n$|\r/);
      }),
    );
  });

  it('encodeWithin returns exactly encode() within budget and undefined one character short', () => {
    fc.assert(
      fc.property(jsonValue(), options, (value, opts) => {
        fc.pre(isWellFormedJson(value));
        const text = encode(value, opts);
        assert.equal(encodeWithin(value, opts, text.length), text);
        if (text.length > 0) assert.equal(encodeWithin(value, opts, text.length - 1), undefined);
      }),
    );
  });
});

describe('interoperability with the reference implementation (@toon-format/toon)', () => {
  it('the reference decodes our output to the same value', () => {
    fc.assert(
      fc.property(jsonValue(), options, (value, opts) => {
        fc.pre(isWellFormedJson(value));
        const text = encode(value, opts);
        const decoded = referenceDecode(text, { indentSize: opts.indentSize }) as JsonValue;
        assert.equal(canonical(decoded), canonical(value), text);
      }),
      { numRuns: 500 },
    );
  });

  it('we decode the reference output to the same value', () => {
    fc.assert(
      fc.property(jsonValue(), options, (value, opts) => {
        fc.pre(isWellFormedJson(value));
        const text = referenceEncode(value, {
          delimiter: opts.delimiter,
          indentSize: opts.indentSize,
        });
        assert.equal(
          canonical(decode(text, { indentSize: opts.indentSize })),
          canonical(value),
          text,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('both encoders refuse unpaired surrogates and write the same canonical text otherwise', () => {
    assert.throws(() => encode({ a: 'x\ud800' }), TypeError);
    assert.throws(() => referenceEncode({ a: 'x\ud800' }), TypeError);
    fc.assert(
      fc.property(jsonValue(), options, (value, opts) => {
        fc.pre(isWellFormedJson(value));
        assert.equal(
          encode(value, opts),
          referenceEncode(value, { delimiter: opts.delimiter, indentSize: opts.indentSize }),
        );
      }),
      { numRuns: 500 },
    );
  });
});
