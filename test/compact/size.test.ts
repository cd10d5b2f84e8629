import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { byteLength, loadTokenizer } from '../../src/compact/index.js';

const utf8 = new TextEncoder();

describe('byteLength', () => {
  it('counts UTF-8 bytes of ASCII, 2-, 3- and 4-byte characters', () => {
    assert.equal(byteLength(''), 0);
    assert.equal(byteLength('abc'), 3);
    assert.equal(byteLength('é'), 2);
    assert.equal(byteLength('€'), 3);
    assert.equal(byteLength('😀'), 4);
  });

  it('counts a lone surrogate as U+FFFD (3 bytes), as TextEncoder does', () => {
    for (const text of [
      '\ud800',
      '\udc00',
      'a\ud800b',
      '\ud800\ud800',
      '\udc00\ud800',
      'x\ud83d',
    ]) {
      assert.equal(byteLength(text), utf8.encode(text).length, JSON.stringify(text));
    }
  });

  it('agrees with TextEncoder on arbitrary strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string()),
        (text) => {
          assert.equal(byteLength(text), utf8.encode(text).length);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('loadTokenizer', () => {
  it('loads o200k_base and cl100k_base token counters', async () => {
    const o200k = await loadTokenizer('o200k_base');
    const cl100k = await loadTokenizer('cl100k_base');
    assert.equal(o200k('hello world'), 2);
    assert.equal(cl100k('hello world'), 2);
    assert.equal(await loadTokenizer(), o200k);
  });

  it('counts special-token text as ordinary text instead of throwing', async () => {
    const count = await loadTokenizer();
    assert.ok(count('<|endoftext|>') > 1);
  });

  it('rejects an unknown tokenizer name with a TypeError', () => {
    assert.throws(() => loadTokenizer('gpt2' as 'o200k_base'), {
      name: 'TypeError',
      message: /o200k_base/,
    });
  });
});

describe('byteLength on long text', () => {
  it('agrees with TextEncoder across chunk boundaries, surrogate pairs included', () => {
    const pieces = ['a', 'é', '€', '😀', '\ud800', '\udc00'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { minLength: 100, maxLength: 200 }),
        fc.nat(70_000),
        (parts, pad) => {
          const text = 'x'.repeat(pad) + parts.join('').repeat(300);
          assert.equal(byteLength(text), utf8.encode(text).length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
