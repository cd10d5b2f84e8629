import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { assertBuilt, CLI, REPO_ROOT, runCli } from './run-cli.js';

before(assertBuilt);

describe('toonwire (the program)', () => {
  it('prints the package version with --version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as {
      version: string;
    };
    const run = await runCli(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout.trim(), version);
  });

  it('lists every command in --help and exits 0', async () => {
    const run = await runCli(['--help']);
    assert.equal(run.code, 0);
    for (const command of ['report', 'encode', 'decode', 'pick', 'proxy']) {
      assert.match(run.stdout, new RegExp(`^  ${command} `, 'm'), `${command} is listed`);
    }
    assert.match(run.stdout, /Exit codes: 0 success, 1 bad input data/);
  });

  for (const command of ['report', 'encode', 'decode', 'pick']) {
    it(`prints help for ${command} with --help and exits 0`, async () => {
      const run = await runCli([command, '--help']);
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`^Usage: toonwire ${command} `, 'm'));
      assert.match(run.stdout, /Examples:/);
    });
  }

  const refusals: Array<[string, string]> = [
    ['--timeout=1.5', 'expected a whole number of milliseconds (0 disables the timeout)'],
    ['--idle-timeout=x', 'expected a number of seconds, e.g. 120 (0 never ends idle sessions)'],
    ['--max-sessions=0', 'expected a whole number of sessions >= 1, e.g. 32'],
    ['--max-tokens=1.5', 'expected a whole number of tokens, e.g. 20000 (0: no budget)'],
    ['--page-ttl=0', 'expected a number greater than 0'],
    ['--page-cache-mb=-2', 'expected a number greater than 0'],
  ];
  for (const [option, reason] of refusals) {
    it(`refuses proxy ${option} with exit 2: "${reason}"`, async () => {
      const run = await runCli(['proxy', option, '--', process.execPath, '-e', '']);
      assert.equal(run.code, 2);
      const [name, value] = option.split('=');
      assert.match(
        run.stderr,
        new RegExp(`option '${name} <[a-z]+>' argument '${value}' is invalid`),
      );
      assert.ok(run.stderr.includes(`is invalid. ${reason}\n`), run.stderr);
    });
  }

  it('exits 2 with the usage on stderr when no command is given', async () => {
    const run = await runCli([]);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /Usage: toonwire/);
  });

  it('exits 2 for an unknown command and says which', async () => {
    const run = await runCli(['bogus']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown command 'bogus'/);
  });

  it('exits 2 for an unknown option', async () => {
    const run = await runCli(['encode', '--frobnicate']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown option '--frobnicate'/);
  });

  it('starts with a node shebang so the bin runs directly', () => {
    const source = readFileSync(`${REPO_ROOT}dist/cli/main.js`, 'utf8');
    assert.ok(source.startsWith('#!/usr/bin/env node\n'));
  });

  it('exits 0 without a stack trace when the reader closes the pipe early (`| head`)', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'encode', 'corpus/projection/google-maps-restaurants-vienna-100.json'],
      { cwd: REPO_ROOT },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
