import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Spool } from '../../src/cli/stream/spool.js';

/** A stream that keeps what it is given, slowly (each write completes on a later turn). */
function collector(): { out: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      // Copied only as the write completes, on a later turn: a buffer the spool refilled
      // before then would show here.
      setImmediate(() => {
        chunks.push(Buffer.from(chunk));
        done();
      });
    },
  });
  return { out, bytes: () => Buffer.concat(chunks) };
}

async function spooled(texts: readonly string[]): Promise<Buffer> {
  const spool = Spool.open();
  assert.ok(spool, 'the temporary directory is writable');
  try {
    for (const text of texts) spool.write(text);
    const { out, bytes } = collector();
    await spool.copyTo(out);
    return bytes();
  } finally {
    spool.close();
  }
}

describe('Spool', () => {
  it('gives back the UTF-8 of everything written, in order, whatever the sizes of the writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 40 }),
            // Long texts: several fill the buffer, one is larger than it (written on its own).
            fc
              .tuple(
                fc.constantFrom('a', 'é', '😀', '\n  x,"y"'),
                fc.integer({ min: 0, max: 400_000 }),
              )
              .map(([unit, times]) => unit.repeat(times)),
          ),
          { maxLength: 12 },
        ),
        async (texts) => {
          assert.deepEqual(await spooled(texts), Buffer.from(texts.join(''), 'utf8'));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('copies several megabytes through its two buffers without mixing them up', async () => {
    const texts = Array.from(
      { length: 3000 },
      (_, i) => `\n  ${i},"Ünïcode ${'x'.repeat(i % 997)}"`,
    );
    assert.deepEqual(await spooled(texts), Buffer.from(texts.join(''), 'utf8'));
  });
});
