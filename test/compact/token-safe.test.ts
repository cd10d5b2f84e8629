// The default measure's promise: pick() never ships text that costs more o200k_base tokens than
// JSON.stringify of the same value. Checked with the exact tokenizer on generated values whose
// shapes provoke inversions (many short strings, unicode, numbers, nested objects with varied
// keys) and on real public datasets from npm where plain byte picking inverts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { estimateTokens, loadTokenizer, parseCompact, pick } from '../../src/compact/index.js';
import { jsonEqual } from '../support/json.js';

const require = createRequire(import.meta.url);
let countTokens: (text: string) => number;
before(async () => {
  countTokens = await loadTokenizer('o200k_base');
});

const shortWord = fc.oneof(
  fc.constantFrom(
    'a',
    'id',
    'x',
    'ok',
    'no',
    'yes',
    'null',
    'true',
    'Ab',
    'é',
    '日本',
    '😀',
    '👩‍💻',
  ),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
  fc.stringMatching(/^[a-z]{1,12}$/),
  fc.stringMatching(/^[a-z]+(\/[a-z.+-]+)?$/),
);
const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, 1, 1.5, 1e21, -0.001),
);
const scalar = fc.oneof(shortWord, number, fc.boolean(), fc.constant(null));
const key = fc.oneof(shortWord, fc.constantFrom('name', 'type', 'source', 'a.b', 'x y'));
/** Rows with the same keys and short cells: tables, where TOON saves bytes with commas. */
const rows = fc.uniqueArray(key, { minLength: 1, maxLength: 6 }).chain((keys) =>
  fc.array(
    fc
      .tuple(...keys.map(() => fc.oneof(scalar, fc.array(shortWord, { maxLength: 3 }))))
      .map((cells) => Object.fromEntries(keys.map((name, i) => [name, cells[i]]))),
    { minLength: 1, maxLength: 30 },
  ),
);
/** A map of entries with varied small objects (mime-db's and spdx's shape). */
const registry = fc.dictionary(
  key,
  fc.dictionary(key, fc.oneof(scalar, fc.array(shortWord, { maxLength: 4 })), { maxKeys: 4 }),
  { minKeys: 1, maxKeys: 30 },
);
const lists = fc.array(fc.oneof(scalar, fc.array(scalar, { maxLength: 5 })), { maxLength: 40 });
const provoking = fc.oneof(rows, registry, lists, fc.dictionary(key, rows, { maxKeys: 3 }));

describe('the default pick and tokens', () => {
  it('never ships more o200k_base tokens than JSON on generated values', () => {
    fc.assert(
      fc.property(provoking, (value) => {
        const result = pick(value);
        const json = JSON.stringify(value);
        const shipped = countTokens(result.text);
        const baseline = countTokens(json);
        assert.ok(
          shipped <= baseline,
          `${result.strategy} costs ${shipped} tokens, JSON ${baseline}: ${json.slice(0, 200)}`,
        );
        assert.ok(jsonEqual(parseCompact(result.text, result.strategy), JSON.parse(json)));
      }),
      { numRuns: Number(process.env['TOKEN_SAFE_RUNS'] ?? 400) },
    );
  });

  it('never ships more tokens than JSON on the npm datasets where byte picking inverts', () => {
    const files = [
      'spdx-license-list/spdx.json',
      'emojibase-data/en/data.json',
      'emojibase-data/en/compact.json',
      'mime-db/db.json',
      'world-countries/countries.json',
      'spdx-license-list/spdx-simple.json',
      'emojibase-data/en/messages.json',
    ];
    for (const file of files) {
      const value: unknown = JSON.parse(fs.readFileSync(require.resolve(file), 'utf8'));
      const json = JSON.stringify(value);
      const result = pick(value);
      const shipped = countTokens(result.text);
      const baseline = countTokens(json);
      assert.ok(shipped <= baseline, `${file}: ${result.strategy} ${shipped} > JSON ${baseline}`);
      if (file === 'spdx-license-list/spdx.json' || file === 'emojibase-data/en/data.json') {
        // The known inversions: smaller in bytes as TOON, more tokens; the default ships JSON.
        assert.equal(pick(value, { by: 'bytes' }).strategy, 'toon', file);
        assert.equal(result.strategy, 'json', file);
      }
    }
  });

  it('still ships TOON where it saves tokens clearly', () => {
    const countries = JSON.parse(
      fs.readFileSync(require.resolve('world-countries/countries.json'), 'utf8'),
    );
    assert.equal(pick(countries).strategy, 'toon');
    const table = Array.from({ length: 50 }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      ok: i % 2 === 0,
    }));
    assert.equal(pick(table).strategy, 'toon');
  });

  it('estimates within 15% of the exact count on the datasets', () => {
    for (const file of [
      'world-countries/countries.json',
      'mime-db/db.json',
      'spdx-license-list/spdx.json',
    ]) {
      const text = fs.readFileSync(require.resolve(file), 'utf8');
      const json = JSON.stringify(JSON.parse(text));
      const ratio = estimateTokens(json) / countTokens(json);
      assert.ok(ratio > 0.85 && ratio < 1.15, `${file}: estimate/exact ${ratio.toFixed(3)}`);
    }
  });
});
