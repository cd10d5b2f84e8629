// compactResult, on its own and through the SDK's real Client and McpServer in memory.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { byteLength, loadTokenizer, parseCompact, pick } from '../../src/index.js';
import { compactResult, formatHint } from '../../src/mcp/index.js';

const runs = Array.from({ length: 25 }, (_, i) => ({
  id: `run-${i}`,
  status: i % 4 === 0 ? 'FAILED' : 'SUCCEEDED',
  usage: { computeUnits: i / 10, durationMillis: 1000 + i },
}));
const payload = { total: runs.length, items: runs };

function textOf(result: unknown): string {
  const [block] = (result as { content: Array<{ type: string; text: string }> }).content;
  assert.equal(block?.type, 'text');
  return block.text;
}

describe('compactResult', () => {
  it("ships the picker's text, which decodes back to the payload", () => {
    const result = compactResult(payload);
    const strategy = result._meta?.['toonwire/encodingStrategy'] as string;
    assert.equal(strategy, pick(payload).strategy);
    assert.notEqual(strategy, 'json');
    assert.deepEqual(parseCompact(textOf(result), strategy), payload);
    assert.ok(byteLength(textOf(result)) < byteLength(JSON.stringify(payload)));
  });

  it('leaves structuredContent out for a client that shows the model structuredContent (auto)', () => {
    assert.equal(compactResult(payload).structuredContent, payload);
    const claude = compactResult(payload, { client: { name: 'claude-code', version: '2.1.3' } });
    assert.equal('structuredContent' in claude, false);
    const vscode = compactResult(payload, { client: { name: 'Visual Studio Code - Insiders' } });
    assert.equal('structuredContent' in vscode, false);
    const cursor = compactResult(payload, { client: { name: 'cursor-vscode', version: '1.0.0' } });
    assert.equal(cursor.structuredContent, payload);
    const kept = compactResult(payload, {
      structuredContent: 'keep',
      client: { name: 'claude-code' },
    });
    assert.equal(kept.structuredContent, payload);
    assert.equal(
      'structuredContent' in compactResult(payload, { structuredContent: 'strip' }),
      false,
    );
    assert.throws(
      () => compactResult(payload, { structuredContent: 'drop' as never }),
      /structuredContent must be 'auto', 'keep' or 'strip'/,
    );
  });

  it('returns the payload itself as structuredContent', () => {
    assert.equal(compactResult(payload).structuredContent, payload);
  });

  it('names the strategy under a configurable _meta key', () => {
    const result = compactResult(payload, { metaKey: 'com.apify/encodingStrategy' });
    assert.deepEqual(Object.keys(result._meta ?? {}), ['com.apify/encodingStrategy']);
  });

  it('ships JSON when no TOON candidate is smaller', () => {
    const irregular = { a: [{ b: [{ c: [1] }] }] };
    const result = compactResult(irregular);
    assert.equal(result._meta?.['toonwire/encodingStrategy'], 'json');
    assert.equal(textOf(result), JSON.stringify(irregular));
  });

  it('gives a payload that is not a plain object the text only (MCP requires an object)', () => {
    const result = compactResult(runs);
    assert.equal('structuredContent' in result, false);
    assert.deepEqual(
      parseCompact(textOf(result), result._meta?.['toonwire/encodingStrategy'] as string),
      runs,
    );
  });

  it('projects the text view to fields, leaving structuredContent whole', () => {
    const result = compactResult(payload, { fields: 'id,status' });
    const text = parseCompact(
      textOf(result),
      result._meta?.['toonwire/encodingStrategy'] as string,
    );
    assert.deepEqual(text, { total: 25, items: runs.map(({ id, status }) => ({ id, status })) });
    assert.equal(result.structuredContent, payload);
  });

  it('reports each pick to onPick', () => {
    const seen: string[] = [];
    const result = compactResult(payload, { onPick: ({ strategy }) => seen.push(strategy) });
    assert.deepEqual(seen, [result._meta?.['toonwire/encodingStrategy']]);
  });

  it('with hint, starts non-JSON text with a one-line label naming the format', () => {
    const result = compactResult(payload, { hint: true });
    const strategy = result._meta?.['toonwire/encodingStrategy'] as string;
    const [label, ...rest] = textOf(result).split('\n');
    assert.equal(label, formatHint(strategy));
    assert.deepEqual(parseCompact(rest.join('\n'), strategy), payload);
  });

  it('with hint, still never ships more than JSON: a label that would tip the balance means JSON', () => {
    const small = Array.from({ length: 8 }, (_, i) => ({ a: i, b: i + 1 }));
    assert.notEqual(pick(small).strategy, 'json');
    const result = compactResult(small, {
      hint: 'A long label that costs more than the table saves over JSON, surely',
    });
    assert.equal(result._meta?.['toonwire/encodingStrategy'], 'json');
    assert.equal(textOf(result), JSON.stringify(small));
  });

  it('with hint under the default measure, never ships more tokens than JSON: the label passes the token guard too', async () => {
    const count = await loadTokenizer('o200k_base');
    for (let rows = 1; rows <= 40; rows++) {
      const payloads = [
        { items: Array.from({ length: rows }, (_, i) => ({ id: i, status: 'ok' })) },
        Array.from({ length: rows }, (_, i) => ({ name: `user ${i}`, age: 20 + i })),
      ];
      for (const value of payloads) {
        const text = textOf(compactResult(value, { hint: true }));
        assert.ok(
          count(text) <= count(JSON.stringify(value)),
          `${rows} rows: ${count(text)} tokens, JSON ${count(JSON.stringify(value))}:\n${text}`,
        );
      }
    }
  });

  it('with hint and by tokens, compares the labelled text in tokens', async () => {
    const count = await loadTokenizer('o200k_base');
    const result = compactResult(payload, { hint: true, by: 'tokens' });
    assert.ok(count(textOf(result)) < count(JSON.stringify(payload)));
  });

  it('rejects a label that is not one line, and an empty metaKey', () => {
    assert.throws(() => compactResult(payload, { hint: 'two\nlines' }), /one line/);
    assert.throws(
      () => compactResult(payload, { metaKey: '' }),
      /metaKey must be a non-empty string/,
    );
  });
});

describe('compactResult through the SDK client and server', () => {
  async function connect(server: McpServer): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    return client;
  }

  const runSchema = z.object({
    id: z.string(),
    status: z.enum(['FAILED', 'SUCCEEDED']),
    usage: z.object({ computeUnits: z.number(), durationMillis: z.number() }),
  });

  it('delivers text that decodes to the payload and structuredContent that passes outputSchema validation', async () => {
    const server = new McpServer({ name: 'runs', version: '1.0.0' });
    server.registerTool(
      'list-runs',
      { outputSchema: { total: z.number(), items: z.array(runSchema) } },
      async () => compactResult(payload),
    );
    const client = await connect(server);
    try {
      await client.listTools(); // from here on the client validates structuredContent itself
      const result = await client.callTool({ name: 'list-runs' });
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, payload);
      const strategy = result._meta?.['toonwire/encodingStrategy'] as string;
      assert.deepEqual(parseCompact(textOf(result), strategy), payload);
    } finally {
      await client.close();
    }
  });

  it('lets the SDK reject a payload that breaks outputSchema, whatever the text', async () => {
    const server = new McpServer({ name: 'runs', version: '1.0.0' });
    server.registerTool('list-runs', { outputSchema: { total: z.string() } }, async () =>
      compactResult(payload),
    );
    const client = await connect(server);
    try {
      const result = await client.callTool({ name: 'list-runs' });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /Output validation error/);
    } finally {
      await client.close();
    }
  });
});
