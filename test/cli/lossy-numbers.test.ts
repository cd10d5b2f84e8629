// Numbers JSON.parse cannot read exactly (12345678901234567891, 0.10000000000000001, 1e400):
// encode and pick refuse the input, naming the first one at file:line:column, unless
// --allow-lossy-numbers; in memory and streamed, JSON and JSON Lines alike. Which numbers those
// are is test/compact/json-numbers.test.ts's subject (one rule with the MCP proxy).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ArrayBatches } from '../../src/cli/stream/array-batches.js';
import { firstLossyNumber } from '../../src/compact/json-numbers.js';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);
const dir = mkdtempSync(join(tmpdir(), 'toonwire-lossy-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (where: string, literal: string, written: string) =>
  `toonwire: ${where}: the number ${literal} cannot be read exactly (JSON numbers are read as doubles) and would be written as ${written}; nothing was written. Quote such numbers in the source to keep them as strings, or pass --allow-lossy-numbers to write them as doubles\n`;

describe('firstLossyNumber', () => {
  it('finds integers that lose digits and numbers beyond a double, and nothing else', () => {
    const cases: Array<[string, string | undefined, string?]> = [
      ['{"id":12345678901234567891}', '12345678901234567891', '12345678901234567000'],
      ['[-12345678901234567891]', '-12345678901234567891', '-12345678901234567000'],
      ['[9007199254740993]', '9007199254740993', '9007199254740992'],
      ['[1e400]', '1e400', 'null'],
      ['[-1.8e308]', '-1.8e308', 'null'],
      ['[1e-400]', '1e-400', '0'],
      ['[1, 2,\n 123456789012345678901234567890]', '123456789012345678901234567890'],
      ['12345678901234567891', '12345678901234567891'],
      // A fraction with more digits than a double holds is rounded: written as other digits.
      ['[1.5, 0.10000000000000001]', '0.10000000000000001', '0.1'],
      ['[9007199254740993.5]', '9007199254740993.5', '9007199254740994'],
      // Exact, only spelled differently when written:
      ['[9007199254740992, 12345678901234567000, 1000000000000000000000]', undefined],
      ['[-0, 1E5, 1e-7, 0e-400, 1.5e308, 0.30000000000000004, 1.50]', undefined],
      // In strings, whatever the escapes before them:
      ['["1e400", "12345678901234567891", "x\\"1e400", "9e3f"]', undefined],
    ];
    for (const [text, literal, written] of cases) {
      const found = firstLossyNumber(text);
      assert.equal(found?.literal, literal, text);
      if (literal !== undefined) assert.equal(text.slice(found!.offset).startsWith(literal), true);
      if (written !== undefined) assert.equal(found?.written, written, text);
    }
  });

  it('is found by ArrayBatches at its line and column, in batches and by the scanner', () => {
    const rows = Array.from({ length: 3000 }, (_, id) => `{"id":${id}}`);
    rows[2500] = '{"id":12345678901234567891}';
    const text = `[${rows.join(',\n')}]`;
    for (const [name, input] of [
      ['objects', text],
      [
        'scalars',
        `[${Array.from({ length: 3000 }, (_, i) => (i === 2500 ? '1e400' : i)).join(',\n')}]`,
      ],
    ] as const) {
      const batches = new ArrayBatches(true);
      assert.throws(
        () => {
          for (let at = 0; at < input.length; at += 4096) batches.push(input.slice(at, at + 4096));
          batches.end();
        },
        { line: 2501, column: name === 'objects' ? 7 : 1 },
        name,
      );
      // Without the check the same text reads through.
      const plain = new ArrayBatches();
      let count = 0;
      for (let at = 0; at < input.length; at += 4096)
        count += plain.push(input.slice(at, at + 4096)).length;
      assert.equal(count + plain.end().length, 3000, name);
    }
  });
});

describe('encode and pick refuse a lossy number', () => {
  // 3,000 rows (more than one 32 KiB chunk of the streamed readers), the lossy one late.
  const rows = Array.from({ length: 3000 }, (_, id) => `{"id":${id},"name":"row ${id}"}`);
  rows[2800] = '{"id":2800,"name":"row 2800","big":1e400}';
  const json = join(dir, 'rows.json');
  const jsonl = join(dir, 'rows.jsonl');
  writeFileSync(json, `[\n${rows.join(',\n')}\n]\n`);
  writeFileSync(jsonl, `${rows.join('\n')}\n`);

  for (const command of ['encode', 'pick']) {
    for (const stream of [[], ['--stream']]) {
      it(`${command} ${stream.join(' ')}: exit 1, nothing on stdout, the number's place`, async () => {
        const [array, lines] = await Promise.all([
          runCli([command, ...stream, json]),
          runCli([command, ...stream, jsonl]),
        ]);
        assert.equal(array.code, 1, array.stderr);
        assert.equal(array.stdout, '');
        assert.equal(array.stderr, refusal(`${json}:2802:36`, '1e400', 'null'));
        assert.equal(lines.code, 1, lines.stderr);
        assert.equal(lines.stdout, '');
        assert.equal(lines.stderr, refusal(`${jsonl}:2801:36`, '1e400', 'null'));
      });
    }
  }

  it('refuses stdin too, and an integer that loses digits', async () => {
    const run = await runCli(['encode'], { input: '{\n  "id": 12345678901234567891\n}' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      refusal('<stdin>:2:9', '12345678901234567891', '12345678901234567000'),
    );
  });

  it('writes the doubles, as before, with --allow-lossy-numbers', async () => {
    const input = '{"id":12345678901234567891,"big":1e400,"tiny":1e-400}';
    const [encoded, picked] = await Promise.all([
      runCli(['encode', '--allow-lossy-numbers'], { input }),
      runCli(['pick', '--allow-lossy-numbers'], { input }),
    ]);
    assert.equal(encoded.code, 0, encoded.stderr);
    assert.equal(encoded.stdout, 'id: 12345678901234567000\nbig: null\ntiny: 0\n');
    assert.equal(encoded.stderr, '');
    assert.equal(picked.code, 0, picked.stderr);
    assert.equal(picked.stdout, '{"id":12345678901234567000,"big":null,"tiny":0}\n');
  });

  it('refuses a fraction that a double rounds, as the MCP proxy forwards it unread', async () => {
    const run = await runCli(['encode'], { input: '{"pi": 3.141592653589793238}' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, refusal('<stdin>:1:8', '3.141592653589793238', '3.141592653589793'));
  });

  it('names a huge number by its ends and length, not whole', async () => {
    // 1 MB of digits: the message must not write them all to stderr.
    const literal = `1.${'0'.repeat(1_000_000)}1`;
    const run = await runCli(['encode'], { input: `[${literal}]` });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      refusal('<stdin>:1:2', `1.${'0'.repeat(22)}…${'0'.repeat(11)}1 (1000003 characters)`, '1'),
    );
  });

  it('leaves exact numbers alone: -0, 1E5, 1e-7, 2^53, long fractions', async () => {
    const input = '[-0,1E5,1e-7,9007199254740992,0.30000000000000004,"12345678901234567891"]';
    const run = await runCli(['encode'], { input });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      '[6]: 0,100000,1e-7,9007199254740992,0.30000000000000004,"12345678901234567891"\n',
    );
  });
});
