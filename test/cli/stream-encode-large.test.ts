// encode --stream on files of several chunks (the reader's chunks are 1 MB): one read with the
// rows set aside in a temporary file, a second read when a late row changes the array's form,
// two reads when no temporary file can be made; every way, what encode writes for the whole
// array, and no temporary file left behind.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode } from '../../src/codec/encode.js';
import type { JsonValue } from '../../src/codec/types.js';
import { assertBuilt, runCli } from './run-cli.js';

before(assertBuilt);
const dir = mkdtempSync(join(tmpdir(), 'toonwire-stream-large-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** About 3.5 MB of JSON: strings with quotes, newlines, backslashes and non-ASCII letters. */
const rows: JsonValue[] = Array.from({ length: 15_000 }, (_, i) => ({
  id: i,
  title: `"Ré${i}" said, \\ then\nleft`,
  price: i / 8,
  ok: i % 3 === 0,
  seller: { name: `s${i % 7}`, tags: i % 5 },
}));

/** Writes `values` as a JSON array in one of the layouts files come in. */
function writeJson(name: string, values: JsonValue[], style: 'lines' | 'pretty' | 'minified') {
  const file = join(dir, name);
  const text =
    style === 'pretty'
      ? JSON.stringify(values, null, 2)
      : style === 'minified'
        ? JSON.stringify(values)
        : `[\n${values.map((value) => JSON.stringify(value)).join(',\n')}\n]\n`;
  writeFileSync(file, text);
  return file;
}

async function assertEncodes(file: string, values: JsonValue[], env?: Record<string, string>) {
  const run = await runCli(['encode', '--stream', file], env === undefined ? {} : { env });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout === `${encode(values)}\n`, `${file}: the output differs from encode()`);
}

describe('encode --stream of a multi-megabyte array', () => {
  it('writes what encode writes, in every layout of the file', async () => {
    await Promise.all(
      (['lines', 'pretty', 'minified'] as const).map((style) =>
        assertEncodes(writeJson(`rows-${style}.json`, rows, style), rows),
      ),
    );
  });

  it('reads the file again when a late row breaks the table or the inline list', async () => {
    const broken = [...rows, { other: true }];
    const scalars: JsonValue[] = [...Array.from({ length: 400_000 }, (_, i) => i), { late: 1 }];
    await Promise.all([
      assertEncodes(writeJson('late-misfit.json', broken, 'lines'), broken),
      assertEncodes(writeJson('late-object.json', scalars, 'minified'), scalars),
    ]);
  });

  it('reads the file twice when no temporary file can be made, and leaves none behind', async () => {
    const file = writeJson('rows-tmp.json', rows, 'lines');
    const own = join(dir, 'tmp');
    mkdirSync(own);
    await assertEncodes(file, rows, { TMPDIR: join(dir, 'no-such-directory') });
    await assertEncodes(file, rows, { TMPDIR: own });
    assert.deepEqual(readdirSync(own), []);
  });
});
