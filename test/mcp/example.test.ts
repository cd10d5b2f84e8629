// The datasets example server (examples/mcp-datasets), through the SDK's real client in memory.
// The example imports 'toonwire/mcp', the built package, so build first.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createDatasetServer } from '../../examples/mcp-datasets/server.js';
import { byteLength, parseCompact } from '../../src/index.js';
import { ROOT } from './helpers.js';

const DATA = join(ROOT, 'examples', 'mcp-datasets', 'data');
const places = readFileSync(join(DATA, 'places.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

type Result = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

function decoded(result: Result): unknown {
  return parseCompact(
    result.content[0]!.text,
    result._meta?.['toonwire/encodingStrategy'] as string,
  );
}

describe('the datasets example server', () => {
  const client = new Client({ name: 'example-test', version: '1.0.0' });
  before(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([createDatasetServer(DATA).connect(serverSide), client.connect(clientSide)]);
    await client.listTools(); // the client validates structuredContent against outputSchema from here on
  });
  after(() => client.close());

  it('lists the sample datasets with counts and fields', async () => {
    const result = (await client.callTool({ name: 'list-datasets' })) as Result;
    const items = (
      result.structuredContent as {
        items: Array<{ name: string; itemCount: number; fields: string[] }>;
      }
    ).items;
    assert.deepEqual(
      items.map(({ name, itemCount }) => [name, itemCount]),
      [
        ['actor-runs', 15],
        ['places', 20],
        ['travel-notes', 3],
      ],
    );
    assert.deepEqual(items[1]!.fields, Object.keys(places[0]!));
    assert.deepEqual(decoded(result), result.structuredContent);
  });

  it('pages items with offset and limit', async () => {
    const result = (await client.callTool({
      name: 'get-dataset-items',
      arguments: { dataset: 'places', offset: 5, limit: 4 },
    })) as Result;
    assert.deepEqual(result.structuredContent, {
      dataset: 'places',
      total: 20,
      offset: 5,
      limit: 4,
      items: places.slice(5, 9),
    });
    assert.deepEqual(decoded(result), result.structuredContent);
  });

  it('projects the text to the requested fields, many times smaller than the JSON', async () => {
    const result = (await client.callTool({
      name: 'get-dataset-items',
      arguments: { dataset: 'places', fields: 'name,rating,address.city' },
    })) as Result;
    const projected = places.map((place) => ({
      name: place.name,
      rating: place.rating,
      address: { city: (place.address as { city: string }).city },
    }));
    assert.deepEqual(decoded(result), {
      dataset: 'places',
      total: 20,
      offset: 0,
      limit: 100,
      items: projected,
    });
    assert.deepEqual((result.structuredContent as { items: unknown[] }).items, places);
    assert.ok(
      byteLength(result.content[0]!.text) * 4 <
        byteLength(JSON.stringify(result.structuredContent)),
    );
  });

  it('reads .json datasets, envelopes included', async () => {
    const result = (await client.callTool({
      name: 'get-dataset-items',
      arguments: { dataset: 'travel-notes' },
    })) as Result;
    assert.equal((result.structuredContent as { total: number }).total, 3);
    assert.deepEqual(decoded(result), result.structuredContent);
  });

  it('answers an unknown dataset with an error naming the ones there are', async () => {
    const result = (await client.callTool({
      name: 'get-dataset-items',
      arguments: { dataset: 'nope' },
    })) as Result;
    assert.equal(result.isError, true);
    assert.match(
      result.content[0]!.text,
      /No dataset named "nope"\. Available: actor-runs, places, travel-notes\./,
    );
  });
});
