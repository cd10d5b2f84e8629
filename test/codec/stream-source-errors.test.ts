// What the stream decoders say about a source of the wrong kind: a TypeError (a programming
// error, not bad input) that names the function called and what to pass instead. A Uint8Array
// passed as the source itself used to be read byte by byte and refused as "decodeStream expects
// ... got number", and every error of decodeStreamSync named decodeStream.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeStream, decodeStreamSync } from '../../src/index.js';

const bytes = new TextEncoder().encode('a: 1');

/** Runs a stream decoder to its end, so that errors raised on the first read surface too. */
async function drain(events: Iterable<unknown> | AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) {
    // only the end matters
  }
}

/** The TypeError message `run` rejects with. */
async function typeErrorOf(run: () => Promise<void>): Promise<string> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected a TypeError');
}

const callers = {
  decodeStreamSync: (source: unknown) => drain(decodeStreamSync(source as Iterable<string>)),
  decodeStream: (source: unknown) => drain(decodeStream(source as Iterable<string>)),
} as const;

describe('stream decoders refuse sources of the wrong kind with their own name', () => {
  for (const [name, run] of Object.entries(callers)) {
    it(`${name}: bytes passed as the source say to wrap them or use decode`, async () => {
      const message = await typeErrorOf(() => run(bytes));
      assert.ok(message.startsWith(`${name} expects`), message);
      assert.match(message, /got a Uint8Array/);
      assert.match(message, /\[bytes\].*decode\(bytes\)/);
    });

    it(`${name}: an item of no kind and a source of no kind name ${name}`, async () => {
      for (const source of [[1, 2], ['a: 1', undefined], null, 42]) {
        const message = await typeErrorOf(() => run(source));
        assert.ok(message.startsWith(`${name} expects`), `${JSON.stringify(source)}: ${message}`);
      }
    });

    it(`${name}: the same bytes as one chunk decode`, async () => {
      await run([bytes]);
    });
  }
});
