// The precision guard: JSON numbers a double cannot carry, whose texts the proxy never rewrites.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { losesPrecision } from '../../src/mcp/proxy/result/json-numbers.js';

describe('losesPrecision', () => {
  it('is false for numbers a double carries exactly', () => {
    assert.equal(
      losesPrecision(
        '[0, -0, 1, -12.5, 0.1, 1e300, 2.5E-7, 9007199254740991, 123456789012345.6, 1.0]',
      ),
      false,
    );
  });

  it('is true for integers beyond 2^53, too many digits, and out-of-range exponents', () => {
    for (const text of [
      '[9007199254740993]',
      '{"id":12345678901234567891}',
      '[0.12345678901234567891]',
      '[1e400]',
      '[1e-400]',
    ]) {
      assert.equal(losesPrecision(text), true, text);
    }
  });

  it('gives the same answer with or without its quick pre-check', () => {
    // A string holding "0e0" always passes the pre-check, so the second text is always scanned.
    const digits = (min: number, max: number) =>
      fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.oneof(
          fc.constant('0'),
          fc.tuple(fc.constantFrom(...'123456789'), digits(0, 24)).map(([a, b]) => a + b),
        ),
        fc.option(digits(1, 24)),
        fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))),
      )
      .map(
        ([negative, whole, fraction, exponent]) =>
          `${negative ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : exponent.join('')}`,
      );
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 4 }), (literals) => {
        const text = `[${literals.join(',')}]`;
        assert.equal(losesPrecision(text), losesPrecision(`[${literals.join(',')},"0e0"]`), text);
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores digits inside strings, escaped quotes included', () => {
    assert.equal(
      losesPrecision('{"id":"12345678901234567891","q":"say \\"9007199254740993\\""}'),
      false,
    );
  });
});
