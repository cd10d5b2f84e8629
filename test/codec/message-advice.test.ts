// Every decode error says what is wrong and what to do about it (messages.ts: "the problem; the
// fix"). These four said only what was wrong: a line in a list that is no item, a short \u
// escape, an array header without its colon, and a document beyond the engine's limits.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reasons } from '../../src/codec/decode/messages.js';
import { decode } from '../../src/codec/decode.js';
import { ToonDecodeError } from '../../src/codec/errors.js';

/** The error `decode` throws for `text`. */
function errorOf(text: string): ToonDecodeError {
  try {
    decode(text);
  } catch (error) {
    assert.ok(error instanceof ToonDecodeError, String(error));
    return error;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be refused`);
}

describe('decode errors give advice', () => {
  const cases: readonly [string, string, RegExp][] = [
    ['a line in a list that is no item', '[2]:\n  - 1\n  x: 2', /; begin each item with "- "/],
    ['a short \\u escape', 'a: "\\u12"', /; write a backslash itself as \\\\/],
    ['a \\u escape with a non-hex digit', 'a: "\\u12G4"', /as in \\u00e9/],
  ];
  for (const [what, text, advice] of cases) {
    it(what, () => {
      const error = errorOf(text);
      assert.match(error.reason, advice);
    });
  }

  it('for a header without its colon and a document too large, too', () => {
    // Checked on the reasons themselves: a line that lacks only the header's colon reads as a
    // scalar (no input tried here reached this reason), and the engine's size limits need
    // gigabytes of input.
    assert.match(reasons.missingHeaderColon(), /; end it with ":"/);
    assert.match(reasons.tooLarge('Invalid string length'), /; split it/);
  });
});
