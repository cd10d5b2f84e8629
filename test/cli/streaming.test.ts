// Input of any size: the streamed paths (forced with --stream on small files) write what the
// in-memory paths write; bad bytes are errors naming their offset; deep documents have a flag.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode } from '../../src/codec/encode.js';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);
const dir = mkdtempSync(join(tmpdir(), 'toonwire-stream-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const table = Array.from({ length: 4500 }, (_, id) => ({
  id,
  name: `row ${id}`,
  ok: id % 3 === 0,
}));
const mixed = [...table.slice(0, 2100), { other: true }, 7, [1, 2], ...table.slice(0, 2100)];
const scalars = Array.from({ length: 5000 }, (_, i) => (i % 2 === 0 ? i : `s${i}`));

describe('encode --stream', () => {
  for (const [name, rows] of [
    ['a table', table],
    ['a list', mixed],
    ['inline scalars', scalars],
    ['an empty array', []],
  ] as const) {
    it(`writes what encode writes, for ${name} as JSON Lines and as a JSON array`, async () => {
      const jsonl = join(dir, `${name.replaceAll(' ', '-')}.jsonl`);
      const json = join(dir, `${name.replaceAll(' ', '-')}.json`);
      writeFileSync(jsonl, rows.map((row) => JSON.stringify(row)).join('\n'));
      writeFileSync(json, JSON.stringify(rows, null, 1));
      const cases = [jsonl, json].flatMap((file) =>
        [[], ['--delimiter', 'tab']].map((extra) => ({ file, extra })),
      );
      const runs = await Promise.all(
        cases.map(({ file, extra }) => runCli(['encode', '--stream', file, ...extra])),
      );
      for (const [index, run] of runs.entries()) {
        const { file, extra } = cases[index]!;
        assert.equal(run.code, 0, `${file} ${extra.join(' ')}: ${run.stderr}`);
        assert.equal(run.stdout, `${encode(rows, { delimiter: extra.length > 0 ? '\t' : ',' })}\n`);
      }
    });
  }

  it('names the line of a malformed JSON Lines row', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"a":1}\n{"a":\n');
    const run = await runCli(['encode', '--stream', file]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^toonwire: .*bad\.jsonl:2:\d+: /);
  });
});

describe('pick --stream', () => {
  it('ships what the in-memory pick ships, for JSON Lines and JSON arrays, in every measure', async () => {
    const spdx = JSON.parse(
      readFileSync(createRequire(import.meta.url).resolve('spdx-license-list/spdx.json'), 'utf8'),
    ) as Record<string, unknown>;
    const licenses = Object.entries(spdx).map(([id, license]) => ({ id, ...(license as object) }));
    for (const [name, rows] of [
      ['table', table],
      ['list', mixed],
      ['licenses', licenses],
    ] as const) {
      const jsonl = join(dir, `pick-${name}.jsonl`);
      const json = join(dir, `pick-${name}.json`);
      writeFileSync(jsonl, rows.map((row) => JSON.stringify(row)).join('\n'));
      writeFileSync(json, JSON.stringify(rows));
      // The runs are independent processes: side by side, they use both cores.
      await Promise.all(
        ['auto', 'bytes'].map(async (by) => {
          const [whole, ...streamed] = await Promise.all([
            runCli(['pick', json, '--by', by]),
            runCli(['pick', '--stream', jsonl, '--by', by]),
            runCli(['pick', '--stream', json, '--by', by]),
          ]);
          for (const [index, run] of streamed.entries()) {
            assert.equal(run.code, 0, run.stderr);
            assert.equal(run.stdout, whole!.stdout, `${name} ${by} ${index === 0 ? jsonl : json}`);
          }
        }),
      );
    }
  });
});

describe('pick --stream --fields', () => {
  it('projects every row as the in-memory pick does (a row with an items key is no envelope)', async () => {
    const rows = [...mixed, { items: [{ id: 1 }], name: 'holds items', id: -1 }];
    const jsonl = join(dir, 'fields.jsonl');
    writeFileSync(jsonl, rows.map((row) => JSON.stringify(row)).join('\n'));
    for (const fields of ['name', 'id,name']) {
      const whole = await runCli(['pick', '--jsonl', '--fields', fields], {
        input: rows.map((row) => JSON.stringify(row)).join('\n'),
      });
      assert.equal(whole.code, 0, whole.stderr);
      const run = await runCli(['pick', '--stream', jsonl, '--fields', fields]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, whole.stdout, fields);
    }
  });
});

describe('UTF-8 input', () => {
  it('refuses ill-formed UTF-8 in JSON with the byte offset, exit 1', async () => {
    const file = join(dir, 'latin1.json');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    );
    for (const command of ['encode', 'pick']) {
      const run = await runCli([command, file]);
      assert.equal(run.code, 1, command);
      assert.equal(
        run.stderr,
        `toonwire: ${file}: ill-formed UTF-8 at byte offset 12; JSON and TOON input must be UTF-8: convert the file from its encoding (for Latin-1, \`iconv -f latin1 -t utf-8\`)\n`,
      );
    }
  });

  it('names a binary file as one instead of suggesting a text encoding, exit 1', async () => {
    const file = join(dir, 'program.bin');
    // The start of an ELF executable: magic, then a NUL byte, then bytes that are not UTF-8.
    writeFileSync(file, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xff, 0xfe]));
    for (const command of ['encode', 'pick', 'decode']) {
      const run = await runCli([command, file]);
      assert.equal(run.code, 1, command);
      assert.match(
        run.stderr,
        /^toonwire: .*program\.bin: not a text file \(a NUL byte at byte offset 7, as in executables, images and archives\); (JSON and TOON|TOON) input must be UTF-8 text/,
        command,
      );
      assert.doesNotMatch(run.stderr, /iconv/);
    }
  });

  it('refuses ill-formed UTF-8 in TOON with line and column', async () => {
    const file = join(dir, 'bad.toon');
    writeFileSync(file, Buffer.concat([Buffer.from('a: x\nb: caf'), Buffer.from([0xe9])]));
    const run = await runCli(['decode', file]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^toonwire: .*bad\.toon:2:\d+: ill-formed UTF-8 at byte offset 11/);
  });
});

describe('decode --max-depth', () => {
  it('refuses a document deeper than the default 1000 levels, and reads it when raised', async () => {
    // 1100 nested `a:` keys, then the leaf, built in one pass (re-indenting the whole text once
    // per level took seconds).
    const lines = Array.from({ length: 1100 }, (_, depth) => `${'  '.repeat(depth)}a:`);
    const text = [...lines, `${'  '.repeat(1100)}leaf: 1`].join('\n');
    const file = join(dir, 'deep.toon');
    writeFileSync(file, text);
    const refused = await runCli(['decode', file]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^toonwire: .*deep\.toon:\d+:\d+: .*(deep|depth)/i);
    const read = await runCli(['decode', '--compact', '--max-depth', '2000', file]);
    assert.equal(read.code, 0, read.stderr);
    assert.ok(read.stdout.startsWith('{"a":{"a":'));
  });

  it('refuses a depth that is no whole number of levels, naming levels, not spaces', async () => {
    const run = await runCli(['decode', '--max-depth', '0', join(dir, 'deep.toon')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--max-depth.*whole number of nesting levels, 1 or more/);
  });

  it('writes large output in pieces, indented exactly as JSON.stringify', async () => {
    const file = join(dir, 'table.toon');
    const value = {
      rows: table,
      meta: { count: table.length, nested: { list: scalars.slice(0, 100) } },
    };
    writeFileSync(file, encode(value));
    const run = await runCli(['decode', file]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${JSON.stringify(value, null, 2)}\n`);
    const compact = await runCli(['decode', '--compact', file]);
    assert.equal(compact.stdout, `${JSON.stringify(value)}\n`);
  });
});

describe('decode --stream', () => {
  it('writes what JSON.stringify writes, indented and compact, from the event stream', async () => {
    const values = [
      {
        rows: table.slice(0, 300),
        meta: { empty: {}, none: [], nested: { list: [1, 'a', null] } },
      },
      mixed.slice(0, 50),
      [],
      {},
      'just a string',
      [[1, 2], [], [{ a: [] }]],
    ];
    await Promise.all(
      values.map(async (value, i) => {
        const file = join(dir, `stream-${i}.toon`);
        writeFileSync(file, encode(value));
        const [indented, compact] = await Promise.all([
          runCli(['decode', '--stream', file]),
          runCli(['decode', '--stream', '--compact', file]),
        ]);
        assert.equal(indented.code, 0, indented.stderr);
        assert.equal(indented.stdout, `${JSON.stringify(value, null, 2)}\n`);
        assert.equal(compact.stdout, `${JSON.stringify(value)}\n`);
      }),
    );
  });

  it('names line and column of a malformed document', async () => {
    const file = join(dir, 'bad-stream.toon');
    writeFileSync(file, 'tags[3]: a,b\n');
    const run = await runCli(['decode', '--stream', file]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^toonwire: .*bad-stream\.toon:1:\d+: expected 3 values/);
  });
});

describe('one error style', () => {
  it("writes commander's usage errors with the same prefix", async () => {
    const run = await runCli(['encode', '--frobnicate']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^toonwire: unknown option '--frobnicate'/);
  });
});

describe('pick --stream of rows nested beyond JSON.stringify', () => {
  it('writes what pick writes, JSON, where JSON.stringify overflows the stack', async () => {
    // Was: "toonwire: unexpected error, please report it: RangeError: Maximum call stack size
    // exceeded" from the JSON track's JSON.stringify, exit 1 (the in-memory pick wrote JSON).
    const depth = 100_000;
    const file = join(dir, 'deep-rows.json');
    writeFileSync(file, `[${'['.repeat(depth)}${']'.repeat(depth)},1]`);
    const [streamed, whole] = await Promise.all([
      runCli(['pick', '--stream', file]),
      runCli(['pick', file]),
    ]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(streamed.code, 0, streamed.stderr);
    assert.equal(streamed.stdout, whole.stdout);
    assert.equal(streamed.stdout.length, 2 * depth + 5);
  });
});
