// The schema-compiled TOON serializer must write exactly what projection + the generic encoder
// write, or give up (return undefined) so the caller takes that path itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { orderPage } from '../../examples/http/fastify.js';
import { OrderStore } from '../../examples/http/orders.js';
import { encode } from '../../src/codec/encode.js';
import type { Delimiter } from '../../src/codec/types.js';
import {
  compileProjection,
  describeSchema,
  type SchemaShape,
  UNSUPPORTED_VALUE,
} from '../../src/http/schema-projection.js';
import { compileToonSerializer } from '../../src/http/toon-serializer.js';

const DELIMITERS: readonly Delimiter[] = [',', '|', '\t'];

/** The reference: what the Fastify adapter sends without the compiled serializer. */
function reference(schema: object, value: unknown, delimiter: Delimiter): string | undefined {
  try {
    return encode(compileProjection(schema)!(value), { delimiter });
  } catch (error) {
    if (error === UNSUPPORTED_VALUE) return undefined;
    throw error;
  }
}

// ---- random schemas of the supported subset -------------------------------------------------

const keys = fc.constantFrom(
  'id',
  'name',
  'items',
  'tags',
  'meta',
  'a b',
  '1x',
  'x.y',
  '',
  'n-1',
  'note',
);
const scalarTypes = fc.constantFrom('string', 'integer', 'number', 'boolean', 'null');

/** Makes a schema nullable in either of the two spellings, or leaves it alone. */
function nullability(
  schema: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(schema, fc.constantFrom('plain', 'plain', 'nullable', 'type-array'))
    .map(([s, how]) => {
      if (how === 'nullable') return { ...s, nullable: true };
      if (how === 'type-array' && s.type !== 'null') return { ...s, type: [s.type, 'null'] };
      return s;
    });
}

/** Strings the quoting rules treat differently (§7.2), for values and for `enum` members. */
const STRING_SAMPLES = [
  '',
  ' a',
  'b ',
  'true',
  'null',
  '12',
  '-3',
  '1e5',
  'a,b',
  'a|b',
  'a\tb',
  'x:y',
  '"q"',
  '[1]',
  '{x}',
  '#h',
  '- x',
  'é',
  'line\nbreak',
  'lone \ud800',
];

const schemas = fc.letrec((tie) => ({
  // Documents: an object or an array of objects at the root, which is what APIs return.
  document: fc.oneof(tie('object'), tie('rows')),
  schema: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    tie('scalar'),
    tie('array'),
    tie('rows'),
    tie('object'),
    tie('twins'),
  ),
  // An enum, now and then, whose string members the serializer writes from precomputed texts.
  scalar: nullability(
    fc.record(
      {
        type: scalarTypes,
        enum: fc.subarray(STRING_SAMPLES),
        // Formats decide how a Date in a string field is written.
        format: fc.constantFrom('date-time', 'date', 'time', 'email'),
      },
      { requiredKeys: ['type'] },
    ),
  ),
  array: nullability(fc.record({ type: fc.constant('array'), items: tie('schema') })),
  rows: nullability(fc.record({ type: fc.constant('array'), items: tie('object') })),
  object: nullability(
    fc
      .dictionary(keys, tie('schema') as fc.Arbitrary<Record<string, unknown>>, { maxKeys: 4 })
      .chain((properties) =>
        fc.record(
          {
            type: fc.constant('object'),
            properties: fc.constant(properties),
            required: fc.subarray(Object.keys(properties)),
            additionalProperties: fc.constantFrom(undefined, false),
            description: fc.constantFrom(undefined, 'inert'),
          },
          { requiredKeys: ['type', 'properties', 'required'] },
        ),
      ),
  ),
  // Sibling objects sharing one schema: the shape of a §9.5 keyed table, which random
  // properties would seldom produce.
  twins: fc
    .tuple(
      tie('object') as fc.Arbitrary<Record<string, unknown>>,
      fc.uniqueArray(keys, { minLength: 2, maxLength: 3 }),
      fc.boolean(),
    )
    .map(([entry, names, required]) => ({
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, entry])),
      required: required ? names : [],
    })),
})).document as fc.Arbitrary<Record<string, unknown>>;

/** Root primitives and primitive arrays, now and then. */
const scalarDocuments = nullability(
  fc.oneof(
    fc.record({ type: scalarTypes }),
    fc.record({ type: fc.constant('array'), items: fc.record({ type: scalarTypes }) }),
  ),
);

// ---- random values conforming to a schema ---------------------------------------------------

const strings = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 6, arbitrary: fc.constantFrom(...STRING_SAMPLES) },
  // Dates, as handlers return them from databases: written as their ISO text, or given up on.
  { weight: 1, arbitrary: fc.date({ min: new Date(-1e15), max: new Date(1e15) }) },
);
const SCALAR_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  string: strings,
  integer: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(-0, 2 ** 53, 1e21)),
  number: fc.oneof(
    fc.integer({ min: -1000, max: 1000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(1e-7, -0, 0.1),
  ),
  boolean: fc.boolean(),
  null: fc.constant(null),
};

const wrongScalars = fc.constantFrom<unknown>(
  null,
  undefined,
  '1',
  1.5,
  true,
  {},
  [],
  new Date(0),
  Number.NaN,
);

/**
 * Values of `shape`. In `full` mode every optional property is present, so arrays of objects
 * often form tables; otherwise each optional property is there or not at random. Objects
 * sometimes carry undeclared properties, which the projection drops.
 */
function valuesOf(shape: SchemaShape, full: boolean): fc.Arbitrary<unknown> {
  let values: fc.Arbitrary<unknown>;
  if (shape.kind === 'scalar') {
    // Now and then a value of the wrong type, deep inside an otherwise conforming document.
    values = fc.oneof(
      { weight: 60, arbitrary: SCALAR_VALUES[shape.type]! },
      { weight: 1, arbitrary: wrongScalars },
    );
  } else if (shape.kind === 'array') {
    values = fc
      .boolean()
      .chain((rowsFull) => fc.array(valuesOf(shape.items, full || rowsFull), { maxLength: 4 }));
  } else {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const property of shape.properties) model[property.key] = valuesOf(property.shape, full);
    const requiredKeys = shape.properties.filter((p) => full || p.required).map((p) => p.key);
    values = fc
      .tuple(
        fc.record(model, { requiredKeys }),
        fc.option(
          fc.dictionary(fc.constantFrom('extra', 'zzz'), fc.jsonValue({ maxDepth: 1 }), {
            maxKeys: 2,
          }),
        ),
      )
      .map(([declared, extra]) => ({ ...extra, ...declared }));
  }
  // Fewer nulls in full mode, where a null object would stop the rows forming a table.
  return shape.nullable
    ? fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: full ? 12 : 3, arbitrary: values },
      )
    : values;
}

/** Mostly conforming values; now and then anything at all, to exercise giving up. */
function valuesFor(schema: object): fc.Arbitrary<unknown> {
  const shape = describeSchema(schema)!;
  return fc.oneof(
    { weight: 8, arbitrary: fc.boolean().chain((full) => valuesOf(shape, full)) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
  );
}

const cases = fc.oneof(schemas, schemas, scalarDocuments).chain((schema) =>
  fc.record({
    schema: fc.constant(schema),
    value: valuesFor(schema),
    delimiter: fc.constantFrom(...DELIMITERS),
  }),
);

describe('compileToonSerializer', () => {
  it('writes exactly encode(projection(value)) for random schemas and values, or gives up', () => {
    let written = 0;
    let runs = 0;
    fc.assert(
      fc.property(cases, ({ schema, value, delimiter }) => {
        runs++;
        const serializer = compileToonSerializer(schema, delimiter);
        assert.ok(serializer, `supported schema ${JSON.stringify(schema)} compiles`);
        // Never throws: on anything unusual (the encoder refusing a string included) it gives up.
        const actual = serializer(value);
        if (actual === undefined) return;
        written++;
        assert.equal(actual, reference(schema, value, delimiter));
      }),
      { numRuns: 5000 },
    );
    // The test means something only when most runs take the compiled path.
    assert.ok(
      written > runs * 0.5,
      `only ${written} of ${runs} values were written by the compiled serializer`,
    );
  });

  it('writes the orders example page exactly, in every delimiter, without giving up', () => {
    const page = new OrderStore().list(100);
    for (const delimiter of DELIMITERS) {
      const text = compileToonSerializer(orderPage, delimiter)!(page);
      assert.ok(text !== undefined, `gave up on the orders page with ${JSON.stringify(delimiter)}`);
      assert.equal(text, reference(orderPage, page, delimiter));
    }
  });

  it('writes enum members and other strings exactly, members needing quotes included', () => {
    const members = ['paid', 'a,b', 'a|b', 'a\tb', 'true', '12', '', ' a', 'é', 3, null];
    const schema = { type: 'array', items: { type: 'string', enum: members } };
    const values = [...members.filter((m) => typeof m === 'string'), 'not a member', '-3'];
    for (const delimiter of DELIMITERS) {
      assert.equal(
        compileToonSerializer(schema, delimiter)!(values),
        reference(schema, values, delimiter),
      );
    }
    // An enum too long to precompute, and one with a member the encoder refuses.
    const long = { type: 'array', items: { type: 'string', enum: STRING_SAMPLES } };
    const refused = { type: 'array', items: { type: 'string', enum: ['ok', 'lone \ud800'] } };
    assert.equal(compileToonSerializer(long)!(values), reference(long, values, ','));
    assert.equal(compileToonSerializer(refused)!(['ok']), '[1]: ok');
    assert.equal(compileToonSerializer(refused)!(['ok', 'lone \ud800']), undefined);
  });

  it('gives up, rather than throwing, on strings the encoder refuses', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    assert.throws(() => reference(schema, ['ok', 'lone \ud800'], ','), TypeError);
    assert.equal(compileToonSerializer(schema)!(['ok', 'lone \ud800']), undefined);
  });

  it('is undefined for schemas outside the projection fast path', () => {
    assert.equal(
      compileToonSerializer({ anyOf: [{ type: 'string' }, { type: 'integer' }] }),
      undefined,
    );
    assert.equal(compileToonSerializer({ type: 'object', additionalProperties: true }), undefined);
    assert.equal(compileToonSerializer(undefined), undefined);
  });

  it('is undefined where code generation is disallowed, so callers take the generic path', () => {
    const module = new URL('../../src/http/toon-serializer.ts', import.meta.url).href;
    const script = `const { compileToonSerializer } = await import(${JSON.stringify(module)});
      console.log(String(compileToonSerializer({ type: 'string' })));`;
    const run = (flags: string[]) =>
      execFileSync(
        process.execPath,
        [...flags, '--import', 'tsx', '--input-type=module', '-e', script],
        { encoding: 'utf8' },
      ).trim();
    assert.equal(run(['--disallow-code-generation-from-strings']), 'undefined');
    assert.notEqual(run([]), 'undefined', 'the same script compiles a serializer otherwise');
  });

  it('embeds schema keys in generated code as literals only, whatever they contain', () => {
    const keys = [
      '"); throw 1; ("',
      '\\',
      "'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile key, not a template
      '`${globalThis}`',
      '\u2028',
      '*/ x /*',
      'line\nbreak',
      'constructor',
    ];
    const schema = {
      type: 'object',
      properties: Object.fromEntries(keys.map((key) => [key, { type: 'string' }])),
    };
    const value = Object.fromEntries(keys.map((key) => [key, key]));
    const text = compileToonSerializer(schema)!(value);
    assert.ok(text !== undefined);
    assert.equal(text, reference(schema, value, ','));
  });

  it('is compiled once per schema object and delimiter', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    assert.equal(compileToonSerializer(schema, '|'), compileToonSerializer(schema, '|'));
    assert.notEqual(compileToonSerializer(schema, '|'), compileToonSerializer(schema, ','));
  });
});

describe('compileToonSerializer: canonical forms', () => {
  const row = {
    type: 'object',
    required: ['id', 'who'],
    properties: {
      id: { type: 'integer' },
      who: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      note: { type: 'string' },
    },
  };
  const schema = {
    type: 'object',
    properties: {
      rows: { type: 'array', items: row },
      grid: { type: 'array', items: { type: 'array', items: { type: ['number', 'null'] } } },
      empty: { type: 'object', properties: { x: { type: 'string' } } },
      list: {
        type: 'array',
        items: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  };
  const write = (value: unknown, delimiter: Delimiter = ',') =>
    compileToonSerializer(schema, delimiter)!(value);

  it('writes arrays of full rows as tables with nested field groups', () => {
    const value = {
      rows: [
        { id: 1, who: { name: 'Ada' }, note: 'a,b' },
        { id: 2, who: { name: 'Bob' }, note: '' },
      ],
    };
    assert.equal(write(value), 'rows[2]{id,who{name},note}:\n  1,Ada,"a,b"\n  2,Bob,""');
    assert.equal(write(value, '|'), 'rows[2|]{id|who{name}|note}:\n  1|Ada|a,b\n  2|Bob|""');
  });

  it('writes empty arrays, arrays of arrays, empty objects and list items canonically', () => {
    const value = { rows: [], grid: [[1, null], []], empty: {}, list: [{ tags: ['x'] }, {}] };
    const text =
      'rows: []\ngrid[2]:\n  - [2]: 1,null\n  - [0]:\nempty:\nlist[2]:\n  - tags[1]: x\n  -';
    assert.equal(write(value), text);
    assert.equal(write(value), reference(schema, value, ','));
  });

  it('writes rows as a list, without giving up, when one of them fits no table', () => {
    const optional = {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          a: { type: 'integer' },
          b: { type: 'object', properties: { c: { type: 'integer' } } },
        },
      },
    };
    const writeRows = compileToonSerializer(optional)!;
    assert.equal(writeRows([{ a: 1 }, {}]), '[2]:\n  - a: 1\n  -', 'an empty row');
    assert.equal(
      writeRows([
        { a: 1, b: { c: 2 } },
        { a: 2, b: {} },
      ]),
      '[2]:\n  - a: 1\n    b:\n      c: 2\n  - a: 2\n    b:',
      'an empty group',
    );
    assert.equal(
      writeRows([
        { a: 1, b: { c: 2 } },
        { a: 2, b: { c: 3 } },
      ]),
      '[2]{a,b{c}}:\n  1,2\n  2,3',
      'full rows',
    );
  });

  it('gives up when rows miss optional fields, since only the data decides that table', () => {
    assert.equal(
      write({
        rows: [
          { id: 1, who: { name: 'A' } },
          { id: 2, who: { name: 'B' }, note: 'n' },
        ],
      }),
      undefined,
    );
  });

  it('writes a Date in a string field as its ISO text, quoted, as the fallback would', () => {
    const date = new Date(Date.UTC(2026, 2, 1, 8, 30));
    const schema = {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, note: { type: 'string' } },
    };
    const text = compileToonSerializer(schema)!({ at: date, note: date });
    assert.equal(text, 'at: "2026-03-01T08:30:00.000Z"\nnote: "2026-03-01T08:30:00.000Z"');
    assert.equal(text, reference(schema, { at: date, note: date }, ','));
    const writeString = compileToonSerializer({ type: 'string' })!;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.date({ noInvalidDate: true }),
          fc.date({
            noInvalidDate: true,
            min: new Date('0999-12-31T23:59:59.999Z'),
            max: new Date('10000-01-01Z'),
          }),
        ),
        (moment) => assert.equal(writeString(moment), encode(moment.toISOString())),
      ),
      { numRuns: 2000 },
    );
  });

  it('gives up on values of another type, class instances, and Dates it cannot write', () => {
    assert.equal(write({ rows: [{ id: '1', who: { name: 'A' }, note: 'n' }] }), undefined);
    assert.equal(write({ empty: new (class Empty {})() }), undefined);
    assert.equal(compileToonSerializer({ type: 'string' })!(new Date(Number.NaN)), undefined);
    for (const format of ['date', 'time'])
      assert.equal(compileToonSerializer({ type: 'string', format })!(new Date(0)), undefined);
    assert.equal(
      write({ rows: [{ id: 1, note: 'n' }] }),
      undefined,
      'a required property is missing',
    );
  });

  it('gives up on objects that could be keyed tables (§9.5)', () => {
    const pair = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { n: { type: 'integer' } } },
        b: { type: 'object', properties: { n: { type: 'integer' } } },
      },
    };
    const writePair = compileToonSerializer(pair)!;
    assert.equal(writePair({ a: { n: 1 }, b: { n: 2 } }), undefined);
    assert.equal(
      reference(pair, { a: { n: 1 }, b: { n: 2 } }, ','),
      '[2:]{n}:\n  a: 1\n  b: 2',
      'the case is real',
    );
    assert.equal(
      writePair({ a: { n: 1 } }),
      'a:\n  n: 1',
      'a single object entry is no keyed table',
    );
  });

  it('writes root primitives, nulls and arrays as the encoder does', () => {
    assert.equal(compileToonSerializer({ type: ['string', 'null'] })!(null), 'null');
    assert.equal(compileToonSerializer({ type: 'string' })!('12'), '"12"');
    assert.equal(compileToonSerializer({ type: 'array', items: { type: 'integer' } })!([]), '[]');
    assert.equal(
      compileToonSerializer({ type: 'array', items: row }, '\t')!([
        { id: 1, who: { name: 'a\tb' }, note: 'x' },
      ]),
      '[1\t]{id\twho{name}\tnote}:\n  1\t"a\\tb"\tx',
    );
  });
});
