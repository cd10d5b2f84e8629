// `--listen` in front of a server that takes 12 s to start (issue 29, item 8). The Python SDK's
// client, in its default mode, gives its first probe (`server/discover`) 10 s, then falls back to
// initialize. The proxy answers that initialize from the probe, once the upstream has answered
// it: -32022 naming the 2026-07-28 versions, after which the client probes again. So the client
// negotiates 2026-07-28, as it does directly, and one upstream process starts, not two.
//
// The delay is the Must-show's 12 s, more than the client's limit whatever the machine's load:
// the test waits for the client's end, never for time.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PYTHON_CLIENT, pythonServerCommand, pythonWithMcp, run } from '../support/python.js';
import { type LineProcess, startListening, stopListening } from './helpers.js';

const setup = await pythonWithMcp();
const skip = setup.skip;

/** The start-up delay of the Must-show: longer than the Python client's 10 s for its probe. */
const START_DELAY_S = 12;

interface Report {
  ok: boolean;
  protocolVersion: string | null;
  era: string;
  sent: string[];
  tools: Array<{ name: string }>;
  rpcErrors: Array<{ method: string; code: number }>;
  errors: string[];
}

describe(`--listen in front of a server that takes ${START_DELAY_S} s to start`, { skip }, () => {
  let folder: string;
  let pidLog: string;
  let proxy: LineProcess;
  let url: string;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toonwire-slow-start-'));
    pidLog = join(folder, 'pids');
    writeFileSync(pidLog, '');
    ({ proxy, url } = await startListening(['--', ...pythonServerCommand(setup.python!)], {
      ...process.env,
      TOONWIRE_PY_START_DELAY: String(START_DELAY_S),
      TOONWIRE_PY_PID_LOG: pidLog,
    }));
  });

  after(async () => {
    if (proxy !== undefined) await stopListening(proxy);
    rmSync(folder, { recursive: true, force: true });
  });

  it('lets the Python client (default mode) negotiate 2026-07-28 with one upstream process', async (t) => {
    const done = await run(setup.python!, [PYTHON_CLIENT, '--url', url]);
    assert.equal(done.code, 0, done.stderr.slice(-2000));
    const report = JSON.parse(done.stdout) as Report;
    t.diagnostic(`the client sent ${report.sent.join(', ')}`);
    assert.equal(report.ok, true, JSON.stringify(report.errors));
    assert.equal(report.protocolVersion, '2026-07-28', JSON.stringify(report));
    assert.equal(report.era, 'modern');
    assert.ok(report.tools.length > 0, 'the tools were listed');
    const started = readFileSync(pidLog, 'utf8').split('\n').filter(Boolean);
    assert.equal(started.length, 1, `upstream processes started: ${started.join(', ')}`);
    // Whether the client's probe outlasted its patience depends on the machine's speed; when it
    // did, the client fell back to initialize, was told -32022, and probed again.
    if (report.sent.includes('initialize')) {
      assert.deepEqual(
        report.sent.slice(0, 3),
        ['server/discover', 'initialize', 'server/discover'],
        JSON.stringify(report.sent),
      );
      assert.ok(report.rpcErrors.some((error) => error.code === -32022));
    }
  });
});
