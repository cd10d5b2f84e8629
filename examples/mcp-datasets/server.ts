// An MCP server for a folder of JSON/JSONL datasets, adopting toonwire the way a real server
// would: handlers return plain payloads, registerCompactTool ships the smaller of JSON and TOON
// as the text the model reads, structuredContent stays the payload, and a `fields` parameter
// lets the model ask for only the columns it needs.
//
// Run it:  node --import tsx examples/mcp-datasets/server.ts [folder]   (default: ./data here)

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerCompactTool } from 'toonwire/mcp';
import { z } from 'zod';
import { DatasetFolder } from './datasets.js';

const MAX_LIMIT = 1000;

/** An McpServer with the list-datasets and get-dataset-items tools over `folder`. */
export function createDatasetServer(folder: string): McpServer {
  const datasets = new DatasetFolder(folder);
  const server = new McpServer({ name: 'toonwire-datasets-example', version: '1.0.0' });

  registerCompactTool(
    server,
    'list-datasets',
    {
      title: 'List datasets',
      description: 'Lists the datasets in the folder with their item counts and fields.',
      outputSchema: {
        items: z.array(
          z.object({
            name: z.string(),
            format: z.enum(['json', 'jsonl']),
            itemCount: z.number().int(),
            fields: z.array(z.string()),
            sizeBytes: z.number().int(),
          }),
        ),
      },
      annotations: { readOnlyHint: true },
    },
    async () => ({ items: await datasets.list() }),
  );

  registerCompactTool(
    server,
    'get-dataset-items',
    {
      title: 'Get dataset items',
      description: `Returns items of a dataset, a page at a time (at most ${MAX_LIMIT}). Ask for only the fields you need.`,
      inputSchema: {
        dataset: z.string().describe('The dataset name, as list-datasets reports it'),
        offset: z.number().int().min(0).default(0).describe('How many items to skip'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_LIMIT)
          .default(100)
          .describe('How many items to return'),
      },
      outputSchema: {
        dataset: z.string(),
        total: z.number().int(),
        offset: z.number().int(),
        limit: z.number().int(),
        items: z.array(z.record(z.string(), z.unknown())),
      },
      annotations: { readOnlyHint: true },
      fields: true,
    },
    async ({ dataset, offset, limit }) => {
      const items = await datasets.items(dataset);
      return {
        dataset,
        total: items.length,
        offset,
        limit,
        items: items.slice(offset, offset + limit),
      };
    },
  );

  return server;
}

const isMain =
  process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const folder = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), 'data'));
  await createDatasetServer(folder).connect(new StdioServerTransport());
  process.stderr.write(`toonwire datasets example: serving ${folder} over stdio\n`);
}
