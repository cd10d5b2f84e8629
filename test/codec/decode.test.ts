// Unit tests for decode(), one describe per section of the TOON spec (v4.4; the section numbers
// are v4.0's, which v4.4 keeps). Error cases check the
// error class, the 1-based line and column of the offending character, and the message shape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { keySlotOf } from '../../src/codec/decode/tokens.js';
import { decode, decodeFromLines, decodeWith } from '../../src/codec/decode.js';
import { ToonDecodeError } from '../../src/codec/errors.js';
import { parseUnquotedRange } from '../../src/codec/lexical.js';

/** §4 as the spec words it, regular expression and all: the oracle for the fast scalar reader. */
function specScalar(token: string): unknown {
  if (token === 'true') return true;
  if (token === 'false') return false;
  if (token === 'null') return null;
  const leadingZero = /^-?0[0-9]/.test(token);
  if (/^-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i.test(token) && !leadingZero) {
    const number = Number(token);
    if (number === 0) return 0;
    return Number.isFinite(number) ? number : token;
  }
  return token;
}

import type { DecodeOptions } from '../../src/codec/types.js';

const lines = (...text: string[]) => text.join('\n');
const lenient: DecodeOptions = { strict: false };

/** Asserts that decoding fails with a ToonDecodeError at `line`:`column`. */
function rejects(
  text: string,
  at: { line: number; column: number; reason?: RegExp },
  options?: DecodeOptions,
): void {
  assert.throws(
    () => decode(text, options),
    (error: unknown) => {
      assert.ok(
        error instanceof ToonDecodeError,
        `expected a ToonDecodeError, got ${String(error)}`,
      );
      assert.equal(error.line, at.line, `line of "${error.message}"`);
      assert.equal(error.column, at.column, `column of "${error.message}"`);
      assert.equal(error.message, `Line ${at.line}: ${error.reason}`);
      if (at.reason) assert.match(error.reason, at.reason);
      return true;
    },
  );
}

describe('§4 unquoted tokens are typed by the spec grammar', () => {
  it('reads true, false and null case-sensitively', () => {
    assert.deepEqual(
      decode(lines('on: true', 'off: false', 'none: null', 'shout: TRUE', 'nil: Null')),
      {
        on: true,
        off: false,
        none: null,
        shout: 'TRUE',
        nil: 'Null',
      },
    );
  });
  it('accepts decimal and exponent forms and normalizes them', () => {
    assert.deepEqual(
      decode(lines('a: 12.500', 'b: 6E-3', 'c: 2e+3', 'd: -4.25e1', 'e: 0.75', 'f: -0e7')),
      {
        a: 12.5,
        b: 0.006,
        c: 2000,
        d: -42.5,
        e: 0.75,
        f: 0,
      },
    );
  });
  it('decodes negative zero as zero', () => {
    const value = decode(lines('x: -0', 'y: -0.000')) as { x: number; y: number };
    assert.ok(Object.is(value.x, 0) && Object.is(value.y, 0));
  });
  it('keeps tokens outside the number grammar as strings', () => {
    assert.deepEqual(decode('[9]: .25,7.,+3,1e,1e+,0b101,--1,-,NaN'), [
      '.25',
      '7.',
      '+3',
      '1e',
      '1e+',
      '0b101',
      '--1',
      '-',
      'NaN',
    ]);
  });
  it('types leading-zero integers as strings but accepts a single zero before a fraction or exponent', () => {
    assert.deepEqual(decode('[6]: 007,-01,00.5,0.25,-0.5,0e3'), [
      '007',
      '-01',
      '00.5',
      0.25,
      -0.5,
      0,
    ]);
  });
  it('keeps a number too large for a float64 as its lossless string', () => {
    assert.deepEqual(decode(lines('huge: 1e400', 'negative: -2.5E+999')), {
      huge: '1e400',
      negative: '-2.5E+999',
    });
  });
  it('decodes integers beyond 2^53 to the nearest double, as JSON.parse does', () => {
    assert.deepEqual(
      decode('id: 123456789012345678901'),
      JSON.parse('{"id":123456789012345678901}'),
    );
    assert.equal((decode('n: 9007199254740993') as { n: number }).n, 9007199254740992);
  });
  it('underflows tiny exponents to zero', () => {
    assert.equal((decode('tiny: 1e-400') as { tiny: number }).tiny, 0);
  });
  it('decodes every number token to the same double as Number()', () => {
    const token = fc.stringMatching(
      /^-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,24})?([eE][+-]?[0-9]{1,3})?$/,
    );
    fc.assert(
      fc.property(token, (text) => {
        const expected = Number(text);
        const decoded = (decode(`v: ${text}`) as { v: unknown }).v;
        return Number.isFinite(expected)
          ? decoded === (expected === 0 ? 0 : expected)
          : decoded === text;
      }),
      { numRuns: 3000 },
    );
  });
  it('types a token in a slice of text exactly as the spec’s §4 grammar does', () => {
    const token = fc.oneof(
      fc.stringMatching(/^[-+0-9eE.]{0,14}$/),
      fc.constantFrom('true', 'false', 'null', 'nul', 'truex', ''),
    );
    fc.assert(
      fc.property(
        token,
        fc.string({ maxLength: 3 }),
        fc.string({ maxLength: 3 }),
        (body, before, after) => {
          const text = before + body + after;
          return Object.is(
            parseUnquotedRange(text, before.length, before.length + body.length),
            specScalar(body),
          );
        },
      ),
      { numRuns: 5000 },
    );
  });
  it('keeps quoted tokens as strings whatever they look like', () => {
    assert.deepEqual(decode('[4]: "12","false","null","-1e3"'), ['12', 'false', 'null', '-1e3']);
  });
  it('reads the exact token [] as an empty array in field, root and list-item position, and nothing else', () => {
    assert.deepEqual(decode('tags: []'), { tags: [] });
    assert.deepEqual(decode('[]'), []);
    assert.deepEqual(decode(lines('grid[1]:', '  - []')), { grid: [[]] });
    assert.deepEqual(decode(lines('a: [ ]', 'b: [x]')), { a: '[ ]', b: '[x]' });
  });
});

describe('§5 root form', () => {
  it('decodes an empty document, or one with only blank lines, to an empty object', () => {
    assert.deepEqual(decode(''), {});
    assert.deepEqual(decode('\n  \n\n'), {});
  });
  it('decodes a single line that is neither header nor field as a primitive', () => {
    assert.equal(decode('good morning'), 'good morning');
    assert.equal(decode('-12.5'), -12.5);
    assert.equal(decode('"time: 10:30"'), 'time: 10:30');
    assert.equal(decode('false'), false);
  });
  it('decodes a keyless header as a root array in every array form', () => {
    assert.deepEqual(decode('[3]: x,y,z'), ['x', 'y', 'z']);
    assert.deepEqual(decode(lines('[2]{k}:', '  p', '  q')), [{ k: 'p' }, { k: 'q' }]);
    assert.deepEqual(decode(lines('[2]:', '  - 1', '  - two: 2')), [1, { two: 2 }]);
    assert.deepEqual(decode('[0]:'), []);
  });
  it('decodes a keyless keyed header as a root object', () => {
    assert.deepEqual(decode(lines('[2:]{size}:', '  s: 1', '  m: 2')), {
      s: { size: 1 },
      m: { size: 2 },
    });
  });
  it('decodes anything else as an object', () => {
    assert.deepEqual(decode(lines('name: Ada', 'langs[1]: en')), { name: 'Ada', langs: ['en'] });
  });
  it('rejects content after a completed root array, in both modes (4.4)', () => {
    const text = lines('[1]: a', 'more: yes');
    rejects(text, { line: 2, column: 1, reason: /after the root array/ });
    rejects(text, { line: 2, column: 1, reason: /after the root array/ }, lenient);
    rejects(lines('[]', '', 'x: 1'), { line: 3, column: 1 });
    rejects(lines('[1:]{v}:', '  k: 1', 'extra: 2'), {
      line: 3,
      column: 1,
      reason: /keyed root object/,
    });
  });
  it('rejects several bare primitives at the root', () => {
    rejects(lines('first', 'second'), { line: 1, column: 1, reason: /no ":"/ });
  });
  it('rejects an indented first line, in both modes (4.4)', () => {
    rejects('  a: 1', { line: 1, column: 3 });
    rejects(lines('  a: 1', '  b:', '    c: 2'), { line: 1, column: 3 }, lenient);
  });
  it('strips a leading byte order mark, from bytes and from strings (4.1)', () => {
    const bom = [0xef, 0xbb, 0xbf];
    assert.deepEqual(decode(new Uint8Array([...bom, 0x61, 0x3a, 0x20, 0x31])), { a: 1 });
    assert.deepEqual(decode('\uFEFFa: 1'), { a: 1 });
    assert.deepEqual(decode('\uFEFF[2]{id}:\n  1\n  2'), [{ id: 1 }, { id: 2 }]);
    assert.equal(decode('\uFEFFhello'), 'hello');
    // Only the first character of the document: a second U+FEFF is content.
    assert.deepEqual(decode('\uFEFF"\uFEFFk": 1'), { '\uFEFFk': 1 });
    assert.equal(decode('\uFEFF\uFEFFhi'), '\uFEFFhi');
    // Bytes lose their byte order mark once, as the bytes' text would as a string.
    assert.equal(decode(new Uint8Array([...bom, ...bom, 0x68, 0x69])), '\uFEFFhi');
    // A later line is not the start of the document.
    assert.deepEqual(decode(lines('a: 1', '\uFEFFb: 2')), { a: 1, '\uFEFFb': 2 });
  });
});

describe('§5.1 comment lines', () => {
  it('removes full-line comments at any indentation, in strict mode too', () => {
    const text = lines(
      '# header note',
      'user:',
      '     # odd indentation is fine for comments',
      '  id: 7',
      '# back at the margin',
      '  name: Lin',
    );
    assert.deepEqual(decode(text), { user: { id: 7, name: 'Lin' } });
  });
  it('decodes a document of only comments to an empty object', () => {
    assert.deepEqual(decode(lines('# a', '', '  # b')), {});
  });
  it('never ends a table or counts a comment as a row or a blank line', () => {
    assert.deepEqual(decode(lines('pts[2]{x}:', '  1', '  # between rows', '  2')), {
      pts: [{ x: 1 }, { x: 2 }],
    });
    rejects(lines('pts[2]{x}:', '  # not a row', '  1'), {
      line: 1,
      column: 5,
      reason: /expected 2 rows.*found 1/,
    });
  });
  it('treats # anywhere else as data', () => {
    assert.deepEqual(decode(lines('lang: C# basics', 'tags[2]: #a,b#', 'list[1]:', '  - #x')), {
      lang: 'C# basics',
      tags: ['#a', 'b#'],
      list: ['#x'],
    });
  });
  it('does not treat a tab-indented # line as a comment', () => {
    rejects(lines('a: 1', '\t# nope'), { line: 2, column: 1, reason: /tab/ });
  });
  it('discards comment text without reading it, even an unterminated quote', () => {
    assert.deepEqual(decode(lines('# say "hi', 'k: v')), { k: 'v' });
  });
});

describe('§5.2 line classification', () => {
  it('reads a line whose first colon precedes its first bracket as a key-value line', () => {
    assert.deepEqual(decode('ref:see[2]: x'), { ref: 'see[2]: x' });
  });
  it('lets a quoted key containing a colon open a header', () => {
    assert.deepEqual(decode('"t:1"[2]: a,b'), { 't:1': ['a', 'b'] });
  });
  it('rejects whitespace between a key and its brackets, in both modes (4.1)', () => {
    for (const options of [undefined, lenient]) {
      rejects(
        'label [1]: text',
        { line: 1, column: 6, reason: /whitespace between the key/ },
        options,
      );
      rejects(
        'label\t[1]: text',
        { line: 1, column: 6, reason: /whitespace between the key/ },
        options,
      );
    }
    // Quoted, the brackets are part of the key; after the colon, part of the value.
    assert.deepEqual(decode('"label [1]": text'), { 'label [1]': 'text' });
    assert.deepEqual(decode('label: [1] text'), { label: '[1] text' });
    // Without any colon the line is no header: a root string.
    assert.equal(decode('label [1] text'), 'label [1] text');
  });
  it('gives a leading hyphen no meaning outside an expanded array', () => {
    assert.deepEqual(decode('- item: 1'), { '- item': 1 });
  });
  it('rejects a bare token inside an object', () => {
    rejects(lines('box:', '  loose'), { line: 2, column: 3, reason: /no ":"/ });
    rejects(lines('box:', '  loose'), { line: 2, column: 3 }, lenient);
  });
});

describe('§6 headers', () => {
  it('reads a dotted key before brackets as one literal key', () => {
    assert.deepEqual(decode('a.b.c[1]: x'), { 'a.b.c': ['x'] });
  });
  it('trims spaces around field names', () => {
    assert.deepEqual(decode(lines('t[1]{ id , name }:', '  1,Kim')), {
      t: [{ id: 1, name: 'Kim' }],
    });
  });
  it('matches braces outside quoted field names only', () => {
    assert.deepEqual(decode(lines('t[1]{"}{",v}:', '  1,2')), { t: [{ '}{': 1, v: 2 }] });
  });
  it('does not allocate for a declared length: an oversized length is just a count mismatch', () => {
    rejects('t[12345678901234567890]: a', { line: 1, column: 3, reason: /found 1/ });
    assert.deepEqual(decode('t[12345678901234567890]: a', lenient), { t: ['a'] });
  });
  it('rejects malformed lengths at the offending character', () => {
    rejects('size[07]: a', { line: 1, column: 6, reason: /leading zeros/ });
    rejects('size[]: a', { line: 1, column: 5, reason: /no length/ });
    rejects('size[x]: a', { line: 1, column: 6, reason: /invalid array length/ });
    rejects('size[-2]: a', { line: 1, column: 6 });
    rejects('size[2.0]: a,b', { line: 1, column: 7 });
  });
  it('rejects malformed keyed markers', () => {
    rejects(lines('m[2|:]{v}:', '  a: 1', '  b: 2'), { line: 1, column: 5 });
    rejects(lines('m[2 :]{v}:', '  a: 1', '  b: 2'), { line: 1, column: 4 });
    rejects(lines('m[2:,]{v}:', '  a: 1', '  b: 2'), { line: 1, column: 5 });
  });
  it('rejects content between the brackets and the colon', () => {
    rejects('size[2]x: a,b', { line: 1, column: 8, reason: /after the array header/ });
    rejects('size[2] : a,b', { line: 1, column: 8 });
    rejects('size[1][2]: a', { line: 1, column: 8 });
    rejects(lines('t[1] {a}:', '  1'), { line: 1, column: 5 });
  });
  it('rejects a header without its colon', () => {
    rejects(lines('t[1]{a}', '  1'), { line: 1, column: 8, reason: /missing ":"/ });
  });
  it('rejects a keyed header without a field list', () => {
    rejects(lines('m[1:]:', '  k: 1'), { line: 1, column: 2, reason: /field list/ });
  });
  it('rejects empty and unclosed field lists', () => {
    rejects(lines('t[1]{}:', '  1'), { line: 1, column: 5, reason: /empty field list/ });
    rejects(lines('t[1]{a,g{}}:', '  1'), { line: 1, column: 9, reason: /empty field list/ });
    rejects(lines('t[1]{a,}:', '  1'), { line: 1, column: 8, reason: /empty field name/ });
    rejects(lines('t[1]{a,b:', '  1,2'), { line: 1, column: 5, reason: /unclosed/ });
  });
  it('rejects a field list whose delimiter differs from the bracket segment', () => {
    rejects(lines('t[1]{a|b}:', '  1,2'), { line: 1, column: 7, reason: /pipe.*comma/ });
    rejects(lines('t[1|]{a,b}:', '  1|2'), { line: 1, column: 8, reason: /comma.*pipe/ });
  });
  it('rejects inline content after a fields-bearing header', () => {
    rejects('t[1]{a}: 5', { line: 1, column: 10, reason: /following lines/ });
  });
  it('rejects keyless headers outside the root and list items', () => {
    rejects(lines('outer:', '  [1]: x'), { line: 2, column: 3, reason: /needs a key/ });
    rejects(lines('list[1]:', '  - [1]{a}:', '      1'), {
      line: 2,
      column: 5,
      reason: /only valid as the document root/,
    });
  });
  it('rejects a malformed header in non-strict mode too, instead of reading a literal key (4.4)', () => {
    rejects('size[2]x: a,b', { line: 1, column: 8 }, lenient);
    rejects('size[]: 4', { line: 1, column: 5, reason: /no length/ }, lenient);
    rejects('size[07]: a', { line: 1, column: 6, reason: /leading zeros/ }, lenient);
    rejects('t[1]{a}: 5', { line: 1, column: 10 }, lenient);
    rejects(lines('first: 1', '[2]: a,b'), { line: 2, column: 1, reason: /needs a key/ }, lenient);
    rejects('foo[1][bar]: 10', { line: 1, column: 7 }, lenient);
    rejects('foo[bar][1]: 20', { line: 1, column: 5 }, lenient);
  });
  it('rejects whitespace before a nested field group, in both modes (4.2)', () => {
    for (const options of [undefined, lenient]) {
      rejects(
        lines('a[1]{b {x}}:', '  1'),
        { line: 1, column: 7, reason: /nested field group/ },
        options,
      );
      rejects(
        lines('a[1]{"b" {x}}:', '  1'),
        { line: 1, column: 9, reason: /nested field group/ },
        options,
      );
    }
    assert.deepEqual(decode(lines('a[1]{b{x}, c}:', '  1, 2')), { a: [{ b: { x: 1 }, c: 2 }] });
  });
  it("rejects a field list whose delimiter differs from the brackets', in both modes (4.4)", () => {
    for (const options of [undefined, lenient]) {
      rejects(lines('a[1|]{x,y}:', '  1|2'), { line: 1, column: 8, reason: /delimiter/ }, options);
    }
  });
  it('keeps a quoted span inside a bare field name as written, like an unquoted key (4.2)', () => {
    assert.deepEqual(decode(lines('t[1]{a"b,c"d,e}:', '  1,2')), { t: [{ 'a"b,c"d': 1, e: 2 }] });
    assert.deepEqual(decode('k"x:y"z: 1'), { 'k"x:y"z': 1 });
  });
});

describe('§7 strings, keys and escapes', () => {
  it('reads escapes beside raw tabs and other control characters inside quotes', () => {
    // Quoted text may hold raw control characters (JSON's string grammar refuses them, so these
    // take the decoder's own unescaping), with escapes before and after them.
    assert.deepEqual(decode('s: "a\tb\\"c\\nd\u0001e\\u00e9"'), { s: 'a\tb"c\nd\u0001eé' });
    assert.deepEqual(decode('t[1]{a}:\n  "x\\\\\ty\\""'), { t: [{ a: 'x\\\ty"' }] });
  });
  it("unescapes long, escape-heavy strings exactly, across the builder's chunks and slices", () => {
    // Runs between escapes short (copied) and long (sliced), values well past one 8192-unit chunk.
    const piece = fc.oneof(
      fc.constantFrom('\\n', '\\t', '\\r', '\\"', '\\\\', '\\u00e9', '\\u001F', '😀', 'é'),
      fc.string({ maxLength: 8 }).map((text) => text.replace(/["\\\n\r\u0000-\u001f]/g, 'x')),
      fc.nat({ max: 1500 }).map((n) => 'r'.repeat(n)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
        const body = pieces.join('');
        assert.deepEqual(decode(`s: "${body}"`), { s: JSON.parse(`"${body}"`) });
      }),
      { numRuns: 150 },
    );
  });
  it('rejects an unpaired surrogate in string input in strict mode, with line and column', () => {
    rejects(lines('a: 1', 'b: x\ud800'), {
      line: 2,
      column: 5,
      reason: /unpaired surrogate U\+D800/,
    });
    rejects('😀\udc00: 1', { line: 1, column: 2, reason: /U\+DC00/ });
    rejects('"a\ud83d": 1', { line: 1, column: 3 });
    assert.throws(() => decodeFromLines(['a: 1', 'b: \ud800']), { line: 2, column: 4 });
    // Pairs are characters; non-strict mode keeps what it is given.
    assert.deepEqual(decode('a: \ud83d\ude00'), { a: '😀' });
    assert.deepEqual(decode('a: x\ud800', lenient), { a: 'x\ud800' });
  });
  it('unescapes the five short escapes and \\uXXXX in values and keys', () => {
    assert.deepEqual(decode('"k\\t\\u00E9": "a\\\\b\\"c\\nd\\re\\u0001"'), {
      'k\té': 'a\\b"c\nd\re\u0001',
    });
  });
  it('accepts literal astral characters and tabs inside quotes', () => {
    assert.deepEqual(decode('s: "🎉\tok"'), { s: '🎉\tok' });
  });
  it('rejects unknown escapes, short \\u escapes and surrogate escapes at the backslash', () => {
    rejects('s: "ab\\q"', { line: 1, column: 7, reason: /invalid escape/ });
    rejects('s: "\\u12"', { line: 1, column: 5, reason: /four hex digits/ });
    rejects('s: "\\ud83d\\ude00"', { line: 1, column: 5, reason: /surrogate/ });
  });
  it('rejects an unterminated string at its opening quote, without reading the next line', () => {
    rejects(lines('a: "open', 'b: "closed"'), { line: 1, column: 4, reason: /unterminated/ });
    rejects('"key: 1', { line: 1, column: 1 });
  });
  it('rejects text after a closing quote', () => {
    rejects('s: "a" b', { line: 1, column: 8, reason: /after the closing quote/ });
    rejects('"k" x: 1', { line: 1, column: 5, reason: /after the quoted key/ });
  });
  it('allows spaces between a quoted key and its colon', () => {
    assert.deepEqual(decode('"a b"  : 1'), { 'a b': 1 });
  });
  it('accepts any unquoted key token, even outside the encoder pattern', () => {
    assert.deepEqual(decode(lines('my-key: 1', '9lives: x', 'key with spaces: y', '@at: z')), {
      'my-key': 1,
      '9lives': 'x',
      'key with spaces': 'y',
      '@at': 'z',
    });
  });
  it('accepts unquoted values an encoder would have quoted', () => {
    assert.deepEqual(decode(lines('a: -dash', 'b: x:y', 'c: }{')), {
      a: '-dash',
      b: 'x:y',
      c: '}{',
    });
  });
  it('counts columns in characters, not UTF-16 code units', () => {
    rejects('k😀: "\\q"', { line: 1, column: 6 });
  });
});

describe('§8 objects', () => {
  it('opens a nested object with a bare key and keeps key order', () => {
    assert.deepEqual(decode(lines('z: 1', 'm:', '  y: 2', '  x:', '    w: 3', 'a: 4')), {
      z: 1,
      m: { y: 2, x: { w: 3 } },
      a: 4,
    });
  });
  it('decodes a bare key with nothing under it as an empty object, never an array', () => {
    assert.deepEqual(decode(lines('empty:', 'next: 1')), { empty: {}, next: 1 });
  });
  it('treats dotted keys as single literal keys', () => {
    assert.deepEqual(decode('server.port: 80'), { 'server.port': 80 });
  });
  it('reads the whole remainder after the colon as one value', () => {
    assert.deepEqual(decode('csv: 1,2,3'), { csv: '1,2,3' });
  });
});

describe('§9.1 inline primitive arrays', () => {
  it('splits on the delimiter, trims spaces and types each value', () => {
    assert.deepEqual(decode('v[5]:  one , 2,true ,, "x,y"'), { v: ['one', 2, true, '', 'x,y'] });
  });
  it('keeps characters other than spaces, such as NBSP, as part of a value', () => {
    assert.deepEqual(decode('v[2]: \u00a0a\u00a0,b'), { v: ['\u00a0a\u00a0', 'b'] });
  });
  it('reads a trailing delimiter as one more empty value', () => {
    assert.deepEqual(decode('v[2]: a,'), { v: ['a', ''] });
  });
  it('accepts the legacy empty form key[0]:', () => {
    assert.deepEqual(decode('v[0]:'), { v: [] });
  });
  it('rejects too many values at the first extra one and too few at the declared length', () => {
    rejects('v[2]: a,b,c', { line: 1, column: 11, reason: /expected 2 values.*found more/ });
    rejects('v[3]: a', { line: 1, column: 3, reason: /expected 3 values.*found 1/ });
    rejects('v[0]: a', { line: 1, column: 7 });
  });
  it('keeps whatever values there are in non-strict mode', () => {
    assert.deepEqual(decode('v[3]: a', lenient), { v: ['a'] });
    assert.deepEqual(decode('v[1]: a,b', lenient), { v: ['a', 'b'] });
  });
});

describe('§9.2 arrays of arrays', () => {
  it('reads inner arrays as list items with their own headers', () => {
    assert.deepEqual(decode(lines('m[3]:', '  - [2]: 1,2', '  - [0]:', '  - []')), {
      m: [[1, 2], [], []],
    });
  });
  it("uses each inner header's own delimiter", () => {
    assert.deepEqual(decode(lines('m[2|]:', '  - [2]: a|b,c', '  - [1|]: a,b')), {
      m: [['a|b', 'c'], ['a,b']],
    });
  });
  it('checks inner counts in strict mode', () => {
    rejects(lines('m[1]:', '  - [2]: x'), { line: 2, column: 6, reason: /expected 2 values/ });
  });
  it('keeps each header its own after inline arrays (their header record is reused)', () => {
    // The outer headers' counts are checked after inner inline headers were parsed.
    rejects(lines('m[3]:', '  - [1]: x', '  - [2]: y,z'), {
      line: 1,
      column: 3,
      reason: /expected 3 list items as declared by \[3\], found 2/,
    });
    rejects(lines('m[2]:', '  - [1]: x', '  - [3]: y,z'), {
      line: 3,
      column: 6,
      reason: /expected 3 values as declared by \[3\], found 2/,
    });
    rejects(lines('t[2]{a}:', '  1', '  2', 'k[1|]: p|q'), {
      line: 4,
      column: 10,
      reason: /expected 1 value as declared by \[1\], found more/,
    });
    assert.deepEqual(decode(lines('[2]:', '  - k[2|]: 1|2', '    m[1]: 3', '  - [1]: 4')), [
      { k: [1, 2], m: [3] },
      [4],
    ]);
  });
});

describe('§9.3 tabular arrays', () => {
  it('decodes rows to objects in header field order', () => {
    assert.deepEqual(decode(lines('p[2]{b,a}:', '  1,x', '  2,"y, z"')), {
      p: [
        { b: 1, a: 'x' },
        { b: 2, a: 'y, z' },
      ],
    });
  });
  it('materializes nested field groups depth-first', () => {
    assert.deepEqual(decode(lines('t[1]{n,at{lat,lng},tag{k{v}}}:', '  a,1.5,-2,deep')), {
      t: [{ n: 'a', at: { lat: 1.5, lng: -2 }, tag: { k: { v: 'deep' } } }],
    });
  });
  it('reads quoted colons in rows as data', () => {
    assert.deepEqual(decode(lines('t[1]{at,url}:', '  "12:00","a:b"')), {
      t: [{ at: '12:00', url: 'a:b' }],
    });
  });
  it('ends the rows at a line whose colon comes before the delimiter', () => {
    assert.deepEqual(decode(lines('t[1]{a,b}:', '  1,2', 'after: x,y')), {
      t: [{ a: 1, b: 2 }],
      after: 'x,y',
    });
  });
  it('rejects a row with the wrong width, naming the fields', () => {
    rejects(lines('t[1]{a,b,c}:', '  1,2'), {
      line: 2,
      column: 6,
      reason: /row has 2 values but the header declares 3 fields \(a, b, c\)/,
    });
    rejects(lines('t[1]{a}:', '  1,2'), {
      line: 2,
      column: 5,
      reason: /^row has more than 1 value but the header declares 1 field \(a\)/,
    });
    rejects(lines('t[1]{a,b}:', '  1,2,3'), {
      line: 2,
      column: 7,
      reason: /more than 2 values but/,
    });
  });
  it('reads rows of plain fields straight into objects as it reads rows through cells', () => {
    // Flat field lists skip the buffer of cells (readFlatRow); a nested group or a __proto__
    // name takes the buffer. Both paths give the same values and the same errors.
    assert.deepEqual(decode(lines('t[2]{a,b}:', '  1,', '  "x" , y ')), {
      t: [
        { a: 1, b: '' },
        { a: 'x', b: 'y' },
      ],
    });
    const proto = decode(lines('t[1]{a,__proto__}:', '  1,2')) as { t: object[] };
    assert.deepEqual(Object.keys(proto.t[0]!), ['a', '__proto__']);
    assert.equal(Object.getPrototypeOf(proto.t[0]), Object.prototype);
    assert.deepEqual(decode(lines('t[1:]{a,b}:', '  k: 1,2')), { t: { k: { a: 1, b: 2 } } });
    rejects(lines('t[1]{a,b}:', '  1,2,'), { line: 2, column: 7, reason: /more than 2/ });
    rejects(lines('t[1]{a,b}:', '  "x" y,2'), { line: 2, column: 7, reason: /after/ });
    rejects(lines('t[1]{a,b,c}:', '  1,'), { line: 2, column: 5, reason: /2 values/ });
    const width = 5000;
    const names = Array.from({ length: width }, (_, i) => `f${i}`);
    const wide = decode(lines(`t[1|]{${names.join('|')}}:`, `  ${names.join('|')}`));
    assert.deepEqual(wide, { t: [Object.fromEntries(names.map((name) => [name, name]))] });
  });
  it('rejects too many or too few rows', () => {
    rejects(lines('t[1]{a}:', '  1', '  2'), {
      line: 3,
      column: 3,
      reason: /expected 1 row .*found more/,
    });
    rejects(lines('t[3]{a}:', '  1'), { line: 1, column: 3, reason: /expected 3 rows.*found 1/ });
  });
  it('rejects a row of the wrong width in non-strict mode too (4.4)', () => {
    rejects(
      lines('t[2]{a,b}:', '  1', '  2,3'),
      { line: 2, column: 4, reason: /1 value/ },
      lenient,
    );
    rejects(lines('t[1]{a,b}:', '  2,3,4'), { line: 2, column: 7, reason: /more than 2/ }, lenient);
    // The count is one of non-strict mode's recoveries: rows beyond [N], or fewer, are kept.
    assert.deepEqual(decode(lines('t[3]{a,b}:', '  1,2', '  3,4'), lenient), {
      t: [
        { a: 1, b: 2 },
        { a: 3, b: 4 },
      ],
    });
  });
  it('rejects duplicate field names in strict mode and lets the last one win otherwise', () => {
    rejects(lines('t[1]{a,b,a}:', '  1,2,3'), {
      line: 1,
      column: 10,
      reason: /duplicate field name "a"/,
    });
    assert.deepEqual(decode(lines('t[1]{a,b,a}:', '  1,2,3'), lenient), { t: [{ a: 3, b: 2 }] });
  });
  it('finds a duplicate field name anywhere in a wide header, and in each group on its own', () => {
    // Past a few names the check keeps a hash table that grows as the header does: a duplicate
    // just before and after each growth, and at the very end of 80,000 names.
    for (const [count, repeatAt] of [
      [9, 8],
      [10, 9],
      [40, 33],
      [200, 129],
      [5_000, 4_097],
      [80_000, 79_999],
    ] as const) {
      const fields = Array.from({ length: count }, (_, i) => `f${i}`);
      fields[repeatAt] = `f${repeatAt >> 1}`;
      const header = `t[1]{${fields.join(',')}}:`;
      const cells = fields.map(() => '0').join(',');
      rejects(lines(header, `  ${cells}`), {
        line: 1,
        column: header.lastIndexOf(`,f${repeatAt >> 1}`) + 2,
        reason: new RegExp(`duplicate field name "f${repeatAt >> 1}"`),
      });
      // Without the repeat, the row decodes with every field.
      const row = decode(`t[1]{${fields.map((_, i) => `f${i}`).join(',')}}:\n  ${cells}`) as {
        t: Record<string, number>[];
      };
      assert.equal(Object.keys(row.t[0]!).length, count);
    }
    // Names repeat across groups freely: each group is checked on its own.
    const group = Array.from({ length: 20 }, (_, i) => `g${i}`).join(',');
    assert.deepEqual(
      Object.keys(
        (
          decode(`t[1]{a{${group}},b{${group}}}:\n  ${Array(40).fill(1).join(',')}`) as {
            t: { a: object; b: object }[];
          }
        ).t[0]!.b,
      ).length,
      20,
    );
  });
  it('finds a duplicate spelled two ways in a wide header: quoted and bare, spaces, quotes, long and non-ASCII names', () => {
    // Bare names of plain characters are hashed as they are read, others after; a name is the
    // same name either way. Twelve names first, so the check has its hash table.
    const first = Array.from({ length: 12 }, (_, i) => `f${i}`).join(',');
    const long = 'k'.repeat(70);
    for (const [earlier, later] of [
      ['q3', '"q3"'],
      ['"q13"', 'q13'],
      ['a b', '"a b"'],
      ['x"y"', '"x\\"y\\""'],
      [long, `"${long}"`],
      ['café', '"café"'],
      ['"é1"', 'é1'],
    ] as const) {
      const header = `t[1]{${first},${earlier},m,${later}}:`;
      rejects(lines(header, `  ${Array(15).fill(0).join(',')}`), {
        line: 1,
        column: header.lastIndexOf(`,${later}`) + 2,
        reason: /^duplicate field name "/,
      });
    }
  });
  it('reads a group that opens after many leaf names, and its rows', () => {
    const leaves = Array.from({ length: 12 }, (_, i) => `f${i}`);
    const value = decode(
      `t[1]{${leaves.join(',')},g{x,y},__proto__,z}:\n  ${[...leaves.keys(), 'X', 'Y', 'P', 'Z'].join(',')}`,
    ) as { t: Record<string, unknown>[] };
    const row = value.t[0]!;
    assert.deepEqual(Object.keys(row), [...leaves, 'g', '__proto__', 'z']);
    assert.deepEqual(row.g, { x: 'X', y: 'Y' });
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 'P');
    rejects(lines(`t[1]{${leaves.join(',')},g{x,y},z}:`, `  ${Array(14).fill(0).join(',')}`), {
      line: 2,
      column: 30,
      reason: /14 values but the header declares 15 fields/,
    });
  });
  it('reads a line without a colon as no header, even with a duplicate field name or a group past maxDepth', () => {
    // The header parser reports these as "not a header" (a scalar line without a colon), and the
    // error only when the line has a colon: a root scalar is its text, an object line is refused
    // for its missing colon.
    assert.equal(decode('t[1]{a,a}'), 't[1]{a,a}');
    assert.equal(decode('t[1]{a{b{c}}}', { maxDepth: 2 }), 't[1]{a{b{c}}}');
    rejects(lines('x: 1', 't[1]{a,a}'), { line: 2, column: 1, reason: /no ":"/ });
    rejects(
      lines('t[1]{a{b{c}}}:', '  1'),
      { line: 1, column: 7, reason: /maxDepth/ },
      {
        maxDepth: 2,
      },
    );
  });
});

describe('§9.4 expanded lists', () => {
  it('reads primitives, objects, arrays and empty objects as items', () => {
    assert.deepEqual(decode(lines('l[5]:', '  - text', '  - 3', '  - k: v', '  - [1]: z', '  -')), {
      l: ['text', 3, { k: 'v' }, ['z'], {}],
    });
  });
  it('reads a keyless list header on a hyphen line as a nested list one level deeper', () => {
    assert.deepEqual(decode(lines('l[1]:', '  - [2]:', '    - a: 1', '    - b')), {
      l: [[{ a: 1 }, 'b']],
    });
  });
  it('rejects a line at item depth that is not an item', () => {
    rejects(lines('l[2]:', '  - a', '  b'), { line: 3, column: 3, reason: /list item/ });
  });
  it('rejects too many or too few items', () => {
    rejects(lines('l[1]:', '  - a', '  - b'), {
      line: 3,
      column: 3,
      reason: /expected 1 list item as/,
    });
    rejects(lines('l[2]:', '  - a'), { line: 1, column: 3, reason: /found 1/ });
  });
});

describe('§9.5 keyed tabular objects', () => {
  it('decodes entry rows to an object of objects', () => {
    assert.deepEqual(decode(lines('ports[2:|]{proto|n}:', '  web: tcp|80', '  "dns x": udp|53')), {
      ports: { web: { proto: 'tcp', n: 80 }, 'dns x': { proto: 'udp', n: 53 } },
    });
  });
  it('splits at the first unquoted colon, so later colons are cell data', () => {
    assert.deepEqual(decode(lines('m[1:]{t}:', '  noon: 12:00')), { m: { noon: { t: '12:00' } } });
  });
  it('keeps bracket text in entry keys literal and reads [] in a cell as a string', () => {
    assert.deepEqual(decode(lines('m[1:]{v}:', '  x[0]: []')), { m: { 'x[0]': { v: '[]' } } });
  });
  it('supports nested field groups in entry rows', () => {
    assert.deepEqual(decode(lines('c[1:]{pos{x,y}}:', '  home: 1,2')), {
      c: { home: { pos: { x: 1, y: 2 } } },
    });
  });
  it('accepts a zero entry count', () => {
    assert.deepEqual(decode(lines('m[0:]{v}:', 'next: 1')), { m: {}, next: 1 });
  });
  it('rejects count and width mismatches, an entry without cells, and a colonless line', () => {
    rejects(lines('m[2:]{v}:', '  a: 1'), { line: 1, column: 3, reason: /expected 2 entry rows/ });
    rejects(lines('m[1:]{v,w}:', '  a: 1'), {
      line: 2,
      column: 7,
      reason: /entry row has 1 value/,
    });
    rejects(lines('m[1:]{v}:', '  a:'), { line: 2, column: 5, reason: /0 values/ });
    rejects(lines('m[1:]{v}:', '  orphan'), { line: 2, column: 3, reason: /no ":"/ });
  });
  it('rejects duplicate entry keys in strict mode and lets the last one win otherwise', () => {
    const text = lines('m[2:]{v}:', '  k: 1', '  k: 2');
    rejects(text, { line: 3, column: 3, reason: /duplicate entry key "k"/ });
    assert.deepEqual(decode(text, lenient), { m: { k: { v: 2 } } });
  });
  it('rejects a colonless line in non-strict mode too (4.4)', () => {
    rejects(lines('m[2:]{v}:', '  a: 1', '  junk', '  b: 2'), { line: 3, column: 3 }, lenient);
  });
});

describe('§10 objects as list items', () => {
  it("places a first field's nested content two levels below the hyphen and other fields one level below", () => {
    const text = lines('l[1]:', '  - meta:', '      k: 1', '    id: 9');
    assert.deepEqual(decode(text), { l: [{ meta: { k: 1 }, id: 9 }] });
  });
  it('reads a tabular first field with rows at +2 and siblings at +1', () => {
    const text = lines('l[1]:', '  - rows[2]{a}:', '      1', '      2', '    done: true');
    assert.deepEqual(decode(text), { l: [{ rows: [{ a: 1 }, { a: 2 }], done: true }] });
  });
  it('reads a keyed first field the same way', () => {
    const text = lines('l[1]:', '  - cfg[1:]{v}:', '      a: 1', '    ok: yes');
    assert.deepEqual(decode(text), { l: [{ cfg: { a: { v: 1 } }, ok: 'yes' }] });
  });
  it('reads a list first field with items at +2', () => {
    const text = lines('l[1]:', '  - xs[2]:', '      - 1', '      - 2', '    n: 2');
    assert.deepEqual(decode(text), { l: [{ xs: [1, 2], n: 2 }] });
  });
  it('does not accept rows at +1 for a first-field table', () => {
    rejects(lines('l[1]:', '  - rows[1]{a}:', '    1'), {
      line: 2,
      column: 10,
      reason: /expected 1 row .*found 0/,
    });
  });
  it('rejects duplicate keys across the hyphen line and later fields', () => {
    rejects(lines('l[1]:', '  - id: 1', '    id: 2'), {
      line: 3,
      column: 5,
      reason: /duplicate key "id"/,
    });
  });
});

describe('§11 delimiters', () => {
  it('splits tab- and pipe-delimited rows and inline arrays on their delimiter only', () => {
    assert.deepEqual(decode(lines('t[2\t]{a\tb}:', '  x,y\t1', '  p|q\t2', 'v[2|]: a,b|c d')), {
      t: [
        { a: 'x,y', b: 1 },
        { a: 'p|q', b: 2 },
      ],
      v: ['a,b', 'c d'],
    });
  });
  it('resets to comma in a nested header without a delimiter symbol', () => {
    assert.deepEqual(decode(lines('o[1|]:', '  - in[2]: a|b,c')), { o: [{ in: ['a|b', 'c'] }] });
  });
  it('trims spaces, but not tabs, around pipe-delimited values', () => {
    assert.deepEqual(decode('v[2|]:  a | b '), { v: ['a', 'b'] });
  });
  it('reads quoted values containing the active delimiter', () => {
    assert.deepEqual(decode('v[2\t]: "a\tb"\t"c\\td"'), { v: ['a\tb', 'c\td'] });
  });
});

describe('§12 indentation and whitespace', () => {
  it('accepts CRLF line endings and keeps a CR elsewhere in a line', () => {
    assert.deepEqual(decode('a: 1\r\nb:\r\n  c: x\ry\r\n'), { a: 1, b: { c: 'x\ry' } });
  });
  it('accepts trailing newlines and blank lines between fields', () => {
    assert.deepEqual(decode('a: 1\n\n   \nb: 2\n\n'), { a: 1, b: 2 });
  });
  it('accepts blank lines between a header and its first item and after the array', () => {
    assert.deepEqual(decode(lines('t[1]{a}:', '', '  1', '', 'x: 2')), { t: [{ a: 1 }], x: 2 });
  });
  it('rejects a blank line inside an array span in strict mode, pointing at the blank line', () => {
    rejects(lines('l[2]:', '  - a: 1', '', '    b: 2', '  - c'), {
      line: 3,
      column: 1,
      reason: /blank line inside an array/,
    });
    rejects(lines('t[2]{a}:', '  1', '  ', '  2'), { line: 3, column: 1 });
    rejects(lines('o[1]:', '  - in[1]:', '', '      - x'), { line: 3, column: 1 });
  });
  it('ignores blank lines inside arrays in non-strict mode', () => {
    assert.deepEqual(decode(lines('l[2]:', '  - a', '', '  - b'), lenient), { l: ['a', 'b'] });
  });
  it('honours a custom indentSize', () => {
    assert.deepEqual(decode(lines('a:', '    b:', '        c: 1'), { indentSize: 4 }), {
      a: { b: { c: 1 } },
    });
    rejects(
      lines('a:', '  b: 1'),
      { line: 2, column: 3, reason: /not a multiple of 4/ },
      { indentSize: 4 },
    );
  });
  it('rejects indentation that is not a multiple of indentSize', () => {
    rejects(lines('a:', '   b: 1'), {
      line: 2,
      column: 4,
      reason: /3 spaces is not a multiple of 2/,
    });
  });
  it('rejects tabs in indentation at the tab', () => {
    rejects(lines('a:', '  \tb: 1'), { line: 2, column: 3, reason: /tab used for indentation/ });
  });
  it('rejects depth jumps and over-indented lines', () => {
    rejects(lines('a:', '      b: 1'), { line: 2, column: 7, reason: /jumps 3 levels/ });
    rejects(lines('a: 1', '  b: 2'), {
      line: 2,
      column: 3,
      reason: /does not open a nested block/,
    });
    rejects(lines('a:', '  b: 1', '    c: 2'), { line: 3, column: 5 });
  });
  it('computes depth as floor(spaces / indentSize) and a tab as indentSize spaces in non-strict mode', () => {
    assert.deepEqual(decode(lines('a:', '   b:', '     c: 1'), lenient), { a: { b: { c: 1 } } });
    assert.deepEqual(decode(lines('a:', '\tb: 1'), lenient), { a: { b: 1 } });
    assert.deepEqual(decode(lines('a:', ' \tb:', '\t\tc: 1'), lenient), { a: { b: { c: 1 } } });
  });
  it('uses the first line of a deeper block as its depth in non-strict mode, but rejects lines that belong to no block (4.4)', () => {
    assert.deepEqual(decode(lines('a:', '      b: 1', '      c: 2'), lenient), {
      a: { b: 1, c: 2 },
    });
    rejects(lines('a: 1', '    stray: 2', 'b: 3'), { line: 2, column: 5 }, lenient);
    rejects(lines('a:', '      b: 1', '    c: 2'), { line: 3, column: 5 }, lenient);
    rejects(lines('l[2]:', '  - a', '  b: 1', '  - c'), { line: 3, column: 3 }, lenient);
  });
});

describe('§14.3 duplicate keys', () => {
  it('rejects a repeated sibling key in strict mode, at the second key', () => {
    rejects(lines('k: 1', 'o:', '  x: 1', '  x: 2'), {
      line: 4,
      column: 3,
      reason: /duplicate key "x"/,
    });
  });
  it('finds a repeated key however often its name was seen before, in any object', () => {
    // Key names come from a cache shared by every decode (tokens.ts): decode a document that uses
    // the same names again and again, nested and in list items, then repeat one at each level.
    const ok = lines(
      'id: 1',
      'name: a',
      'owner:',
      '  id: 2',
      '  name: b',
      'items[2]:',
      '  - id: 3',
      '    name: c',
      '    owner:',
      '      id: 4',
      '  - id: 5',
      '    name: d',
      'tail: 6',
    );
    for (let i = 0; i < 3; i++) assert.equal((decode(ok) as { tail: number }).tail, 6);
    const insert = (at: number, line: string) => {
      const all = ok.split('\n');
      all.splice(at, 0, line);
      return all.join('\n');
    };
    for (let i = 0; i < 2; i++) {
      rejects(insert(13, 'id: 9'), { line: 14, column: 1, reason: /duplicate key "id"/ });
      rejects(insert(13, 'owner: 9'), { line: 14, column: 1, reason: /duplicate key "owner"/ });
      rejects(insert(10, '      id: 9'), { line: 11, column: 7, reason: /duplicate key "id"/ });
      rejects(insert(10, '    id: 9'), { line: 11, column: 5, reason: /duplicate key "id"/ });
      rejects(insert(12, '    name: 9'), { line: 13, column: 5, reason: /duplicate key "name"/ });
      rejects(insert(5, '  id: 9'), { line: 6, column: 3, reason: /duplicate key "id"/ });
      assert.equal((decode(ok) as { tail: number }).tail, 6);
    }
  });
  it('finds a repeat whichever way each of the two keys is written', () => {
    // Keys come unquoted, quoted, before a header's bracket, or too long for the key cache; the
    // duplicate check must not depend on how the first one was read (tree.ts, keyStamps).
    const long = `k${'x'.repeat(80)}`;
    const ways = (key: string) => [`${key}: 1`, `"${key}": 1`, `${key}[1]: 1`, `${key}:`];
    for (const key of ['id', long]) {
      for (const first of ways(key)) {
        for (const second of ways(key)) {
          for (let i = 0; i < 2; i++) {
            rejects(lines(first, 'other: 2', second), {
              line: 3,
              column: 1,
              reason: /duplicate key/,
            });
          }
        }
      }
    }
  });
  it('finds a repeat after an object nested in between used the same key', () => {
    for (let i = 0; i < 2; i++) {
      rejects(lines('a: 1', 'b:', '  a: 2', 'a: 3'), { line: 4, column: 1 });
      rejects(lines('l[1]:', '  - a: 1', '    b:', '      a: 2', '    a: 3'), {
        line: 5,
        column: 5,
      });
      assert.deepEqual(decode(lines('a: 1', 'b:', '  a: 2', 'c: 3')), { a: 1, b: { a: 2 }, c: 3 });
    }
  });
  it('tells apart two keys that share a key-cache slot', () => {
    // Distinct keys can land in one slot of the key cache; the duplicate check must still look.
    const bySlot = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const key = `key${i}`;
      const other = bySlot.get(keySlotOf(key));
      if (other === undefined) bySlot.set(keySlotOf(key), key);
      else pair = [other, key];
    }
    const [a, b] = pair;
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(decode(lines(`${a}: 1`, `${b}: 2`)), { [a]: 1, [b]: 2 });
      rejects(lines(`${a}: 1`, `${b}: 2`, `${a}: 3`), { line: 3, column: 1 });
      rejects(lines(`${a}: 1`, `${b}: 2`, `${b}: 3`), { line: 3, column: 1 });
    }
  });
  it('does not confuse inherited names with duplicates', () => {
    assert.deepEqual(decode(lines('toString: 1', 'valueOf: 2', 'hasOwnProperty: 3')), {
      toString: 1,
      valueOf: 2,
      hasOwnProperty: 3,
    });
  });
  it('lets the last value win, silently, in non-strict mode', () => {
    assert.deepEqual(decode(lines('k: 1', 'k:', '  deep: true'), lenient), { k: { deep: true } });
  });
});

describe('§14 error shape', () => {
  it('throws ToonDecodeError, a SyntaxError whose message starts with the line number', () => {
    try {
      decode(lines('a: 1', 'v[2]: x'));
      assert.fail('expected an error');
    } catch (error) {
      assert.ok(error instanceof ToonDecodeError);
      assert.ok(error instanceof SyntaxError);
      assert.equal(error.name, 'ToonDecodeError');
      assert.equal(error.message, `Line 2: ${error.reason}`);
      assert.match(error.reason, /^expected 2 values as declared by \[2\], found 1; /);
    }
  });
  it('reports lines of the original text, comments and blank lines included', () => {
    rejects(lines('# c', '', 'a: 1', '# c', 'a: 2'), { line: 5, column: 1 });
  });
});

describe('decode options and arguments', () => {
  it('hands unquoted numbers beyond a double to the beyondDouble hook, quoted ones never', () => {
    const seen: string[] = [];
    const hook = (token: string) => {
      seen.push(token);
      return token.startsWith('-') ? -Infinity : Infinity;
    };
    assert.deepEqual(
      decodeWith('a: 1e400\nb[3]: "1e400",-2e999,1e300', undefined, { beyondDouble: hook }),
      {
        a: Infinity,
        b: ['1e400', -Infinity, 1e300],
      },
    );
    assert.deepEqual(seen, ['1e400', '-2e999']);
    assert.deepEqual(decode('a: 1e400'), { a: '1e400' });
  });
  it('decodes a document from inside another decode without mixing their line tables', () => {
    // The hook runs in the middle of the outer decode; the inner one must not reuse the outer's
    // shared line columns, or the outer's later lines would read the inner's.
    const inner = 'a: 1\nb:\n  c: 2';
    const value = decodeWith('x: 1e400\ny[2]: 1e999,3\nz: ok', undefined, {
      beyondDouble: () => JSON.stringify(decode(inner)),
    });
    const innerJson = '{"a":1,"b":{"c":2}}';
    assert.deepEqual(value, { x: innerJson, y: [innerJson, 3], z: 'ok' });
  });
  it('is strict unless strict is exactly false', () => {
    rejects('v[2]: a', { line: 1, column: 3 }, { strict: undefined });
    rejects('v[2]: a', { line: 1, column: 3 }, {});
  });
  it('rejects invalid options and non-string input with a TypeError', () => {
    assert.throws(() => decode('a: 1', { indentSize: 0 }), TypeError);
    assert.throws(() => decode('a: 1', { indentSize: 1.5 }), TypeError);
    assert.throws(() => decode('a: 1', { maxDepth: -1 }), TypeError);
    assert.throws(() => decode(42 as unknown as string), TypeError);
  });
});
