// Streamed input text: UTF-8 decoded chunk by chunk (1 MB reads) is the file's text, whatever
// sequence a chunk boundary cuts, a leading byte order mark dropped and one further in kept; a
// named pipe (`<(curl ...)`), which has no offsets, is read like a file.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readAllText } from '../../src/cli/stream/read.js';

const dir = mkdtempSync(join(tmpdir(), 'toonwire-read-text-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const CHUNK = 1 << 20;

describe('readAllText on multi-chunk files', () => {
  it('keeps every character a chunk boundary cuts, 2, 3 and 4 bytes long', async () => {
    for (const [letter, shifts] of [
      ['é', [0, 1]],
      ['€', [0, 1, 2]],
      ['😀', [0, 1, 2, 3]],
    ] as const) {
      for (const shift of shifts) {
        const file = join(dir, `cut-${shift}.json`);
        const text = `${'a'.repeat(shift)}${letter.repeat(Math.ceil((2.5 * CHUNK) / 4))}`;
        writeFileSync(file, text);
        assert.ok((await readAllText(file)) === text, `${letter} shifted by ${shift}`);
      }
    }
  });

  it('drops a byte order mark at the start only, even one that starts a later chunk', async () => {
    const file = join(dir, 'bom.json');
    const body = `${'x'.repeat(CHUNK - 3)}\uFEFFafter é`;
    writeFileSync(file, `\uFEFF${body}`);
    assert.equal(
      readFileSync(file)
        .subarray(CHUNK, CHUNK + 3)
        .toString('hex'),
      'efbbbf',
    );
    assert.ok((await readAllText(file)) === body);
  });
});

describe('readAllText on a named pipe', () => {
  it('reads it whole, several blocks long', async (t) => {
    const fifo = join(dir, 'pipe.json');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return t.skip('no mkfifo here');
    const file = join(dir, 'piped.json');
    const text = `[${'"é", '.repeat(CHUNK)}1]`;
    writeFileSync(file, text);
    // A writer of its own: opening a pipe waits for both ends.
    const writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', file, fifo], { stdio: 'ignore' });
    const written = new Promise((resolve) => writer.on('close', resolve));
    const read = await readAllText(fifo);
    await written;
    assert.ok(read === text);
  });
});
