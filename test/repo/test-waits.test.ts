// Tests that pass on a busy machine: no fixed wall-clock wait in test/ (scripts/check-test-waits.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkTestWaits, findFixedWaits } from '../../scripts/check-test-waits.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

describe('fixed waits in tests', () => {
  it('test/ has none that is not marked // wait-ok: REASON', () => {
    const found = checkTestWaits(ROOT).map((wait) => `${wait.file}:${wait.line}: ${wait.text}`);
    assert.deepEqual(found, []);
  });

  it('finds a number as a timeout, a fixed setTimeout and a timers/promises sleep, unless marked', () => {
    const source = [
      "import { setTimeout as delay } from 'node:timers/promises';",
      "it('a', { timeout: 20_000 }, async () => {",
      '  await new Promise((resolve) => setTimeout(resolve, 250));',
      '  await delay(300);',
      '  await delay(50); // wait-ok: a poll interval',
      '  // wait-ok: what the test is about',
      '  await delay(4500);',
      '}, { timeout: hangGuardMs(20_000) });',
    ].join('\n');
    assert.deepEqual(
      findFixedWaits('x.test.ts', source).map((wait) => wait.line),
      [2, 3, 4],
    );
  });
});
