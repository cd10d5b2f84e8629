// Output that cannot be written (a full disk, a file size limit): the command must fail with one
// line naming the reason, never exit 0 on a truncated file, never print a stack trace.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode } from '../../src/codec/encode.js';
import { assertBuilt, CLI, REPO_ROOT } from './run-cli.js';

before(assertBuilt);

const dir = mkdtempSync(join(tmpdir(), 'toonwire-cli-output-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A JSON array whose TOON is about 2 MB. */
const rows = Array.from({ length: 40_000 }, (_, id) => ({ id, name: `row ${id}`, ok: true }));
const rowsFile = join(dir, 'rows.json');
writeFileSync(rowsFile, JSON.stringify(rows));

/** Runs `command` with stdout on the file descriptor `out`; the exit code and stderr. */
function runTo(
  command: string,
  args: readonly string[],
  out: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', out, 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('output that cannot be written', () => {
  for (const args of [
    ['encode', rowsFile],
    ['encode', '--stream', rowsFile],
    ['pick', rowsFile],
  ]) {
    it(`toonwire ${args[0]}${args[1] === '--stream' ? ' --stream' : ''} > /dev/full exits 1 with one line`, async () => {
      const out = openSync('/dev/full', 'w');
      try {
        const { code, stderr } = await runTo(process.execPath, [CLI, ...args], out);
        assert.equal(code, 1);
        assert.equal(
          stderr,
          'toonwire: cannot write the output: no space left on device (ENOSPC)\n',
        );
      } finally {
        closeSync(out);
      }
    });
  }

  it('fails, not exit 0, when the file being written hits its size limit midway (a short write)', async () => {
    const target = join(dir, 'limited.toon');
    const out = openSync(target, 'w');
    try {
      // 100 blocks (51,200 or 102,400 bytes): the ~2 MB output is cut by a short write, then EFBIG.
      const { code, stderr } = await runTo(
        '/bin/sh',
        ['-c', 'ulimit -f 100 && exec "$@"', 'sh', process.execPath, CLI, 'encode', rowsFile],
        out,
      );
      assert.ok(statSync(target).size <= 102_400, 'the limit applied');
      assert.equal(code, 1, stderr);
      assert.equal(stderr, 'toonwire: cannot write the output: file too large (EFBIG)\n');
    } finally {
      closeSync(out);
    }
  });
});

describe('a temporary directory that cannot be written', () => {
  it('encode --stream falls back to two reads of the file and writes the whole output', async () => {
    // The file size limit cuts the spool (a file) at 100 blocks; stdout, a pipe, is not limited.
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'ulimit -f 100 && exec "$@"',
        'sh',
        process.execPath,
        CLI,
        'encode',
        '--stream',
        rowsFile,
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.equal(stdout, `${encode(rows)}\n`);
  });
});
