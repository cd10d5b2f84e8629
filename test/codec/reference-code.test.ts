// Code written for the reference implementation (@toon-format/toon) runs on toonwire unchanged
// (issue 22): the same source, handed either library, gives the same results. The patterns are
// the ones real call sites use: options the reference removed (`keyFolding: 'safe'` in a
// serializer that falls back to JSON when encode throws), the reference's ToonDecodeError
// constructor and message shape, and rawString from a replacer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as reference from '@toon-format/toon';
import * as toonwire from '../../src/index.js';

/** The part of the public API both libraries share, as reference code sees it. */
type Toon = Pick<
  typeof reference,
  'encode' | 'decode' | 'rawString' | 'escapeString' | 'ToonDecodeError'
>;

// ---- code as its authors wrote it for @toon-format/toon, with the library passed in ----------

/** A serializer that prefers TOON and silently serves JSON when encoding fails. */
function makeSerializer(toon: Toon) {
  return {
    serialize(data: unknown): { format: 'toon' | 'json'; text: string } {
      try {
        return {
          format: 'toon',
          text: toon.encode(data, { keyFolding: 'safe', flattenDepth: 3, indent: 2 } as never),
        };
      } catch {
        return { format: 'json', text: JSON.stringify(data) };
      }
    },
    parse(text: string): unknown {
      return toon.decode(text, { expandPaths: 'safe', strict: true } as never);
    },
  };
}

/** Re-throws a helper's failure as a decode error with its line, as the reference CLI does. */
function withLine<T>(toon: Toon, line: number, raw: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof toon.ToonDecodeError) throw error;
    if (error instanceof Error)
      throw new toon.ToonDecodeError(error.message, { line, source: raw, cause: error });
    throw error;
  }
}

/** A decode error as a header, the source line and a caret, reading the reference's fields. */
function formatDecodeError(error: InstanceType<Toon['ToonDecodeError']>): string {
  const prefix = `Line ${error.line}: `;
  const message = error.message.startsWith(prefix)
    ? error.message.slice(prefix.length)
    : error.message;
  const header = `Failed to decode TOON at line ${error.line}: ${message}`;
  if (error.source === undefined) return header;
  const gutter = `  ${error.line} | `;
  return `${header}\n\n${gutter}${error.source}\n${' '.repeat(gutter.length + error.source.search(/\S/))}^`;
}

/** Prices as exact decimal text, quoted through a replacer. */
function encodePrices(toon: Toon, rows: { sku: string; price: string }[]): string {
  return toon.encode(
    { rows },
    {
      replacer: (key, value) =>
        key === 'price' && typeof value === 'string'
          ? toon.rawString(`"${toon.escapeString(value)}"`)
          : value,
    },
  );
}

// ---- the same code, run on both -------------------------------------------------------------

/** Runs `scenario` on the reference, then on toonwire, and returns the two results. */
function both<T>(scenario: (toon: Toon) => T): [T, T] {
  return [scenario(reference), scenario(toonwire as unknown as Toon)];
}

/** What a call did: its value, or the thrown error's class name and message. */
function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { threw: (error as Error).name, message: (error as Error).message };
  }
}

describe('code written for the reference runs unchanged on toonwire', () => {
  const data = {
    service: { name: 'orders', owner: { team: 'checkout' } },
    'x.y': 1,
    items: [
      { id: 1, sku: 'A-1', qty: 2 },
      { id: 2, sku: 'B-2', qty: 1 },
    ],
  };

  it('passes the removed options (keyFolding, flattenDepth, expandPaths) and gets TOON back', () => {
    const [theirs, ours] = both((toon) => {
      const serializer = makeSerializer(toon);
      const out = serializer.serialize(data);
      return { out, back: serializer.parse(out.text) };
    });
    assert.equal(ours.out.format, 'toon');
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours.back, data);
  });

  it("builds ToonDecodeErrors in the reference's form and formats them", () => {
    const [theirs, ours] = both((toon) => {
      const raw = '  b[x]: 1';
      const error = outcome(() =>
        withLine(toon, 2, raw, () => {
          throw new SyntaxError('Invalid array length');
        }),
      );
      const built = new toon.ToonDecodeError('Tabs are not allowed', { line: 2, source: '\tb: 1' });
      return {
        error,
        formatted: formatDecodeError(built),
        headerOnly: formatDecodeError(
          new toon.ToonDecodeError('Something went wrong', { line: 5 }),
        ),
        fields: [built.name, built.line, built.source, built instanceof SyntaxError],
      };
    });
    assert.deepEqual(ours, theirs);
    assert.equal(
      ours.formatted,
      'Failed to decode TOON at line 2: Tabs are not allowed\n\n  2 | \tb: 1\n       ^',
    );
  });

  it("formats toonwire's own decode errors with the same code", () => {
    const [theirs, ours] = both((toon) => {
      try {
        toon.decode('a: 1\n\tb: 2');
        return 'decoded';
      } catch (error) {
        return formatDecodeError(error as InstanceType<Toon['ToonDecodeError']>).split('\n');
      }
    });
    // Same header shape, line and caret; the wording of the reason is each library's own.
    assert.match(ours[0]!, /^Failed to decode TOON at line 2: [^L]/);
    assert.match(theirs[0]!, /^Failed to decode TOON at line 2: [^L]/);
    assert.deepEqual(ours.slice(1), theirs.slice(1));
  });

  it('quotes values through rawString from a replacer, and refuses comment-like raw text', () => {
    const rows = [
      { sku: 'A-1', price: '10.50' },
      { sku: 'B-2', price: '0.99' },
    ];
    const [theirs, ours] = both((toon) => ({
      text: encodePrices(toon, rows),
      comment: outcome(() => toon.rawString('# not a comment')),
      bom: outcome(() => toon.rawString('\uFEFF#x')),
    }));
    assert.equal(ours.text, theirs.text);
    assert.equal(ours.text, 'rows[2]{sku,price}:\n  A-1,"10.50"\n  B-2,"0.99"');
    assert.equal((ours.comment as { threw: string }).threw, 'TypeError');
    assert.equal((theirs.comment as { threw: string }).threw, 'TypeError');
    assert.equal((ours.bom as { threw: string }).threw, 'TypeError');
    assert.equal((theirs.bom as { threw: string }).threw, 'TypeError');
  });

  it('decodes a file read as text with a byte order mark', () => {
    const file = `\uFEFF${reference.encode(data)}`;
    const [theirs, ours] = both((toon) => toon.decode(file));
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours, data);
  });
});
