// What a server author's handlers return beyond plain JSON data, through compactResult,
// registerCompactTool and the SDK's real Client and McpServer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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
