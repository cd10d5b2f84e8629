// The default measure's promise on every tokenizer the project checks, not only the o200k one
// its estimate is calibrated on: pick() never ships a text that costs more tokens than
// JSON.stringify of the same value, counted by eight real tokenizers (test/compact/tokenizers.ts)
// over the real datasets (npm packages and the generated corpus) and over generated values.
//
// The large datasets are cut into windows of about 32 KB of JSON (consecutive items of the
// top-level array or entries of the top-level object): whole, they would take minutes to
// tokenize eight times, and each window is a real payload of the same shape. Only picks that
// ship TOON are tokenized (JSON cannot cost more than itself).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { NPM_DATASETS } from '../../bench/datasets.js';
import type { JsonValue } from '../../src/codec/types.js';
import { parseCompact, pick } from '../../src/compact/index.js';
import { jsonEqual } from '../support/json.js';
import { loadRealTokenizers, type RealTokenizer, referenceCounters } from './tokenizers.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const WINDOW_CHARS = 32_000;
const WINDOWS = 3;

/** `value` whole when small, else up to {@link WINDOWS} windows of its top-level items. */
function windows(value: JsonValue): JsonValue[] {
  if (JSON.stringify(value).length <= 2 * WINDOW_CHARS) return [value];
  const entries: [string, JsonValue][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [];
  const out: JsonValue[] = [];
  let start = 0;
  while (start < entries.length && out.length < WINDOWS) {
    let end = start;
    let chars = 0;
    while (end < entries.length && chars < WINDOW_CHARS) {
      chars += JSON.stringify(entries[end]![1]).length;
      end++;
    }
    const slice = entries.slice(start, end);
    out.push(Array.isArray(value) ? slice.map(([, item]) => item) : Object.fromEntries(slice));
    start = end;
  }
  return out;
}

function realPayloads(): Array<{ name: string; value: JsonValue }> {
  const out: Array<{ name: string; value: JsonValue }> = [];
  for (const file of NPM_DATASETS) {
    const value = JSON.parse(fs.readFileSync(require.resolve(file), 'utf8')) as JsonValue;
    // spdx-full (5 MB of license texts): its first windows are the same shape as spdx.json's.
    if (file.includes('spdx-full')) continue;
    windows(value).forEach((window, i) => {
      out.push({ name: `${file} #${i}`, value: window });
    });
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'corpus/manifest.json'), 'utf8'));
  for (const { file } of manifest.fixtures as Array<{ file: string }>) {
    const value = JSON.parse(fs.readFileSync(path.join(root, 'corpus', file), 'utf8'));
    windows(value).forEach((window, i) => {
      out.push({ name: `corpus/${file} #${i}`, value: window });
    });
  }
  return out;
}

/** The tokenizers on which `text` costs more tokens than `json`, with both counts. */
function inversions(tokenizers: readonly RealTokenizer[], text: string, json: string): string[] {
  const found: string[] = [];
  for (const { name, count } of tokenizers) {
    const shipped = count(text);
    const baseline = count(json);
    if (shipped > baseline) found.push(`${name} ${shipped} > JSON ${baseline}`);
  }
  return found;
}

let tokenizers: RealTokenizer[];
before(async () => {
  tokenizers = await loadRealTokenizers();
});

describe('the default pick on eight real tokenizers', () => {
  it('counts with the packages own merge loops exactly', async () => {
    const references = await referenceCounters(['mistral', 'deepseek-v3']);
    const countries = JSON.parse(
      fs.readFileSync(require.resolve('world-countries/countries.json'), 'utf8'),
    ) as JsonValue[];
    const sample = countries.slice(0, 5);
    const texts = [JSON.stringify(sample), pick(sample).text, 'héllo wörld 日本語 😀\ttab  x'];
    for (const reference of references) {
      const fast = tokenizers.find((t) => t.name === reference.name)!;
      for (const text of texts) assert.equal(fast.count(text), reference.count(text), fast.name);
    }
  });

  it('never ships more tokens than JSON on any of them, over the real datasets', () => {
    let checked = 0;
    for (const { name, value } of realPayloads()) {
      const result = pick(value);
      assert.ok(jsonEqual(parseCompact(result.text, result.strategy), value), name);
      if (result.strategy === 'json') continue;
      checked++;
      const found = inversions(tokenizers, result.text, JSON.stringify(value));
      assert.deepEqual(found, [], `${name}: ${result.strategy} costs more: ${found.join(', ')}`);
    }
    // Not vacuous: TOON ships on the list responses and tables among them.
    assert.ok(checked >= 10, `only ${checked} payloads shipped TOON`);
  });

  it('never ships more tokens than JSON on any of them, on the values generation found', () => {
    const found: JsonValue[] = [
      // Two table headers in twelve lines: the estimate priced `""[`, `]{"` and `"}:` as a token
      // each (they are two), JSON's `},{"` runs at more than one; TOON shipped, at 51 tokens
      // against JSON's 50 on cl100k_base and Llama 3 (seed -1644651440).
      {
        '': [
          { '42': 'a' },
          { '42': 'a' },
          { '42': 'Aa' },
          { '42': null },
          { '42': 'Aa' },
          { '42': false },
          { '42': null },
          { '42': null },
          { '42': 0 },
        ],
        a: [{ 'Aaa aaa aaa': '' }],
      },
    ];
    for (const value of found) {
      const result = pick(value);
      if (result.strategy === 'json') continue;
      const json = JSON.stringify(value);
      assert.deepEqual(inversions(tokenizers, result.text, json), [], json);
    }
  });

  it('never ships more tokens than JSON on any of them, on the values the field found', () => {
    // emojibase-data's code points by version: a list of 137 hex codes (`"1F1E6"`, `"E0020"`).
    // TOON drops their quotes, and o200k joins each comma to the letters after it (`,E`), so
    // o200k saved 16%; Claude's vocabulary writes `,` and `E` apart, as it writes JSON's `","`,
    // and TOON shipped at 551 tokens against JSON's 549 (Mistral and Gemma 3: 799 against 795).
    const versions = JSON.parse(
      fs.readFileSync(require.resolve('emojibase-data/versions/emoji.json'), 'utf8'),
    ) as Record<string, JsonValue>;
    const found: JsonValue[] = [versions['0']!, ...Object.values(versions)];
    for (const value of found) {
      const result = pick(value);
      if (result.strategy === 'json') continue;
      const json = JSON.stringify(value);
      assert.deepEqual(inversions(tokenizers, result.text, json), [], json.slice(0, 200));
    }
  });

  it('never ships more tokens than JSON on any of them, over generated tables and lists', () => {
    // Codes and ids (`1F1E6`, `E0020`, `ab12`): TOON writes them bare, and vocabularies differ
    // most on how a comma joins the letters after it.
    const code = fc.oneof(
      fc.stringMatching(/^[0-9A-F]{2,6}$/),
      fc.stringMatching(/^[a-z]{1,3}[0-9]{1,4}$/),
    );
    // A list of codes that share a lettered prefix (`E0020`, `E0021`, ...): o200k saves a token
    // on each `,E`, other vocabularies none.
    const codeList = fc
      .tuple(fc.stringMatching(/^[A-Za-z]{1,2}$/), fc.integer({ min: 20, max: 120 }))
      .chain(([prefix, length]) =>
        fc.array(
          fc
            .integer({ min: 0, max: 0xffff })
            .map((n) => prefix + n.toString(16).toUpperCase().padStart(4, '0')),
          { minLength: length, maxLength: length },
        ),
      );
    const word = fc.oneof(
      fc.stringMatching(/^[a-z]{1,10}$/),
      fc.stringMatching(/^[A-Z][a-z]{1,8}( [a-z]{1,8}){0,3}$/),
      fc.constantFrom('', 'null', 'true', '42', 'é', '日本', '😀', 'a,b', 'x y', 'https://a.io/b'),
      code,
    );
    const cell = fc.oneof(
      word,
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.boolean(),
      fc.constant(null),
    );
    const rows = fc.uniqueArray(word, { minLength: 1, maxLength: 6 }).chain((keys) =>
      fc.array(
        fc
          .tuple(...keys.map(() => cell))
          .map((cells) => Object.fromEntries(keys.map((key, i) => [key, cells[i]!]))),
        { minLength: 1, maxLength: 25 },
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          rows,
          fc.dictionary(word, rows, { maxKeys: 3 }),
          fc.array(fc.oneof(code, word), { minLength: 1, maxLength: 80 }),
          codeList,
        ),
        (value) => {
          const result = pick(value);
          if (result.strategy === 'json') return;
          const json = JSON.stringify(value);
          const found = inversions(tokenizers, result.text, json);
          assert.deepEqual(found, [], `${found.join(', ')}: ${json.slice(0, 300)}`);
        },
      ),
      { numRuns: Number(process.env['TOKEN_SAFE_RUNS'] ?? 200) },
    );
  });
});
