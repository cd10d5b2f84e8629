// JSON nested deeper than JSON.stringify can write (it overflows the call stack a few thousand
// levels down, while JSON.parse reads tens of thousands): `toonwire pick` ships such a value as
// JSON, since TOON refuses it, and `toonwire decode --from-pick` must write it back instead of
// dying with "unexpected error ... Maximum call stack size exceeded".
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { jsonPieces } from '../../src/cli/stream/json-output.js';
import type { JsonValue } from '../../src/codec/types.js';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);

/** Levels far beyond what JSON.stringify writes on Node's default stack (about 4,000 to 5,000). */
const DEEP = 20_000;

/** `{"a":{"a":...[1,2]...}}` nested `depth` objects deep, as compact JSON text. */
function deepObjectText(depth: number): string {
  return `${'{"a":'.repeat(depth)}[1,2]${'}'.repeat(depth)}`;
}

/** The text JSON.stringify(value, null, indent) would write for deepObjectText(depth). */
function deepObjectIndented(depth: number, indent: number): string {
  const pad = (level: number) => ' '.repeat(indent * level);
  const parts = ['{'];
  for (let level = 1; level < depth; level++) parts.push(`\n${pad(level)}"a": {`);
  parts.push(`\n${pad(depth)}"a": [\n${pad(depth + 1)}1,\n${pad(depth + 1)}2\n${pad(depth)}]`);
  for (let level = depth - 1; level >= 0; level--) parts.push(`\n${pad(level)}}`);
  return parts.join('');
}

describe('jsonPieces on values too deep for JSON.stringify', () => {
  const value = JSON.parse(deepObjectText(DEEP)) as JsonValue;
  // Indented text grows with the square of the depth: 5,000 levels is 25 MB of spaces.
  const indentedValue = JSON.parse(deepObjectText(5_000)) as JsonValue;

  it('writes them compact, as JSON.stringify would without a depth limit', () => {
    assert.equal([...jsonPieces(value, 0)].join(''), deepObjectText(DEEP));
  });

  it('writes them indented, as JSON.stringify(value, null, 2) would', () => {
    assert.equal([...jsonPieces(indentedValue, 2)].join(''), deepObjectIndented(5_000, 2));
  });

  it('writes a deep chain of large containers (written entry by entry) like JSON.stringify', () => {
    // 150 levels of 65-entry arrays: past the levels jsonPieces recurses through itself.
    let nested: JsonValue = 'end';
    for (let level = 0; level < 150; level++)
      nested = [...Array.from({ length: 64 }, (_, i) => i), nested];
    for (const indent of [0, 2, 4]) {
      assert.equal(
        [...jsonPieces(nested, indent)].join(''),
        JSON.stringify(nested, null, indent),
        `indent ${indent}`,
      );
    }
  });
});

describe('toonwire pick | toonwire decode --from-pick on deeply nested JSON', () => {
  it('reads back what pick shipped, compact and indented, with exit 0', async () => {
    const text = deepObjectText(DEEP);
    const picked = await runCli(['pick'], { input: text });
    assert.equal(picked.code, 0, picked.stderr);
    assert.equal(picked.stdout, `${text}\n`);

    const compact = await runCli(['decode', '--from-pick', '--compact'], { input: picked.stdout });
    assert.equal(compact.stderr, '');
    assert.equal(compact.code, 0);
    assert.equal(compact.stdout, `${text}\n`);

    const indentedText = deepObjectText(5_000);
    const indented = await runCli(['decode', '--from-pick'], { input: indentedText });
    assert.equal(indented.stderr, '');
    assert.equal(indented.code, 0);
    assert.equal(indented.stdout, `${deepObjectIndented(5_000, 2)}\n`);
  });
});
