// The shape bound is a promise about two texts it never builds: TOON saves at most `bytesSaved`
// bytes and `tokensSaved` estimated tokens against JSON, whose estimate is at least
// `jsonTokens`. Checked here against the real texts, on hostile generated values, on the
// shapes that provoke the estimate, and on the real datasets; and the picker's use of it:
// a TOON text the bound rules out could never have passed the guard.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import { estimateTokens } from '../../src/compact/estimate.js';
import { byteLength, passesTokenGuard, pick } from '../../src/compact/index.js';
import { shapeBound } from '../../src/compact/shape-bound.js';
import { isWellFormedJson, jsonValue, rowsJson } from '../support/json.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Whether every number in `value` is finite (JSON has no others). */
function allFinite(value: JsonValue): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(allFinite);
  if (value !== null && typeof value === 'object') return Object.values(value).every(allFinite);
  return true;
}

/** Asserts the bound's three promises for `value`, naming `label` when one fails. */
function checkBound(value: JsonValue, label: string): void {
  const bound = shapeBound(value);
  assert.ok(bound !== undefined, `${label}: plain data has a bound`);
  const json = JSON.stringify(value);
  const toon = encode(value);
  const saved = byteLength(json) - byteLength(toon);
  assert.ok(saved <= bound.bytesSaved, `${label}: ${saved} bytes saved > ${bound.bytesSaved}`);
  const jsonTokens = estimateTokens(json);
  const tokensSaved = jsonTokens - estimateTokens(toon);
  assert.ok(
    tokensSaved <= bound.tokensSaved,
    `${label}: ${tokensSaved} tokens saved > ${bound.tokensSaved}`,
  );
  assert.ok(bound.jsonTokens <= jsonTokens, `${label}: ${bound.jsonTokens} > ${jsonTokens}`);
}

const word = fc.oneof(
  fc.stringMatching(/^[a-z]{1,20}$/),
  fc.stringMatching(/^[A-Z][a-z]{0,12}$/),
  fc.stringMatching(/^[a-z]+[A-Z][a-z]+$/),
  fc.constantFrom('', ' ', '-', '"', ',', '1', '42abc', 'é', 'naïve', '日本', '😀', 'a b', 'x\ny'),
);
const scalar = fc.oneof(
  word,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
/** Shapes where the estimate's chunking decides: short words, punctuation, deep nesting. */
const provoking: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(word, tie('value'), { maxKeys: 5 }),
    fc.uniqueArray(word, { minLength: 1, maxLength: 4 }).chain((keys) =>
      fc.array(
        fc
          .tuple(...keys.map(() => scalar))
          .map((cells) => Object.fromEntries(keys.map((key, i) => [key, cells[i]!]))),
        { minLength: 1, maxLength: 6 },
      ),
    ),
  ),
})).value;

describe('the shape bound', () => {
  it('bounds the bytes and estimated tokens TOON saves, and JSON estimate, on hostile values', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue(true), rowsJson(true), provoking), (value) => {
        // JSON escapes an unpaired surrogate in six characters; TOON cannot carry it at all. A
        // number beyond JSON (Infinity, NaN) is not plain data: the bound declines it, and pick
        // then encodes every candidate.
        fc.pre(isWellFormedJson(value) && allFinite(value));
        checkBound(value, JSON.stringify(value).slice(0, 200));
      }),
      { numRuns: Number(process.env.SHAPE_BOUND_RUNS ?? 600) },
    );
  });

  it('holds on the real datasets', () => {
    const files = [
      'world-countries/countries.json',
      'emojibase-data/en/compact.json',
      'emojibase-data/en/messages.json',
      'spdx-license-list/spdx.json',
      'spdx-license-list/spdx-simple.json',
      'mime-db/db.json',
    ];
    for (const file of files) {
      checkBound(JSON.parse(fs.readFileSync(require.resolve(file), 'utf8')), file);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'corpus/manifest.json'), 'utf8'));
    for (const { file } of manifest.fixtures as Array<{ file: string }>) {
      checkBound(JSON.parse(fs.readFileSync(path.join(root, 'corpus', file), 'utf8')), file);
    }
  });

  it('prices a table key as JSON writes it, escapes included', () => {
    // JSON writes the tab and \u0001 as escapes of two and six characters on every row, dearer
    // than the characters themselves: priced raw, the bound was 0.6 of a token short (seed
    // -1355523387).
    const key = '\t,\u0001e7f';
    checkBound([{ [key]: '' }, { [key]: null }, { [key]: '' }, { [key]: 0 }], 'escaped key');
  });

  it('walks a table whose key TOON cannot write (a lone surrogate) without throwing', () => {
    const rows = [
      { '\ud800': 1, a: 2 },
      { '\ud800': 3, a: 4 },
    ];
    assert.ok(shapeBound(rows) !== undefined);
    assert.equal(pick(rows).strategy, 'json');
  });

  it('rules out tables of one row: the header writes their keys once, as JSON does', () => {
    // A GitHub validation error and a one-item list: TOON cannot save a tenth of the tokens.
    const values: JsonValue[] = [
      {
        message: 'Validation Failed',
        errors: [{ resource: 'Label', code: 'invalid', field: 'color' }],
        documentation_url: 'https://docs.github.com/rest',
      },
      { object: 'list', data: [{ id: 'cus_1', amount: 0, currency: 'usd' }], has_more: false },
      [{ id: 1, name: 'a' }],
    ];
    for (const value of values) {
      checkBound(value, JSON.stringify(value));
      const result = pick(value);
      assert.equal(result.strategy, 'json');
      assert.deepEqual(Object.keys(result.sizes), ['json'], 'no TOON candidate was encoded');
    }
  });

  it('stops at a long table whose first rows alone clear the bytes, rows after them unchecked', () => {
    const rows: JsonValue[] = Array.from({ length: 40 }, (_, id) => ({ id, name: `row ${id}` }));
    rows.push({ other: true }); // the array is no table after all; only the walk's cost depends on it
    const json = JSON.stringify(rows);
    const bound = shapeBound(rows, byteLength(json) / 2)!;
    assert.equal(bound.tokensSaved, Number.POSITIVE_INFINITY);
    // Without the early stop (no byte target) the whole list is walked and bounded.
    assert.ok(Number.isFinite(shapeBound(rows)!.tokensSaved));
  });

  it('has no bound for values outside plain JSON data', () => {
    for (const value of [new Date(0), { at: new Date(0) }, [new Map()], { n: Number.NaN }, 1n]) {
      assert.equal(shapeBound(value), undefined);
    }
  });

  it('rules out only TOON texts the guard would refuse', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValue(false), rowsJson(false), provoking), (value) => {
        fc.pre(isWellFormedJson(value));
        const result = pick(value);
        if (result.strategy !== 'json' || 'toon' in result.sizes) return;
        // Not encoded: either ruled out by shape, or toon outgrew JSON's bytes.
        const json = JSON.stringify(value);
        const toon = encode(value);
        const passes =
          byteLength(toon) < byteLength(json) &&
          passesTokenGuard(byteLength(toon), byteLength(json), () => [
            estimateTokens(toon),
            estimateTokens(json),
          ]);
        assert.ok(!passes, `a TOON text the guard accepts was ruled out: ${json.slice(0, 200)}`);
      }),
      { numRuns: Number(process.env.SHAPE_BOUND_RUNS ?? 600) },
    );
  });
});
