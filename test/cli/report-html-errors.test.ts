// `toonwire report --html FILE` with a FILE that cannot be written fails before measuring (a
// report on a folder can take minutes), with the reason in words. Found in a field trial: the
// whole report was measured and printed first, then Node's raw "ENOENT: no such file or
// directory, open '...'" ended the run.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);

const dir = mkdtempSync(join(tmpdir(), 'toonwire-html-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const input = join(dir, 'rows.json');
writeFileSync(input, JSON.stringify([{ id: 1, name: 'a' }]));

describe('report --html to a path that cannot be written', () => {
  it('fails before measuring when the directory does not exist', async () => {
    const page = join(dir, 'missing', 'report.html');
    const run = await runCli(['report', input, '--html', page]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      `toonwire: ${page}: cannot write the HTML report: no such directory (ENOENT)\n`,
    );
    assert.equal(existsSync(join(dir, 'missing')), false);
  });

  it('fails before measuring when the path is a directory', async () => {
    const page = join(dir, 'a-directory');
    mkdirSync(page);
    const run = await runCli(['report', input, '--html', page]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      `toonwire: ${page}: cannot write the HTML report: is a directory (EISDIR)\n`,
    );
  });

  it('fails before measuring when a parent in the path is a file', async () => {
    const page = join(input, 'report.html');
    const run = await runCli(['report', input, '--html', page]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /cannot write the HTML report: a parent in the path is not a directory \(ENOTDIR\)\n$/,
    );
  });

  it('still writes the page to a path that can be written', async () => {
    const page = join(dir, 'report.html');
    const run = await runCli(['report', input, '--html', page]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Round trip: all \d+ encodings decode back/);
    assert.ok(existsSync(page));
  });
});
