// Ill-formed UTF-8 met by the stream decoders, fed byte chunks of every size: the error must be
// decode's, at the same line, column and byte offset. A chunk that began with EF BB BF in the
// middle of a document used to lose that U+FEFF from the column count (a fresh TextDecoder
// stripped it as if it were the document's byte order mark), one column short of decode's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decode, decodeStreamSync, ToonDecodeError } from '../../src/index.js';
import { fold } from './fold.js';

const runs = Number(process.env.FC_RUNS ?? 200);
const utf8 = (text: string) => [...new TextEncoder().encode(text)];

/** `decode`'s outcome as comparable text: the value, or the error with its position. */
function outcome(read: () => unknown): string {
  try {
    return `value ${JSON.stringify(read())}`;
  } catch (error) {
    if (!(error instanceof ToonDecodeError)) throw error;
    return `error line ${error.line} column ${error.column} offset ${error.offset}: ${error.reason}`;
  }
}

/** `bytes` cut into chunks of `size` bytes. */
function chunksOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

/** Asserts that the stream decoder, fed chunks of 1 to 7 bytes, ends as `decode` does. */
function assertChunkingsAgree(bytes: Uint8Array, strict: boolean): void {
  const whole = outcome(() => decode(bytes, { strict }));
  for (let size = 1; size <= 7; size++) {
    const streamed = outcome(() => fold(decodeStreamSync(chunksOf(bytes, size), { strict })));
    assert.equal(streamed, whole, `chunks of ${size} bytes of ${JSON.stringify([...bytes])}`);
  }
}

describe('stream decoders on ill-formed UTF-8 in byte chunks', () => {
  it('count a U+FEFF inside the document in the column, at every chunk size', () => {
    // 'a: 1', then a line holding U+FEFF and the bad byte 0xFF: decode says column 2.
    const bytes = new Uint8Array([...utf8('a: 1\n'), 0xef, 0xbb, 0xbf, 0xff]);
    assert.match(
      outcome(() => decode(bytes)),
      /^error line 2 column 2 offset 8:/,
    );
    assertChunkingsAgree(bytes, true);
  });

  it("still drop the document's own byte order mark from the column", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('a: '), 0xff]);
    assert.match(
      outcome(() => decode(bytes)),
      /^error line 1 column 4 offset 6:/,
    );
    assertChunkingsAgree(bytes, true);
  });

  it('agree with decode on random documents of valid text and bad bytes', () => {
    const pieces = [
      'a: 1\n',
      'b:\n  c: x\n',
      't[2]{a,b}:\n  1,2\n  3,4\n',
      '\r\n',
      'é',
      '😀',
      '  ',
    ];
    const bad = [
      [0xff],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0x80],
    ];
    const bom = [0xef, 0xbb, 0xbf];
    const document = fc
      .array(fc.oneof(fc.constantFrom(...pieces.map(utf8)), fc.constantFrom(...bad, bom)), {
        maxLength: 10,
      })
      .map((parts) => new Uint8Array(parts.flat()));
    fc.assert(
      fc.property(document, fc.boolean(), (bytes, strict) => {
        // decode checks all the bytes before it parses; the stream meets them in order, so a
        // structural error before the first bad byte comes first there. Those are compared
        // only as both being errors.
        const whole = outcome(() => decode(bytes, { strict }));
        if (whole.includes('ill-formed UTF-8')) {
          for (let size = 1; size <= 7; size++) {
            const streamed = outcome(() =>
              fold(decodeStreamSync(chunksOf(bytes, size), { strict })),
            );
            if (streamed.includes('ill-formed UTF-8')) assert.equal(streamed, whole);
            else assert.match(streamed, /^error /);
          }
        } else {
          assertChunkingsAgree(bytes, strict);
        }
      }),
      { numRuns: runs },
    );
  });
});
