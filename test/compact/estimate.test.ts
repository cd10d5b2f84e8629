// estimateTokens' results are its calibration: the token guard's margin was measured against
// them (bench/tokens.bench.ts, token-safe.test.ts), so a faster scanner must give the same
// numbers. These values are what the first, charCodeAt-based scanner gave for each path the
// scanner has: ASCII chunks after each kind of prefix, digit runs, whitespace runs, punctuation
// with trailing newlines and slashes, letters, digits and spaces outside ASCII, surrogate pairs
// and lone surrogates, and a text long enough to be scanned in several windows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateTokenRangeWithin } from '../../src/compact/estimate.js';
import { estimateTokenRange, estimateTokens } from '../../src/compact/index.js';

const cases: ReadonlyArray<readonly [string, number]> = [
  ['', 0],
  ['hello world', 2],
  ['12345', 2],
  ['"name":"value","id":42', 8],
  ['a,b,c\n  d: e', 8],
  ['x/\n/y', 3],
  ['/\n/', 1],
  ['--\r\n//x', 2],
  ['  \n\n    indented', 3],
  ['tab\there', 2],
  ['camelCaseWordsHere', 5],
  ['UPPER lower MiXeD', 5],
  ['https://example.com/a/b?c=d&e=f', 11],
  ['[3]{id,name}:\n  1,Ada\n  2,Bob', 18],
  ['Ünïcödé naïve café', 8],
  ['日本語のテキスト', 7],
  ['digits ٠١٢٣ and ²', 8],
  ['nbsp\u00a0here\u3000wide', 3],
  ['😀👩‍💻 emoji', 10],
  ['lone \ud800 high and \udc00 low', 7],
];

describe('estimateTokens', () => {
  it('gives the calibrated estimate on every kind of chunk', () => {
    for (const [text, expected] of cases) {
      assert.equal(estimateTokens(text), expected, JSON.stringify(text));
    }
  });

  it('gives a long text, scanned in windows, the estimate of the whole text', () => {
    // 318,000 code units, outside ASCII on every row: several windows, each compacted.
    const text = '{"name":"Ünïcode 😀 word","tags":["a","b"],"n":12345}'.repeat(6000);
    assert.equal(estimateTokens(text), 130741);
  });

  it('splits no surrogate pair between windows', () => {
    // An odd offset puts a window's end between the two halves of a pair.
    assert.equal(estimateTokens(`a${'😀'.repeat(40000)}`), 96001);
  });
});

describe('estimateTokenRangeWithin', () => {
  // Under a limit, a long text is converted and scanned a piece at a time (1 Ki code units, then
  // 2, 4, ...), each ending where a chunk does: these cross pieces at ordinary places, and inside
  // letters, digits or CJK text with no place to end one (the piece then runs to the window's end).
  const texts = [
    ...cases.map(([text]) => text),
    '{"name":"Ünïcode 😀 word","tags":["a","b"],"n":12345}'.repeat(3000),
    '日本語のテキスト'.repeat(1000),
    `${'a'.repeat(1500)} ${'1'.repeat(1500)},"${'x'.repeat(700)}"`.repeat(30),
  ];

  it('gives the whole estimate when it stays within the limit', () => {
    for (const text of texts) {
      const whole = estimateTokenRange(text);
      // The whole estimate before rounding is at most half a token over its rounded value.
      assert.deepEqual(
        estimateTokenRangeWithin(text, whole.tokens + 0.5),
        whole,
        JSON.stringify(text),
      );
    }
  });

  it('stops past the limit with a floor of the whole estimate, above the limit', () => {
    // The picker rules TOON out on that floor: it must never exceed the whole estimate.
    let stopped = 0;
    for (const text of texts) {
      const whole = estimateTokenRange(text).tokens;
      for (const limit of [0, whole / 4, whole / 2, whole - 1.5]) {
        const found = estimateTokenRangeWithin(text, limit);
        if (typeof found !== 'number') continue;
        stopped++;
        assert.ok(
          found <= whole && found >= limit,
          `${JSON.stringify(text.slice(0, 40))} ${limit}`,
        );
      }
    }
    assert.ok(stopped > texts.length, `stopped ${stopped} times`);
  });
});
