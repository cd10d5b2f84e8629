import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import {
  byteLength,
  type Candidate,
  flatten,
  guardVerdict,
  loadTokenizer,
  measureCandidates,
  parseCompact,
  pick,
  stringifyCompact,
} from '../../src/compact/index.js';
import { pickWithInput } from '../../src/compact/pick.js';
import { jsonEqual } from '../support/json.js';

const runs = Array.from({ length: 5 }, (_, i) => ({
  id: `run${i}`,
  status: 'SUCCEEDED',
  usd: i / 8,
}));

/** A table deep inside an envelope: lifting `response.data.runs` saves the rows' indentation. */
const irregular = { response: { data: { runs } } };

/** Rows whose strings are full of commas: the tab delimiter avoids quoting them. */
const prose = Array.from({ length: 4 }, (_, i) => ({ id: i, text: `one, two, three, ${i}` }));

const all = ['toon', 'toon-flatten', 'toon-tab'] as const;

describe('pick', () => {
  it('ships JSON when nothing is smaller, since JSON wins ties', () => {
    for (const value of [1, null, true, [], 'a:b', [[[1]]]]) {
      const result = pick(value, { candidates: all });
      assert.equal(result.strategy, 'json', JSON.stringify(value));
      assert.equal(result.text, JSON.stringify(value));
    }
  });

  it('never ships an empty text by default: the empty object goes as `{}`, since an empty text reads as no result', () => {
    assert.deepEqual(pick({}), {
      text: '{}',
      strategy: 'json',
      size: 2,
      sizes: { json: 2, toon: 0 },
    });
    assert.equal(guardVerdict(0, 2, 0, 1).passes, false);
    assert.match(guardVerdict(0, 2, 0, 1).reason, /empty/);
    // Bytes alone, as asked: the empty document is the smallest.
    assert.equal(pick({}, { by: 'bytes' }).text, '');
    assert.deepEqual(parseCompact('', 'toon'), {});
  });

  it('ships TOON for uniform rows, exactly as the full encoder writes it', () => {
    const result = pick(runs);
    assert.equal(result.strategy, 'toon');
    assert.equal(result.text, encode(runs));
    assert.equal(result.size, byteLength(result.text));
    assert.ok(result.size < byteLength(JSON.stringify(runs)));
  });

  it("ships toon-flatten when lifting nested objects saves the most, as the seed's candidate", () => {
    const result = pick(irregular);
    assert.equal(result.strategy, 'toon-flatten');
    assert.equal(result.text, encode(flatten(irregular)));
    assert.deepEqual(parseCompact(result.text, result.strategy), irregular);
  });

  it('ships toon-tab when asked for and the tab delimiter saves quoting', () => {
    const result = pick(prose, { candidates: all });
    assert.equal(result.strategy, 'toon-tab');
    assert.equal(result.text, encode(prose, { delimiter: '\t' }));
    assert.deepEqual(parseCompact(result.text, result.strategy), prose);
    assert.notEqual(pick(prose).strategy, 'toon-tab', 'toon-tab is not in the default set');
  });

  it('reports the exact size of every candidate it encoded to completion', () => {
    const result = pick(runs, { candidates: all });
    assert.equal(result.sizes['json'], byteLength(JSON.stringify(runs)));
    assert.equal(result.sizes['toon'], byteLength(encode(runs)));
    assert.equal(result.sizes[result.strategy], result.size);
    for (const [name, size] of Object.entries(result.sizes)) {
      const measured = measureCandidates(runs, { candidates: all }).find((m) => m.name === name);
      assert.equal(size, measured?.size, name);
    }
  });

  it('leaves out of sizes a candidate abandoned once it outgrew the best so far', () => {
    // Nested arrays cost TOON a list line per level; it passes JSON's size early on.
    const result = pick(
      Array.from({ length: 200 }, () => [[1]]),
      { candidates: all },
    );
    assert.equal(result.strategy, 'json');
    assert.deepEqual(Object.keys(result.sizes), ['json']);
  });

  it('drops a throwing custom candidate, still ships JSON, and lets onError see the error', () => {
    const seen: Array<[unknown, string]> = [];
    const boom = new Error('boom');
    const broken: Candidate = {
      name: 'broken',
      encode() {
        throw boom;
      },
    };
    const result = pick(
      { a: 1 },
      { candidates: [broken], onError: (error, name) => seen.push([error, name]) },
    );
    assert.equal(result.strategy, 'json');
    assert.equal(result.text, '{"a":1}');
    assert.deepEqual(seen, [[boom, 'broken']]);
  });

  it('drops a custom candidate that returns something other than a string', () => {
    const seen: string[] = [];
    const bad = { name: 'bad', encode: () => 42 as unknown as string };
    const result = pick([1, 2], { candidates: [bad], onError: (_, name) => seen.push(name) });
    assert.equal(result.strategy, 'json');
    assert.deepEqual(seen, ['bad']);
  });

  it('ships a smaller custom candidate and reads it back with its own decode', () => {
    const short: Candidate = {
      name: 'short',
      encode: (value) => JSON.stringify(value).slice(1, -1),
      decode: (text) => JSON.parse(`[${text}]`) as JsonValue,
    };
    const result = pick([1, 2, 3], { candidates: [short], by: 'bytes' });
    assert.equal(result.strategy, 'short');
    assert.equal(result.text, '1,2,3');
    assert.deepEqual(
      parseCompact(result.text, result.strategy, { candidates: [short] }),
      [1, 2, 3],
    );
  });

  it('gives ties to the earlier candidate', () => {
    const same: Candidate = { name: 'same', encode: (value) => JSON.stringify(value) };
    assert.equal(pick(runs, { candidates: [same] }).strategy, 'json');
    assert.equal(pick(runs, { by: () => 7 }).strategy, 'json');
    const a: Candidate = { name: 'a', encode: () => 'x' };
    const b: Candidate = { name: 'b', encode: () => 'y' };
    assert.equal(pick(runs, { candidates: [b, a] }).strategy, 'b');
  });

  it('compares with a custom measure', () => {
    // Counting lines makes single-line JSON unbeatable.
    const lines = (text: string) => text.split('\n').length;
    const result = pick(runs, { by: lines });
    assert.equal(result.strategy, 'json');
    assert.equal(result.size, 1);
  });

  it("drops toon-flatten for keys containing '.', which flatten could not restore", () => {
    const dotted = { ...irregular, 'x.y': 1 };
    const seen: Array<[unknown, string]> = [];
    const result = pick(dotted, { onError: (error, name) => seen.push([error, name]) });
    assert.notEqual(result.strategy, 'toon-flatten');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]![1], 'toon-flatten');
    assert.ok(seen[0]![0] instanceof RangeError);
    assert.ok(jsonEqual(parseCompact(result.text, result.strategy), dotted));
  });

  it('drops toon-flatten for nesting deeper than 20 and still round-trips', () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 25; i++) deep = { k: deep };
    const names: string[] = [];
    const result = pick([deep, deep], { onError: (_, name) => names.push(name) });
    assert.deepEqual(names, ['toon-flatten']);
    assert.ok(jsonEqual(parseCompact(result.text, result.strategy), [deep, deep]));
  });

  it('normalizes host values once, like JSON.stringify', () => {
    const value = {
      at: new Date(0),
      tags: new Set(['a']),
      counts: new Map([['x', 1]]),
      big: 2n ** 64n,
      skip: undefined,
    };
    const result = pick(value);
    assert.deepEqual(parseCompact(result.text, result.strategy), {
      at: '1970-01-01T00:00:00.000Z',
      tags: ['a'],
      counts: { x: 1 },
      big: '18446744073709551616',
    });
  });

  it('sizes JSON from the normalized value when a Map or Set hides behind plain-looking rows', () => {
    // JSON.stringify writes a Map as {}: its text of the value as it is must not be JSON's.
    const rows: unknown[] = runs.map((run) => ({ ...run }));
    for (let i = 0; i < 20; i++) rows.push({ id: `x${i}`, status: 'READY', usd: i });
    rows.push({ id: 'last', counts: new Map([['x', 1]]), tags: new Set(['a']) });
    const expected = [...rows.slice(0, -1), { id: 'last', counts: { x: 1 }, tags: ['a'] }];
    const result = pick(rows);
    assert.equal(result.sizes['json'], byteLength(JSON.stringify(expected)));
    assert.deepEqual(parseCompact(result.text, result.strategy), expected);
  });

  it('writes a Date past the first rows as JSON.stringify does, in every candidate', () => {
    const rows: unknown[] = Array.from({ length: 40 }, (_, i) => ({ id: i, at: '1970' }));
    rows.push({ id: 40, at: new Date(0) });
    const expected = [...rows.slice(0, -1), { id: 40, at: '1970-01-01T00:00:00.000Z' }];
    const result = pick(rows);
    assert.equal(result.strategy, 'toon');
    assert.equal(result.text, encode(expected));
    assert.equal(result.sizes['json'], byteLength(JSON.stringify(expected)));
  });

  it('ships NaN and Infinity in plain data as null, like JSON.stringify', () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({
      id: i,
      ratio: i === 2 ? NaN : -Infinity,
    }));
    const result = pick(rows);
    assert.equal(result.strategy, 'toon');
    assert.deepEqual(
      parseCompact(result.text, result.strategy),
      rows.map(({ id }) => ({ id, ratio: null })),
    );
  });

  it('throws a TypeError for a circular structure, like JSON.stringify', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.throws(() => pick(cyclic), TypeError);
  });

  it('projects to fields first, and the projection stacks with the picker', () => {
    const places = Array.from({ length: 10 }, (_, i) => ({
      name: `Place ${i}`,
      url: `https://maps.example/p/${i}`,
      rating: 4 + i / 10,
      reviews: [{ text: 'great', stars: 5 }],
      location: { lat: 50 + i, lng: 14 },
    }));
    const result = pick({ total: 10, items: places }, { fields: 'name,url,rating' });
    assert.equal(result.strategy, 'toon');
    assert.deepEqual(parseCompact(result.text, result.strategy), {
      total: 10,
      items: places.map(({ name, url, rating }) => ({ name, url, rating })),
    });
    const enveloped = pick({ results: places }, { fields: 'name', envelope: 'results' });
    assert.deepEqual(parseCompact(enveloped.text, enveloped.strategy), {
      results: places.map(({ name }) => ({ name })),
    });
  });

  it('reports every pick to onPick', () => {
    const seen: Array<{ strategy: string; sizes: Record<string, number> }> = [];
    const result = pick(runs, { onPick: (info) => seen.push(info) });
    assert.deepEqual(seen, [{ strategy: result.strategy, sizes: result.sizes }]);
  });

  it('always tries JSON first, whatever the candidate list says', () => {
    const names = measureCandidates(runs, { candidates: ['toon', 'json', 'toon'] }).map(
      (m) => m.name,
    );
    assert.deepEqual(names, ['json', 'toon']);
    assert.equal(pick({ a: 1 }, { candidates: [] }).strategy, 'json');
  });

  it('rejects bad options with a TypeError that says what to do', () => {
    assert.throws(() => pick(1, { candidates: ['yaml' as 'toon'] }), {
      name: 'TypeError',
      message: /built-in ones/,
    });
    assert.throws(() => pick(1, { candidates: [{ name: 'toon', encode: String }] }), {
      name: 'TypeError',
      message: /unique name/,
    });
    assert.throws(() => pick(1, { candidates: [{ name: '', encode: String }] }), TypeError);
    assert.throws(() => pick(1, { candidates: [{ name: 'x' } as Candidate] }), {
      name: 'TypeError',
      message: /encode/,
    });
    assert.throws(() => pick(1, { by: 'chars' as 'bytes' }), TypeError);
    assert.throws(() => pick(1, { by: () => Number.NaN }), {
      name: 'TypeError',
      message: /finite number/,
    });
    assert.throws(() => pick([], { fields: '' }), TypeError);
  });

  it("requires loadTokenizer() before by: 'tokens', then counts tokens", async () => {
    assert.throws(() => pick(runs, { by: 'tokens' }), {
      name: 'TypeError',
      message: /await loadTokenizer\('o200k_base'\)/,
    });
    const count = await loadTokenizer('o200k_base');
    const result = pick(runs, { by: 'tokens' });
    assert.equal(result.size, count(result.text));
    assert.equal(result.sizes['json'], count(JSON.stringify(runs)));
    assert.throws(
      () => pick(runs, { by: 'tokens', tokenizer: 'cl100k_base' }),
      /loadTokenizer\('cl100k_base'\)/,
    );
  });
});

describe('pickWithInput', () => {
  it('hands back what the candidates encoded: plain data as it is, other values normalized', () => {
    const rows = [
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ];
    for (const value of [rows, { items: rows }, 'text', 42, null]) {
      const { result, input } = pickWithInput(value);
      assert.equal(input, value, 'plain data is not copied');
      assert.deepEqual(result, pick(value));
    }
    const dated = { at: new Date(0), tags: new Set(['x']) };
    const { result, input } = pickWithInput(dated);
    assert.deepEqual(input, { at: '1970-01-01T00:00:00.000Z', tags: ['x'] });
    assert.deepEqual(result, pick(dated));
    assert.deepEqual(pickWithInput({ a: 1, b: 2 }, { fields: 'a' }).input, { a: 1 });
  });

  it('hands back no value for one too deep to normalize (only JSON can carry it)', () => {
    let deep: unknown = new Date(0);
    for (let i = 0; i < 2000; i++) deep = [deep];
    const { result, input } = pickWithInput(deep);
    assert.equal(input, undefined);
    assert.equal(result.strategy, 'json');
    // Plain data needs no normalizing, however deep: it is handed back as it is.
    let plain: unknown = 1;
    for (let i = 0; i < 2000; i++) plain = [plain];
    assert.equal(pickWithInput(plain).input, plain);
  });
});

describe('stringifyCompact', () => {
  it("is pick's text", () => {
    assert.equal(stringifyCompact(runs), pick(runs).text);
    assert.equal(stringifyCompact({ a: 1 }, { by: 'bytes' }), 'a: 1');
    // By default a one-token saving is too close to call without the tokenizer: JSON ships.
    assert.equal(stringifyCompact({ a: 1 }), '{"a":1}');
    assert.equal(stringifyCompact([[1]]), '[[1]]');
  });
});

describe('parseCompact', () => {
  it('reads each built-in strategy back', () => {
    assert.deepEqual(parseCompact('{"a":1}', 'json'), { a: 1 });
    assert.deepEqual(parseCompact('a: 1', 'toon'), { a: 1 });
    assert.deepEqual(parseCompact('[1]{a.b}:\n  1', 'toon-flatten'), [{ a: { b: 1 } }]);
    assert.deepEqual(parseCompact('[2\t]: a,b\tc', 'toon-tab'), ['a,b', 'c']);
  });

  it('rejects an unknown strategy, or a custom one without a decode, with a TypeError', () => {
    assert.throws(() => parseCompact('x', 'yaml'), {
      name: 'TypeError',
      message: /decode\(text\)/,
    });
    assert.throws(
      () => parseCompact('x', 'mine', { candidates: [{ name: 'mine', encode: String }] }),
      TypeError,
    );
  });
});

describe('measureCandidates', () => {
  it('encodes every candidate in full and sizes it', () => {
    const rows = measureCandidates(runs, { candidates: all });
    assert.deepEqual(
      rows.map(({ name, text, size }) => [name, text, size]),
      [
        ['json', JSON.stringify(runs), byteLength(JSON.stringify(runs))],
        ['toon', encode(runs), byteLength(encode(runs))],
        ['toon-flatten', encode(runs), byteLength(encode(runs))],
        [
          'toon-tab',
          encode(runs, { delimiter: '\t' }),
          byteLength(encode(runs, { delimiter: '\t' })),
        ],
      ],
    );
  });

  it('lists a failing candidate with its error instead of dropping it', () => {
    const rows = measureCandidates({ 'a.b': { c: 1 } });
    const flat = rows.find((row) => row.name === 'toon-flatten');
    assert.ok(flat?.error instanceof RangeError);
    assert.equal(flat.text, undefined);
  });
});

describe('pick on nested tables', () => {
  const nested = Array.from({ length: 6 }, (_, i) => ({
    id: i,
    stats: { runs: i * 10, reads: { n: i } },
  }));

  it('sizes toon-flatten from the table header alone and reports that exact size', () => {
    const result = pick(nested);
    assert.equal(result.strategy, 'toon');
    assert.equal(result.sizes['toon-flatten'], byteLength(encode(flatten(nested))));
  });

  it('still ships toon-flatten when its header is the shorter one', () => {
    // `s.a` beats the field group `s{a}` by one byte per table.
    const single = Array.from({ length: 3 }, (_, i) => ({ id: i, s: { a: i } }));
    const result = pick(single);
    assert.equal(result.strategy, 'toon-flatten');
    assert.equal(result.text, encode(flatten(single)));
    assert.deepEqual(parseCompact(result.text, result.strategy), single);
  });
});
