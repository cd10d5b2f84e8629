// The one edit distance and "closest names" helper (issue 28, "written twice"): what the CLI's
// `--fields` suggestions and the proxy's unknown-tool answers used to compute each on their own.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closest, editDistance } from '../../src/compact/closest.js';

/** The distances by their definition, recursively (small strings only). */
function defined(a: string, b: string, swaps: boolean): number {
  if (a === '') return b.length;
  if (b === '') return a.length;
  let best = Math.min(
    defined(a.slice(1), b, swaps) + 1,
    defined(a, b.slice(1), swaps) + 1,
    defined(a.slice(1), b.slice(1), swaps) + (a[0] === b[0] ? 0 : 1),
  );
  if (swaps && a.length > 1 && b.length > 1 && a[0] === b[1] && a[1] === b[0])
    best = Math.min(best, defined(a.slice(2), b.slice(2), swaps) + 1);
  return best;
}

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    assert.equal(editDistance('read_fil', 'read_file'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('abc', ''), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });

  it('counts a swap of two neighbours as one edit only when asked', () => {
    assert.equal(editDistance('nmae', 'name'), 2);
    assert.equal(editDistance('nmae', 'name', { swaps: true }), 1);
    assert.equal(editDistance('tilte', 'title', { swaps: true }), 1);
    // Optimal string alignment: a swapped pair is not edited again.
    assert.equal(editDistance('ca', 'abc', { swaps: true }), 3);
  });

  it('agrees with the definition on every pair of short strings over three letters', () => {
    const strings = [''];
    for (let length = 1; length <= 4; length++)
      for (const s of strings.filter((x) => x.length === length - 1))
        for (const letter of 'abc') strings.push(s + letter);
    for (const a of strings)
      for (const b of strings) {
        assert.equal(editDistance(a, b), defined(a, b, false), `${a} ${b}`);
        assert.equal(editDistance(a, b, { swaps: true }), defined(a, b, true), `${a} ${b} swaps`);
      }
  });
});

describe('closest', () => {
  it('orders candidates by distance, ties in their given order, and keeps those within reach', () => {
    const names = ['write_file', 'read_file', 'read_text_file', 'read_fil'];
    assert.deepEqual(closest('read_txt_file', names, { within: 4 }), [
      'read_text_file',
      'read_file',
    ]);
    assert.deepEqual(closest('read_fil', names), [
      'read_fil',
      'read_file',
      'write_file',
      'read_text_file',
    ]);
    assert.deepEqual(closest('b', ['a', 'c', 'b']), ['b', 'a', 'c']);
    assert.deepEqual(closest('x', [], { within: 1 }), []);
  });

  it('measures with the distance it is given', () => {
    const caseFirst = (wanted: string, candidate: string) =>
      candidate.toLowerCase() === wanted.toLowerCase() ? 0.5 : editDistance(wanted, candidate);
    assert.deepEqual(
      closest('totalscore', ['totalScores', 'totalScore'], { distance: caseFirst }),
      ['totalScore', 'totalScores'],
    );
  });
});
