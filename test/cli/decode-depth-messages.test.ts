// `toonwire decode` errors about depth name the command's flag, `--max-depth`, not the library
// option `maxDepth` (found in a field trial: "raise the maxDepth option", which no flag is called).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);

const dir = mkdtempSync(join(tmpdir(), 'toonwire-depth-messages-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `depth` nested `a:` keys around a leaf, indented one space per level (`--indent 1`). */
function deepToon(depth: number): string {
  const lines = Array.from({ length: depth }, (_, level) => `${' '.repeat(level)}a:`);
  return [...lines, `${' '.repeat(depth)}leaf: 1`].join('\n');
}

describe('decode errors about nesting depth', () => {
  const file = join(dir, 'deep.toon');
  writeFileSync(file, deepToon(1_100));
  const tooDeepForStack = join(dir, 'deeper.toon');
  writeFileSync(tooDeepForStack, deepToon(6_000));

  for (const mode of [[], ['--stream']]) {
    const label = mode.length === 0 ? 'in memory' : 'streamed';

    it(`names --max-depth when the document is deeper than it (${label})`, async () => {
      const run = await runCli(['decode', '--indent', '1', ...mode, file]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /^toonwire: .*deep\.toon:1000:\d+: nesting is deeper than --max-depth \(1000\); flatten the data or raise --max-depth for trusted input\n$/,
      );
      assert.doesNotMatch(run.stderr, /maxDepth/);
    });

    it(`names --max-depth when the call stack runs out first (${label})`, async () => {
      const run = await runCli([
        'decode',
        '--indent',
        '1',
        '--max-depth',
        '10000',
        ...mode,
        tooDeepForStack,
      ]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /^toonwire: .*deeper\.toon:\d+:\d+: .*call stack; lower --max-depth\n$/m,
      );
      assert.doesNotMatch(run.stderr, /maxDepth/);
    });
  }
});
