// UTF-16 input with a byte order mark (what PowerShell's `>` and many Windows tools write) is
// read as its text by every command, in memory and streamed, exactly as the same text in UTF-8;
// ill-formed UTF-16 names its byte offset, and UTF-16 without a mark says how to convert it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);
const dir = mkdtempSync(join(tmpdir(), 'toonwire-utf16-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `text` as UTF-16 in `order`, with its byte order mark. */
function utf16(text: string, order: 'le' | 'be'): Buffer {
  const body = Buffer.from(text, 'utf16le');
  if (order === 'be') body.swap16();
  return Buffer.concat([Buffer.from(order === 'le' ? [0xff, 0xfe] : [0xfe, 0xff]), body]);
}

// More than one 1 MiB read and many 32 KiB chunks, with characters outside the BMP (surrogate
// pairs, which chunk edges cut) and outside Latin-1.
const rows = Array.from({ length: 9000 }, (_, id) => ({
  id,
  name: `row ${id} é ✓ 😀${'x'.repeat(id % 7)}`,
  ok: id % 3 === 0,
}));
const jsonText = `[\n${rows.map((row) => JSON.stringify(row)).join(',\n')}\n]\n`;

describe('UTF-16 input with a byte order mark', () => {
  const utf8File = join(dir, 'rows.json');
  writeFileSync(utf8File, jsonText);

  for (const order of ['le', 'be'] as const) {
    const file = join(dir, `rows-${order}.json`);
    writeFileSync(file, utf16(jsonText, order));

    it(`encode and pick read UTF-16${order.toUpperCase()} as its text, whole and streamed`, async () => {
      const commands = [['encode'], ['encode', '--stream'], ['pick'], ['pick', '--stream']];
      const runs = await Promise.all(
        commands.flatMap((command) => [runCli([...command, utf8File]), runCli([...command, file])]),
      );
      for (let i = 0; i < runs.length; i += 2) {
        const [expected, actual] = [runs[i]!, runs[i + 1]!];
        const name = commands[i / 2]!.join(' ');
        assert.equal(expected.code, 0, `${name}: ${expected.stderr}`);
        assert.equal(actual.code, 0, `${name}: ${actual.stderr}`);
        assert.equal(actual.stdout, expected.stdout, name);
      }
    });

    it(`decode reads UTF-16${order.toUpperCase()} TOON from a file and stdin, whole and streamed`, async () => {
      const encoded = await runCli(['encode', utf8File]);
      const toon = join(dir, `rows-${order}.toon`);
      writeFileSync(toon, utf16(encoded.stdout, order));
      const expected = `${JSON.stringify(rows, null, 2)}\n`;
      const runs = await Promise.all([
        runCli(['decode', toon]),
        runCli(['decode', '--stream', toon]),
        runCli(['decode', '--compact', toon]),
      ]);
      assert.equal(runs[0]!.stderr, '');
      assert.equal(runs[0]!.stdout, expected);
      assert.equal(runs[1]!.stdout, expected, runs[1]!.stderr);
      assert.equal(runs[2]!.stdout, `${JSON.stringify(rows)}\n`, runs[2]!.stderr);
    });

    it(`report measures a UTF-16${order.toUpperCase()} file like its UTF-8 twin`, async () => {
      const [expected, actual] = await Promise.all([
        runCli(['report', '--json', utf8File]),
        runCli(['report', '--json', file]),
      ]);
      assert.equal(actual.code, 0, actual.stderr);
      const sizes = (stdout: string) =>
        JSON.stringify(
          (JSON.parse(stdout) as { fixtures: Array<{ candidates: unknown }> }).fixtures[0]!
            .candidates,
        );
      assert.equal(sizes(actual.stdout), sizes(expected.stdout));
    });
  }

  it('reads UTF-16 from stdin, LE and BE, for every command', async () => {
    const small = '{"a":"é😀","b":[1,2]}';
    const toon = 'a: é😀\nb[2]: 1,2\n';
    const runs = await Promise.all(
      (['le', 'be'] as const).flatMap((order) => [
        runCli(['encode'], { input: utf16(small, order) }),
        runCli(['pick', '--by', 'bytes'], { input: utf16(small, order) }),
        runCli(['decode', '--compact'], { input: utf16(toon, order) }),
        runCli(['report', '--json', '-'], { input: utf16(small, order) }),
      ]),
    );
    for (const [i, run] of runs.entries()) assert.equal(run.code, 0, `run ${i}: ${run.stderr}`);
    for (const at of [0, 4]) {
      assert.equal(runs[at]!.stdout, toon);
      assert.equal(runs[at + 1]!.stdout, toon);
      assert.equal(runs[at + 2]!.stdout, '{"a":"é😀","b":[1,2]}\n');
      assert.equal((JSON.parse(runs[at + 3]!.stdout) as { errors: unknown[] }).errors.length, 0);
    }
  });

  it('names the byte offset of an unpaired surrogate and of a lone last byte', async () => {
    const surrogate = join(dir, 'surrogate.json');
    // BOM, '{', a high surrogate followed by '}' instead of a low one.
    writeFileSync(surrogate, Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x00, 0xd8, 0x7d, 0x00]));
    const odd = join(dir, 'odd.json');
    writeFileSync(odd, Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d, 0x00]));
    const [one, two] = await Promise.all([runCli(['encode', surrogate]), runCli(['pick', odd])]);
    const advice =
      '(the file starts with a UTF-16 byte order mark; an unpaired surrogate or a lone last byte follows): check the file, or convert it with `iconv -f UTF-16 -t UTF-8`\n';
    assert.equal(one.code, 1);
    assert.equal(
      one.stderr,
      `toonwire: ${surrogate}: ill-formed UTF-16 at byte offset 4 ${advice}`,
    );
    assert.equal(two.code, 1);
    assert.equal(two.stderr, `toonwire: ${odd}: ill-formed UTF-16 at byte offset 6 ${advice}`);
  });

  it('tells UTF-16 without a byte order mark how to convert, not "not a text file"', async () => {
    const file = join(dir, 'no-bom.json');
    writeFileSync(file, utf16('{"a": 1}', 'le').subarray(2));
    const bigEndian = join(dir, 'no-bom-be.json');
    writeFileSync(bigEndian, utf16('{"a": 1}', 'be').subarray(2));
    const [le, be] = await Promise.all([runCli(['encode', file]), runCli(['encode', bigEndian])]);
    assert.equal(le.code, 1);
    assert.match(
      le.stderr,
      /looks like UTF-16LE without a byte order mark.*iconv -f UTF-16LE -t UTF-8/,
    );
    assert.equal(be.code, 1);
    assert.match(
      be.stderr,
      /looks like UTF-16BE without a byte order mark.*iconv -f UTF-16BE -t UTF-8/,
    );
  });

  it('shows a NUL byte in UTF-8 JSON by name, not as an invisible character', async () => {
    const run = await runCli(['encode'], { input: '[1,\u0000 2]' });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'toonwire: <stdin>:1:4: unexpected NUL byte (U+0000); expected a value\n',
    );
  });

  it('still calls a binary file one', async () => {
    const run = await runCli(['encode', process.execPath]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /not a text file/);
    assert.equal(readFileSync(process.execPath).length > 0, true);
  });
});
