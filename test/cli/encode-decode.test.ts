import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);

const rows = {
  items: [
    { id: 1, name: 'Ada', tags: ['a', 'b'] },
    { id: 2, name: 'Bob', tags: [] },
  ],
  nested: { deep: { x: 'y: z' } },
};
const dir = mkdtempSync(join(tmpdir(), 'toonwire-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('toonwire encode', () => {
  it('reads JSON on stdin and writes TOON on stdout', async () => {
    const run = await runCli(['encode'], {
      input: JSON.stringify([
        { a: 1, b: 'x' },
        { a: 2, b: 'y' },
      ]),
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '[2]{a,b}:\n  1,x\n  2,y\n');
    assert.equal(run.stderr, '');
  });

  it('reads a file given as argument', async () => {
    const file = join(dir, 'one.json');
    writeFileSync(file, '{"a": 1}');
    const run = await runCli(['encode', file]);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, 'a: 1\n');
  });

  it('uses the tab delimiter with --delimiter tab', async () => {
    const run = await runCli(['encode', '--delimiter', 'tab'], {
      input: '[{"a":1,"b":2},{"a":3,"b":4}]',
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '[2\t]{a\tb}:\n  1\t2\n  3\t4\n');
  });

  it('exits 1 with a plain message for text TOON cannot carry (an unpaired surrogate)', async () => {
    const run = await runCli(['encode'], { input: '{"a":"x\\ud800"}' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /^toonwire: <stdin>: cannot encode a string with an unpaired surrogate/,
    );
    assert.doesNotMatch(run.stderr, /please report| {4}at /);
  });

  it('indents by --indent spaces', async () => {
    const run = await runCli(['encode', '--indent', '4'], { input: '{"a":{"b":1}}' });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, 'a:\n    b: 1\n');
  });

  it('reads JSON Lines as the array of its lines', async () => {
    const file = join(dir, 'rows.jsonl');
    writeFileSync(file, '{"a":1}\n\n{"a":2}\n');
    const run = await runCli(['encode', file]);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '[2]{a}:\n  1\n  2\n');
  });

  it('reports malformed JSON as <stdin>:line:column and exits 1', async () => {
    const run = await runCli(['encode'], { input: '{\n  "a": 1,\n  "b": }\n' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, "toonwire: <stdin>:3:8: unexpected '}'; expected a value\n");
  });

  it('names the file and the JSON Lines line of an error', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"a":1}\n{"a":2,}\n');
    const run = await runCli(['encode', file]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `toonwire: ${file}:2:8: unexpected '}'; expected a property name in double quotes\n`,
    );
  });

  it('exits 1 naming a file that does not exist', async () => {
    const run = await runCli(['encode', join(dir, 'missing.json')]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `toonwire: ${join(dir, 'missing.json')}: cannot read: no such file\n`);
  });

  it('calls empty input empty, for encode and pick alike', async () => {
    // Was "unexpected end of input; the JSON is incomplete", as for a truncated document.
    for (const command of ['encode', 'pick']) {
      const run = await runCli([command], { input: '' });
      assert.equal(run.code, 1, command);
      assert.equal(
        run.stderr,
        'toonwire: <stdin>:1:1: the input is empty; expected a JSON value\n',
      );
    }
  });

  it('exits 2 for an unknown delimiter', async () => {
    const run = await runCli(['encode', '--delimiter', ';'], { input: '{}' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /argument ';' is invalid/);
  });

  it('exits 2 for an indent that is not a positive integer', async () => {
    const run = await runCli(['encode', '--indent', '0'], { input: '{}' });
    assert.equal(run.code, 2);
  });

  it('exits 2 with the allowed range for a huge indent, in encode and decode alike', async () => {
    // Was "toonwire: <stdin>: Invalid string length", exit 1, after reading the whole input.
    for (const command of ['encode', 'decode']) {
      const run = await runCli([command, '--indent', '999999999999'], { input: '{"a":{"b":1}}' });
      assert.equal(run.code, 2, command);
      assert.equal(run.stdout, '', command);
      assert.match(
        run.stderr,
        /^toonwire: option '-i, --indent <spaces>' argument '999999999999' is invalid\. Use a whole number of spaces from 1 to 32\.\n/,
        command,
      );
    }
  });
});

describe('toonwire decode', () => {
  it('decodes an empty input to {} and says so on stderr (TOON spec §5)', async () => {
    const run = await runCli(['decode'], { input: '' });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '{}\n');
    assert.equal(
      run.stderr,
      'toonwire: warning: <stdin> is empty; an empty TOON document decodes to {} (TOON spec §5)\n',
    );
    const document = await runCli(['decode'], { input: 'a: 1\n' });
    assert.equal(document.stderr, '', 'no warning for a document');
  });

  it('turns encode output back into the same JSON', async () => {
    const encoded = await runCli(['encode'], { input: JSON.stringify(rows) });
    const decoded = await runCli(['decode'], { input: encoded.stdout });
    assert.equal(decoded.code, 0);
    assert.deepEqual(JSON.parse(decoded.stdout), rows);
    assert.equal(decoded.stdout, `${JSON.stringify(rows, null, 2)}\n`);
  });

  it('writes one line with --compact', async () => {
    const run = await runCli(['decode', '--compact'], { input: 'a[2]: 1,2\n' });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '{"a":[1,2]}\n');
  });

  it('reports a strict-mode error as <stdin>:line:column: message and exits 1', async () => {
    const run = await runCli(['decode'], { input: 'ok: 1\ntags[3]: a,b\n' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /^toonwire: <stdin>:2:\d+: expected 3 values as declared by \[3\], found 2/,
    );
    assert.equal(run.stderr.split('\n').filter(Boolean).length, 1, 'one line, no stack trace');
  });

  it('names the file in the error', async () => {
    const file = join(dir, 'bad.toon');
    writeFileSync(file, 'a:\n   b: 1\n');
    const run = await runCli(['decode', file]);
    assert.equal(run.code, 1);
    assert.ok(run.stderr.startsWith(`toonwire: ${file}:2:`), run.stderr);
  });

  it('accepts the same document with --no-strict', async () => {
    const run = await runCli(['decode', '--no-strict', '--compact'], { input: 'tags[3]: a,b\n' });
    assert.equal(run.code, 0);
    assert.deepEqual(JSON.parse(run.stdout), { tags: ['a', 'b'] });
  });

  it('rebuilds nesting from dotted keys with --unflatten', async () => {
    const run = await runCli(['decode', '--unflatten', '--compact'], {
      input: '[2]{id,stats.runs}:\n  1,10\n  2,20\n',
    });
    assert.equal(run.code, 0);
    assert.deepEqual(JSON.parse(run.stdout), [
      { id: 1, stats: { runs: 10 } },
      { id: 2, stats: { runs: 20 } },
    ]);
  });
});
