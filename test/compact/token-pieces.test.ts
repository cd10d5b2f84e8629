// Counting tokens in time linear in the text: gpt-tokenizer's BPE takes time quadratic in a
// pre-token's length, so `loadTokenizer`'s counters count a long run of one character class in
// pieces. Exact for text without such a run; off by about a token per cut for the rest.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens as gptCount } from 'gpt-tokenizer/encoding/o200k_base';
import { countInPieces, LONGEST_COUNTED_RUN } from '../../src/compact/token-pieces.js';
import { loadTokenizer } from '../../src/index.js';

/** The lengths of the pieces `countInPieces` hands the counter for `text`. */
function pieces(text: string): number[] {
  const lengths: number[] = [];
  countInPieces((piece) => {
    lengths.push(piece.length);
    return 0;
  }, text);
  return lengths;
}

const exact = (text: string) => gptCount(text, { disallowedSpecial: new Set() });

describe('counting tokens of long runs in pieces', () => {
  it('counts a text without a run over the limit in one piece, exactly', async () => {
    const count = await loadTokenizer('o200k_base');
    const texts = [
      '',
      'hello world',
      '{"id":1,"name":"Ada Lovelace","tags":["a","b"]}',
      `${'word '.repeat(2000)}`,
      `${'x'.repeat(LONGEST_COUNTED_RUN)} ${'='.repeat(LONGEST_COUNTED_RUN)}`,
      'é'.repeat(LONGEST_COUNTED_RUN),
      '😀'.repeat(LONGEST_COUNTED_RUN / 2), // two code units each
    ];
    for (const text of texts) {
      assert.deepEqual(pieces(text), [text.length]);
      assert.equal(count(text), exact(text));
    }
  });

  it('cuts every run of one class at the limit: letters, digits, spaces, punctuation, letters with marks, characters outside the BMP', () => {
    for (const unit of ['x', 'AB', '7', ' ', '\n', '=', '-_', 'é', 'e\u0301', '😀', '中']) {
      const text = unit.repeat(Math.ceil((LONGEST_COUNTED_RUN * 5) / unit.length));
      const lengths = pieces(text);
      assert.ok(lengths.length >= 4, `${JSON.stringify(unit)}: ${lengths.length} pieces`);
      assert.equal(
        lengths.reduce((sum, length) => sum + length, 0),
        text.length,
      );
      for (const length of lengths) assert.ok(length <= LONGEST_COUNTED_RUN + 1, `${length}`);
    }
  });

  it('never cuts a surrogate pair', () => {
    const text = `a${'😀'.repeat(3000)}`;
    let offset = 0;
    countInPieces((piece) => {
      offset += piece.length;
      const code = text.charCodeAt(offset - 1);
      assert.ok(offset === text.length || code < 0xd800 || code > 0xdbff, `cut at ${offset}`);
      return 0;
    }, text);
    assert.equal(offset, text.length);
  });

  it('counts a long run within a token a cut of the exact count', async () => {
    const count = await loadTokenizer('o200k_base');
    // 20,000 characters: the exact count takes the BPE a few hundred ms here, not minutes.
    for (const unit of ['=', 'x', ' ', 'A', 'ab', '9']) {
      const text = `start ${unit.repeat(20_000 / unit.length)} end`;
      const cuts = pieces(text).length - 1;
      assert.ok(Math.abs(count(text) - exact(text)) <= cuts, `${JSON.stringify(unit)}`);
    }
  });
});
