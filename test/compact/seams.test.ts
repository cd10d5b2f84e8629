import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  byteLength,
  checkPickOptions,
  loadTokenizer,
  measureText,
  passesTokenGuard,
  pick,
} from '../../src/compact/index.js';

describe('measureText', () => {
  it('sizes a text in the measure pick uses: bytes by default', () => {
    assert.equal(measureText('é😀'), byteLength('é😀'));
    assert.equal(measureText('abc', { by: 'bytes' }), 3);
    assert.equal(measureText('abcd', { by: (text) => text.length * 2 }), 8);
  });

  it('counts tokens with a loaded tokenizer, the same count pick reports', async () => {
    const count = await loadTokenizer('o200k_base');
    assert.equal(measureText('hello world', { by: 'tokens' }), count('hello world'));
    const picked = pick([{ a: 1 }, { a: 2 }], { by: 'tokens' });
    assert.equal(measureText(picked.text, { by: 'tokens' }), picked.size);
  });

  it('refuses a measure that returns no finite size', () => {
    assert.throws(() => measureText('x', { by: () => Number.NaN }), /finite number/);
    assert.throws(() => measureText('x', { by: 'words' as never }), /^TypeError: measureText:/);
  });
});

describe('checkPickOptions', () => {
  it('accepts what pick accepts', () => {
    checkPickOptions(undefined);
    checkPickOptions({});
    checkPickOptions({ by: 'bytes', candidates: ['toon', 'toon-tab'], fields: 'a,b.c' });
    checkPickOptions({ fields: ['a'], envelope: 'rows', onPick: () => {}, onError: () => {} });
  });

  it('names the caller and the bad option', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /^proxy: options must be an object/],
      [{ by: 'words' }, /^proxy: by must be/],
      [{ tokenizer: 'p50k' }, /^proxy: unknown tokenizer/],
      [{ candidates: ['yaml'] }, /^proxy: unknown candidate "yaml"/],
      [{ fields: 'a,,b' }, /^proxy: "" is not a field name/],
      [{ fields: 'a', envelope: 3 }, /^proxy: envelope must be/],
      [{ onPick: 'log' }, /^proxy: onPick must be a function/],
    ];
    for (const [options, message] of cases) {
      assert.throws(
        () => checkPickOptions(options, 'proxy'),
        (error: unknown) => error instanceof TypeError && message.test(error.message),
        String(message),
      );
    }
  });
});

describe('passesTokenGuard', () => {
  it('ships without estimating at half the bytes saved, and otherwise needs the token margin', () => {
    let asked = 0;
    const estimates = (pair: readonly [number, number]) => () => {
      asked++;
      return pair;
    };
    assert.equal(passesTokenGuard(500, 1000, estimates([0, 0])), true);
    assert.equal(asked, 0);
    assert.equal(passesTokenGuard(900, 1000, estimates([95, 100])), false);
    assert.equal(passesTokenGuard(900, 1000, estimates([86, 100])), true);
    assert.equal(passesTokenGuard(900, 1000, estimates([87, 100])), false);
    assert.equal(asked, 3);
  });
});
