// What a server author's handlers return beyond plain JSON data, through compactResult,
// registerCompactTool and the SDK's real Client and McpServer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseCompact } from '../../src/index.js';
import { compactResult, registerCompactTool } from '../../src/mcp/index.js';

async function connect(server: McpServer, clientName = 'test-client'): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  await client.listTools(); // from here on the client validates structuredContent itself
  return client;
}

async function call(server: McpServer, name: string, clientName?: string) {
  const client = await connect(server, clientName);
  try {
    return (await client.callTool({ name })) as CallToolResult;
  } finally {
    await client.close();
  }
}

function textOf(result: CallToolResult): string {
  const [block] = result.content;
  assert.equal(block?.type, 'text');
  return block.text;
}

function strategyOf(result: CallToolResult): string {
  return result._meta?.['toonwire/encodingStrategy'] as string;
}

describe('string payloads: a file or a document is its own text', () => {
  const file = 'export const greeting = "hi";\n\tindented\\path\n"quoted"\n';

  it('ships the string exactly as it is, not quoted or escaped, under the strategy verbatim', async () => {
    const server = new McpServer({ name: 'files', version: '1.0.0' });
    registerCompactTool(server, 'read-file', {}, async () => file);
    registerCompactTool(server, 'read-number', {}, async () => '42');
    for (const clientName of ['test-client', 'claude-code']) {
      const result = await call(server, 'read-file', clientName);
      assert.equal(textOf(result), file);
      assert.equal(strategyOf(result), 'verbatim');
      assert.equal('structuredContent' in result, false);
    }
    assert.equal(textOf(await call(server, 'read-number')), '42');
  });

  it('is never more text than JSON', () => {
    for (const text of [file, '', 'true', 'a,b', 'x'.repeat(10_000), 'ünïcödé 😀']) {
      const result = compactResult(text);
      assert.equal(textOf(result), text);
      assert.ok(textOf(result).length < JSON.stringify(text).length);
    }
  });
});

describe('structuredContent is the JSON view of the payload', () => {
  it('carries a BigInt as the text does, so the answer can be written at all', () => {
    const payload = { id: 12345678901234567890n, small: 7n };
    const result = compactResult(payload);
    const json = JSON.stringify(result); // what every transport but the in-memory one does
    const sent = JSON.parse(json) as CallToolResult;
    assert.deepEqual(sent.structuredContent, parseCompact(textOf(sent), strategyOf(sent)));
    assert.deepEqual(sent.structuredContent, { id: '12345678901234567890', small: 7 });
  });

  it('holds the same data as the text for a Map and a Set', () => {
    const payload = { counts: new Map([['a', 1]]), tags: new Set(['x', 'y']) };
    const result = compactResult(payload);
    assert.deepEqual(result.structuredContent, { counts: { a: 1 }, tags: ['x', 'y'] });
    assert.deepEqual(result.structuredContent, parseCompact(textOf(result), strategyOf(result)));
  });

  it('is still the payload itself when the payload is plain JSON', () => {
    const payload = { items: [{ id: 1 }] };
    assert.equal(compactResult(payload).structuredContent, payload);
  });

  it('validates a Date against z.string() and a class instance against its schema', async () => {
    class Run {
      constructor(
        readonly id: number,
        readonly startedAt: Date,
      ) {}
    }
    const server = new McpServer({ name: 'runs', version: '1.0.0' });
    const runSchema = { id: z.number(), startedAt: z.string() };
    registerCompactTool(server, 'last-run', { outputSchema: runSchema }, async () => {
      return new Run(3, new Date(0));
    });
    registerCompactTool(
      server,
      'runs',
      {
        outputSchema: {
          runs: z.array(z.object(runSchema)),
          byId: z.record(z.string(), z.number()),
        },
      },
      async () => ({ runs: [new Run(1, new Date(0))], byId: new Map([['run-1', 1]]) }),
    );
    const last = await call(server, 'last-run');
    assert.equal(last.isError, undefined, textOf(last));
    assert.deepEqual(last.structuredContent, { id: 3, startedAt: '1970-01-01T00:00:00.000Z' });
    const runs = await call(server, 'runs');
    assert.equal(runs.isError, undefined, textOf(runs));
    assert.deepEqual(runs.structuredContent, {
      runs: [{ id: 1, startedAt: '1970-01-01T00:00:00.000Z' }],
      byId: { 'run-1': 1 },
    });
    assert.deepEqual(runs.structuredContent, parseCompact(textOf(runs), strategyOf(runs)));
  });
});

const itemsSchema = { items: z.array(z.object({ id: z.number() })) };

describe('registerCompactTool with handlers that return a finished result', () => {
  const notFound: CallToolResult = {
    content: [{ type: 'text', text: 'No dataset named "plcaes"; did you mean "places"?' }],
    isError: true,
  };
  const finished: Record<string, CallToolResult> = {
    image: { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] },
    audio: { content: [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }] },
    link: {
      content: [
        { type: 'text', text: 'The export is ready:' },
        { type: 'resource_link', uri: 'file:///exports/places.csv', name: 'places.csv' },
      ],
    },
    embedded: {
      content: [
        {
          type: 'resource',
          resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes\n' },
        },
      ],
    },
  };

  it('keeps an isError result an error, with or without an outputSchema', async () => {
    for (const outputSchema of [undefined, itemsSchema]) {
      const server = new McpServer({ name: 'datasets', version: '1.0.0' });
      registerCompactTool(
        server,
        'get-items',
        outputSchema ? { outputSchema } : {},
        async () => notFound,
      );
      for (const clientName of ['test-client', 'claude-code']) {
        const result = await call(server, 'get-items', clientName);
        assert.deepEqual(result, notFound, `${clientName}, outputSchema: ${!!outputSchema}`);
      }
    }
  });

  it('sends images, audio, resource links and embedded resources as they are', async () => {
    const server = new McpServer({ name: 'media', version: '1.0.0' });
    for (const [name, result] of Object.entries(finished)) {
      registerCompactTool(server, name, {}, async () => result);
    }
    for (const [name, result] of Object.entries(finished)) {
      assert.deepEqual(await call(server, name), result, name);
    }
  });

  it('still compacts data that merely has a content member', async () => {
    const payloads = [
      { content: [{ type: 'paragraph', text: 'Hello' }] }, // not an MCP content block
      { content: [{ type: 'text', text: 'Hello' }], author: 'Ada' }, // not only a result's members
      { content: [] }, // an empty list, nothing says it is a result
      { content: 'Hello' },
    ];
    const server = new McpServer({ name: 'cms', version: '1.0.0' });
    payloads.forEach((payload, i) => {
      registerCompactTool(server, `page-${i}`, {}, async () => payload);
    });
    for (const [i, payload] of payloads.entries()) {
      const result = await call(server, `page-${i}`);
      assert.deepEqual(parseCompact(textOf(result), strategyOf(result)), payload);
      assert.deepEqual(result.structuredContent, payload);
    }
  });
});
