// The encoders on a short call stack: a value within the 1000-level bound can still exhaust the
// stack left to a caller deep in recursion or on a thread with a small stack. That must be the
// encoder's own RangeError, saying what to do, never the engine's bare "Maximum call stack size
// exceeded" (which encode, encodeLines and normalize used to let through). Run in a child process
// started with a small stack, since a test cannot shrink its own.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What each encoder throws for a 999-deep value, run with `--stack-size=200` (kilobytes). */
function encodeOnShortStack(): Record<string, string> {
  const script = `
    import { encode, encodeLines } from './src/codec/encode.ts';
    import { normalize } from './src/codec/normalize.ts';
    let nested = 1;
    for (let i = 1; i < 1000; i++) nested = [nested];
    let dated = {};
    for (let i = 1; i < 1000; i++) dated = { a: dated, at: new Date(0) };
    const outcome = {};
    for (const [name, run] of Object.entries({
      encode: () => encode(nested),
      'encode with host values': () => encode(dated),
      encodeLines: () => [...encodeLines(nested)],
      normalize: () => normalize(dated),
    })) {
      try { run(); outcome[name] = 'no error'; }
      catch (error) { outcome[name] = error.constructor.name + ': ' + error.message; }
    }
    console.log(JSON.stringify(outcome));
  `;
  const child = spawnSync(
    process.execPath,
    ['--stack-size=200', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Record<string, string>;
}

describe('encoders on a short call stack', () => {
  it('explain the stack running out instead of passing the engine error on', () => {
    const outcome = encodeOnShortStack();
    for (const [name, message] of Object.entries(outcome)) {
      assert.doesNotMatch(message, /Maximum call stack size exceeded/, name);
      // On this stack none of them gets through (each needs a few frames per level).
      assert.match(
        message,
        /^RangeError: cannot encode this value: the JavaScript call stack/,
        name,
      );
      assert.match(
        message,
        /flatten the data, call encode with more stack left, or send it as JSON/,
      );
    }
    assert.deepEqual(Object.keys(outcome).length, 4);
  });
});
