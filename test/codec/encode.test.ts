import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode as referenceEncode, escapeString as referenceEscape } from '@toon-format/toon';
import fc from 'fast-check';
import {
  encode,
  encodeIfPlain,
  encodeLines,
  encodeWithin,
  NOT_PLAIN,
} from '../../src/codec/encode.js';
import { encodeString, escapeString } from '../../src/codec/lexical.js';
import { rawString } from '../../src/codec/raw-string.js';

const lines = (...text: string[]) => text.join('\n');

/** Runs `check` while Object.prototype has an enumerable `key` (as after prototype pollution). */
function withPollutedPrototype(key: string, check: () => void): void {
  Object.defineProperty(Object.prototype, key, { value: 1, enumerable: true, configurable: true });
  try {
    check();
  } finally {
    delete (Object.prototype as Record<string, unknown>)[key];
  }
}

describe('§2 numbers are canonical', () => {
  it('writes integers and decimals without exponents inside [1e-6, 1e21)', () => {
    assert.equal(
      encode({ a: 1e6, b: 0.000001, c: 1.5, d: 123456789012345680000 }),
      lines('a: 1000000', 'b: 0.000001', 'c: 1.5', 'd: 123456789012345680000'),
    );
  });
  it('normalizes -0 to 0', () => {
    assert.equal(encode(-0), '0');
    assert.equal(encode([-0, 0]), '[2]: 0,0');
  });
  it('uses a lowercase exponent with an explicit sign outside the canonical range', () => {
    assert.equal(encode([1e-7, 1e21, -2.5e-8]), '[3]: 1e-7,1e+21,-2.5e-8');
  });
  it('keeps every digit needed to round-trip', () => {
    assert.equal(encode(0.1 + 0.2), '0.30000000000000004');
    assert.equal(encode(Number.MAX_SAFE_INTEGER), '9007199254740991');
  });
  it('writes booleans and null as lowercase literals', () => {
    assert.equal(encode([true, false, null]), '[3]: true,false,null');
  });
});

describe('§3 host values are normalized like JSON.stringify', () => {
  it('turns NaN and ±Infinity into null', () => {
    assert.equal(
      encode({ a: NaN, b: Infinity, c: -Infinity }),
      lines('a: null', 'b: null', 'c: null'),
    );
  });
  it('calls toJSON, so a Date becomes its ISO string (quoted: it contains colons)', () => {
    assert.equal(
      encode({ at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) }),
      'at: "2026-01-02T03:04:05.000Z"',
    );
    assert.equal(
      encode({ x: { toJSON: () => ({ replaced: true }) } }),
      lines('x:', '  replaced: true'),
    );
  });
  it('passes the property name to toJSON, as JSON.stringify does', () => {
    const seen: string[] = [];
    encode({
      outer: {
        toJSON: (key: string) => {
          seen.push(key);
          return 1;
        },
      },
    });
    assert.deepEqual(seen, ['outer']);
  });
  it('drops undefined, functions and symbols from objects and writes null for them in arrays', () => {
    assert.equal(encode({ a: undefined, b: () => 1, c: Symbol('s'), d: 1 }), 'd: 1');
    assert.equal(encode([undefined, () => 1, Symbol('s')]), '[3]: null,null,null');
  });
  it('turns a Map into an object with string keys and a Set into an array', () => {
    assert.equal(
      encode(
        new Map<unknown, unknown>([
          [1, 'a'],
          ['b', new Set([1, 2])],
        ]),
      ),
      lines('"1": a', 'b[2]: 1,2'),
    );
  });
  it('unwraps boxed primitives', () => {
    assert.equal(encode([Object(1), Object('x'), Object(true)]), '[3]: 1,x,true');
  });
  it('writes safe BigInts as numbers and larger ones as quoted decimal strings, losing no digit', () => {
    assert.equal(
      encode({ small: 42n, big: 2n ** 64n }),
      lines('small: 42', 'big: "18446744073709551616"'),
    );
  });
  it('follows the bigint option: string always, or throw like JSON.stringify', () => {
    assert.equal(encode(42n, { bigint: 'string' }), '"42"');
    assert.throws(
      () => encode({ n: 1n }, { bigint: 'throw' }),
      /BigInt 1 under key "n".*'auto' or 'string'/,
    );
  });
  it('throws a TypeError naming the path of a cycle instead of overflowing the stack', () => {
    const root: Record<string, unknown> = { list: [{ name: 'a' }] };
    (root.list as Record<string, unknown>[])[0]!.back = root;
    assert.throws(() => encode(root), {
      name: 'TypeError',
      message: /circular structure: \$\.list\[0\]\.back points back to \$/,
    });
  });
  it('names a cycle that starts below the root', () => {
    const child: Record<string, unknown> = { id: 1 };
    child.self = child;
    assert.throws(
      () => encode({ wrapper: { child } }),
      /\$\.wrapper\.child\.self points back to \$\.wrapper\.child/,
    );
  });
  it('encodes deep acyclic nesting beyond the fast walk without calling it a cycle', () => {
    let value: unknown = 'leaf';
    for (let i = 0; i < 400; i++) value = { n: value };
    assert.match(encode(value), /^n:\n {2}n:/);
  });
  it('keeps the same object reused in two places (a DAG is not a cycle)', () => {
    const shared = { id: 1 };
    assert.equal(
      encode({ a: shared, n: 0, b: shared }),
      lines('a:', '  id: 1', 'n: 0', 'b:', '  id: 1'),
    );
  });
});

describe('§7.2 strings are quoted only when needed', () => {
  const cases: [string, string][] = [
    ['plain words', 'plain words'],
    ['héllo 世界 👋', 'héllo 世界 👋'],
    ['', '""'],
    [' padded', '" padded"'],
    ['padded ', '"padded "'],
    ['true', '"true"'],
    ['null', '"null"'],
    ['42', '"42"'],
    ['-3.14', '"-3.14"'],
    ['1e-6', '"1e-6"'],
    ['05', '"05"'],
    ['+1', '"+1"'],
    ['1.5.2', '1.5.2'],
    ['a:b', '"a:b"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['[1]', '"[1]"'],
    ['{x}', '"{x}"'],
    ['-', '"-"'],
    ['- item', '"- item"'],
    ['#', '"#"'],
    ['#tag', '"#tag"'],
    ['a#b', 'a#b'],
    ['line\nbreak', '"line\\nbreak"'],
    ['tab\there', '"tab\\there"'],
    ['cr\r', '"cr\\r"'],
    ['bell\u0007', '"bell\\u0007"'],
    ['\u001f', '"\\u001f"'],
  ];
  for (const [value, expected] of cases) {
    it(`writes ${JSON.stringify(value)} as ${expected}`, () => {
      assert.equal(encode({ v: value }), `v: ${expected}`);
    });
  }
  it('quotes the document delimiter wherever it appears, and only that delimiter (§11.1)', () => {
    assert.equal(encode({ v: 'a,b', list: ['a,b', 'c'] }), lines('v: "a,b"', 'list[2]: "a,b",c'));
    assert.equal(
      encode({ v: 'a,b', list: ['a|b', 'a,b'] }, { delimiter: '|' }),
      lines('v: a,b', 'list[2|]: "a|b"|a,b'),
    );
  });
});

describe('§7.1 escapes', () => {
  it('escapes exactly as the reference at every length, where JSON escapes differently too', () => {
    // JSON.stringify writes the escapes; \b, \f and unpaired surrogates are where JSON and TOON
    // differ, and the text "\\b" (a backslash, then b) must not be taken for JSON's \b.
    const piece = fc.oneof(
      fc.constantFrom('\n', '\t', '\r', '"', '\\', '\u0001', '\u001f', '😀', 'é'),
      fc.constantFrom('\b', '\f', '\\b', '\\f', '\\\b', '\ud800', '\udc00', '\\ud800', '\u007f'),
      fc.string({ maxLength: 8 }),
      fc.nat({ max: 1500 }).map((n) => 'r'.repeat(n)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
        const value = pieces.join('');
        assert.equal(escapeString(value), referenceEscape(value));
      }),
      { numRuns: 150 },
    );
  });
  it('writes U+0008 and U+000C as \\u0008 and \\u000c, in values and keys, as the reference does', () => {
    const value = { 'k\b': 'a\bb\fc\\b', long: `${'x'.repeat(2000)}\f"` };
    assert.equal(encode(value), referenceEncode(value));
    assert.equal(encode(value).split('\n')[0], '"k\\u0008": "a\\u0008b\\u000cc\\\\b"');
  });
});

describe('§1.2 / §7.1 unpaired surrogates', () => {
  it('refuses a string or key with an unpaired surrogate, which UTF-8 text cannot carry', () => {
    assert.throws(() => encode({ text: 'cut emoji \ud83d' }), {
      name: 'TypeError',
      message: /unpaired surrogate \(U\+D83D at index 10/,
    });
    assert.throws(() => encode({ ['\udc00']: 1 }), {
      name: 'TypeError',
      message: /key with an unpaired surrogate/,
    });
    assert.throws(() => encode(['\ud800']), TypeError);
  });
  it('writes paired surrogates (astral characters) literally', () => {
    assert.equal(encode({ text: 'ok 😀' }), 'text: ok 😀');
  });
});

describe('§7.3 keys', () => {
  it('leaves identifier-like keys (dots included) bare and quotes the rest', () => {
    assert.equal(
      encode({ user_name: 1, 'a.b': 2, '2x': 3, 'my-key': 4, '': 5, 'a b': 6 }),
      lines('user_name: 1', 'a.b: 2', '"2x": 3', '"my-key": 4', '"": 5', '"a b": 6'),
    );
  });
  it('escapes control characters in keys', () => {
    assert.equal(encode({ 'a\nb': 1, 'c\u0004': 2 }), lines('"a\\nb": 1', '"c\\u0004": 2'));
  });
  it('writes prototype-ish own keys as ordinary keys (§15)', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2, "prototype": 3}');
    assert.equal(encode(value), lines('__proto__:', '  x: 1', 'constructor: 2', 'prototype: 3'));
  });
});

describe('§8 objects', () => {
  it('nests objects by indentation and keeps key order', () => {
    assert.equal(
      encode({ z: 1, a: { y: true, b: null } }),
      lines('z: 1', 'a:', '  y: true', '  b: null'),
    );
  });
  it('writes an empty nested object as a bare key and an empty root object as nothing', () => {
    assert.equal(encode({ empty: {} }), 'empty:');
    assert.equal(encode({}), '');
  });
  it('honours indentSize', () => {
    assert.equal(
      encode({ a: { b: { c: 1 } } }, { indentSize: 4 }),
      lines('a:', '    b:', '        c: 1'),
    );
  });
});

describe('§9.1 primitive arrays', () => {
  it('writes primitive arrays inline with their length', () => {
    assert.equal(encode({ tags: ['a', 1, true, null] }), 'tags[4]: a,1,true,null');
  });
  it('writes empty arrays as key: [] and a root empty array as []', () => {
    assert.equal(encode({ none: [] }), 'none: []');
    assert.equal(encode([]), '[]');
  });
  it('writes a root primitive array without a key', () => {
    assert.equal(encode(['x', 'y']), '[2]: x,y');
  });
});

describe('§9.2 arrays of arrays', () => {
  it('writes inner arrays as list items with their own headers, [0] for empty ones', () => {
    assert.equal(
      encode({ m: [[1, 2], [], ['a', 'b,c']] }),
      lines('m[3]:', '  - [2]: 1,2', '  - [0]:', '  - [2]: a,"b,c"'),
    );
  });
  it('writes numeric rows with the document delimiter', () => {
    assert.equal(
      encode(
        {
          m: [
            [1.5, -2],
            [3, null],
          ],
        },
        { delimiter: '\t' },
      ),
      lines('m[2\t]:', '  - [2\t]: 1.5\t-2', '  - [2\t]: 3\tnull'),
    );
    assert.equal(
      encode([[1, true], []], { delimiter: '|' }),
      lines('[2|]:', '  - [2|]: 1|true', '  - [0|]:'),
    );
  });
});

describe('§9.3 tabular arrays', () => {
  it("writes every row in the layout's order, whatever the order of its own keys", () => {
    const rows = [
      { a: 1, b: { x: 2, y: 3 }, c: 4 },
      { c: 5, a: 6, b: { y: 7, x: 8 } },
      { a: 9, b: { x: 10, y: 11 }, c: 12 },
    ];
    assert.equal(encode({ t: rows }), 't[3]{a,b{x,y},c}:\n  1,2,3,4\n  6,8,7,5\n  9,10,11,12');
  });
  it('ignores enumerable keys inherited from a polluted Object.prototype', () => {
    withPollutedPrototype('polluted', () => {
      assert.equal(
        encode({
          t: [
            { a: 1, b: 2 },
            { b: 3, a: 4 },
          ],
        }),
        't[2]{a,b}:\n  1,2\n  4,3',
      );
    });
  });
  it('takes back the rows written when a later row breaks the table', () => {
    // The rows are checked as they are written: a row that breaks the table sends the array to
    // list form, strings waiting to be quoted (the batch of jsonStrings) included.
    const rows = [
      { id: 1, note: 'say "hi"' },
      { note: 'a\nb', id: 2 },
      { id: 3, note: 'c' },
      { id: 4, note: 'd', extra: true },
    ];
    const list = lines(
      't[4]:',
      '  - id: 1',
      '    note: "say \\"hi\\""',
      '  - note: "a\\nb"',
      '    id: 2',
      '  - id: 3',
      '    note: c',
      '  - id: 4',
      '    note: d',
      '    extra: true',
    );
    assert.equal(encode({ t: rows, u: 'x"y' }), `${list}\nu: "x\\"y"`);
    assert.equal(
      encode({ t: rows.slice(0, 3) }),
      lines('t[3]{id,note}:', '  1,"say \\"hi\\""', '  2,"a\\nb"', '  3,c'),
    );
    for (const broken of [{ id: 4 }, { id: 4, note: [] }, { id: 4, note: { a: 1 } }, 5, [1]]) {
      assert.equal(
        encode({ t: [...rows.slice(0, 3), broken] }),
        encode({ t: [...rows.slice(0, 3), broken] }, { replacer: (_key, value) => value }),
      );
      assert.match(encode({ t: [...rows.slice(0, 3), broken] }), /^t\[4\]:/);
    }
  });
  it('reads rows with no prototype, and not keys a polluted prototype lends a row', () => {
    const bare = (entries: Record<string, unknown>) =>
      Object.assign(Object.create(null) as Record<string, unknown>, entries);
    assert.equal(encode([bare({ a: 1, b: 2 }), bare({ a: 3, b: 4 })]), '[2]{a,b}:\n  1,2\n  3,4');
    withPollutedPrototype('b', () => {
      assert.equal(
        encode([{ a: 1, b: 2 }, { a: 3 }]),
        lines('[2]:', '  - a: 1', '    b: 2', '  - a: 3'),
      );
    });
  });
  it('throws what checking the rows first would throw, for a table that breaks', () => {
    // The header's key cannot be written, but the rows are no table: as a list, the string in
    // the first row comes before that key.
    assert.throws(() => encode([{ a: '\ud800', '\udc00': 1 }, { a: 2 }]), /cannot encode a string/);
    assert.throws(
      () =>
        encode([
          { a: 1, '\udc00': 1 },
          { a: 2, '\udc00': 2 },
        ]),
      /cannot encode a key/,
    );
  });
  it('writes uniform objects of primitives as a table in the first row’s key order', () => {
    assert.equal(
      encode({
        users: [
          { id: 1, name: 'Ada' },
          { name: 'Bob', id: 2 },
        ],
      }),
      lines('users[2]{id,name}:', '  1,Ada', '  2,Bob'),
    );
  });
  it('collapses uniform nested objects into nested field groups, rows depth-first', () => {
    const orders = [
      { id: 1, customer: { name: 'Ada', country: 'DK' }, total: 99 },
      { id: 2, customer: { country: 'UK', name: 'Bob' }, total: 149 },
    ];
    assert.equal(
      encode({ orders }),
      lines('orders[2]{id,customer{name,country},total}:', '  1,Ada,DK,99', '  2,Bob,UK,149'),
    );
  });
  it('writes a root table without a key and quotes header names per §7.3', () => {
    assert.equal(
      encode([
        { 'a b': 1, c: 'x,y' },
        { 'a b': 2, c: '' },
      ]),
      lines('[2]{"a b",c}:', '  1,"x,y"', '  2,""'),
    );
  });
  it('uses the active delimiter in headers and rows', () => {
    assert.equal(
      encode(
        {
          t: [
            { a: 1, b: 'x|y' },
            { a: 2, b: 'p,q' },
          ],
        },
        { delimiter: '|' },
      ),
      lines('t[2|]{a|b}:', '  1|"x|y"', '  2|p,q'),
    );
  });
  const listFallbacks: [string, unknown[]][] = [
    ['key sets differ', [{ a: 1 }, { b: 1 }]],
    ['a column mixes null and objects', [{ a: { x: 1 } }, { a: null }]],
    ['a value is an array', [{ a: [1] }, { a: [2] }]],
    ['an element is an empty object', [{}, {}]],
    ['a nested column holds an empty object', [{ a: {} }, { a: {} }]],
    ['nested key sets differ', [{ a: { x: 1 } }, { a: { y: 1 } }]],
    ['an element is not an object', [{ a: 1 }, 2]],
  ];
  for (const [why, rows] of listFallbacks) {
    it(`falls back to a - list when ${why}`, () => {
      assert.match(encode({ rows }), /^rows\[\d+\]:\n {2}-/);
    });
  }
});

describe('§9.5 keyed tabular objects', () => {
  it('writes an object of uniform objects as entry rows', () => {
    assert.equal(
      encode({
        users: { alice: { age: 30, city: 'Berlin' }, 'bob smith': { city: 'Oslo', age: 25 } },
      }),
      lines('users[2:]{age,city}:', '  alice: 30,Berlin', '  "bob smith": 25,Oslo'),
    );
  });
  it('uses the keyless form at the root', () => {
    assert.equal(encode({ a: { x: 1 }, b: { x: 2 } }), lines('[2:]{x}:', '  a: 1', '  b: 2'));
  });
  it('keeps a single-entry object, or one with a primitive value, nested', () => {
    assert.equal(encode({ m: { only: { x: 1 } } }), lines('m:', '  only:', '    x: 1'));
    assert.equal(encode({ m: { a: { x: 1 }, b: 2 } }), lines('m:', '  a:', '    x: 1', '  b: 2'));
  });
  it('writes the keyed marker with the delimiter symbol after the colon', () => {
    assert.equal(
      encode({ m: { a: { x: 1, y: 2 }, b: { x: 3, y: 4 } } }, { delimiter: '\t' }),
      lines('m[2:\t]{x\ty}:', '  a: 1\t2', '  b: 3\t4'),
    );
  });
});

describe('§10 objects as list items', () => {
  it('puts the first field on the hyphen line and the rest one level deeper', () => {
    assert.equal(
      encode({ items: [{ id: 1, tags: ['a'] }, 'text'] }),
      lines('items[2]:', '  - id: 1', '    tags[1]: a', '  - text'),
    );
  });
  it('writes an empty object item as a bare hyphen', () => {
    assert.equal(encode({ items: [{}, 1] }), lines('items[2]:', '  -', '  - 1'));
  });
  it('puts a first-field table on the hyphen line with rows two levels deeper', () => {
    assert.equal(
      encode({ items: [{ users: [{ id: 1 }, { id: 2 }], status: 'ok' }, 1] }),
      lines('items[2]:', '  - users[2]{id}:', '      1', '      2', '    status: ok', '  - 1'),
    );
  });
  it('nests a first-field object two levels deeper', () => {
    assert.equal(
      encode([{ meta: { a: 1 }, b: 2 }, 3]),
      lines('[2]:', '  - meta:', '      a: 1', '    b: 2', '  - 3'),
    );
  });
  it('never writes a list-item array as a table or as - []', () => {
    assert.equal(
      encode({ x: [[{ a: 1 }, { a: 2 }], []] }),
      lines('x[2]:', '  - [2]:', '    - a: 1', '    - a: 2', '  - [0]:'),
    );
  });
});

describe('§12 whitespace', () => {
  it('emits no trailing spaces and no trailing newline', () => {
    const text = encode({ a: { b: [1, { c: '' }], d: [] }, e: [{ f: 1 }, { f: 2 }] });
    for (const line of text.split('\n')) assert.doesNotMatch(line, / $/);
    assert.doesNotMatch(text, /\n$/);
  });
});

describe('options', () => {
  it('rejects an unknown delimiter and a bad indentSize with a TypeError that says what is allowed', () => {
    assert.throws(() => encode({}, { delimiter: ';' as ',' }), {
      name: 'TypeError',
      message: /delimiter must be ',', '\|' or '\\t'/,
    });
    assert.throws(() => encode({}, { indentSize: 0 }), /indentSize must be a positive integer/);
  });
});

describe('encodeWithin (the picker’s budgeted encode)', () => {
  const value = {
    rows: [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Bob' },
    ],
    note: 'x'.repeat(50),
  };
  const full = encode(value);
  it('returns exactly encode() when the output fits the budget', () => {
    assert.equal(encodeWithin(value, undefined, full.length), full);
  });
  it('gives up with undefined as soon as the output exceeds the budget', () => {
    assert.equal(encodeWithin(value, undefined, full.length - 1), undefined);
    assert.equal(encodeWithin(value, undefined, 5), undefined);
    assert.equal(encodeWithin('a primitive root', undefined, 3), undefined);
  });
});

describe('encodeWithin on tables checked as they are written', () => {
  it('is encode() at or over its length and undefined under it, at every budget', () => {
    const rows = Array.from({ length: 6 }, (_, id) => ({ id, name: `n"${id}`, s: { a: id } }));
    for (const value of [
      { t: rows },
      { t: [...rows, { id: 6, name: 'x' }] },
      { t: [...rows.slice(0, 3), { s: { a: 3 }, name: 'y', id: 3 }, ...rows.slice(4)] },
    ]) {
      const full = encode(value);
      for (let budget = 0; budget <= full.length + 1; budget++) {
        assert.equal(
          encodeWithin(value, undefined, budget),
          budget >= full.length ? full : undefined,
          `${budget}`,
        );
      }
    }
  });
  it('says NOT_PLAIN over budget when a later row holds what JSON has not, as checking first would', () => {
    const rows = Array.from({ length: 20 }, (_, id) => ({ id, name: `row ${id}` }));
    assert.equal(encodeIfPlain([...rows, { id: 20, name: undefined }], undefined, 30), NOT_PLAIN);
    assert.equal(
      encodeIfPlain([...rows, { id: 20, name: 'x', more: 1 }], undefined, 30),
      undefined,
    );
  });
});

describe('encodeIfPlain (the picker’s one-pass check and encode)', () => {
  const rows = [
    { id: 1, name: 'Ada', ratio: 0.5 },
    { id: 2, name: 'Bob', ratio: Number.NaN },
  ];
  it('is encode() for plain JSON data, NaN written as null like JSON.stringify', () => {
    assert.equal(encodeIfPlain(rows), encode(rows));
    assert.equal(encodeIfPlain(rows, { delimiter: '\t' }), encode(rows, { delimiter: '\t' }));
  });
  it('says NOT_PLAIN for anything normalize would convert or JSON.stringify would not take', () => {
    for (const host of [
      new Date(0),
      new Map([['a', 1]]),
      new Set([1]),
      { toJSON: () => 1 },
      undefined,
      10n,
      rawString('"7"'),
      Object.create({ inherited: 1 }),
    ]) {
      assert.equal(encodeIfPlain([...rows, { id: 3, host }]), NOT_PLAIN, String(host));
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    assert.equal(encodeIfPlain(cyclic), NOT_PLAIN);
  });
  it('says NOT_PLAIN for every value when a replacer is set', () => {
    assert.equal(encodeIfPlain({ a: 1 }, { replacer: (_key, value) => value }), NOT_PLAIN);
  });
  it('gives up with undefined over budget, like encodeWithin, before checking the rest', () => {
    const full = encode(rows);
    assert.equal(encodeIfPlain(rows, undefined, full.length), full);
    assert.equal(encodeIfPlain([...rows, { id: 3, at: new Date(0) }], undefined, 10), undefined);
  });
});

describe('§7.2 string values: quoted exactly when the spec says, on every path', () => {
  // The rules written out once more, from the spec's text, as the oracle for encodeString's
  // short-string loop and its regular-expression path alike.
  const forcesQuotes = (text: string, delimiter: string): boolean =>
    text === '' ||
    /^[-# ]|[ ]$/.test(text) ||
    /[\x00-\x1f:"\\[\]{}]/.test(text) ||
    text.includes(delimiter) ||
    /^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text) ||
    text === 'true' ||
    text === 'false' ||
    text === 'null';
  const escaped = (text: string): string =>
    text.replace(/[\x00-\x1f"\\]/g, (c) =>
      c === '\n'
        ? '\\n'
        : c === '\r'
          ? '\\r'
          : c === '\t'
            ? '\\t'
            : c === '"' || c === '\\'
              ? `\\${c}`
              : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  const pieces = [
    'a',
    'Z',
    '0',
    '7',
    '.',
    'e',
    '-',
    '+',
    '#',
    ' ',
    ':',
    ',',
    '|',
    '\t',
    '\n',
    '\u0001',
    '"',
    '\\',
    '[',
    '}',
    'é',
    '✓',
    '😀',
    'true',
    'null',
  ];
  const text = fc
    .array(fc.constantFrom(...pieces), { maxLength: 24 })
    .map((parts) => parts.join(''));
  it('matches the oracle for strings short and long, with every delimiter', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(',', '|', '\t'), fc.boolean(), (value, delimiter, long) => {
        const input = long ? `${value}${'x'.repeat(40)}` : value;
        const expected = forcesQuotes(input, delimiter) ? `"${escaped(input)}"` : input;
        assert.equal(encodeString(input, delimiter as ',' | '|' | '\t'), expected);
      }),
      { numRuns: 3000 },
    );
  });
  it('refuses an unpaired surrogate in a short string too', () => {
    assert.throws(() => encodeString('a\ud800', ','), /unpaired surrogate/);
    assert.equal(encodeString('😀', ','), '😀');
  });
});

describe('strings JSON quotes for the encoder, batched into one call per document', () => {
  // Strings with escapes wait in the writer and are quoted by one JSON.stringify of all of them,
  // split again at each `","`; long ones get a call of their own. Pieces that could confuse the
  // split (quotes, a trailing backslash, a literal `","`) or that JSON writes unlike TOON (\b,
  // \f) sit in every position a string can take: table cells, fields, list items, inline arrays.
  const piece = fc.constantFrom(
    'a',
    ' ',
    '"',
    '\\',
    '","',
    '\n',
    '\t',
    '\b',
    '\f',
    '\u0001',
    ':',
    ',',
    'é',
    '😀',
  );
  const text = fc
    .tuple(fc.array(piece, { maxLength: 12 }), fc.constantFrom(0, 40, 2100))
    .map(([parts, padding]) => parts.join('') + 'x'.repeat(padding));
  const documentOf = fc.record({
    rows: fc.array(fc.record({ id: fc.nat(), body: text }), { minLength: 1, maxLength: 4 }),
    note: text,
    items: fc.array(fc.oneof(text, fc.record({ title: text, tags: fc.array(text) })), {
      maxLength: 4,
    }),
    tags: fc.array(text, { maxLength: 4 }),
  });
  it('writes exactly what the reference writes, and encodeLines joins to it', () => {
    fc.assert(
      fc.property(documentOf, fc.constantFrom(',', '|', '\t'), (value, delimiter) => {
        const options = { delimiter: delimiter as ',' | '|' | '\t' };
        const text = encode(value, options);
        assert.equal(text, referenceEncode(value, options));
        assert.equal([...encodeLines(value, options)].join('\n'), text);
      }),
      { numRuns: 400 },
    );
  });
  it('writes a string with \\b or \\f as TOON escapes them, beside batched ones', () => {
    assert.equal(
      encode({ tags: ['say "hi"', 'a\bb', 'c\fd', 'e\\'] }),
      'tags[4]: "say \\"hi\\"","a\\u0008b","c\\u000cd","e\\\\"',
    );
  });
  it('refuses an unpaired surrogate in a string that has escapes too', () => {
    assert.throws(() => encode({ rows: [{ a: 'x"\ud800' }, { a: 'y' }] }), /unpaired surrogate/);
    assert.throws(() => encode({ s: `"${'x'.repeat(3000)}\udc00` }), /unpaired surrogate/);
  });
  it('keeps encodeWithin exact at the budget with batched strings', () => {
    const value = { a: 'say "hi"', b: ['x\ny', 'z"'] };
    const text = encode(value);
    assert.equal(encodeWithin(value, undefined, text.length), text);
    assert.equal(encodeWithin(value, undefined, text.length - 1), undefined);
  });
});
