// The encoders on a short call stack: a value within the 1000-level bound can still exhaust the
// stack left to a caller deep in recursion or on a thread with a small stack. That must be the
// encoder's own RangeError, saying what to do, never the engine's bare "Maximum call stack size
// exceeded" (which encode, encodeLines and normalize used to let through). Run in child
// processes, since a test cannot shrink its own stack.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `body` (module code that sets `outcome`) in a child with `flags`; returns `outcome`. */
function runChild(flags: string[], body: string): Record<string, string> {
  const script = `
    import { encode, encodeLines } from './src/codec/encode.ts';
    import { normalize } from './src/codec/normalize.ts';
    let nested = 1;
    for (let i = 1; i < 1000; i++) nested = [nested];
    const describe = (error) => error.constructor.name + ': ' + error.message;
    const outcome = {};
    ${body}
    console.log(JSON.stringify(outcome));
  `;
  const child = spawnSync(
    process.execPath,
    [...flags, '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Record<string, string>;
}

/** Asserts every outcome is the encoder's explained RangeError. */
function assertExplained(outcome: Record<string, string>, count: number): void {
  assert.equal(Object.keys(outcome).length, count);
  for (const [name, message] of Object.entries(outcome)) {
    assert.doesNotMatch(message, /Maximum call stack size exceeded/, name);
    assert.match(message, /^RangeError: cannot encode this value: the JavaScript call stack/, name);
    assert.match(message, /flatten the data, call encode with more stack left, or send it as JSON/);
  }
}

describe('encoders on a short call stack', () => {
  it('explain the stack running out instead of passing the engine error on', () => {
    // On a 200 KB stack none of them gets through 999 levels (each needs a few frames per level).
    const outcome = runChild(
      ['--stack-size=200'],
      `
      let dated = {};
      for (let i = 1; i < 1000; i++) dated = { a: dated, at: new Date(0) };
      for (const [name, run] of Object.entries({
        encode: () => encode(nested),
        'encode with host values': () => encode(dated),
        encodeLines: () => [...encodeLines(nested)],
        normalize: () => normalize(dated),
      })) {
        try { run(); outcome[name] = 'no error'; } catch (error) { outcome[name] = describe(error); }
      }`,
    );
    assertExplained(outcome, 4);
  });

  it('explain it for lines of encodeLines taken from deep recursion', () => {
    // encodeLines builds each line as it is taken: taken from ever deeper recursion, the lines
    // meet the stack's end in the line writer, after the value was normalized on a shallow stack.
    const outcome = runChild(
      [],
      `
      const takeAt = (depth, lines) => {
        if (depth > 0) return takeAt(depth - 1, lines);
        try { for (const _ of lines); return undefined; } catch (error) { return error; }
      };
      let found = 'no error';
      for (let depth = 0; depth < 100000 && found === 'no error'; depth += 25) {
        const lines = encodeLines(nested);
        try {
          const error = takeAt(depth, lines);
          if (error !== undefined) found = describe(error);
        } catch {
          found = 'the recursion overflowed before the lines did';
        }
      }
      outcome['lines taken from deep recursion'] = found;`,
    );
    assertExplained(outcome, 1);
  });
});
