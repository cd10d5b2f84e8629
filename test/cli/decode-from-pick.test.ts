// `toonwire decode` refuses JSON (TOON would misread it as a key line), and `--from-pick` reads
// what `toonwire pick` wrote, whichever format the picker chose.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);

const dir = mkdtempSync(join(tmpdir(), 'toonwire-from-pick-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One small object: JSON is smallest, so pick ships JSON. */
const small = { id: '1', tags: ['a', 'b'] };
/** Uniform rows: TOON is far smaller, so pick ships TOON. */
const rows = {
  items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `name-${i}`, score: i % 7 })),
};

/** `toonwire pick` of `value`, then `toonwire decode ...flags` of what it wrote. */
async function pickThenDecode(value: unknown, pickFlags: string[], decodeFlags: string[]) {
  const picked = await runCli(['pick', ...pickFlags], { input: JSON.stringify(value) });
  assert.equal(picked.code, 0, picked.stderr);
  const decoded = await runCli(['decode', ...decodeFlags], { input: picked.stdout });
  return { picked: picked.stdout, decoded };
}

describe('toonwire decode on JSON input', () => {
  it('refuses a JSON file with exit 1 and names decode --from-pick and parseCompact', async () => {
    const file = join(dir, 'obj.json');
    writeFileSync(file, JSON.stringify(small));
    const run = await runCli(['decode', file]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^toonwire: .*obj\.json is JSON, not TOON/);
    assert.match(run.stderr, /toonwire decode --from-pick/);
    assert.match(run.stderr, /parseCompact\(text, strategy\)/);
  });

  it('refuses a JSON array on stdin and a JSON file decoded with --stream', async () => {
    const array = await runCli(['decode'], { input: '[1, 2, {"a": 3}]' });
    assert.equal(array.code, 1);
    assert.match(array.stderr, /<stdin> is JSON, not TOON/);
    const file = join(dir, 'big.json');
    writeFileSync(file, JSON.stringify(rows));
    const streamed = await runCli(['decode', '--stream', file]);
    assert.equal(streamed.code, 1);
    assert.match(streamed.stderr, /is JSON, not TOON/);
  });

  it('still decodes TOON root arrays, which also open with [', async () => {
    const run = await runCli(['decode', '--compact'], { input: '[2]{a,b}:\n  1,x\n  2,y\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '[{"a":1,"b":"x"},{"a":2,"b":"y"}]\n');
    const list = await runCli(['decode', '--compact'], { input: '[3|]: a|b|c' });
    assert.equal(list.stdout, '["a","b","c"]\n');
  });
});

describe('toonwire pick | toonwire decode --from-pick', () => {
  it('round-trips a JSON pick', async () => {
    const { picked, decoded } = await pickThenDecode(small, [], ['--from-pick']);
    assert.equal(picked.trimStart()[0], '{', `pick shipped JSON: ${picked}`);
    assert.equal(decoded.code, 0, decoded.stderr);
    assert.deepEqual(JSON.parse(decoded.stdout), small);
  });

  it('round-trips a TOON pick', async () => {
    const { picked, decoded } = await pickThenDecode(rows, [], ['--from-pick']);
    assert.match(picked, /^items\[40\]\{id,name,score\}:/, 'pick shipped TOON');
    assert.equal(decoded.code, 0, decoded.stderr);
    assert.deepEqual(JSON.parse(decoded.stdout), rows);
  });

  it('round-trips a toon-flatten pick with --unflatten, and a JSON pick with it too', async () => {
    const nested = {
      items: Array.from({ length: 30 }, (_, i) => ({ id: i, owner: { name: `o${i}`, n: i } })),
    };
    const flat = await pickThenDecode(
      nested,
      ['-c', 'toon-flatten'],
      ['--from-pick', '--unflatten'],
    );
    assert.match(flat.picked, /owner\.name/, 'pick shipped toon-flatten');
    assert.deepEqual(JSON.parse(flat.decoded.stdout), nested);
    const json = await pickThenDecode({ 'a.b': 1 }, [], ['--from-pick', '--unflatten']);
    assert.deepEqual(JSON.parse(json.decoded.stdout), { 'a.b': 1 });
  });
});
