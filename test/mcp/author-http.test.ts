// A server written with registerCompactTool, served over Streamable HTTP on 127.0.0.1 and called
// by the SDK's real Client under the names real clients send: what each one reads, and that the
// SDK client's own validation accepts every result.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseCompact } from '../../src/index.js';
import { registerCompactTool } from '../../src/mcp/index.js';
import { serveOverHttp } from './helpers.js';

const rows = Array.from({ length: 40 }, (_, i) => ({
  id: i,
  name: `Place ${i}`,
  rating: 3 + (i % 20) / 10,
}));
const rowSchema = z.object({ id: z.number(), name: z.string(), rating: z.number() });
const file = '# Notes\n\n- "quoted"\n\tand a tab\n';

function createServer(): McpServer {
  const server = new McpServer({ name: 'places', version: '1.0.0' });
  registerCompactTool(
    server,
    'list-places',
    { outputSchema: { items: z.array(rowSchema) }, fields: true },
    async () => ({ items: rows }),
  );
  registerCompactTool(server, 'read-notes', {}, async () => file);
  registerCompactTool(
    server,
    'get-place',
    { inputSchema: { id: z.number() } },
    async ({ id }) =>
      rows[id] ?? { content: [{ type: 'text', text: `No place ${id}` }], isError: true },
  );
  registerCompactTool(
    server,
    'count-visits',
    { outputSchema: { total: z.string(), byPlace: z.record(z.string(), z.number()) } },
    async () => ({ total: 2n ** 64n, byPlace: new Map([['Place 1', 3]]) }),
  );
  registerCompactTool(
    server,
    'slow-export',
    { inputSchema: { steps: z.number().int() }, outputSchema: { items: z.array(rowSchema) } },
    async ({ steps }, extra) => {
      for (let step = 1; step <= steps; step++) {
        const progressToken = extra._meta?.progressToken;
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: steps },
          });
        }
      }
      return { items: rows };
    },
  );
  return server;
}

// Each client as it names itself in initialize (see src/mcp/clients.ts), and whether it shows
// the model structuredContent (so that toonwire leaves it out for that client).
const CLIENTS: ReadonlyArray<[name: string, showsStructuredContent: boolean]> = [
  ['claude-code', true],
  ['codex-mcp-client', true],
  ['github-copilot-developer', true],
  ['Visual Studio Code', true],
  ['Visual Studio Code - Insiders', true],
  ['cursor-vscode', false],
  ['claude-ai', false],
  ['mcp-inspector', false],
];

describe('a registerCompactTool server over Streamable HTTP', () => {
  let served: Awaited<ReturnType<typeof serveOverHttp>>;
  before(async () => {
    served = await serveOverHttp(createServer);
  });
  after(async () => {
    served.server.closeAllConnections();
    await new Promise((resolve) => served.server.close(resolve));
  });

  async function withClient<T>(name: string, use: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      await client.listTools(); // the client validates structuredContent from here on
      return await use(client);
    } finally {
      await client.close();
    }
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
  const decoded = (result: CallToolResult) =>
    parseCompact(textOf(result), result._meta?.['toonwire/encodingStrategy'] as string);

  for (const [name, showsStructuredContent] of CLIENTS) {
    it(`gives ${name} a text that decodes to the data, and structuredContent only if it reads the text`, async () => {
      await withClient(name, async (client) => {
        const { tools } = await client.listTools();
        const listed = tools.find((tool) => tool.name === 'list-places')!;
        assert.equal(listed.outputSchema === undefined, showsStructuredContent);

        const places = await call(client, 'list-places');
        assert.equal(places.isError, undefined);
        assert.deepEqual(decoded(places), { items: rows });
        assert.ok(textOf(places).length < JSON.stringify({ items: rows }).length);
        if (showsStructuredContent) assert.equal('structuredContent' in places, false);
        else assert.deepEqual(places.structuredContent, { items: rows });

        const names = await call(client, 'list-places', { fields: 'name' });
        assert.deepEqual(decoded(names), { items: rows.map(({ name }) => ({ name })) });

        assert.equal(textOf(await call(client, 'read-notes')), file);
        assert.deepEqual(decoded(await call(client, 'get-place', { id: 2 })), rows[2]);
        assert.deepEqual(await call(client, 'get-place', { id: 99 }), {
          content: [{ type: 'text', text: 'No place 99' }],
          isError: true,
        });

        const visits = await call(client, 'count-visits');
        assert.equal(visits.isError, undefined, textOf(visits));
        const counted = { total: '18446744073709551616', byPlace: { 'Place 1': 3 } };
        assert.deepEqual(decoded(visits), counted);
        if (!showsStructuredContent) assert.deepEqual(visits.structuredContent, counted);
      });
    });
  }

  it('passes progress notifications through to a long tool and compacts its result', async () => {
    await withClient('claude-code', async (client) => {
      const seen: number[] = [];
      const result = (await client.callTool(
        { name: 'slow-export', arguments: { steps: 5 } },
        undefined,
        { onprogress: ({ progress }) => void seen.push(progress) },
      )) as CallToolResult;
      assert.deepEqual(seen, [1, 2, 3, 4, 5]);
      assert.deepEqual(decoded(result), { items: rows });
    });
  });
});
