// Differential and property tests for the line and stream APIs (issue 11): encodeLines against
// encode, decodeFromLines and the folded events of decodeStreamSync / decodeStream (fed random
// chunkings of lines and bytes) against decode, on valid and on malformed documents alike.
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type DecodeOptions,
  decode,
  decodeFromLines,
  decodeStream,
  decodeStreamSync,
  type EncodeOptions,
  encode,
  encodeLines,
  type JsonStreamEvent,
  type JsonValue,
  rawString,
  ToonDecodeError,
} from '../../src/index.js';
import { fold } from './fold.js';

const runs = Number(process.env.FC_RUNS ?? 200);

/** JSON values with the shapes TOON cares about: tables, keyed tables, lists, hostile strings. */
const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    '-',
    '- x',
    '#',
    '[2]: x',
    'a: b',
    '"',
    '\\',
    ' x',
    'true',
    '05',
    '1e3',
    '\uFEFF',
    '日本',
    'a,b|c\td',
  ),
);
const key = fc.oneof(
  fc.constantFrom('id', 'name', 'a.b', '__proto__', '', 'a b', '[x]', '"q"'),
  fc.string({ maxLength: 6 }),
);
const primitive = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
const row = fc.record({ id: fc.integer(), name: hostileString, flag: fc.boolean() });
const { value: jsonValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    primitive,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    fc.array(row, { minLength: 1, maxLength: 4 }),
    fc.dictionary(key, fc.record({ x: fc.integer(), y: fc.record({ z: primitive }) }), {
      minKeys: 2,
      maxKeys: 3,
    }),
  ),
}));
const encodeOptions: fc.Arbitrary<EncodeOptions> = fc.record(
  { delimiter: fc.constantFrom(',', '|', '\t'), indentSize: fc.integer({ min: 1, max: 4 }) },
  { requiredKeys: [] },
);

/** The outcome of a decode, comparable across decoders: the value, or the error's position and reason. */
function outcome(run: () => JsonValue): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    return errorOutcome(error);
  }
}

/** A decode error as {@link outcome} reports it; any other error is rethrown. */
function errorOutcome(error: unknown): string {
  if (!(error instanceof ToonDecodeError)) throw error;
  return `error at ${error.line}:${error.column}: ${error.reason}`;
}

async function foldAsync(events: AsyncIterable<JsonStreamEvent>): Promise<JsonValue> {
  const all: JsonStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return fold(all);
}

async function outcomeAsync(run: () => Promise<JsonValue>): Promise<string> {
  try {
    return JSON.stringify(await run());
  } catch (error) {
    return errorOutcome(error);
  }
}

/** Splits `bytes` at the given cut points (sorted, deduplicated, within range). */
function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

/** Mutations that turn valid documents into near-valid ones (the interesting error paths). */
const mutated = fc
  .tuple(
    jsonValue,
    fc.nat(),
    fc.constantFrom('delete', 'dup', 'indent', 'blank', 'char', 'comment'),
    fc.constantFrom(' ', ':', '"', '-', ',', '|', '[', '{', '\t', '#', 'x'),
  )
  .map(([value, at, kind, char]) => {
    const lines = encode(value).split('\n');
    const i = at % lines.length;
    if (kind === 'delete') lines.splice(i, 1);
    else if (kind === 'dup') lines.splice(i, 0, lines[i]!);
    else if (kind === 'indent') lines[i] = ` ${lines[i]}`;
    else if (kind === 'blank') lines.splice(i, 0, '');
    else if (kind === 'comment') lines.splice(i, 0, '  # note');
    else {
      const line = lines[i]!;
      const p = at % (line.length + 1);
      lines[i] = line.slice(0, p) + char + line.slice(p);
    }
    return lines.join('\n');
  });
const decodeOptions: fc.Arbitrary<DecodeOptions> = fc.record({ strict: fc.boolean() });

describe('encodeLines', () => {
  it('joins to exactly encode(value, options)', () => {
    fc.assert(
      fc.property(jsonValue, encodeOptions, (value, options) => {
        assert.equal([...encodeLines(value, options)].join('\n'), encode(value, options));
      }),
      { numRuns: runs * 2 },
    );
  });
  it('builds lines only as they are taken (300,000 rows)', () => {
    // Each row's name is a RawString whose text is read only when its cell is written, so the
    // count of reads is the count of rows formatted so far.
    let formatted = 0;
    const rows = Array.from({ length: 300_000 }, (_, id) => {
      const name = rawString(`user ${id}`);
      Object.defineProperty(name, 'value', {
        get: () => {
          formatted++;
          return `user ${id}`;
        },
      });
      return { id, name };
    });
    const lines = encodeLines({ rows })[Symbol.iterator]();
    assert.equal(lines.next().value, 'rows[300000]{id,name}:');
    assert.equal(lines.next().value, '  0,user 0');
    assert.equal(lines.next().value, '  1,user 1');
    assert.equal(formatted, 2);
  });
});

describe('decodeFromLines, decodeStreamSync and decodeStream agree with decode', () => {
  it('on encoded values', async () => {
    await fc.assert(
      fc.asyncProperty(
        jsonValue,
        encodeOptions,
        fc.array(fc.nat(), { maxLength: 6 }),
        async (value, options, cuts) => {
          const text = encode(value, options);
          const settings = { indentSize: options.indentSize ?? 2 };
          const expected = JSON.stringify(decode(text, settings));
          assert.equal(
            expected,
            JSON.stringify(value === undefined ? null : JSON.parse(JSON.stringify(value))),
          );
          const lines = text.split('\n');
          assert.equal(JSON.stringify(decodeFromLines(lines, settings)), expected);
          assert.equal(JSON.stringify(fold(decodeStreamSync(lines, settings))), expected);
          // Lines grouped into multi-line strings at random (an embedded LF splits an item):
          // consecutive runs of lines, cut at distinct inner positions, so that every case
          // checks the grouping and the groups always join back to the text.
          const inner = [...new Set(cuts.map((c) => c % lines.length))].filter((c) => c > 0);
          const grouped: string[] = [];
          let from = 0;
          for (const cut of [...inner.sort((a, b) => a - b), lines.length]) {
            grouped.push(lines.slice(from, cut).join('\n'));
            from = cut;
          }
          assert.equal(grouped.join('\n'), text);
          assert.equal(JSON.stringify(fold(decodeStreamSync(grouped, settings))), expected);
          const chunks = chunked(new TextEncoder().encode(text), cuts);
          assert.equal(JSON.stringify(fold(decodeStreamSync(chunks, settings))), expected);
          const asyncChunks = (async function* () {
            for (const chunk of chunks) yield chunk;
          })();
          assert.equal(
            JSON.stringify(await foldAsync(decodeStream(asyncChunks, settings))),
            expected,
          );
        },
      ),
      { numRuns: runs },
    );
  });
  it('on malformed documents: the same value, or the same error at the same place', async () => {
    await fc.assert(
      fc.asyncProperty(
        mutated,
        decodeOptions,
        fc.array(fc.nat(), { maxLength: 4 }),
        async (text, options, cuts) => {
          const expected = outcome(() => decode(text, options));
          assert.equal(
            outcome(() => decodeFromLines(text.split('\n'), options)),
            expected,
          );
          assert.equal(
            outcome(() => fold(decodeStreamSync(text.split('\n'), options))),
            expected,
          );
          const chunks = chunked(new TextEncoder().encode(text), cuts);
          assert.equal(
            await outcomeAsync(() => foldAsync(decodeStream(chunks, options))),
            expected,
          );
        },
      ),
      { numRuns: runs * 2 },
    );
  });
});

describe('stream input', () => {
  it('rejects ill-formed UTF-8 split across chunks, with the byte offset', () => {
    // "a: é" with the two bytes of é split, then a stray continuation byte at offset 5.
    const chunks = [new Uint8Array([0x61, 0x3a, 0x20, 0xc3]), new Uint8Array([0xa9, 0x80])];
    assert.throws(
      () => [...decodeStreamSync(chunks)],
      (error: unknown) =>
        error instanceof ToonDecodeError && error.offset === 5 && error.line === 1,
    );
    const truncated = [new Uint8Array([0x61, 0x3a, 0x20, 0xe6, 0x97])];
    assert.throws(
      () => [...decodeStreamSync(truncated)],
      (error: unknown) => error instanceof ToonDecodeError && error.offset === 3,
    );
  });
  it('refuses a whole document passed where lines are expected', () => {
    assert.throws(() => decodeStreamSync('a: 1' as never), /got a string; pass text.split/);
    assert.throws(() => decodeStream('a: 1' as never), /got a string/);
    assert.throws(() => decodeFromLines('a: 1' as never), /got a string/);
    assert.throws(() => decodeStream(42 as never), TypeError);
  });
  it('drops the byte order mark of bytes and of a first line given as a string (4.1)', () => {
    const bytes = [new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf, 0x61, 0x3a, 0x20, 0x31])];
    assert.deepEqual(fold(decodeStreamSync(bytes)), { a: 1 });
    assert.deepEqual(fold(decodeStreamSync(['\uFEFFa: 1'])), { a: 1 });
    assert.deepEqual(fold(decodeStreamSync(['a: 1', '\uFEFFb: 2'])), { a: 1, '\uFEFFb': 2 });
  });
  it('rejects an unpaired surrogate in a line given as a string, in strict mode only', () => {
    assert.throws(() => fold(decodeStreamSync(['a: 1', 'b: x\ud800'])), {
      name: 'ToonDecodeError',
      line: 2,
      column: 5,
      message: /unpaired surrogate U\+D800/,
    });
    assert.deepEqual(fold(decodeStreamSync(['a: x\ud800'], { strict: false })), { a: 'x\ud800' });
  });
  it('emits the reference event shapes, with declared lengths', () => {
    assert.deepEqual(
      [...decodeStreamSync(['tags[2]: a,b'])],
      [
        { type: 'startObject' },
        { type: 'key', key: 'tags' },
        { type: 'startArray', length: 2 },
        { type: 'primitive', value: 'a' },
        { type: 'primitive', value: 'b' },
        { type: 'endArray' },
        { type: 'endObject' },
      ],
    );
  });
});

/** Lines from an iterator that records whether it was closed (its `return()` called). */
function closable(lines: string[]) {
  const state = { closed: false };
  let i = 0;
  const iterator = {
    next: () =>
      i < lines.length
        ? { value: lines[i++]!, done: false as const }
        : { value: undefined, done: true as const },
    return: () => {
      state.closed = true;
      return { value: undefined, done: true as const };
    },
  };
  return { state, source: { [Symbol.iterator]: () => iterator } };
}

describe('engine limits in the stream decoders', () => {
  it('places the call stack error at the line being read, as decode does (it said line 1)', async () => {
    // One header line nesting field groups 50,000 deep, under maxDepth: Infinity.
    const depth = 50_000;
    const header = `a[1]{${'b{'.repeat(depth)}c${'}'.repeat(depth)}}:`;
    const lines = ['x: 1', header, '  1'];
    const check = (error: unknown) => {
      assert.ok(error instanceof ToonDecodeError);
      assert.match(error.reason, /too deep for the JavaScript call stack/);
      assert.ok(error.line > 1, `line ${error.line}`);
      assert.equal(error.source, lines[error.line - 1]);
      return true;
    };
    const options = { maxDepth: Number.POSITIVE_INFINITY };
    assert.throws(() => decode(lines.join('\n'), options), check);
    assert.throws(() => [...decodeStreamSync(lines, options)], check);
    await assert.rejects(async () => {
      for await (const _ of decodeStream(lines, options));
    }, check);
  });
});

describe('stream sources are closed when decoding stops early', () => {
  const malformed = ['a: 1', 'b: "x', 'c: 3', 'd: 4'];
  it('decodeStreamSync closes the source on a break and on a malformed document', () => {
    const broken = closable(['a: 1', 'b: 2', 'c: 3']);
    for (const _ of decodeStreamSync(broken.source)) break;
    assert.equal(broken.state.closed, true);
    const failing = closable(malformed);
    assert.throws(() => [...decodeStreamSync(failing.source)], ToonDecodeError);
    assert.equal(failing.state.closed, true);
    const finished = closable(['a: 1']);
    assert.equal([...decodeStreamSync(finished.source)].length, 4);
    assert.equal(finished.state.closed, false, 'a source read to its end is not closed again');
  });
  it('decodeStream closes the source on a malformed document', async () => {
    const failing = closable(malformed);
    await assert.rejects(async () => {
      for await (const _ of decodeStream(failing.source));
    }, ToonDecodeError);
    assert.equal(failing.state.closed, true);
  });
  it('decodeStream destroys a file stream whose document is malformed (no leaked descriptor)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonwire-stream-'));
    try {
      const file = join(dir, 'bad.toon');
      // Longer than one read, so the stream is still open when the error is found.
      writeFileSync(file, `a: 1\nb: "x\n${'c: 3\n'.repeat(50_000)}`);
      const stream = createReadStream(file);
      await assert.rejects(async () => {
        for await (const _ of decodeStream(stream));
      }, /Line 2: unterminated string/);
      assert.equal(stream.destroyed, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
