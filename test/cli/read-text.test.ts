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
import { hangGuardMs } from '../support/patience.js';
import { CLI } from './run-cli.js';

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

describe('ill-formed UTF-8 from a pipe', () => {
  // Before the offset was counted as the bytes came, a pipe was opened again to find it: a named
  // pipe with no writer left blocks that open forever. The guard (scaled by the machine's
  // slowdown) turns such a hang into a failure, and nothing started here outlives the tests.
  const started = new Set<ReturnType<typeof spawn>>();
  after(() => {
    for (const child of started) child.kill('SIGKILL');
  });
  /** `toonwire encode [path]` with `input` on stdin; the exit code and stderr. */
  function encodeFrom(
    input: Uint8Array,
    path?: string,
  ): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [CLI, 'encode', ...(path === undefined ? [] : [path])],
        {
          stdio: ['pipe', 'ignore', 'pipe'],
        },
      );
      started.add(child);
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        started.delete(child);
        resolve({ code, stderr });
      });
      child.stdin.on('error', () => {}); // the CLI stops reading at the bad byte
      child.stdin.end(input);
    });
  }
  const message = (source: string, offset: number) =>
    `toonwire: ${source}: ill-formed UTF-8 at byte offset ${offset}; JSON and TOON input must be UTF-8: convert the file from its encoding (for Latin-1, \`iconv -f latin1 -t utf-8\`)\n`;
  // A byte order mark, then 2.5 MB of 'é' (many pipe reads), then a Latin-1 byte.
  const head = Buffer.from(`\uFEFF["${'é'.repeat(1_250_000)}`);
  const input = Buffer.concat([head, Buffer.from([0xff]), Buffer.from('"]')]);

  it('names the byte offset on stdin, as for a file', async () => {
    assert.deepEqual(await encodeFrom(input), { code: 1, stderr: message('<stdin>', head.length) });
  });

  it('names the byte offset of a sequence cut by the end of stdin', async () => {
    const cut = Buffer.from('["\xc3', 'latin1');
    assert.deepEqual(await encodeFrom(cut), { code: 1, stderr: message('<stdin>', 2) });
  });

  it('names the byte offset in a named pipe (which cannot be read twice)', {
    timeout: hangGuardMs(120_000),
  }, async (t) => {
    const fifo = join(dir, 'bad-pipe.json');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return t.skip('no mkfifo here');
    const file = join(dir, 'bad.json');
    writeFileSync(file, input);
    const writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', file, fifo], { stdio: 'ignore' });
    started.add(writer);
    const closed = new Promise((resolve) => writer.on('close', resolve));
    const run = await encodeFrom(Buffer.alloc(0), fifo);
    writer.kill(); // the CLI stopped reading at the bad byte; cat may still be blocked
    await closed;
    assert.deepEqual(run, { code: 1, stderr: message(fifo, head.length) });
  });
});
