// The reference-compatible surface (issue 11): byte input, options, constants, replacer, raw
// strings, and one test per field defect (each fails without its fix).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import * as reference from '@toon-format/toon';
import fc from 'fast-check';
import { encodeJson, encodeWithin } from '../../src/codec/encode.js';
import { normalize } from '../../src/codec/normalize.js';
import {
  DEFAULT_DELIMITER,
  DELIMITERS,
  decode,
  decodeFromLines,
  decodeStream,
  decodeStreamSync,
  encode,
  encodeLines,
  escapeString,
  type JsonValue,
  rawString,
  ToonDecodeError,
} from '../../src/index.js';

const bytes = (...values: number[]) => new Uint8Array(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

function decodeError(run: () => unknown): ToonDecodeError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ToonDecodeError, `expected a ToonDecodeError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ToonDecodeError');
}

describe('byte input (spec §4, §14.2)', () => {
  it('decodes UTF-8 bytes like the equivalent string', () => {
    const text = 'name: Zoë\ntags[2]: 日本,😀';
    assert.deepEqual(decode(utf8(text)), decode(text));
  });
  it('rejects ill-formed UTF-8 in strict mode with the byte offset, line and column', () => {
    // `a: ` then FF FE: the reported case (toonwire decode exited 0 on it).
    const error = decodeError(() => decode(bytes(0x61, 0x3a, 0x20, 0xff, 0xfe)));
    assert.equal(error.offset, 3);
    assert.equal(error.line, 1);
    assert.equal(error.column, 4);
    assert.match(error.message, /byte offset 3/);
  });
  it('names the offset of truncated sequences, encoded surrogates and overlong forms', () => {
    const cases: [number[], number][] = [
      [[0x62, 0x3a, 0x20, 0xe6, 0x97], 3], // truncated at the end
      [[0x0a, 0x78, 0xed, 0xa0, 0x80], 2], // U+D800 encoded
      [[0xc0, 0xaf], 0], // overlong "/"
      [[0xef, 0xbb, 0xbf, 0x61, 0x0a, 0x62, 0xf5], 6], // after a BOM, on line 2
    ];
    for (const [input, offset] of cases) {
      const error = decodeError(() => decode(bytes(...input)));
      assert.equal(error.offset, offset, `offset for ${input}`);
    }
    assert.equal(decodeError(() => decode(bytes(0xef, 0xbb, 0xbf, 0x61, 0x0a, 0xf5))).line, 2);
  });
  it('replaces ill-formed bytes with U+FFFD in non-strict mode', () => {
    assert.deepEqual(decode(bytes(0x61, 0x3a, 0x20, 0xff), { strict: false }), { a: '\uFFFD' });
  });
  it('refuses a non-string, non-byte input with a TypeError', () => {
    assert.throws(() => decode(42 as unknown as string), TypeError);
  });
});

describe('ToonDecodeError', () => {
  it('carries the raw source line, indentation included, in decode and the stream decoders', () => {
    const text = 'a:\r\n  b[2]: x\r\nc: 1';
    const error = decodeError(() => decode(text));
    assert.equal(error.source, '  b[2]: x');
    assert.equal(error.line, 2);
    const streamed = decodeError(() => [...decodeStreamSync(text.split('\n'))]);
    assert.equal(streamed.source, '  b[2]: x');
    assert.equal(streamed.message, error.message);
    const blank = 'a[2]:\n  - 1\n   \n  - 2';
    assert.equal(decodeError(() => decode(blank)).source, '   ');
    assert.equal(decodeError(() => [...decodeStreamSync(blank.split('\n'))]).source, '   ');
  });
});

describe('options', () => {
  it('rejects an unknown option, naming it and the known ones', () => {
    assert.throws(
      () => encode({}, { indnet: 4 } as never),
      /unknown option "indnet"; the known options are delimiter, indentSize, indent, replacer/,
    );
    assert.throws(() => decode('a: 1', { strictt: true } as never), /unknown option "strictt"/);
  });
  it('accepts and ignores the options the reference removed, on every entry point, as it does', () => {
    const value = { a: { b: { c: 1 } }, 'x.y': [1, 2] };
    const removed = { keyFolding: 'safe', flattenDepth: 2, expandPaths: 'safe', lengthMarker: '#' };
    assert.equal(encode(value, removed as never), encode(value));
    assert.equal(encode(value, removed as never), reference.encode(value, removed as never));
    assert.deepEqual([...encodeLines(value, { keyFolding: 'safe' })], encode(value).split('\n'));
    const text = 'a.b: 1\nx[2]: 1,2';
    assert.deepEqual(decode(text, removed as never), { 'a.b': 1, x: [1, 2] });
    assert.deepEqual(
      decode(text, { expandPaths: 'safe' }),
      reference.decode(text, { expandPaths: 'safe' } as never),
    );
    assert.deepEqual(
      [...decodeStreamSync(['a.b: 1'], { expandPaths: 'safe' })],
      [...decodeStreamSync(['a.b: 1'])],
    );
    // Any other unknown name is still a TypeError.
    assert.throws(() => encode(value, { keyFolding: 'safe', keyfolding: 'safe' } as never), {
      name: 'TypeError',
      message: /unknown option "keyfolding"/,
    });
  });
  it('accepts the deprecated indent alias in both directions', () => {
    assert.equal(encode({ a: { b: 1 } }, { indent: 4 }), 'a:\n    b: 1');
    assert.deepEqual(decode('a:\n    b: 1', { indent: 4 }), { a: { b: 1 } });
  });
  it('validates indentSize the same way for encode and decode (Infinity is refused)', () => {
    for (const indentSize of [Number.POSITIVE_INFINITY, 0, 1.5, -2]) {
      assert.throws(() => encode({ a: 1 }, { indentSize }), TypeError);
      assert.throws(() => decode('a: 1', { indentSize }), TypeError);
    }
  });
});

describe('option values, against the reference (field defect: `replacer: null` was a TypeError)', () => {
  const value = {
    a: { b: [1, 2], c: 'x' },
    t: [
      { x: 1, y: 2 },
      { x: 3, y: 4 },
    ],
    n: 10n,
  };
  const text = 'a:\n  b[2]: 1,2\n  c: x\nt[2]{x,y}:\n  1,2\n  3,4';
  // Every kind of value a caller can pass, JSON's and JavaScript's.
  const values: unknown[] = [
    ...[undefined, null, false, true, 0, 1, 2, 4, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY],
    ...['', '2', 'x', ',', '|', '\t', 'comma', 'auto', 'string'],
    ...[[], ['a'], {}, (_key: string, v: unknown) => v, Symbol('s'), 10n, Object(2)],
  ];
  type Outcome = { text: string } | { error: Error };
  const outcome = (run: () => unknown): Outcome => {
    try {
      return { text: JSON.stringify(run(), (_key, v) => (typeof v === 'bigint' ? `${v}n` : v)) };
    } catch (error) {
      return { error: error as Error };
    }
  };
  const show = (given: unknown) => (typeof given === 'symbol' ? 'a symbol' : inspect(given));
  // Where toonwire refuses what the reference takes, on purpose (docs/codec.md, "Differences"):
  // an indent the reference turns into no indentation at all or a coerced string, a `strict` it
  // tests for truth (`'false'` is strict there), and options that are no object (ignored there).
  const refusedOnPurpose = (option: string, given: unknown) =>
    option === 'options' ||
    ((option === 'indentSize' || option === 'indent') &&
      !(typeof given === 'number' && Number.isInteger(given) && given >= 1)) ||
    (option === 'strict' && typeof given !== 'boolean');

  /** Checks one call of toonwire's against the same call of the reference's, if it has one. */
  function compare(
    caller: string,
    option: string,
    given: unknown,
    ours: () => unknown,
    theirs: (() => unknown) | undefined,
  ): void {
    const mine = outcome(ours);
    const reference = theirs === undefined ? undefined : outcome(theirs);
    const where = `${caller} with ${option} ${show(given)}`;
    if ('error' in mine) {
      const { error } = mine;
      if (error instanceof ToonDecodeError) {
        // A document error under an accepted option (indentSize 4 against a 2-space document,
        // maxDepth 0): the reference, where it knows the option, refuses the document too.
        assert.ok(reference === undefined || 'error' in reference, `${where}: ${error.message}`);
        return;
      }
      assert.equal(error.name, 'TypeError', `${where}: ${error.message}`);
      const named = option === 'options' ? 'options' : option;
      assert.match(error.message, new RegExp(`^${caller}: ${named} must be .+, got `), where);
      if (reference !== undefined && 'text' in reference) {
        assert.ok(refusedOnPurpose(option, given), `${where}: the reference accepts it`);
      }
    } else if (reference !== undefined) {
      assert.ok('text' in reference, `${where}: toonwire accepts what the reference refuses`);
      assert.equal(mine.text, reference.text, where);
    }
  }

  it('takes null and undefined as "not given" for every option, on every entry point', async () => {
    const plain = { a: [1, 2] };
    for (const given of [null, undefined]) {
      for (const option of ['delimiter', 'indentSize', 'indent', 'replacer', 'bigint']) {
        const options = { [option]: given } as never;
        assert.equal(encode(plain, options), 'a[2]: 1,2', `encode ${option}: ${given}`);
        assert.equal([...encodeLines(plain, options)].join('\n'), 'a[2]: 1,2');
      }
      for (const option of ['strict', 'indentSize', 'indent', 'maxDepth']) {
        const options = { [option]: given } as never;
        assert.deepEqual(decode('a[2]: 1,2', options), plain, `decode ${option}: ${given}`);
        assert.deepEqual(decodeFromLines(['a[2]: 1,2'], options), plain);
        assert.equal([...decodeStreamSync(['a[2]: 1,2'], options)].length, 7);
        const events = [];
        for await (const event of decodeStream(['a[2]: 1,2'], options)) events.push(event);
        assert.equal(events.length, 7);
      }
      assert.equal(encode(plain, given as never), 'a[2]: 1,2');
      assert.deepEqual(decode('a[2]: 1,2', given as never), plain);
    }
  });

  it('takes a falsy replacer as none, as the reference and JSON.stringify do, and refuses the rest clearly', () => {
    for (const none of [null, false, 0, '', Number.NaN, undefined]) {
      const options = { replacer: none } as never;
      assert.equal(encode(value, options), encode(value));
      assert.equal(encode(value, options), reference.encode(value, options));
    }
    assert.throws(() => encode(value, { replacer: ['a'] } as never), {
      name: 'TypeError',
      message:
        /^encode: replacer must be a function \(key, value, path\) => value, or null for none, got an array; an array of keys \(JSON.stringify's allow-list\) is not supported/,
    });
    assert.throws(() => [...encodeLines(value, { replacer: 'drop' } as never)], {
      name: 'TypeError',
      message: /^encodeLines: replacer must be .+, got the string "drop"$/,
    });
  });

  it('accepts every value the reference accepts, with the same text, except the documented refusals', () => {
    let calls = 0;
    for (const option of ['delimiter', 'indentSize', 'indent', 'replacer', 'bigint', 'options']) {
      for (const given of values) {
        const options = (option === 'options' ? given : { [option]: given }) as never;
        // The reference knows no BigInt policy: its encode is compared without that option.
        const theirs = option === 'bigint' ? undefined : () => reference.encode(value, options);
        compare('encode', option, given, () => encode(value, options), theirs);
        compare(
          'encodeLines',
          option,
          given,
          () => [...encodeLines(value, options)].join('\n'),
          theirs,
        );
        calls += 2;
      }
    }
    for (const option of ['strict', 'indentSize', 'indent', 'maxDepth', 'options']) {
      for (const given of values) {
        const options = (option === 'options' ? given : { [option]: given }) as never;
        const theirs = option === 'maxDepth' ? undefined : () => reference.decode(text, options);
        const lines = text.split('\n');
        compare('decode', option, given, () => decode(text, options), theirs);
        compare('decodeFromLines', option, given, () => decodeFromLines(lines, options), theirs);
        const events = () => [...decodeStreamSync(lines, options)];
        const theirEvents =
          option === 'maxDepth' ? undefined : () => [...reference.decodeStreamSync(lines, options)];
        compare('decodeStreamSync', option, given, events, theirEvents);
        calls += 3;
      }
    }
    assert.ok(calls > 500, `${calls} calls compared`);
  });
});

describe('ToonDecodeError constructor forms', () => {
  it("takes the reference's constructor form and exposes its fields", () => {
    const cause = new Error('inner');
    const error = new ToonDecodeError('boom', { line: 2, source: 'x', cause });
    const theirs = new reference.ToonDecodeError('boom', { line: 2, source: 'x', cause });
    assert.ok(error instanceof SyntaxError);
    for (const field of ['name', 'message', 'line', 'source', 'cause'] as const) {
      assert.equal(error[field], theirs[field], field);
    }
    assert.equal(error.message, 'Line 2: boom');
    assert.equal(error.column, 1);
    assert.equal(error.reason, 'boom');
    assert.equal(error.offset, undefined);
  });
  it("keeps toonwire's own form and fields, with the reference's message prefix", () => {
    const error = new ToonDecodeError('bad length; fix it', 3, 7, { source: 'a[x]: 1', offset: 9 });
    assert.equal(error.message, 'Line 3: bad length; fix it');
    assert.deepEqual(
      [error.line, error.column, error.reason, error.source, error.offset],
      [3, 7, 'bad length; fix it', 'a[x]: 1', 9],
    );
    assert.equal(error.cause, undefined);
  });
  it('has no prefix when the line is left out, as the reference (whose types allow it)', () => {
    // Each call compiles against the reference's declarations, so it must compile here too
    // (`npm run typecheck`); `null` is no context in the reference (`context?.line`).
    const pairs: [ToonDecodeError, InstanceType<typeof reference.ToonDecodeError>][] = [
      [new ToonDecodeError('boom'), new reference.ToonDecodeError('boom')],
      [new ToonDecodeError('boom', {}), new reference.ToonDecodeError('boom', {})],
      [
        new ToonDecodeError('boom', { source: 'x', cause: 1 }),
        new reference.ToonDecodeError('boom', { source: 'x', cause: 1 }),
      ],
      [
        new ToonDecodeError('boom', null as never),
        new reference.ToonDecodeError('boom', null as never),
      ],
    ];
    for (const [error, theirs] of pairs) {
      for (const field of ['name', 'message', 'line', 'source', 'cause'] as const) {
        assert.equal(error[field], theirs[field], `${theirs.message}: ${field}`);
      }
    }
  });
});

describe('class names in the built package root', () => {
  it('keeps ToonDecodeError and RawString named through the minified bundle (npm run build)', async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');
    const built = (await import(pathToFileURL(root).href)) as typeof import('../../src/index.js');
    assert.equal(built.ToonDecodeError.name, 'ToonDecodeError');
    assert.equal(built.rawString('x').constructor.name, 'RawString');
    let caught: unknown;
    try {
      built.decode('a: "x');
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof built.ToonDecodeError);
    assert.equal(caught.constructor.name, 'ToonDecodeError');
    // What console.log(error) prints starts with the class's name, as the reference's does.
    assert.match(inspect(caught), /^ToonDecodeError: Line 1: unterminated string/);
  });

  it('keeps every exported function named as exported, in the root and in each module it bundles', async () => {
    // Field defect: `encode.name` was a minifier's one-letter name (stack traces, `fn.name`
    // logging, code that dispatches on names). The modules are the shims the subpaths import.
    const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');
    const load = (file: string) =>
      import(pathToFileURL(path.join(dist, file)).href) as Promise<Record<string, unknown>>;
    const built = await load('index.js');
    assert.equal((built['encode'] as () => void).name, 'encode');
    const files = Object.keys(built['__toonwireModules'] as object);
    assert.ok(files.includes('codec/encode.js'), 'the bundle lists its modules');
    const misnamed: string[] = [];
    let functions = 0;
    for (const file of ['index.js', ...files]) {
      for (const [name, value] of Object.entries(await load(file))) {
        if (typeof value !== 'function') continue;
        functions++;
        if (value.name !== name) misnamed.push(`${file}: ${name} is named ${value.name}`);
      }
    }
    assert.deepEqual(misnamed, []);
    assert.ok(functions > 100, `${functions} exported functions checked`);
  });
});

describe('constants and helpers', () => {
  it('exports DELIMITERS and DEFAULT_DELIMITER in the reference shape', () => {
    assert.deepEqual(DELIMITERS, reference.DELIMITERS);
    assert.equal(DEFAULT_DELIMITER, reference.DEFAULT_DELIMITER);
  });
  it('escapeString escapes like the reference', () => {
    const sample = 'a"b\\c\nd\re\tf\u0001g\u001fh';
    assert.equal(escapeString(sample), reference.escapeString(sample));
  });
  it('rawString is written verbatim at primitive positions and ignored for containers', () => {
    assert.equal(encode({ id: rawString('"7"') }), 'id: "7"');
    // Each library honours its own RawString class, so each gets its own rawString.
    const replacerWith =
      (raw: (text: string) => unknown) =>
      (key: string, value: unknown): unknown =>
        key === 'n' || key === 'o' ? raw('RAW') : value;
    const value = { n: 1, o: { x: 1 }, rows: [{ n: 2 }, { n: 3 }] };
    assert.equal(
      encode(value, { replacer: replacerWith(rawString) }),
      reference.encode(value, { replacer: replacerWith(reference.rawString) }),
    );
  });
  it('rawString refuses a line that would read back as a comment, as the reference does', () => {
    const refused = ['#x', '# x', '\uFEFF#x', 'a\n#b', 'a\n   #b', '\uFEFF  #x', '  #x'];
    for (const text of refused) {
      assert.throws(
        () => rawString(text),
        { name: 'TypeError', message: /starting with "#"/ },
        text,
      );
      assert.throws(() => reference.rawString(text), TypeError, text);
    }
    for (const text of ['a#b', '"#x"', 'a\tb', '\t#x', 'a\r\n b', '\uFEFF']) {
      assert.equal(rawString(text).value, text);
      assert.equal(reference.rawString(text).value, text);
    }
  });
  it('rawString in the value itself is a primitive everywhere, in every encode path', () => {
    // No replacer: the optimistic pass must give up at the first RawString and the normalized
    // pass must know to look for them, or they come out as objects with a `value` field.
    const value = {
      root: rawString('R'),
      tags: [rawString('x'), 1],
      rows: [
        { id: 1, n: rawString('"a"'), g: { v: rawString('b') } },
        { id: 2, n: rawString('c'), g: { v: rawString('d') } },
      ],
      byName: { ada: { v: rawString('e') }, bob: { v: rawString('f') } },
      list: [rawString('g'), [1], { k: rawString('h') }],
    };
    const expected = [
      'root: R',
      'tags[2]: x,1',
      'rows[2]{id,n,g{v}}:',
      '  1,"a",b',
      '  2,c,d',
      'byName[2:]{v}:',
      '  ada: e',
      '  bob: f',
      'list[3]:',
      '  - g',
      '  - [1]: 1',
      '  - k: h',
    ].join('\n');
    assert.equal(encode(value), expected);
    assert.equal(encodeJson(value as unknown as JsonValue), expected);
    assert.equal([...encodeLines(value)].join('\n'), expected);
    // A host value elsewhere sends encode down the normalizing path from the start.
    assert.equal(
      encode({ ...value, at: new Date(0) }),
      `${expected}\nat: "1970-01-01T00:00:00.000Z"`,
    );
    assert.equal(encode(rawString('R')), 'R');
  });
});

describe('replacer', () => {
  it('drops a password like the reference does', () => {
    const user = { name: 'ada', password: 's3cret' };
    const options = {
      replacer: (key: string, value: unknown) => (key === 'password' ? undefined : value),
    };
    assert.equal(encode(user, options), 'name: ada');
    assert.equal(encode(user, options), reference.encode(user, options));
  });
  it('passes keys, normalized values and paths top-down, root first', () => {
    const seen: string[] = [];
    encode(
      { a: [new Date(0)] },
      {
        replacer: (key, value, path) => {
          seen.push(`${JSON.stringify(key)} ${JSON.stringify(value)} ${JSON.stringify(path)}`);
          return value;
        },
      },
    );
    assert.deepEqual(seen, [
      '"" {"a":["1970-01-01T00:00:00.000Z"]} []',
      '"a" ["1970-01-01T00:00:00.000Z"] ["a"]',
      '"0" "1970-01-01T00:00:00.000Z" ["a",0]',
    ]);
  });
});

describe('field defects of issue 11', () => {
  it('round-trips a string that starts with U+FEFF', () => {
    for (const value of ['\uFEFFhello', '\uFEFF', { '\uFEFFk': '\uFEFFv' }]) {
      assert.deepEqual(decode(encode(value)), value);
      // Through bytes too: a root string starting with U+FEFF is quoted, so it is no BOM.
      assert.deepEqual(decode(utf8(encode(value))), value);
    }
    assert.equal(encode('\uFEFFhello'), '"\uFEFFhello"');
  });
  it('quotes a declared length as written, not as a rounded double', () => {
    const error = decodeError(() => decode('a[99999999999999999999]: 1'));
    assert.match(error.message, /\[99999999999999999999\]/);
  });
  it('refuses to encode values decode would refuse, with a clear error instead of a stack overflow', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1000; i++) deep = [deep];
    assert.deepEqual(decode(encode(deep)), deep); // exactly 1000 levels: fine both ways
    let objects: unknown = { leaf: 1 };
    for (let i = 1; i < 1000; i++) objects = { a: objects };
    assert.deepEqual(decode(encode(objects)), objects);
    for (const levels of [1001, 5000, 100_000]) {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { k: value };
      assert.throws(() => encode(value), /nested deeper than 1000 levels/);
      assert.throws(() => [...encodeLines(value)], /nested deeper than 1000 levels/);
      assert.throws(() => normalize(value), /nested deeper than 1000 levels/);
      // Already-normalized entry points (the picker, the HTTP renderer) get the same error.
      assert.throws(() => encodeJson(value as JsonValue), /nested deeper than 1000 levels/);
      assert.throws(
        () => encodeWithin(value as JsonValue, undefined, 1e9),
        /nested deeper than 1000 levels/,
      );
    }
  });
  it('keeps the root kind in the trailing-content message after nested headers', () => {
    const error = decodeError(() =>
      decode('[1]:\n  - m[2:]{v}:\n      a: 1\n      b: 2\nextra: 1'),
    );
    assert.match(error.message, /after the root array/);
  });
  it('shares one field-name grammar between the header parser and the line scanner', () => {
    // A stray quote inside an unquoted field name is no field name: strict mode rejects it.
    assert.throws(() => decode('[1]{a"}:\n  x'), ToonDecodeError);
    // The one-line document `[1|]{a|"` has no colon: a root string (§5), like `[1]{a`.
    assert.equal(decode('[1|]{a|"'), '[1|]{a|"');
    assert.equal(decode('[1]{a'), '[1]{a');
  });
});

describe('replacer semantics match the reference (differential)', () => {
  // Replacers drawn from a small language: per key or path depth, omit, replace with a value,
  // or wrap the value in a container, so both sides run the same function.
  const action = fc.constantFrom('keep', 'omit', 'null', 'string', 'object', 'array', 'number');
  const replacerSpec = fc.record({
    keys: fc.array(fc.constantFrom('', 'a', 'b', '0', '1', 'id', 'name'), { maxLength: 3 }),
    depth: fc.integer({ min: 0, max: 3 }),
    action,
  });
  const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
  const keyed = fc.oneof(
    value,
    fc.dictionary(fc.constantFrom('a', 'b', 'id', 'name'), value, { maxKeys: 4 }),
    fc.array(fc.record({ id: fc.integer(), name: fc.string() }), { maxLength: 3 }),
  );
  function build(spec: { keys: string[]; depth: number; action: string }) {
    return (key: string, current: unknown, path: readonly (string | number)[]): unknown => {
      if (!spec.keys.includes(key) && path.length !== spec.depth) return current;
      switch (spec.action) {
        case 'omit':
          return undefined;
        case 'null':
          return null;
        case 'string':
          return `${key}:${path.join('/')}`;
        case 'object':
          return { wrapped: current ?? null, at: path.length };
        case 'array':
          // Its items' keys are '0' and '1': a replacer that matches those by key would wrap
          // again at every level below, a thousand levels down until both sides refuse (the
          // reference took seconds per such value; the test below checks that refusal once).
          return path.length <= spec.depth + 1 ? [path.length, key] : current;
        case 'number':
          return path.length * 1.5;
        default:
          return current;
      }
    };
  }
  it('gives the same text as the reference on random values and replacers', () => {
    fc.assert(
      fc.property(keyed, replacerSpec, (input, spec) => {
        // The reference's own normalization differs from JSON's on a few values the spec leaves
        // open (-0 aside, none generated here); the replacer walk is what is compared.
        let expected: string;
        try {
          expected = reference.encode(input, { replacer: build(spec) });
        } catch {
          return; // e.g. unpaired surrogates: both refuse, compared elsewhere
        }
        assert.equal(encode(input, { replacer: build(spec) }), expected);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a replacer that wraps every value it returns, by depth, where the reference overflows the stack', () => {
    // Each array it returns has an item at key '1', which it wraps again, without end.
    const wrapForever = (key: string, current: unknown) => (key === '1' ? [0, key] : current);
    assert.throws(
      () => encode([[0, 1]], { replacer: wrapForever }),
      (error: unknown) =>
        error instanceof RangeError && /nested deeper than 1000 levels/.test(error.message),
    );
    assert.throws(() => reference.encode([[0, 1]], { replacer: wrapForever }), RangeError);
  });
});
