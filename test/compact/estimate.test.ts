// estimateTokens' results are its calibration: the token guard's margin was measured against
// them (bench/tokens.bench.ts, token-safe.test.ts), so a faster scanner must give the same
// numbers. These values are what the first, charCodeAt-based scanner gave for each path the
// scanner has: ASCII chunks after each kind of prefix, digit runs, whitespace runs, punctuation
// with trailing newlines and slashes, letters, digits and spaces outside ASCII, surrogate pairs
// and lone surrogates, and a text long enough to be scanned in several windows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { encode as o200k, decode as o200kText } from 'gpt-tokenizer/encoding/o200k_base';
import { NPM_DATASETS } from '../../bench/datasets.js';
import { encode } from '../../src/codec/encode.js';
import { estimateBaselineWithin, STRUCTURE_TOKENS } from '../../src/compact/estimate.js';
import { estimateTokenRange, estimateTokens } from '../../src/compact/index.js';

const require = createRequire(import.meta.url);

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

describe('estimateBaselineWithin', () => {
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
      const { tokens, low } = estimateTokenRange(text);
      // The whole estimate before rounding is at most half a token over its rounded value.
      assert.deepEqual(
        estimateBaselineWithin(text, tokens + 0.5),
        { tokens, low },
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
        const found = estimateBaselineWithin(text, limit);
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

describe('structure at its dearest', () => {
  it('lists every o200k token of two to six structural characters, and nothing else', () => {
    const vocabulary: string[] = [];
    for (let id = 0; id < 200_000; id++) {
      let text: string;
      try {
        text = o200kText([id]);
      } catch {
        continue;
      }
      if (text.length >= 2 && text.length <= 6 && /^["{}[\]:,\n]+$/.test(text)) {
        vocabulary.push(text);
      }
    }
    assert.ok(vocabulary.length > 100, `${vocabulary.length} tokens`);
    assert.deepEqual(STRUCTURE_TOKENS.split(' ').sort(), vocabulary.sort());
  });

  it('prices a run the mean counts short at its o200k count', () => {
    // `]{"` is two tokens, three characters' mean 1.04; `"},{"` one, under its mean of 1.95.
    assert.deepEqual(estimateTokenRange(']{"'), { tokens: 1, low: 1, dearest: 2, split: 2 });
    assert.deepEqual(estimateTokenRange('"},{"'), { tokens: 2, low: 2, dearest: 2, split: 2 });
    // A TOON header and a row: `]{"`, and `"}` with `:\n`, are two tokens each, not one.
    assert.deepEqual(estimateTokenRange('[2]{"a b"}:\n  x'), {
      tokens: 8,
      low: 8,
      dearest: 10,
      split: 10,
    });
    assert.equal(o200k('[2]{"a b"}:\n  x').length, 10);
    // Outside ASCII, `low` is lower; nothing structural, `dearest` is `tokens`.
    assert.deepEqual(estimateTokenRange('日本'), { tokens: 2, low: 1, dearest: 2, split: 2 });
  });

  it('prices a word after a comma apart from it for `split`, as vocabularies other than o200k write it', () => {
    // o200k reads `,E` as one token; Claude's vocabulary as two, as it reads JSON's `","` and `E`.
    const codes = '[3]: E0020,E0021,E0022';
    assert.deepEqual(estimateTokenRange(codes), { tokens: 12, low: 12, dearest: 12, split: 14 });
    assert.equal(o200k(codes).length, 12);
    // A longer word costs about as much joined as apart: a table row moves by less than a token.
    const row = estimateTokenRange('  1,Ada,admin');
    assert.ok(row.split - row.tokens < 1, JSON.stringify(row));
  });

  it("never counts short o200k's count of the structural runs of real JSON and TOON texts", () => {
    let runs = 0;
    let short = 0;
    for (const file of NPM_DATASETS.slice(0, 6)) {
      const value = JSON.parse(fs.readFileSync(require.resolve(file), 'utf8')) as unknown;
      const items = Array.isArray(value)
        ? value.slice(0, 200)
        : Object.entries(value as object).slice(0, 200);
      for (const text of [JSON.stringify(items), encode(items)]) {
        for (const [run] of text.matchAll(/[^\s\p{L}\p{N}]+[\r\n/]*/gu)) {
          if (!/^["{}[\]:,]+\n*$/.test(run) || run.length > 8) continue;
          runs++;
          if (o200k(run).length > estimateTokenRange(run).dearest) short++;
        }
      }
    }
    assert.ok(runs > 10_000, `only ${runs} runs`);
    // The longest-token rule misses BPE's count on a few rare runs (`}]}]` is three, not two).
    assert.ok(short <= runs / 1000, `${short} of ${runs} runs counted short`);
  });
});
