// The Fastify fast path must write exactly what fast-json-stringify (Fastify's own copy) writes,
// property for property and in the same order, or give up.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compileProjection, UNSUPPORTED_VALUE } from '../../src/http/schema-projection.js';

type Serializer = (value: unknown) => string;
const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const fastJsonStringify = requireFromFastify('fast-json-stringify') as (
  schema: object,
) => Serializer;

const item = {
  type: 'object',
  required: ['sku', 'quantity'],
  properties: {
    note: { type: 'string', maxLength: 20 },
    sku: { type: 'string' },
    quantity: { type: 'integer', minimum: 1 },
    price: { type: ['number', 'null'] },
  },
};

const SCHEMAS: Record<string, object> = {
  'an order page': {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, items: { type: 'array', items: item } },
        },
      },
      page: {
        type: 'object',
        nullable: true,
        properties: { nextCursor: { type: ['null', 'string'] }, hasMore: { type: 'boolean' } },
      },
    },
  },
  'an item with required fields written last': item,
  'a closed object': {
    type: 'object',
    additionalProperties: false,
    properties: { a: { type: 'number' }, b: { type: 'null' } },
  },
  'an array of strings': { type: 'array', items: { type: 'string', format: 'date-time' } },
  // fast-json-stringify writes a Date as its ISO text in a string field, but as local date or
  // time parts under `format: 'date'` and `'time'`, which the projection leaves to the fallback.
  'strings with date formats': {
    type: 'object',
    properties: {
      day: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'time' },
      when: { type: ['string', 'null'], format: 'date-time' },
      label: { type: 'string', format: 'email' },
      note: { type: 'string' },
    },
  },
};

const scalars = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: true }),
  fc.date({ min: new Date(-1e15), max: new Date(1e15) }),
  fc.constant(new Date(Number.NaN)),
);
const keys = fc.constantFrom(
  'id',
  'items',
  'sku',
  'quantity',
  'price',
  'note',
  'data',
  'page',
  'nextCursor',
  'hasMore',
  'a',
  'b',
  'day',
  'at',
  'when',
  'label',
  'extra',
);
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalars,
    tie('object'),
    tie('array'),
  ),
  object: fc.dictionary(keys, tie('value'), { maxKeys: 6 }),
  array: fc.array(tie('value'), { maxLength: 4 }),
})).value;

// Values shaped like the schema, so that many runs take the fast path rather than giving up.
const itemLike = fc.record(
  {
    sku: fc.string({ maxLength: 6 }),
    quantity: fc.oneof(
      fc.integer({ min: -5, max: 5 }),
      fc.double({ min: -5, max: 5, noNaN: true }),
    ),
    price: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
    note: fc.string({ maxLength: 6 }),
    extra: fc.anything(),
  },
  { requiredKeys: ['sku', 'quantity'] },
);
const pageLike = fc.record({
  data: fc.array(
    fc.record({
      id: fc.string({ maxLength: 4 }),
      items: fc.array(itemLike, { maxLength: 3 }),
      extra: fc.integer(),
    }),
    {
      maxLength: 3,
    },
  ),
  page: fc.oneof(
    fc.constant(null),
    fc.record({ nextCursor: fc.oneof(fc.constant(null), fc.string()), hasMore: fc.boolean() }),
  ),
});

describe('compileProjection', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`writes what fast-json-stringify writes for ${name}, or gives up`, () => {
      const serialize = fastJsonStringify(schema);
      const project = compileProjection(schema);
      assert.ok(project, 'the schema is within the fast path');
      let projected = 0;
      fc.assert(
        fc.property(fc.oneof(values, pageLike, itemLike, fc.array(fc.string())), (value) => {
          let copy: unknown;
          try {
            copy = project(value);
          } catch (error) {
            if (error === UNSUPPORTED_VALUE) return;
            throw error;
          }
          projected++;
          assert.equal(JSON.stringify(copy), serialize(value));
        }),
        { numRuns: 400 },
      );
      assert.ok(projected > 20, `only ${projected} of 400 values took the fast path`);
    });
  }

  it('gives up on schemas whose output needs more than copying', () => {
    const base = { type: 'object', properties: { a: { type: 'string' } } };
    for (const schema of [
      { ...base, additionalProperties: true },
      { ...base, patternProperties: { '^x': { type: 'string' } } },
      { type: 'object', properties: { a: { $ref: '#/definitions/a' } } },
      { type: 'object', properties: { a: { type: 'string', default: 'x' } } },
      { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      { properties: { a: { type: 'string' } } },
      { type: ['string', 'integer'] },
      { type: 'string', format: 'unsafe' },
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'object', required: ['b'], properties: { a: { type: 'string' } } },
    ]) {
      assert.equal(compileProjection(schema), undefined, JSON.stringify(schema));
    }
  });

  it('writes a Date in a string field as its ISO text, and gives up where fast-json-stringify writes local parts', () => {
    const project = compileProjection(SCHEMAS['strings with date formats']!)!;
    const date = new Date(Date.UTC(2026, 2, 1, 8, 30));
    assert.deepEqual(project({ when: date, label: date, note: date }), {
      when: '2026-03-01T08:30:00.000Z',
      label: '2026-03-01T08:30:00.000Z',
      note: '2026-03-01T08:30:00.000Z',
    });
    for (const value of [{ day: date }, { at: date }, { note: new Date(Number.NaN) }]) {
      assert.throws(
        () => project(value),
        (error: unknown) => error === UNSUPPORTED_VALUE,
      );
    }
  });

  it('keeps only declared properties, required ones first', () => {
    const project = compileProjection(item)!;
    assert.deepEqual(
      Object.keys(project({ note: 'n', price: 1, quantity: 2, sku: 'TEA', secret: 'x' }) as object),
      ['sku', 'quantity', 'note', 'price'],
    );
  });
});
