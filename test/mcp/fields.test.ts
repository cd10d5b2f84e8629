// The `fields` parameter of a tool result, one semantics (src/mcp/fields.ts) for the two ways a
// result gets it: a server's own `compactResult(payload, { fields })` (and registerCompactTool),
// and the proxy's `--fields-param` on an upstream's JSON text. Each case below runs through both
// and must give the same data to the model and the same note, word for word after who wrote it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../../src/codec/types.js';
import { parseCompact } from '../../src/compact/index.js';
import { compactResult, DEFAULT_META_KEY } from '../../src/mcp/compact-result.js';
import { createResultPipeline } from '../../src/mcp/proxy/result/pipeline.js';
import { ToolCatalog } from '../../src/mcp/proxy/tools/catalog.js';

interface Case {
  /** What a user would call the situation. */
  name: string;
  payload: JsonValue;
  fields: string;
  /** What the model reads as data. */
  value: JsonValue;
  /** The note after its source (`toonwire: ` or `toonwire proxy: `), if any. */
  note?: string;
}

const orders: JsonValue[] = [
  { id: 1, customer: 'ada', total: 9.5, shipping: { city: 'Brno', zip: '60200' } },
  { id: 2, customer: 'bob', total: 3, shipping: { city: 'Praha' } },
  { id: 3, customer: 'cy', total: 7.25 },
];

const CASES: Case[] = [
  {
    name: 'a root array keeps the fields of each item, in the listed order',
    payload: orders,
    fields: 'total,id',
    value: [
      { total: 9.5, id: 1 },
      { total: 3, id: 2 },
      { total: 7.25, id: 3 },
    ],
  },
  {
    name: 'an items envelope projects its items and keeps the rest',
    payload: { total: 3, items: orders },
    fields: 'id',
    value: { total: 3, items: [{ id: 1 }, { id: 2 }, { id: 3 }] },
  },
  {
    name: 'a data envelope likewise',
    payload: { data: orders, next: null },
    fields: 'customer',
    value: { data: [{ customer: 'ada' }, { customer: 'bob' }, { customer: 'cy' }], next: null },
  },
  {
    name: "an object's only list of objects is the list (a SQL result's rows)",
    payload: { query: 'select', rowCount: 3, rows: orders },
    fields: 'id,total',
    value: {
      query: 'select',
      rowCount: 3,
      rows: [
        { id: 1, total: 9.5 },
        { id: 2, total: 3 },
        { id: 3, total: 7.25 },
      ],
    },
  },
  {
    name: 'a nested path keeps its nesting, and no empty parent where it is missing',
    payload: orders,
    fields: 'id,shipping.city',
    value: [
      { id: 1, shipping: { city: 'Brno' } },
      { id: 2, shipping: { city: 'Praha' } },
      { id: 3 },
    ],
  },
  {
    name: 'a single object is the one item',
    payload: { id: 7, name: 'n', tags: ['a', 'b'] },
    fields: 'id,tags',
    value: { id: 7, tags: ['a', 'b'] },
  },
  {
    name: "a single object with a list: a field of the object, not of the list's items",
    payload: { id: 7, name: 'n', orders: [{ sku: 'a' }] },
    fields: 'id',
    value: { id: 7 },
  },
  {
    name: "a single object with a list: a field of the list's items",
    payload: { id: 7, name: 'n', orders: [{ sku: 'a', qty: 1 }] },
    fields: 'sku',
    value: { id: 7, name: 'n', orders: [{ sku: 'a' }] },
  },
  {
    name: "an envelope's own field, when the items have none of the fields",
    payload: { count: 3, items: orders },
    fields: 'count',
    value: { count: 3 },
  },
  {
    name: 'a field no item has: left out, and the note lists the fields there are',
    payload: orders,
    fields: 'id,custmer',
    value: [{ id: 1 }, { id: 2 }, { id: 3 }],
    note: 'fields: no item has "custmer"; the fields are id, customer, total, shipping, shipping.city, shipping.zip.',
  },
  {
    name: 'no field exists at all',
    payload: { items: orders },
    fields: 'nme',
    value: { items: [{}, {}, {}] },
    note: 'fields: no item has "nme"; the fields are id, customer, total, shipping, shipping.city, shipping.zip.',
  },
  {
    name: 'an array of scalars has no fields: kept as it is, and said so',
    payload: [1, 2, 3],
    fields: 'id',
    value: [1, 2, 3],
    note: 'fields: no item has "id"; the fields are (none: the items are not objects).',
  },
  {
    name: 'an items envelope of scalars likewise',
    payload: { items: ['a', 'b'] },
    fields: 'id',
    value: { items: ['a', 'b'] },
    note: 'fields: no item has "id"; the fields are (none: the items are not objects).',
  },
  {
    name: 'scalars among the items are kept, objects projected',
    payload: [{ id: 1, x: 2 }, 'two', null],
    fields: 'id',
    value: [{ id: 1 }, 'two', null],
  },
  {
    name: 'several lists: the object is the item',
    payload: { a: [{ id: 1 }], b: [{ id: 2 }] },
    fields: 'a',
    value: { a: [{ id: 1 }] },
  },
  {
    name: 'a malformed list (an empty name) leaves the whole result, and says why',
    payload: orders,
    fields: 'id,,total',
    value: orders,
    note: 'fields ignored, the whole result follows: "" is not a field name: names and the parts of dotted paths must be non-empty. The fields are id, customer, total, shipping, shipping.city, shipping.zip.',
  },
  {
    name: 'a malformed path likewise',
    payload: { id: 7 },
    fields: 'id.',
    value: { id: 7 },
    note: 'fields ignored, the whole result follows: "id." is not a field name: names and the parts of dotted paths must be non-empty. The fields are id.',
  },
  {
    name: 'spaces around names are ignored',
    payload: orders,
    fields: ' id , total ',
    value: [
      { id: 1, total: 9.5 },
      { id: 2, total: 3 },
      { id: 3, total: 7.25 },
    ],
  },
];

type Shipped = { content: Array<{ type: string; text: string }>; _meta?: Record<string, unknown> };

/** The data the model reads from a result, decoded as its `_meta` says, and its notes. */
function modelView(result: Shipped): { value: unknown; notes: string[] } {
  const [data, ...notes] = result.content.map((block) => block.text);
  const strategy = (result._meta?.[DEFAULT_META_KEY] as string | undefined) ?? 'json';
  return { value: parseCompact(data!, strategy), notes };
}

/** The proxy's path: an upstream's JSON text result, with the model's `fields` argument. */
async function proxyPath(): Promise<(payload: JsonValue, fields: string) => Shipped> {
  const pipeline = await createResultPipeline({ fieldsParam: true }, () => {});
  const catalog = new ToolCatalog(pipeline);
  catalog.list({ tools: [{ name: 'q', inputSchema: { type: 'object' } }] }, 'keep');
  return (payload, fields) => {
    const call = { tool: 'q', fields, started: 0 };
    const result = { content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }] };
    return pipeline.ship(result, call, catalog.facts('q'), 'keep').result as Shipped;
  };
}

describe('fields: one projection for compactResult and the proxy', async () => {
  const viaProxy = await proxyPath();
  for (const { name, payload, fields, value, note } of CASES) {
    it(name, () => {
      const server = modelView(
        compactResult(payload, { fields, structuredContent: 'keep' }) as Shipped,
      );
      const proxy = modelView(viaProxy(payload, fields));
      assert.deepEqual(server.value, value, 'compactResult');
      assert.deepEqual(proxy.value, value, 'proxy');
      assert.deepEqual(server.notes, note === undefined ? [] : [`toonwire: ${note}`]);
      assert.deepEqual(proxy.notes, note === undefined ? [] : [`toonwire proxy: ${note}`]);
    });
  }

  it('compactResult keeps structuredContent whole, as the proxy does', async () => {
    const result = compactResult({ rows: orders }, { fields: 'id', structuredContent: 'keep' });
    assert.deepEqual(result.structuredContent, { rows: orders });
    const pipeline = await createResultPipeline({ fieldsParam: true }, () => {});
    const catalog = new ToolCatalog(pipeline);
    catalog.list({ tools: [{ name: 'q', inputSchema: { type: 'object' } }] }, 'keep');
    const shipped = pipeline.ship(
      {
        content: [{ type: 'text', text: JSON.stringify({ rows: orders }) }],
        structuredContent: { rows: orders },
      },
      { tool: 'q', fields: 'id', started: 0 },
      catalog.facts('q'),
      'keep',
    ).result as { structuredContent: unknown };
    assert.deepEqual(shipped.structuredContent, { rows: orders });
  });

  it('compactResult: a blank list is all fields; a list that is no list is a mistake in code', () => {
    const whole = compactResult(orders, { fields: '  ' });
    assert.deepEqual(modelView(whole as Shipped), { value: orders, notes: [] });
    assert.throws(
      () => compactResult(orders, { fields: 42 as never }),
      /^TypeError: compactResult: fields must be a comma-separated string/,
    );
    assert.throws(
      () => compactResult(orders, { fields: 'id', envelope: 7 as never }),
      /^TypeError: compactResult: envelope must be a key or an array of keys/,
    );
  });

  it('compactResult: a custom envelope and an array of paths', () => {
    const result = compactResult(
      { results: orders, items: [{ id: 'x' }] },
      { fields: ['id', 'shipping.zip'], envelope: 'results' },
    );
    assert.deepEqual(modelView(result as Shipped), {
      value: {
        results: [{ id: 1, shipping: { zip: '60200' } }, { id: 2 }, { id: 3 }],
        items: [{ id: 'x' }],
      },
      notes: [],
    });
  });

  it('compactResult converts the payload as the picker does before projecting it', () => {
    const at = new Date(0);
    const result = compactResult(
      { items: [{ id: 1, at, tags: new Set(['a']) }] },
      { fields: 'at,tags' },
    );
    assert.deepEqual(modelView(result as Shipped).value, {
      items: [{ at: '1970-01-01T00:00:00.000Z', tags: ['a'] }],
    });
  });
});
