// registerCompactTool and fieldsParameter, through the SDK's real Client and McpServer in memory.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { parseCompact } from '../../src/index.js';
import {
  DEFAULT_FIELDS_DESCRIPTION,
  DEFAULT_META_KEY,
  fieldsParameter,
  registerCompactTool,
} from '../../src/mcp/index.js';

const places = Array.from({ length: 30 }, (_, i) => ({
  name: `Place ${i}`,
  url: `https://example.com/places/${i}`,
  rating: 3 + (i % 20) / 10,
  location: { lat: 50 + i / 100, lng: 14 + i / 100 },
  reviews: i * 3,
}));
const placeSchema = z.object({
  name: z.string(),
  url: z.string(),
  rating: z.number(),
  location: z.object({ lat: z.number(), lng: z.number() }),
  reviews: z.number(),
});

type Result = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

async function connect(server: McpServer, clientName = 'test-client'): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

function decoded(result: Result): unknown {
  return parseCompact(
    result.content[0]!.text,
    result._meta?.['toonwire/encodingStrategy'] as string,
  );
}

describe('registerCompactTool', () => {
  it("turns the handler's plain payload into a compact result that validates against outputSchema", async () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    const seen: unknown[] = [];
    registerCompactTool(
      server,
      'list-places',
      {
        description: 'Places',
        inputSchema: { limit: z.number().int() },
        outputSchema: { items: z.array(placeSchema) },
      },
      async (args) => {
        seen.push(args);
        return { items: places.slice(0, args.limit) };
      },
    );
    const client = await connect(server);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(Object.keys((tools[0]!.outputSchema as { properties: object }).properties), [
        'items',
      ]);
      const result = (await client.callTool({
        name: 'list-places',
        arguments: { limit: 10 },
      })) as Result;
      assert.deepEqual(seen, [{ limit: 10 }]);
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, { items: places.slice(0, 10) });
      assert.deepEqual(decoded(result), { items: places.slice(0, 10) });
      assert.notEqual(result._meta?.['toonwire/encodingStrategy'], 'json');
    } finally {
      await client.close();
    }
  });

  it('with fields: true, adds an optional fields parameter that projects only the text view', async () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    registerCompactTool(
      server,
      'list-places',
      {
        inputSchema: { limit: z.number().int().default(30) },
        outputSchema: { items: z.array(placeSchema) },
        fields: true,
      },
      async ({ limit, fields }) => {
        assert.ok(fields === undefined || typeof fields === 'string');
        return { items: places.slice(0, limit) };
      },
    );
    const client = await connect(server);
    try {
      const { tools } = await client.listTools();
      const input = tools[0]!.inputSchema as {
        properties: Record<string, { type?: string; description?: string }>;
        required?: string[];
      };
      assert.deepEqual(input.properties.fields, {
        type: 'string',
        description: DEFAULT_FIELDS_DESCRIPTION,
      });
      assert.equal(input.required?.includes('fields') ?? false, false);

      const projected = (await client.callTool({
        name: 'list-places',
        arguments: { fields: 'name,location.lat' },
      })) as Result;
      assert.deepEqual(decoded(projected), {
        items: places.map(({ name, location }) => ({ name, location: { lat: location.lat } })),
      });
      assert.deepEqual(projected.structuredContent, { items: places });

      const whole = (await client.callTool({ name: 'list-places', arguments: {} })) as Result;
      assert.deepEqual(decoded(whole), { items: places });
    } finally {
      await client.close();
    }
  });

  it('adds fields to a tool without an input schema, and to a Zod object schema', async () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    registerCompactTool(
      server,
      'all-places',
      { fields: { description: 'Pick columns' } },
      async () => places,
    );
    registerCompactTool(
      server,
      'some-places',
      { inputSchema: z.object({ limit: z.number() }), fields: true },
      async ({ limit }) => places.slice(0, limit),
    );
    const client = await connect(server);
    try {
      const { tools } = await client.listTools();
      const properties = (name: string) =>
        Object.keys(
          (tools.find((tool) => tool.name === name)!.inputSchema as { properties: object })
            .properties,
        );
      assert.deepEqual(properties('all-places'), ['fields']);
      assert.deepEqual(properties('some-places'), ['limit', 'fields']);
      const result = (await client.callTool({
        name: 'some-places',
        arguments: { limit: 2, fields: 'name' },
      })) as Result;
      assert.deepEqual(decoded(result), [{ name: 'Place 0' }, { name: 'Place 1' }]);
      assert.equal(result.structuredContent, undefined); // an array payload has no structuredContent
    } finally {
      await client.close();
    }
  });

  it('adds a Zod 3 fields parameter to a Zod 3 shape', async () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    registerCompactTool(
      server,
      'v3-places',
      { inputSchema: { limit: z3.number() }, fields: true },
      async ({ limit }) => ({ items: places.slice(0, limit as number) }),
    );
    const client = await connect(server);
    try {
      const result = (await client.callTool({
        name: 'v3-places',
        arguments: { limit: 3, fields: 'rating' },
      })) as Result;
      assert.deepEqual(decoded(result), {
        items: places.slice(0, 3).map(({ rating }) => ({ rating })),
      });
    } finally {
      await client.close();
    }
  });

  it('passes compaction options through: metaKey, candidates', async () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    registerCompactTool(
      server,
      'json-only',
      { compact: { metaKey: 'com.apify/encodingStrategy', candidates: ['json'] } },
      async () => ({ items: places }),
    );
    const client = await connect(server);
    try {
      const result = (await client.callTool({ name: 'json-only' })) as Result;
      assert.deepEqual(result._meta, { 'com.apify/encodingStrategy': 'json' });
      assert.equal(result.content[0]!.text, JSON.stringify({ items: places }));
    } finally {
      await client.close();
    }
  });

  it('turns a throwing handler into an isError result, and a bad fields value into a note', async () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    registerCompactTool(server, 'broken', {}, async () => {
      throw new Error('the places API is down');
    });
    registerCompactTool(server, 'places', { fields: true }, async () => ({ items: places }));
    const client = await connect(server);
    try {
      const broken = (await client.callTool({ name: 'broken' })) as Result;
      assert.equal(broken.isError, true);
      assert.match(broken.content[0]!.text, /the places API is down/);
      const badFields = (await client.callTool({
        name: 'places',
        arguments: { fields: 'name,,url' },
      })) as Result;
      // The handler has run (its work may not be repeatable): the whole result ships, as the
      // proxy's --fields-param ships it, with a note that says why the fields were ignored.
      assert.equal(badFields.isError, undefined);
      assert.deepEqual(
        parseCompact(badFields.content[0]!.text, badFields._meta![DEFAULT_META_KEY] as string),
        { items: places },
      );
      assert.match(
        badFields.content[1]!.text,
        /^toonwire: fields ignored, the whole result follows: "" is not a field name/,
      );
    } finally {
      await client.close();
    }
  });

  it('refuses to add fields where it cannot', () => {
    const server = new McpServer({ name: 'places', version: '1.0.0' });
    assert.throws(
      () =>
        registerCompactTool(
          server,
          'taken',
          { inputSchema: { fields: z.array(z.string()) }, fields: true },
          async () => places,
        ),
      /the tool 'taken' already has an input named 'fields'/,
    );
    assert.throws(
      () =>
        registerCompactTool(
          server,
          'union',
          {
            inputSchema: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
            fields: true,
          },
          async () => places,
        ),
      /input schema is not a Zod object/,
    );
    assert.throws(
      () => registerCompactTool(server, 'meta', { compact: { metaKey: '' } }, async () => places),
      /metaKey/,
    );
  });
});

describe('fieldsParameter', () => {
  it('is an optional string with a description, in Zod 4 or Zod 3', () => {
    const v4 = fieldsParameter() as z.ZodOptional<z.ZodString>;
    assert.equal(v4.safeParse(undefined).success, true);
    assert.equal(v4.safeParse('a,b').success, true);
    assert.equal(v4.safeParse(3).success, false);
    assert.equal(v4.description, DEFAULT_FIELDS_DESCRIPTION);
    const v3 = fieldsParameter({
      zodVersion: 3,
      description: 'Columns',
    }) as z3.ZodOptional<z3.ZodString>;
    assert.equal(v3.safeParse('a').success, true);
    assert.equal(v3.description, 'Columns');
    assert.equal('_zod' in v3, false);
  });

  it('gives clients that show the model structuredContent the text alone, and others both (auto)', async () => {
    const makeServer = (compact?: { structuredContent: 'auto' | 'keep' | 'strip' }) => {
      const server = new McpServer({ name: 'places', version: '1.0.0' });
      registerCompactTool(
        server,
        'list-places',
        { outputSchema: { items: z.array(placeSchema) }, ...(compact ? { compact } : {}) },
        async () => ({ items: places }),
      );
      return server;
    };
    const seenBy = async (
      clientName: string,
      compact?: { structuredContent: 'auto' | 'keep' | 'strip' },
    ) => {
      const client = await connect(makeServer(compact), clientName);
      const { tools } = await client.listTools();
      const result = (await client.callTool({ name: 'list-places' })) as Result;
      await client.close();
      return { tool: tools[0]!, result };
    };
    const claude = await seenBy('claude-code');
    assert.equal(claude.tool.outputSchema, undefined);
    assert.equal('structuredContent' in claude.result, false);
    assert.equal(claude.result.isError, undefined);
    assert.deepEqual(decoded(claude.result), { items: places });
    const codex = await seenBy('codex-mcp-client');
    assert.equal('structuredContent' in codex.result, false);
    const other = await seenBy('test-client');
    assert.ok(other.tool.outputSchema !== undefined);
    assert.deepEqual(other.result.structuredContent, { items: places });
    // 'keep' keeps both for every client; 'strip' strips for every client.
    const kept = await seenBy('claude-code', { structuredContent: 'keep' });
    assert.ok(kept.tool.outputSchema !== undefined);
    assert.deepEqual(kept.result.structuredContent, { items: places });
    const stripped = await seenBy('test-client', { structuredContent: 'strip' });
    assert.equal(stripped.tool.outputSchema, undefined);
    assert.equal('structuredContent' in stripped.result, false);
  });
});
