// The CLI's building blocks, in process: JSON error locations, globbing, equality, formatting.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CliError } from '../../src/cli/errors.js';
import { formatDelta, formatInt, formatSize } from '../../src/cli/format.js';
import { expandArguments, globToRegExp } from '../../src/cli/glob.js';
import {
  lineAndColumn,
  locateJsonError,
  parseJson,
  parseJsonLines,
} from '../../src/cli/json-input.js';
import { collectGarbage } from '../../src/cli/memory.js';
import { numberParser, parseIndent } from '../../src/cli/options.js';
import { itemCount, measurePayload } from '../../src/cli/report/measure.js';
import { fixtureReport, projectionRows, summarize } from '../../src/cli/report/model.js';
import { progressMode } from '../../src/cli/report/progress.js';
import { renderMarkdownTable, renderTextTable } from '../../src/cli/report/table.js';
import { firstDifference } from '../../src/codec/json-equal.js';
import type { JsonValue } from '../../src/codec/types.js';
import { project, projector } from '../../src/compact/project.js';

describe('locating JSON syntax errors', () => {
  const cases: Array<[string, number, string]> = [
    ['{"a": }', 6, "unexpected '}'; expected a value"],
    ['[1, 2,]', 6, "unexpected ']'; expected a value"],
    ['{"a" 1}', 5, "unexpected '1'; expected ':' after the property name"],
    ['{a: 1}', 1, "unexpected 'a'; expected a property name in double quotes"],
    ['[1 2]', 3, "unexpected '2'; expected ',' or ']'"],
    ['{"a": 1} x', 9, "unexpected 'x' after the end of the JSON value"],
    [
      '{"a": 1}\r\n{"a": 2}',
      10,
      "unexpected '{' after the end of the JSON value; if each line holds a JSON value of its own (JSON Lines), pass --jsonl",
    ],
    ['"abc', 0, 'unterminated string; a closing double quote is missing'],
    ['"a\\qb"', 2, 'bad escape \\q in a string'],
    ['[01]', 2, "unexpected '1'; expected ',' or ']'"],
    ['', 0, 'the input is empty; expected a JSON value'],
    [' \r\n\t', 4, 'the input is empty; expected a JSON value'],
    ['[', 1, 'unexpected end of input; the JSON is incomplete'],
    ['{"a":', 5, 'unexpected end of input; the JSON is incomplete'],
  ];
  for (const [text, offset, message] of cases) {
    it(`finds ${JSON.stringify(message)} in ${JSON.stringify(text)}`, () => {
      assert.deepEqual(locateJsonError(text), { offset, message });
    });
  }

  it('accepts everything JSON.parse accepts', () => {
    for (const text of [
      '{}',
      '[]',
      ' 1 ',
      '-0.5e+3',
      '"\\u00e9\\n"',
      '{"a":[true,false,null,{"b":"c"}]}',
    ]) {
      JSON.parse(text);
      assert.equal(locateJsonError(text), undefined, text);
    }
  });

  it('handles nesting far deeper than the call stack allows', () => {
    assert.deepEqual(locateJsonError(`${'['.repeat(200_000)}x`), {
      offset: 200_000,
      message: "unexpected 'x'; expected a value",
    });
  });

  it('counts lines and columns from 1', () => {
    assert.deepEqual(lineAndColumn('ab\ncd', 4), { line: 2, column: 2 });
  });

  it('throws a CliError with exit code 1 naming source, line and column', () => {
    assert.throws(
      () => parseJson('{\n"a": tru}', 'x.json'),
      (error: unknown) =>
        error instanceof CliError &&
        error.exitCode === 1 &&
        error.message === "x.json:2:6: unexpected 't'; expected a value",
    );
  });

  it('ignores a byte order mark', () => {
    assert.deepEqual(parseJson('\ufeff{"a":1}', 'x.json'), { a: 1 });
  });

  it('reads JSON Lines, skipping blank lines and accepting CRLF', () => {
    assert.deepEqual(parseJsonLines('{"a":1}\r\n\r\n[2]\r\n', 'x.jsonl'), [{ a: 1 }, [2]]);
  });
});

describe('glob patterns', () => {
  it('matches * and ? within one segment and ** across directories', () => {
    assert.ok(globToRegExp('data/*.json').test('data/a.json'));
    assert.ok(!globToRegExp('data/*.json').test('data/sub/a.json'));
    assert.ok(globToRegExp('data/**/*.json').test('data/a.json'));
    assert.ok(globToRegExp('data/**/*.json').test('data/x/y/a.json'));
    assert.ok(globToRegExp('a?.json').test('ab.json'));
    assert.ok(!globToRegExp('a?.json').test('a/.json'));
  });

  it('supports [abc] and [!abc] classes', () => {
    assert.ok(globToRegExp('run-[12].json').test('run-1.json'));
    assert.ok(!globToRegExp('run-[!12].json').test('run-1.json'));
    assert.ok(globToRegExp('run-[!12].json').test('run-3.json'));
  });

  it('does not let wildcards match hidden files, like the shell', () => {
    assert.ok(!globToRegExp('*.json').test('.hidden.json'));
    assert.ok(!globToRegExp('**/*.json').test('.git/x.json'));
  });

  const dir = mkdtempSync(join(tmpdir(), 'toonwire-glob-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'a', 'b'), { recursive: true });
  for (const file of [
    'one.json',
    'two.jsonl',
    'notes.txt',
    'a/three.json',
    'a/b/four.ndjson',
    '.hidden.json',
  ]) {
    writeFileSync(join(dir, file), '{}');
  }

  it('expands a directory into its JSON, JSONL and NDJSON files, sorted', async () => {
    assert.deepEqual(await expandArguments([dir]), [
      `${dir}/a/b/four.ndjson`,
      `${dir}/a/three.json`,
      `${dir}/one.json`,
      `${dir}/two.jsonl`,
    ]);
  });

  it('expands patterns and removes duplicates', async () => {
    assert.deepEqual(await expandArguments([`${dir}/*.json`, `${dir}/**/*.json`]), [
      `${dir}/one.json`,
      `${dir}/a/three.json`,
    ]);
  });

  it('passes plain file names through for the reader to report', async () => {
    assert.deepEqual(await expandArguments(['missing.json']), ['missing.json']);
  });
});

describe('number options', () => {
  const whole = numberParser({ whole: true, least: 0, message: 'whole' });
  const decimal = numberParser({ whole: false, least: 0, message: 'decimal' });
  const positive = numberParser({ whole: false, least: 'above 0', message: 'positive' });

  it('reads digits, with spaces around them allowed', () => {
    assert.equal(whole('0'), 0);
    assert.equal(whole(' 250 '), 250);
    assert.equal(decimal('1.5'), 1.5);
    assert.equal(positive('0.25'), 0.25);
    assert.equal(parseIndent('4'), 4);
    assert.equal(parseIndent('32'), 32);
  });

  it('refuses signs, exponents, hex, fractions of whole numbers and values out of range', () => {
    const refused: Array<[(value: string) => number, string, string]> = [
      [whole, '-1', 'whole'],
      [whole, '1.5', 'whole'],
      [whole, '1e3', 'whole'],
      [whole, '0x10', 'whole'],
      [whole, '', 'whole'],
      [whole, '9007199254740993', 'whole'],
      [decimal, '.5', 'decimal'],
      [decimal, '-0.5', 'decimal'],
      [positive, '0', 'positive'],
      [positive, '0.0', 'positive'],
      [parseIndent, '0', 'Use a whole number of spaces from 1 to 32.'],
      [parseIndent, '33', 'Use a whole number of spaces from 1 to 32.'],
      [parseIndent, '999999999999', 'Use a whole number of spaces from 1 to 32.'],
    ];
    for (const [parse, value, message] of refused)
      assert.throws(() => parse(value), { message }, JSON.stringify(value));
  });
});

describe('a projector parsed once', () => {
  it('projects exactly as project does, envelopes and dotted paths included', () => {
    const values: JsonValue[] = [
      [{ id: 1, name: 'a', location: { lat: 1, lng: 2 } }, 7, null],
      { total: 1, items: [{ id: 2, name: 'b', extra: true }] },
      { id: 3, name: 'c', location: 'none' },
    ];
    for (const fields of ['name', 'id,location.lat', ['location', 'location.lng']] as const) {
      const keep = projector(fields);
      for (const value of values) assert.deepEqual(keep(value), project(value, fields));
    }
  });

  it("refuses a bad spec when created, with project's message", () => {
    assert.throws(() => projector('a,,b'), /^TypeError: project: "" is not a field name/);
  });
});

describe('collecting garbage', () => {
  it('returns memory that was let go, without --expose-gc', () => {
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
    let rows: Array<{ id: number; name: string }> | undefined = Array.from(
      { length: 500_000 },
      (_, id) => ({ id, name: `row ${id}` }),
    );
    assert.equal(rows.length, 500_000);
    rows = undefined;
    const before = process.memoryUsage().heapUsed;
    collectGarbage();
    assert.ok(before - process.memoryUsage().heapUsed > 10_000_000);
  });
});

describe('round-trip comparison', () => {
  it('treats objects as unordered and -0 as 0', () => {
    assert.equal(firstDifference({ a: 1, b: [0] }, { b: [-0], a: 1 }), undefined);
  });

  it('names the path and both values of the first difference', () => {
    assert.equal(
      firstDifference({ items: [{ x: 'a' }] }, { items: [{ x: 'b' }] }),
      '$.items[0].x: expected "a", got "b"',
    );
    assert.equal(
      firstDifference({ 'a b': 1 }, { 'a b': '1' }),
      '$["a b"]: expected number 1, got string "1"',
    );
    assert.equal(firstDifference([1, 2], [1]), '$: expected 2 elements, got 1');
    assert.equal(firstDifference({ a: 1 }, {}), '$: key "a" is missing');
    assert.equal(
      firstDifference({ e: Number.POSITIVE_INFINITY }, { e: null }),
      '$.e: expected number Infinity, got null null',
    );
    assert.equal(firstDifference({}, { a: 1 }), '$: unexpected key "a"');
  });
});

describe('number formatting', () => {
  it('groups thousands without depending on the locale', () => {
    assert.equal(formatInt(0), '0');
    assert.equal(formatInt(999), '999');
    assert.equal(formatInt(1329660), '1,329,660');
    assert.equal(formatInt(-1234), '-1,234');
  });

  it('writes relative changes as signed percentages', () => {
    assert.equal(formatDelta(-0.44), '-44.0%');
    assert.equal(formatDelta(0.0349), '+3.5%');
    assert.equal(formatDelta(-0.00001), '0.0%');
  });

  it("uses the proposal's units for sizes", () => {
    assert.equal(formatSize(950), '950 B');
    assert.equal(formatSize(9500), '9.5 KB');
    assert.equal(formatSize(893_000), '893 KB');
    assert.equal(formatSize(1_010_000), '1.01 MB');
  });
});

describe('tables', () => {
  const table = {
    columns: [
      { header: 'name' },
      { header: 'json', group: 'bytes', align: 'right' as const },
      { header: 'toon', group: 'bytes', align: 'right' as const },
    ],
    rows: [{ section: 'group' }, ['  a', '1,000', '12']],
  };

  it('draws grouped headers, aligned columns and section rows as text', () => {
    assert.equal(
      renderTextTable(table),
      [
        '      bytes',
        'name   json  toon',
        '────  ─────  ────',
        'group',
        '  a   1,000    12',
        '',
      ].join('\n'),
    );
  });

  it('draws the same table as Markdown', () => {
    assert.equal(
      renderMarkdownTable(table),
      [
        '| name | json (bytes) | toon (bytes) |',
        '|---|---:|---:|',
        '| **group** |  |  |',
        '| a | 1,000 | 12 |',
        '',
      ].join('\n'),
    );
  });
});

describe('progress', () => {
  it('shows on a terminal for large input only, unless forced either way', () => {
    assert.equal(progressMode(undefined, true, 5_000_000), 'tty');
    assert.equal(progressMode(undefined, true, 10_000), 'off');
    assert.equal(progressMode(undefined, false, 5_000_000), 'off');
    assert.equal(progressMode(true, false, 10), 'lines');
    assert.equal(progressMode(false, true, 5_000_000), 'off');
  });
});

describe('measuring a payload', () => {
  const rows = {
    total: 3,
    items: [1, 2, 3].map((id) => ({ id, name: `row ${id}`, meta: { origin: 'API', tags: ['a'] } })),
  };
  const settings = {
    candidates: ['toon', 'toon-flatten'] as const,
    by: 'bytes' as const,
    tokenizer: 'o200k_base' as const,
    countTokens: (text: string) => text.split(/\s+/).length,
  };

  it('sizes every candidate, picks the smallest, and finds no round-trip failure', () => {
    const result = measurePayload(rows, settings);
    assert.deepEqual(
      result.candidates.map((c) => c.name),
      ['json', 'toon', 'toon-flatten'],
    );
    assert.deepEqual(result.failures, []);
    const smallest = Math.min(...result.candidates.map((c) => c.size!.bytes));
    assert.equal(result.picked.bytes, smallest);
    assert.equal(result.candidates[0]!.size!.bytes, JSON.stringify(rows).length);
  });

  it('measures the projected value when given fields', () => {
    const result = measurePayload(rows, settings, ['name']);
    const projected = { total: 3, items: [1, 2, 3].map((id) => ({ name: `row ${id}` })) };
    assert.equal(result.candidates[0]!.size!.bytes, JSON.stringify(projected).length);
  });

  it('checks round trips against the JSON model, where a number beyond a double is null', () => {
    // JSON.parse reads 1e400 as Infinity; JSON.stringify, and so every candidate, writes null.
    const result = measurePayload(JSON.parse('{"e":1e400,"rows":[{"a":1},{"a":2}]}'), settings);
    assert.deepEqual(result.failures, []);
  });

  it('records a candidate that cannot encode the payload instead of failing', () => {
    const result = measurePayload({ 'a.b': { c: 1 } }, settings);
    assert.match(result.candidates.find((c) => c.name === 'toon-flatten')!.error!, /contains '\.'/);
    assert.notEqual(result.picked.strategy, 'toon-flatten');
  });

  it('calls afterStep after the pick, the encodings and each round trip, with the same result', () => {
    let steps = 0;
    const result = measurePayload(rows, { ...settings, afterStep: () => steps++ });
    assert.equal(steps, 4); // the pick, measuring the candidates, toon's and toon-flatten's checks
    assert.deepEqual(result, measurePayload(rows, settings));
  });

  it('counts the tokens of identical candidate texts once', () => {
    const counted: string[] = [];
    const countTokens = (text: string) => {
      counted.push(text);
      return text.length;
    };
    // Nothing nested: toon-flatten writes exactly toon's text.
    const flat = [1, 2, 3].map((id) => ({ id, name: `row ${id}` }));
    const result = measurePayload(flat, { ...settings, countTokens });
    const [, toon, toonFlatten] = result.candidates;
    assert.deepEqual(toonFlatten!.size, toon!.size);
    assert.equal(counted.length, 2);
  });

  it('counts the rows of a list or of an envelope', () => {
    assert.equal(itemCount(rows), 3);
    assert.equal(itemCount([1, 2]), 2);
    assert.equal(itemCount({ data: [] }), 0);
    assert.equal(itemCount({ a: 1 }), 1, 'an object without an envelope is itself the one item');
    assert.equal(itemCount('text'), null);
  });

  it('sums totals and averages per-payload changes', () => {
    const fixture = (name: string, json: number, picked: number) =>
      fixtureReport(
        { name, group: 'g', path: name, items: null },
        {
          candidates: [
            { name: 'json', size: { bytes: json, tokens: json } },
            { name: 'toon', size: { bytes: picked, tokens: picked } },
          ],
          picked: {
            strategy: picked < json ? 'toon' : 'json',
            bytes: Math.min(json, picked),
            tokens: Math.min(json, picked),
          },
          failures: [],
        },
      );
    const summary = summarize('g', [fixture('a', 100, 50), fixture('b', 300, 400)]);
    assert.deepEqual(summary.json, { bytes: 400, tokens: 400 });
    assert.deepEqual(summary.picked, { bytes: 350, tokens: 350 });
    assert.equal(summary.delta.bytes, -0.125);
    assert.equal(summary.meanDelta.bytes, -0.25);
    assert.deepEqual(summary.wins, { toon: 1, json: 1 });
  });

  it('lays out projection rows against the full JSON', () => {
    const rowsOut = projectionRows(
      measurePayload(rows, settings),
      measurePayload(rows, settings, ['id']),
    );
    assert.deepEqual(
      rowsOut.map((r) => `${r.payload}:${r.encoding}`),
      [
        'full:json',
        'full:toon',
        'full:toon-flatten',
        'full:picker',
        'projected:json',
        'projected:toon',
        'projected:toon-flatten',
        'projected:picker',
      ],
    );
    assert.equal(rowsOut[0]!.delta!.bytes, 0);
    assert.ok(rowsOut[4]!.delta!.bytes < 0);
  });
});
