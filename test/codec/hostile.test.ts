// decode() on untrusted input (spec §15): prototype keys stay ordinary data, declared lengths
// allocate nothing, nesting is bounded by maxDepth, and no input string makes decode throw
// anything but ToonDecodeError. Each test targets one guard and fails if that guard is removed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decode } from '../../src/codec/decode.js';
import { encode } from '../../src/codec/encode.js';
import { ToonDecodeError } from '../../src/codec/errors.js';
import type { DecodeOptions, JsonObject, JsonValue } from '../../src/codec/types.js';
import { isWellFormedJson, jsonValue } from '../support/json.js';
import { hangGuardMs } from '../support/patience.js';
import { applySplice, splice, syntaxSoup } from './syntax-soup.js';

const lines = (...text: string[]) => text.join('\n');
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Own-property snapshot of Object.prototype, to prove decoding never touched it. */
function prototypeSnapshot(): string {
  return Object.getOwnPropertyNames(Object.prototype)
    .sort()
    .map(
      (name) => `${name}:${String(Object.getOwnPropertyDescriptor(Object.prototype, name)?.value)}`,
    )
    .join('|');
}

/** Asserts `object` is a plain object holding `key` as an ordinary own, enumerable property. */
function assertOwnData(object: JsonValue | undefined, key: string, expected: JsonValue): void {
  assert.ok(
    object !== null && typeof object === 'object' && !Array.isArray(object),
    'expected an object',
  );
  assert.equal(
    Object.getPrototypeOf(object),
    Object.prototype,
    'the prototype chain must be untouched',
  );
  const descriptor = Object.getOwnPropertyDescriptor(object, key);
  assert.ok(descriptor, `"${key}" must be an own property`);
  assert.ok(descriptor.enumerable && descriptor.writable && 'value' in descriptor);
  assert.deepEqual(descriptor.value, expected);
  assert.ok(Object.keys(object).includes(key));
}

/** The decoded value must survive JSON.stringify with the key present (as JSON.parse output does). */
function assertSerializesWith(value: JsonValue, key: string): void {
  assert.ok(JSON.stringify(value).includes(JSON.stringify(key)));
}

describe('§15 prototype keys are ordinary own keys in every key position', () => {
  const before = prototypeSnapshot();

  for (const key of PROTOTYPE_KEYS) {
    describe(key, () => {
      it('as an object field with a primitive value, unquoted and quoted', () => {
        for (const text of [`${key}: polluted`, `"${key}": polluted`]) {
          const value = decode(text);
          assertOwnData(value, key, 'polluted');
          assertSerializesWith(value, key);
        }
      });
      it('as a field opening a nested object', () => {
        const value = decode(lines(`${key}:`, '  isAdmin: true')) as JsonObject;
        assertOwnData(value, key, { isAdmin: true });
        assert.equal((value as Record<string, unknown>)['isAdmin'], undefined);
      });
      it('as an array field', () => {
        assertOwnData(decode(`${key}[2]: a,b`), key, ['a', 'b']);
        assertOwnData(decode(`${key}: []`), key, []);
      });
      it('as a tabular field name, flat and inside a nested group', () => {
        const flat = decode(lines(`rows[2]{${key},x}:`, '  a,1', '  b,2')) as {
          rows: JsonObject[];
        };
        assertOwnData(flat.rows[0], key, 'a');
        assertOwnData(flat.rows[1], key, 'b');
        const nested = decode(lines(`rows[1]{g{"${key}"}}:`, '  v')) as {
          rows: { g: JsonObject }[];
        };
        assertOwnData(nested.rows[0]!.g, key, 'v');
        const group = decode(lines(`rows[1]{${key}{admin}}:`, '  true')) as { rows: JsonObject[] };
        assertOwnData(group.rows[0], key, { admin: true });
      });
      it('as a keyed entry key, unquoted and quoted, and as a keyed field name', () => {
        const keyed = decode(lines('m[2:]{v}:', `  ${key}: 1`, '  other: 2')) as { m: JsonObject };
        assertOwnData(keyed.m, key, { v: 1 });
        const quoted = decode(lines('[1:]{v}:', `  "${key}": 1`));
        assertOwnData(quoted, key, { v: 1 });
        const field = decode(lines(`m[1:]{${key}}:`, '  e: 1')) as { m: { e: JsonObject } };
        assertOwnData(field.m.e, key, 1);
      });
      it('on a list-item hyphen line and as a later field of that item', () => {
        const first = decode(lines('l[1]:', `  - ${key}: 1`, '    y: 2')) as { l: JsonObject[] };
        assertOwnData(first.l[0], key, 1);
        const later = decode(lines('l[1]:', '  - y: 2', `    ${key}:`, '      z: 3')) as {
          l: JsonObject[];
        };
        assertOwnData(later.l[0], key, { z: 3 });
      });
      it('as a duplicate in non-strict mode (last write wins, still an own key)', () => {
        assertOwnData(decode(lines(`${key}: 1`, `${key}: 2`), { strict: false }), key, 2);
      });
    });
  }

  it('rejects a duplicate __proto__ in strict mode like any other key', () => {
    assert.throws(() => decode(lines('__proto__: 1', '__proto__: 2')), ToonDecodeError);
  });

  it('leaves Object.prototype unchanged and new objects clean', () => {
    assert.equal(prototypeSnapshot(), before);
    const fresh: Record<string, unknown> = {};
    assert.equal(fresh['isAdmin'], undefined);
    assert.equal(fresh['polluted'], undefined);
    assert.equal(fresh['admin'], undefined);
  });
});

describe('§15 declared lengths allocate nothing up front', () => {
  const HUGE = ['999999999', '4294967296', '99999999999999999999999999'];
  for (const length of HUGE) {
    it(`treats [${length}] as a count to check, not a size to allocate`, () => {
      for (const text of [
        `v[${length}]: a`,
        lines(`t[${length}]{x}:`, '  1'),
        lines(`l[${length}]:`, '  - a'),
        lines(`m[${length}:]{x}:`, '  k: 1'),
      ]) {
        assert.throws(() => decode(text), ToonDecodeError, text);
      }
      assert.deepEqual(decode(`v[${length}]: a`, { strict: false }), { v: ['a'] });
      assert.deepEqual(decode(lines(`t[${length}]{x}:`, '  1'), { strict: false }), {
        t: [{ x: 1 }],
      });
      assert.deepEqual(decode(lines(`l[${length}]:`, '  - a'), { strict: false }), { l: ['a'] });
      const root = decode(`[${length}]: a`, { strict: false }) as JsonValue[];
      assert.equal(root.length, 1);
    });
  }
});

/** Documents whose container nesting is exactly `levels` deep (root container = 1). */
const deepDocuments: Record<string, (levels: number) => string> = {
  // The root object is level 1; each `k:` line opens one more.
  'nested objects': (levels) =>
    Array.from({ length: levels - 1 }, (_, i) => `${'  '.repeat(i)}k:`).join('\n'),
  'arrays of arrays': (levels) =>
    `${Array.from(
      { length: levels },
      (_, i) => `${'  '.repeat(i)}${i === 0 ? '[1]:' : '- [1]:'}`,
    ).join('\n')}\n${'  '.repeat(levels)}- x`,
  'objects as list items': (levels) => {
    // Root object and its array `l[1]:` (levels 1-2), then each `- l[1]:` adds an item object
    // and its array; the last item is a primitive or, for an odd count, one more object.
    const out = ['l[1]:'];
    let reached = 2;
    let depth = 1;
    for (; reached + 2 <= levels; reached += 2) {
      out.push(`${'  '.repeat(depth)}- l[1]:`);
      depth += 2;
    }
    out.push(`${'  '.repeat(depth)}- ${reached === levels ? 'end' : 'k: v'}`);
    return out.join('\n');
  },
  'nested field groups': (levels) =>
    `t[1]{${'g{'.repeat(levels - 3)}leaf${'}'.repeat(levels - 3)}}:\n  1`,
};

describe('§15 nesting is bounded by maxDepth', () => {
  for (const [shape, make] of Object.entries(deepDocuments)) {
    it(`${shape}: accepts exactly maxDepth levels and rejects one more`, () => {
      for (const maxDepth of [6, 9]) {
        assert.doesNotThrow(() => decode(make(maxDepth), { maxDepth }), `${shape} at ${maxDepth}`);
        assert.throws(
          () => decode(make(maxDepth + 1), { maxDepth }),
          (error: unknown) =>
            error instanceof ToonDecodeError && /maxDepth \(\d+\)/.test(error.message),
        );
      }
    });
    it(`${shape}: the default maxDepth (1000) decodes 1000 levels within the call stack and rejects 1001`, () => {
      assert.doesNotThrow(() => decode(make(1000)));
      assert.throws(() => decode(make(1001)), ToonDecodeError);
    });
  }

  it('counts a one-line field group nesting against maxDepth instead of recursing without bound', () => {
    const text = `t[1]{${'g{'.repeat(50_000)}x${'}'.repeat(50_000)}}:\n  1`;
    assert.throws(
      () => decode(text),
      (error: unknown) => error instanceof ToonDecodeError && error.line === 1,
    );
  });

  it('turns a call stack overflow into a ToonDecodeError when maxDepth is raised past what the stack holds', () => {
    const text = `t[1]{${'g{'.repeat(200_000)}x${'}'.repeat(200_000)}}:\n  1`;
    assert.throws(
      () => decode(text, { maxDepth: Number.POSITIVE_INFINITY }),
      (error: unknown) => error instanceof ToonDecodeError && /call stack/.test(error.message),
    );
  });
});

describe('§15 no input makes decode throw anything but ToonDecodeError', () => {
  const soup = syntaxSoup(48);
  const options = fc.record({
    strict: fc.boolean(),
    indentSize: fc.constantFrom(1, 2, 4),
    maxDepth: fc.constantFrom(3, 1000),
  });

  /** Decodes or fails cleanly: a ToonDecodeError whose position lies inside the text. */
  function decodesOrFailsCleanly(text: string, decodeOptions: DecodeOptions): boolean {
    try {
      decode(text, decodeOptions);
      return true;
    } catch (error) {
      if (!(error instanceof ToonDecodeError)) throw error;
      const lineCount = text.split('\n').length;
      assert.ok(error.line >= 1 && error.line <= lineCount, `line ${error.line} of ${lineCount}`);
      const line = text.split('\n')[error.line - 1]!;
      assert.ok(
        error.column >= 1 && error.column <= [...line].length + 1,
        `column ${error.column}`,
      );
      return true;
    }
  }

  it('random syntax soup', () => {
    fc.assert(fc.property(soup, options, decodesOrFailsCleanly), { numRuns: 4000 });
  });

  it('arbitrary unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), options, decodesOrFailsCleanly),
      { numRuns: 2000 },
    );
  });

  it('valid documents with random edits', () => {
    fc.assert(
      fc.property(
        jsonValue(),
        fc.array(splice(48), { minLength: 1, maxLength: 3 }),
        options,
        (value, edits, decodeOptions) => {
          fc.pre(isWellFormedJson(value));
          return decodesOrFailsCleanly(edits.reduce(applySplice, encode(value)), decodeOptions);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe('§15 pathological shapes finish in linear time (hang guards, not benchmarks)', () => {
  // Each input is large enough that a quadratic scan would run for minutes; linear code takes
  // milliseconds. The timeout only catches a hang.
  const guard = { timeout: hangGuardMs(20_000) };
  const N = 200_000;

  it('a line of unbalanced quotes and brackets', guard, () => {
    assert.throws(() => decode(`k${'["'.repeat(N)}: v`), ToonDecodeError);
    assert.equal((decode(`k: x${'"['.repeat(N)}`) as { k: string }).k.length, 2 * N + 1);
  });
  it('a stray quote inside every row, which must not be matched across lines', guard, () => {
    const rows = N / 10;
    const text = `t[${rows}]{a}:\n${Array.from({ length: rows }, () => '  x"yz').join('\n')}`;
    const value = decode(text) as { t: { a: string }[] };
    assert.equal(value.t.length, rows);
    assert.ok(value.t.every((row) => row.a === 'x"yz'));
  });
  it('a header with very many fields, checked for duplicates', guard, () => {
    const fields = Array.from({ length: N / 4 }, (_, i) => `f${i}`);
    const value = decode(`t[1]{${fields.join(',')}}:\n  ${fields.map(() => '1').join(',')}`) as {
      t: JsonObject[];
    };
    assert.equal(Object.keys(value.t[0]!).length, fields.length);
  });
  it('an object with very many keys, checked for duplicates', guard, () => {
    const text = Array.from({ length: N / 4 }, (_, i) => `key${i}: ${i}`).join('\n');
    assert.equal(Object.keys(decode(text) as JsonObject).length, N / 4);
  });
  it('many rows beyond the declared length in non-strict mode', guard, () => {
    const text = `t[1]{a}:\n${Array.from({ length: N / 4 }, () => '  1').join('\n')}`;
    assert.equal((decode(text, { strict: false }) as { t: unknown[] }).t.length, N / 4);
  });
  it('a very long inline array and a very wide row', guard, () => {
    const values = Array.from({ length: N }, (_, i) => i);
    assert.equal((decode(`v[${N}]: ${values.join(',')}`) as { v: number[] }).v.length, N);
    assert.throws(() => decode(`v[1]: ${values.join(',')}`), ToonDecodeError);
  });
});
