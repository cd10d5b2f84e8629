// Which JSON numbers a double cannot carry: one rule (compact/json-numbers.ts) for the CLI, which
// refuses to write such input, and the MCP proxy, which forwards such a result verbatim. The rule
// is the round trip: a number is lossy when JSON.stringify(JSON.parse(n)) is another value than n;
// a number whose spelling alone changes (1E+2 → 100, -0 → 0) is not.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CliError } from '../../src/cli/errors.js';
import { refuseLossyNumbers } from '../../src/cli/lossy-numbers.js';
import { ArrayBatches } from '../../src/cli/stream/array-batches.js';
import { firstLossyNumber } from '../../src/compact/json-numbers.js';
import { read } from '../../src/mcp/proxy/result/read.js';

/** [number as written, what JSON.stringify(JSON.parse(it)) writes when that is another value]. */
const SPEC: ReadonlyArray<readonly [string, string | undefined]> = [
  // Integers beyond 2^53 that lose digits: an ID that would point at another record.
  ['12345678901234567891', '12345678901234567000'],
  ['-12345678901234567891', '-12345678901234567000'],
  ['12345678901234567890', '12345678901234567000'],
  ['9007199254740993', '9007199254740992'],
  ['123456789012345678901234567890', '1.2345678901234568e+29'],
  // Fractions with more digits than a double holds: rounded, so rewritten.
  ['0.10000000000000001', '0.1'],
  ['3.141592653589793238', '3.141592653589793'],
  ['9007199254740993.5', '9007199254740994'],
  ['0.12345678901234567891', '0.12345678901234568'],
  // Out of a double's range, or into its subnormals, where digits are lost.
  ['1e400', 'null'],
  ['-1.8e308', 'null'],
  ['1.7976931348623159e308', 'null'],
  ['1e-400', '0'],
  ['2.5e-324', '5e-324'],
  ['1.2345e-320', '1.2347e-320'],
  // Exact: only the spelling changes, or nothing.
  ['-0', undefined],
  ['-0.0', undefined],
  ['0e400', undefined],
  ['1E+2', undefined],
  ['1.50', undefined],
  ['1e-7', undefined],
  ['1e23', undefined],
  ['100000000000000000000000', undefined],
  ['9007199254740992', undefined],
  ['12345678901234567000', undefined],
  ['0.30000000000000004', undefined],
  ['123456789012345.6', undefined],
  ['1.7976931348623157e308', undefined],
  ['5e-324', undefined],
];

/** JSON text holding `literal` as a number after strings that look like lossy numbers. */
const inText = (literal: string) =>
  `{"id":"12345678901234567891","q":"say \\"1e400\\" \\\\","hash":"9e3f","n":${literal}}`;

/** The proxy's verdict on a one-text result: `unsafe-numbers` when it forwards it verbatim. */
const proxyVerdict = (text: string) =>
  read({ content: [{ type: 'text', text }] }, undefined, undefined).verbatim;

/** The CLI's verdict on a whole input read in memory: the refusal's message, or undefined. */
function cliVerdict(text: string): string | undefined {
  try {
    refuseLossyNumbers(text, 'in.json');
    return undefined;
  } catch (error) {
    assert.ok(error instanceof CliError, String(error));
    return error.message;
  }
}

/** The CLI's verdict on a streamed array (elements parsed in batches): line and column, or undefined. */
function streamedVerdict(text: string): { line: number; column: number } | undefined {
  const batches = new ArrayBatches(true);
  try {
    for (let at = 0; at < text.length; at += 7) batches.push(text.slice(at, at + 7));
    batches.end();
    return undefined;
  } catch (error) {
    const { line, column } = error as { line: number; column: number };
    return { line, column };
  }
}

describe('firstLossyNumber: one rule for the CLI and the proxy', () => {
  it('catches each number whose value changes and none whose spelling alone changes', () => {
    for (const [literal, written] of SPEC) {
      const text = inText(literal);
      const found = firstLossyNumber(text);
      if (written === undefined) {
        assert.equal(found, undefined, literal);
        continue;
      }
      assert.deepEqual(found, { offset: text.indexOf(`:${literal}}`) + 1, literal, written });
      // The written text is JSON.stringify's, so the rule is the round trip itself.
      assert.equal(JSON.stringify(JSON.parse(literal)), written);
    }
  });

  it('the proxy forwards verbatim exactly the texts with a lossy number', () => {
    for (const [literal, written] of SPEC) {
      const expected = written === undefined ? undefined : 'unsafe-numbers';
      assert.equal(proxyVerdict(inText(literal)), expected, literal);
    }
  });

  it('the CLI refuses exactly the inputs with a lossy number, in memory and streamed', () => {
    for (const [literal, written] of SPEC) {
      const text = `[\n  "1e400",\n  ${literal}\n]`;
      const message = cliVerdict(text);
      const streamed = streamedVerdict(text);
      if (written === undefined) {
        assert.equal(message, undefined, literal);
        assert.equal(streamed, undefined, literal);
        continue;
      }
      assert.equal(
        message,
        `in.json:3:3: the number ${literal} cannot be read exactly (JSON numbers are read as doubles) and would be written as ${written}; nothing was written. Quote such numbers in the source to keep them as strings, or pass --allow-lossy-numbers to write them as doubles`,
      );
      assert.deepEqual(streamed, { line: 3, column: 3 }, literal);
    }
  });

  it('skips digits in strings, whatever the escapes before their closing quote', () => {
    for (const text of [
      '["1e400", "12345678901234567891", "x\\"1e400", "9e3f", "\\\\", 1]',
      '{"a\\\\\\"1e400":"\\\\\\\\","b":"1e400\\\\"}',
      '["0.10000000000000001"]',
    ]) {
      assert.equal(firstLossyNumber(text), undefined, text);
      assert.equal(proxyVerdict(text), undefined, text);
    }
    assert.equal(firstLossyNumber('["\\\\",1e400]')?.offset, 6);
  });

  it('finds the first lossy number of JSON Lines, and a bare one', () => {
    assert.equal(firstLossyNumber('{"a":1}\n{"a":1e400}\n{"a":1e401}')?.offset, 13);
    assert.equal(firstLossyNumber('12345678901234567891')?.offset, 0);
    assert.equal(firstLossyNumber(' 1.0 '), undefined);
  });

  it('agrees with the round trip, and the two callers with it, on generated numbers', () => {
    const digits = (min: number, max: number) =>
      fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const literal = fc.oneof(
      fc
        .tuple(
          fc.boolean(),
          fc.oneof(
            fc.constant('0'),
            fc.tuple(fc.constantFrom(...'123456789'), digits(0, 24)).map(([a, b]) => a + b),
          ),
          fc.option(digits(1, 24)),
          fc.option(
            fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)),
          ),
        )
        .map(
          ([negative, whole, fraction, exponent]) =>
            `${negative ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : exponent.join('')}`,
        ),
      // Doubles as JavaScript writes them: always exact.
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    );
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 4 }), (literals) => {
        const text = `[${literals.join(',')}]`;
        const expected = literals.find((one) => changesValue(one));
        const found = firstLossyNumber(text);
        assert.equal(found?.literal, expected, text);
        if (expected !== undefined) {
          assert.equal(found?.written, JSON.stringify(JSON.parse(expected)));
          assert.equal(text.startsWith(expected, found!.offset), true);
        }
        assert.equal(proxyVerdict(text), expected === undefined ? undefined : 'unsafe-numbers');
        assert.equal(cliVerdict(text) === undefined, expected === undefined, text);
      }),
      { numRuns: 5000 },
    );
  });

  it('takes linear time on hostile texts: 16 times the text, not 256 times the work', () => {
    // A quadratic scan (a trailing-zeros regex on a long fraction: 100 KB took 3.6 s) shows as a
    // 256-fold time for a 16-fold text; a linear one as about 16-fold. The least of 5 runs keeps
    // other work on the machine out of the ratio.
    const hostile: Record<string, (size: number) => string> = {
      'a long fraction of zeros': (size) => `[1.${'0'.repeat(size)}1]`,
      'a long integer of zeros': (size) => `[1${'0'.repeat(size)}1]`,
      'many exponents': (size) => `[${'1e5,'.repeat(size / 4)}1]`,
      'escaped quotes': (size) => `["${'\\"'.repeat(size / 2)}"]`,
      'an unterminated string of escapes': (size) => `[1,${'"\\'.repeat(size / 2)}`,
      'digits in strings': (size) => `[${'"12345678901234567891",'.repeat(size / 23)}1]`,
    };
    for (const [name, make] of Object.entries(hostile)) {
      const fastest = (text: string) => {
        let best = Number.POSITIVE_INFINITY;
        for (let run = 0; run < 5; run++) {
          const start = performance.now();
          firstLossyNumber(text);
          best = Math.min(best, performance.now() - start);
        }
        return best;
      };
      const small = make(40_000);
      const large = make(640_000);
      fastest(small); // warm up
      const ratio = fastest(large) / Math.max(fastest(small), 0.01);
      // 100, not 16 x 4: a loaded machine stretches one side; quadratic work is still 256.
      assert.ok(ratio < 100, `${name}: 16 times the text took ${ratio.toFixed(1)} times as long`);
    }
  });

  it('reads a 50 MB number and a 50 MB string of digits', () => {
    const digits = '9'.repeat(50_000_000);
    assert.equal(firstLossyNumber(digits)?.written, 'null');
    assert.equal(firstLossyNumber(`"${digits}"`), undefined);
  });
});

/** The reference: does JSON.stringify(JSON.parse(literal)) write another decimal value? */
function changesValue(literal: string): boolean {
  const written = JSON.stringify(JSON.parse(literal));
  return written === 'null' || decimalValue(literal) !== decimalValue(written);
}

/** A decimal's value as `digits e exponent`, zeros trimmed: equal values, equal keys. */
function decimalValue(literal: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] =
    /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)!;
  let digits = `${whole}${fraction}`;
  let power = Number(exponent) - fraction.length;
  let first = 0;
  while (digits[first] === '0') first++;
  digits = digits.slice(first);
  if (digits === '') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    power++;
  }
  return `${sign}${digits}e${power}`;
}
