// What a TypeScript author's handlers see: the types of the arguments a tool's input schema gives
// them, checked by `npm run typecheck` (each @ts-expect-error must meet an error) and run once
// through the SDK's real Client so the schemas are the ones the SDK accepts.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import ts from 'typescript';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { compactResult, fieldsParameter, registerCompactTool } from '../../src/mcp/index.js';

describe('fieldsParameter in a tool registered with registerTool', () => {
  it('gives the handler fields as string | undefined, in Zod 4 and Zod 3 shapes', async () => {
    const server = new McpServer({ name: 'search', version: '1.0.0' });
    const seen: Array<string | undefined> = [];
    server.registerTool(
      'search',
      { inputSchema: { query: z.string(), fields: fieldsParameter() } },
      async ({ query, fields }) => {
        seen.push(fields);
        // @ts-expect-error fields is string | undefined, not any
        const wrong: number = fields;
        void wrong;
        return compactResult({ items: [{ query, rank: 1 }] }, { fields });
      },
    );
    server.registerTool(
      'search-v3',
      { inputSchema: { query: z3.string(), fields: fieldsParameter({ zodVersion: 3 }) } },
      async ({ query, fields }) => {
        seen.push(fields);
        // @ts-expect-error fields is string | undefined, not any
        const wrong: number = fields;
        void wrong;
        return compactResult({ items: [{ query, rank: 1 }] }, { fields });
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      for (const name of ['search', 'search-v3']) {
        const result = await client.callTool({ name, arguments: { query: 'q', fields: 'query' } });
        assert.equal(result.isError, undefined);
        await client.callTool({ name, arguments: { query: 'q' } });
      }
      assert.deepEqual(seen, ['query', undefined, 'query', undefined]);
    } finally {
      await client.close();
    }
  });
});

describe('registerCompactTool handler arguments', () => {
  it('has fields: string | undefined with the fields option, and a tool its own fields otherwise', async () => {
    const server = new McpServer({ name: 'typed', version: '1.0.0' });
    const seen: unknown[] = [];
    registerCompactTool(server, 'with-option', { fields: true }, async ({ fields }) => {
      const typed: string | undefined = fields;
      seen.push(typed);
      return { items: [{ a: 1, b: 2 }] };
    });
    registerCompactTool(
      server,
      'own-fields',
      { inputSchema: { fields: z.array(z.string()) } },
      async ({ fields }) => {
        const typed: string[] = fields;
        // @ts-expect-error the tool's own fields is a string[], not also a string
        const wrong: string = fields;
        void wrong;
        seen.push(typed);
        return { fields: typed };
      },
    );
    registerCompactTool(server, 'no-option', { inputSchema: { q: z.string() } }, async (args) => {
      // @ts-expect-error without the fields option there is no fields argument
      void args.fields;
      seen.push(args.q);
      return { q: args.q };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      await client.callTool({ name: 'with-option', arguments: { fields: 'a' } });
      await client.callTool({ name: 'own-fields', arguments: { fields: ['x'] } });
      await client.callTool({ name: 'no-option', arguments: { q: 'query' } });
      assert.deepEqual(seen, ['a', ['x'], 'query']);
    } finally {
      await client.close();
    }
  });
});

describe('compactResult options under the strictest compiler options', () => {
  it('take an optional fields argument and getClientVersion() as they are, under exactOptionalPropertyTypes', () => {
    // The fixture sits in the checkout (.tmp is ignored by git) so that its imports resolve as
    // a user's do; it imports compact-result alone, to keep the compile small.
    const root = fileURLToPath(new URL('../../', import.meta.url));
    mkdirSync(join(root, '.tmp'), { recursive: true });
    const dir = mkdtempSync(join(root, '.tmp', 'author-types-'));
    try {
      const file = join(dir, 'handler.ts');
      writeFileSync(
        file,
        `import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { compactResult } from '../../src/mcp/compact-result.js';
declare const fields: string | undefined; // a handler's optional argument
declare const client: Implementation | undefined; // server.server.getClientVersion()
export const result = compactResult({ items: [] }, { fields, client });
`,
      );
      const program = ts.createProgram([file], {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      });
      const errors = ts
        .getPreEmitDiagnostics(program)
        .filter((diagnostic) => diagnostic.file?.fileName === file)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      assert.deepEqual(errors, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
