// `toonwire report` with data on standard input and no file: the data is the payload, as for
// the other commands (it used to measure the sample corpus and ignore the data). An empty pipe
// still means the corpus: report.test.ts runs `report` with one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReportData } from '../../src/cli/report/model.js';
import { assertBuilt, CLI, type CliRun, REPO_ROOT, runCli } from './run-cli.js';

before(assertBuilt);
const dir = mkdtempSync(join(tmpdir(), 'toonwire-report-stdin-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const rows = '[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]';

/** Runs the CLI with `file` itself as its standard input (`toonwire ... < file`). */
function runWithStdinFile(args: readonly string[], file: string): Promise<CliRun> {
  const fd = openSync(file, 'r');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      stdio: [fd, 'pipe', 'pipe'],
    });
    closeSync(fd);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function onlyFixture(run: CliRun): ReportData['fixtures'][number] {
  assert.equal(run.code, 0, run.stderr);
  const data = JSON.parse(run.stdout) as ReportData;
  assert.equal(data.source, 'files');
  assert.equal(data.fixtures.length, 1);
  return data.fixtures[0]!;
}

describe('toonwire report on standard input', () => {
  it('measures piped JSON when no file is given, named <stdin>', async () => {
    const fixture = onlyFixture(await runCli(['report', '--json'], { input: rows }));
    assert.equal(fixture.name, 'stdin');
    assert.equal(fixture.path, '<stdin>');
    assert.equal(fixture.group, 'stdin');
    assert.equal(fixture.items, 3);
  });

  it('measures a file redirected to stdin, and calls an empty one empty', async () => {
    const file = join(dir, 'rows.json');
    writeFileSync(file, rows);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    const [full, none] = await Promise.all([
      runWithStdinFile(['report', '--json'], file),
      runWithStdinFile(['report'], empty),
    ]);
    assert.equal(onlyFixture(full).items, 3);
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /^toonwire: <stdin>:1:1: the input is empty; expected a JSON value\n/,
    );
  });

  it('reads JSON Lines with --jsonl, which the JSON error advises', async () => {
    const lines = '{"id":1}\n{"id":2}\n';
    const [plain, jsonl] = await Promise.all([
      runCli(['report', '-'], { input: lines }),
      runCli(['report', '--jsonl', '--json', '-'], { input: lines }),
    ]);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /^toonwire: <stdin>:2:1: .*pass --jsonl\n/);
    assert.equal(onlyFixture(jsonl).items, 2);
  });

  it('still reads the named files, not stdin, when files are given', async () => {
    const file = join(dir, 'named.json');
    writeFileSync(file, '[{"x":1}]');
    const fixture = onlyFixture(await runCli(['report', '--json', file], { input: rows }));
    assert.equal(fixture.path, file);
    assert.equal(fixture.items, 1);
  });
});
