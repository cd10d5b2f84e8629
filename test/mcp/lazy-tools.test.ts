// Tool definitions on demand (issue 21, item 2): the search over tool definitions, the argument
// check, the lazy ToolCatalog on its own, and ProxySessions in lazy mode in front of an in-memory
// SDK server and of the real server-everything, server-filesystem and server-memory.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { loadTokenizer, parseCompact } from '../../src/index.js';
import { ArgumentChecker } from '../../src/mcp/proxy/tools/arguments.js';
import type { ToolCatalogOptions } from '../../src/mcp/proxy/tools/catalog.js';
import {
  CALL_TOOL_NAME,
  FIND_TOOLS_NAME,
  LazyTools,
  modelDefinition,
} from '../../src/mcp/proxy/tools/lazy.js';
import {
  editDistance,
  parameterNames,
  stem,
  ToolSearch,
  toolWords,
} from '../../src/mcp/proxy/tools/search.js';
import {
  ChildProcessTransport,
  createResultPipeline,
  ProxySession,
  ToolCatalog,
} from '../../src/mcp/proxy.js';
import { proxyCli, ROOT, type ToolResult } from './helpers.js';

type Definition = Record<string, unknown> & { name: string };

const text = (result: unknown) => (result as ToolResult).content[0]!.text;
const found = (result: unknown) => JSON.parse(text(result)) as Definition[];
const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name);

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

/** A small catalog of the kinds of tools the real servers have. */
const TOOLS: Definition[] = [
  {
    name: 'read_text_file',
    title: 'Read Text File',
    description: 'Read the complete contents of a file from the file system as text.',
    inputSchema: objectSchema({ path: { type: 'string' }, head: { type: 'number' } }, ['path']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'list_directory',
    description: 'Get a detailed listing of all files and directories in a specified path.',
    inputSchema: objectSchema({ path: { type: 'string' } }, ['path']),
  },
  {
    name: 'create_entities',
    description: 'Create multiple new entities in the knowledge graph',
    inputSchema: objectSchema(
      {
        entities: {
          type: 'array',
          items: objectSchema({ name: { type: 'string' }, entityType: { type: 'string' } }, [
            'name',
            'entityType',
          ]),
        },
      },
      ['entities'],
    ),
    outputSchema: objectSchema({ entities: { type: 'array' } }),
  },
  {
    name: 'getWeatherForecast',
    description: 'Forecast for a city',
    inputSchema: objectSchema(
      { city: { type: 'string' }, units: { enum: ['metric', 'imperial'] } },
      ['city'],
    ),
    _meta: { 'vendor/x': 1 },
    execution: { taskSupport: 'forbidden' },
  },
];

describe('tool search', () => {
  it('splits names into words at snake_case, kebab-case, camelCase and separators', () => {
    assert.deepEqual(toolWords('getFileInfo read_text_file list-allowed HTTPServer s3__put'), [
      'get',
      'file',
      'info',
      'read',
      'text',
      'file',
      'list',
      'allowed',
      'http',
      'server',
      's3',
      'put',
    ]);
  });

  it('stems plural endings and drops stop words', () => {
    assert.deepEqual(
      ['entities', 'searches', 'files', 'boxes', 'class', 'status', 'the', 'file'].map(stem),
      ['entity', 'search', 'file', 'box', 'class', 'status', null, 'file'],
    );
  });

  it('collects parameter names from nested object, array and anyOf schemas', () => {
    const schema = objectSchema({
      path: { type: 'string' },
      edits: { type: 'array', items: objectSchema({ oldText: {}, newText: {} }) },
      target: { anyOf: [objectSchema({ url: {} }), { type: 'null' }] },
    });
    assert.deepEqual(parameterNames(schema), [
      'path',
      'edits',
      'oldText',
      'newText',
      'target',
      'url',
    ]);
  });

  it('ranks by name, description and parameter words, best first', () => {
    const index = new ToolSearch(TOOLS);
    assert.equal(index.search('read a file')[0], 'read_text_file');
    assert.equal(index.search('directory listing')[0], 'list_directory');
    assert.equal(index.search('knowledge graph entities')[0], 'create_entities');
    assert.equal(index.search('weather forecast')[0], 'getWeatherForecast');
    // A parameter name alone finds its tool; a prefix and a typo do too.
    assert.equal(index.search('entityType')[0], 'create_entities');
    assert.equal(index.search('forec')[0], 'getWeatherForecast');
    assert.equal(index.search('directroy')[0], 'list_directory');
    assert.deepEqual(index.search('zebra'), []);
    assert.equal(index.search('file', 1).length, 1);
  });

  it('puts an exact name first, whatever the scores', () => {
    const index = new ToolSearch(TOOLS);
    // "files and directories" in list_directory's description outweighs nothing here but the name.
    assert.equal(index.search('LIST_DIRECTORY')[0], 'list_directory');
    assert.equal(index.search('read_text_file')[0], 'read_text_file');
  });

  it('names close matches for a misspelled or unqualified name', () => {
    const index = new ToolSearch([
      ...TOOLS.map((tool) => ({ ...tool, name: `files__${tool.name}` })),
      { name: 'memory__create_entities', description: 'the same tool on another server' },
    ]);
    assert.deepEqual(index.closeNames('read_txt_file').slice(0, 1), ['files__read_text_file']);
    assert.deepEqual(index.closeNames('create_entities').slice(0, 2).sort(), [
      'files__create_entities',
      'memory__create_entities',
    ]);
    assert.deepEqual(index.closeNames('qqqqqqqq'), []);
  });

  it('measures edit distance', () => {
    assert.equal(editDistance('read_fil', 'read_file'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });
});

describe('argument check', () => {
  const checker = new ArgumentChecker();
  const schema = TOOLS[2]!.inputSchema;

  it('accepts valid arguments and leaves them as they are', () => {
    const args = { entities: [{ name: 'a', entityType: 'person', extra: 1 }] };
    const before = structuredClone(args);
    assert.deepEqual(checker.check(schema, args), { verdict: 'valid' });
    assert.deepEqual(args, before);
  });

  it('names every problem with its path, and shows the failing part of the schema', () => {
    const check = checker.check(schema, { entities: [{ name: 1 }] });
    assert.equal(check.verdict, 'invalid');
    if (check.verdict !== 'invalid') return;
    assert.deepEqual(check.problems, [
      '`entities[0]` lacks the required property "entityType"',
      '`entities[0].name` is 1, but must be of type string',
    ]);
    const items = check.schemaParts.find((part) => part.pointer === '#/properties/entities/items');
    assert.deepEqual(items?.schema, {
      type: 'object',
      properties: { name: { type: 'string' }, entityType: { type: 'string' } },
      required: ['name', 'entityType'],
    });
  });

  it('explains enums, constants and properties the schema does not allow', () => {
    const strict = {
      type: 'object',
      properties: { units: { enum: ['metric', 'imperial'] }, v: { const: 2 } },
      additionalProperties: false,
    };
    const check = checker.check(strict, { units: 'kelvin', v: 3, colour: 'red' });
    assert.equal(check.verdict, 'invalid');
    if (check.verdict !== 'invalid') return;
    assert.deepEqual(check.problems.sort(), [
      '`units` is "kelvin", but must be one of "metric", "imperial"',
      '`v` is 3, but must be 2',
      'the arguments: "colour" is not a property the schema allows (it allows "units", "v")',
    ]);
  });

  it('reads each schema in its own dialect: 2020-12 by default, draft-07 when it says so', () => {
    const tuple = { type: 'object', properties: { pair: { prefixItems: [{ type: 'string' }] } } };
    assert.equal(checker.check(tuple, { pair: [1] }).verdict, 'invalid');
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', ...tuple };
    // prefixItems is not a draft-07 keyword: it constrains nothing there.
    assert.equal(checker.check(draft7, { pair: [1] }).verdict, 'valid');
    const draft7Tuple = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { items: [{ type: 'string' }] } },
    };
    assert.equal(checker.check(draft7Tuple, { pair: [1] }).verdict, 'invalid');
  });

  it('lets through what it cannot check, and never checks formats', () => {
    const draft4 = { $schema: 'http://json-schema.org/draft-04/schema#', required: ['x'] };
    assert.equal(checker.check(draft4, {}).verdict, 'unchecked');
    const remote = objectSchema({ x: { $ref: 'https://example.com/x.json' } });
    const check = checker.check(remote, { x: 1 });
    assert.equal(check.verdict, 'unchecked');
    assert.match((check as { reason: string }).reason, /could not be compiled.*example\.com/);
    assert.equal(checker.check(undefined, { x: 1 }).verdict, 'unchecked');
    const uri = objectSchema({ u: { type: 'string', format: 'uri' } });
    assert.equal(checker.check(uri, { u: 'not a uri' }).verdict, 'valid');
  });

  it('caps the problems it lists', () => {
    const many = objectSchema(
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { type: 'string' }])),
    );
    const args = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, i]));
    const check = checker.check(many, args);
    assert.equal(check.verdict, 'invalid');
    if (check.verdict !== 'invalid') return;
    assert.equal(check.problems.length, 9);
    assert.equal(check.problems.at(-1), '(4 more problems not shown)');
  });
});

async function lazyCatalog(
  options: Omit<ToolCatalogOptions, 'lazy'> = {},
  pipelineOptions: Parameters<typeof createResultPipeline>[0] = {},
) {
  const logs: string[] = [];
  const pipeline = await createResultPipeline(pipelineOptions, () => {});
  const catalog = new ToolCatalog(pipeline, {
    lazy: true,
    log: (message) => logs.push(message),
    ...options,
  });
  return { catalog, logs };
}

/** The result a plan answers with, or a failure when it forwards. */
function answer(plan: ReturnType<ToolCatalog['plan']>): ToolResult {
  assert.equal(plan.kind, 'answer', `expected an answer, got ${JSON.stringify(plan)}`);
  return (plan as unknown as { result: ToolResult }).result;
}

describe('ToolCatalog in lazy mode', () => {
  it('lists only its own two tools and the pinned ones, but learns every tool', async () => {
    const { catalog } = await lazyCatalog({ pinned: ['list_directory'] });
    const shown = catalog.list({ tools: TOOLS }, 'keep') as { tools: Definition[] };
    assert.deepEqual(names(shown.tools), ['list_directory', FIND_TOOLS_NAME, CALL_TOOL_NAME]);
    assert.deepEqual(shown.tools[0], TOOLS[1]);
    const result = answer(catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query: 'weather' } }));
    assert.equal(result.isError, undefined);
    const [weather] = found(result);
    // The definition as listed, less what is for the client only (_meta, execution).
    const { _meta, execution, ...definition } = TOOLS[3]!;
    assert.deepEqual(weather, definition);
    assert.equal(text(result), JSON.stringify([definition]));
  });

  it('keeps nextCursor, shows only pinned tools on later pages and its own on the last', async () => {
    const { catalog } = await lazyCatalog({ pinned: ['create_entities'] });
    const first = catalog.list({ tools: TOOLS.slice(0, 2), nextCursor: 'p2' }, 'keep');
    assert.deepEqual(first, { tools: [], nextCursor: 'p2' });
    const second = catalog.list({ tools: TOOLS.slice(2) }, 'keep') as { tools: Definition[] };
    assert.deepEqual(names(second.tools), ['create_entities', FIND_TOOLS_NAME, CALL_TOOL_NAME]);
    const all = found(
      answer(catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query: 'file', limit: 20 } })),
    );
    assert.ok(names(all).includes('read_text_file'), 'a tool of the first page is found');
  });

  it('adds toonwire_more when paging is on, and replaces upstream tools named like its own', async () => {
    const { catalog } = await lazyCatalog({}, { maxTokens: 1000 });
    const impostor = { name: FIND_TOOLS_NAME, description: 'not ours', inputSchema: {} };
    const shown = catalog.list({ tools: [...TOOLS, impostor] }, 'keep') as { tools: Definition[] };
    assert.deepEqual(names(shown.tools), [FIND_TOOLS_NAME, CALL_TOOL_NAME, 'toonwire_more']);
    assert.notEqual(shown.tools[0]!.description, 'not ours');
  });

  it('always lists tools with an MCP Apps UI, whose host renders only tools it knows', async () => {
    const { catalog } = await lazyCatalog();
    const app = { ...TOOLS[0]!, name: 'show_chart', _meta: { ui: { resourceUri: 'ui://c' } } };
    const shown = catalog.list({ tools: [app, ...TOOLS] }, 'keep') as { tools: Definition[] };
    assert.deepEqual(names(shown.tools), ['show_chart', FIND_TOOLS_NAME, CALL_TOOL_NAME]);
  });

  it('finds definitions as the full list would show them: no outputSchema under strip, fields added', async () => {
    const { catalog } = await lazyCatalog({}, { fieldsParam: true });
    catalog.list({ tools: TOOLS }, 'strip');
    const [entities] = found(
      answer(catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query: 'create_entities' } })),
    );
    assert.equal(entities!.name, 'create_entities');
    assert.equal(entities!.outputSchema, undefined);
    const properties = (entities!.inputSchema as { properties: Record<string, unknown> })
      .properties;
    assert.deepEqual(Object.keys(properties), ['entities', 'fields']);
  });

  it('forwards a valid call as a plain tools/call of the tool, _meta and all', async () => {
    const { catalog } = await lazyCatalog({}, { fieldsParam: true });
    catalog.list({ tools: TOOLS }, 'keep');
    const plan = catalog.plan({
      name: CALL_TOOL_NAME,
      arguments: { name: 'create_entities', arguments: { entities: [], fields: 'name' } },
      _meta: { progressToken: 7 },
    });
    assert.equal(plan.kind, 'forward');
    if (plan.kind !== 'forward') return;
    assert.deepEqual(plan.params, {
      name: 'create_entities',
      arguments: { entities: [] },
      _meta: { progressToken: 7 },
    });
    assert.equal(plan.call.tool, 'create_entities');
    assert.equal(plan.call.fields, 'name');
  });

  it('takes arguments sent as JSON text, and a missing arguments object as {}', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    const plan = catalog.plan({
      name: CALL_TOOL_NAME,
      arguments: { name: 'list_directory', arguments: '{"path":"/tmp"}' },
    });
    assert.deepEqual(plan.kind === 'forward' && plan.params?.arguments, { path: '/tmp' });
    const bare = catalog.plan({ name: CALL_TOOL_NAME, arguments: { name: 'list_directory' } });
    assert.match(text(answer(bare)), /the arguments lack the required property "path"/);
  });

  it('answers invalid arguments itself, naming the problem and the schema part', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    const result = answer(
      catalog.plan({
        name: CALL_TOOL_NAME,
        arguments: { name: 'getWeatherForecast', arguments: { city: 'Oslo', units: 'kelvin' } },
      }),
    );
    assert.equal(result.isError, true);
    assert.equal(
      text(result),
      [
        'toonwire proxy: the arguments for "getWeatherForecast" do not match its inputSchema, so the call was not sent:',
        '- `units` is "kelvin", but must be one of "metric", "imperial"',
        'inputSchema at #/properties/units: {"enum":["metric","imperial"]}',
        'Correct the arguments and call again.',
      ].join('\n'),
    );
  });

  it('answers an unknown tool with the closest names', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    const result = answer(
      catalog.plan({ name: CALL_TOOL_NAME, arguments: { name: 'read_txt_file', arguments: {} } }),
    );
    assert.equal(result.isError, true);
    assert.match(text(result), /no tool named "read_txt_file"\. Did you mean "read_text_file"/);
  });

  it('refuses calls without a name, with non-object arguments, or of its own tools', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    const call = (args: unknown) =>
      text(answer(catalog.plan({ name: CALL_TOOL_NAME, arguments: args })));
    assert.match(call({}), /needs the "name" of a tool/);
    assert.match(call({ name: 'list_directory', arguments: [1] }), /"arguments" must be an object/);
    assert.match(
      call({ name: FIND_TOOLS_NAME, arguments: {} }),
      /call toonwire_find_tools directly/,
    );
  });

  it('says when nothing matches, and names some tools', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    const result = answer(catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query: 'zebra' } }));
    assert.equal(result.isError, undefined);
    assert.equal(
      text(result),
      'No tool matches "zebra". There are 4 tools, among them: read_text_file, list_directory, create_entities, getWeatherForecast.',
    );
    const empty = answer(catalog.plan({ name: FIND_TOOLS_NAME, arguments: {} }));
    assert.equal(empty.isError, true);
    assert.match(text(empty), /needs a "query"/);
  });

  it('honours limit, within 1 to 20', async () => {
    const { catalog } = await lazyCatalog();
    const many = Array.from({ length: 30 }, (_, i) => ({
      name: `file_tool_${i}`,
      inputSchema: {},
    }));
    catalog.list({ tools: many }, 'keep');
    const count = (limit: unknown) =>
      found(answer(catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query: 'file', limit } })))
        .length;
    assert.deepEqual(
      [count(undefined), count(2), count(0), count(500), count('x')],
      [3, 2, 1, 20, 3],
    );
  });

  it('forgets tools a new listing no longer has', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    catalog.list({ tools: TOOLS.slice(1) }, 'keep');
    const result = answer(
      catalog.plan({ name: CALL_TOOL_NAME, arguments: { name: 'read_text_file', arguments: {} } }),
    );
    assert.match(text(result), /no tool named "read_text_file"/);
  });

  it('says once which pinned tools the upstream does not list', async () => {
    const { catalog, logs } = await lazyCatalog({ pinned: ['list_directory', 'lst_dir'] });
    catalog.list({ tools: TOOLS }, 'keep');
    catalog.list({ tools: TOOLS }, 'keep');
    assert.equal(logs.length, 1);
    assert.match(logs[0]!, /--pin-tools names "lst_dir", which the upstream does not list/);
  });

  it('sends calls of listed tools back to the tool itself, so client approvals hold', async () => {
    const { catalog } = await lazyCatalog({ pinned: ['list_directory'] });
    const app = { ...TOOLS[0]!, name: 'show_chart', _meta: { ui: { resourceUri: 'ui://c' } } };
    catalog.list({ tools: [app, ...TOOLS] }, 'keep');
    for (const name of ['list_directory', 'show_chart']) {
      const result = answer(
        catalog.plan({ name: CALL_TOOL_NAME, arguments: { name, arguments: { path: '/' } } }),
      );
      assert.equal(result.isError, true);
      assert.match(text(result), new RegExp(`"${name}" is in your tool list: call it directly`));
    }
  });

  it('leaves calls of real tool names to the usual path', async () => {
    const { catalog } = await lazyCatalog();
    catalog.list({ tools: TOOLS }, 'keep');
    const plan = catalog.plan({ name: 'read_text_file', arguments: { path: 1 } });
    assert.deepEqual(plan.kind === 'forward' && plan.params, undefined);
  });

  it('changes nothing when lazy mode is off', async () => {
    const pipeline = await createResultPipeline({}, () => {});
    const catalog = new ToolCatalog(pipeline);
    assert.equal(catalog.list({ tools: TOOLS }, 'keep'), undefined);
    const plan = catalog.plan({ name: FIND_TOOLS_NAME, arguments: { query: 'x' } });
    assert.equal(plan.kind, 'forward');
  });
});

describe('LazyTools', () => {
  it('returns definitions in the order and form listed, less what is for the client', () => {
    const tool = { _meta: { a: 1 }, inputSchema: { type: 'object' }, name: 't', icons: [] };
    assert.equal(
      JSON.stringify(modelDefinition(tool)),
      '{"inputSchema":{"type":"object"},"name":"t"}',
    );
    const lazy = new LazyTools();
    assert.match(text(lazy.find({ query: 'x' })), /No tools are known yet/);
  });
});

// ---- ProxySessions in lazy mode ----------------------------------------------------------------

interface LazyProxy {
  client: Client;
  session: ProxySession;
  /** What the proxy sent the upstream. */
  toUpstream: JSONRPCMessage[];
  /** What the upstream sent the proxy, as it came. */
  fromUpstream: JSONRPCMessage[];
  close(): Promise<void>;
}

/**
 * A ProxySession in lazy mode between the SDK's Client (in memory) and `upstream`, with every
 * message between the proxy and the upstream recorded.
 */
async function lazyProxy(
  upstream: Transport,
  catalogOptions: Omit<ToolCatalogOptions, 'lazy'> = {},
): Promise<LazyProxy> {
  const toUpstream: JSONRPCMessage[] = [];
  const fromUpstream: JSONRPCMessage[] = [];
  const send = upstream.send.bind(upstream);
  upstream.send = (message, options) => {
    toUpstream.push(message);
    return send(message, options);
  };
  const [clientSide, proxyDownstream] = InMemoryTransport.createLinkedPair();
  const pipeline = await createResultPipeline({}, () => {});
  const session = new ProxySession(proxyDownstream, upstream, {
    pipeline,
    log: () => {},
    tools: { lazy: true, ...catalogOptions },
  });
  await session.start();
  const deliver = upstream.onmessage!;
  upstream.onmessage = (message) => {
    fromUpstream.push(message);
    deliver(message);
  };
  const client = new Client({ name: 'lazy-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    session,
    toUpstream,
    fromUpstream,
    close: async () => {
      await client.close();
      await session.ended;
    },
  };
}

/** The tools of the upstream's own tools/list answer, as it sent them. */
function upstreamTools(proxy: LazyProxy): Definition[] {
  const listed = proxy.fromUpstream.filter((message) => {
    const result = (message as { result?: { tools?: unknown } }).result;
    return Array.isArray(result?.tools);
  });
  return listed.flatMap(
    (message) => (message as unknown as { result: { tools: Definition[] } }).result.tools,
  );
}

const toolCalls = (proxy: LazyProxy) =>
  proxy.toUpstream.filter((message) => (message as { method?: string }).method === 'tools/call');

describe('a lazy ProxySession in front of an SDK server', () => {
  /** An upstream whose `rows` tool returns a list TOON shortens, and which records its calls. */
  function rowsServer(received: unknown[]): McpServer {
    const server = new McpServer({ name: 'rows', version: '1.0.0' });
    server.registerTool(
      'list_rows',
      {
        description: 'List the rows of a table',
        inputSchema: { table: z.string(), limit: z.number().int().min(1) },
      },
      async (args) => {
        received.push(args);
        const rows = Array.from({ length: args.limit }, (_, i) => ({ id: i, table: args.table }));
        return { content: [{ type: 'text', text: JSON.stringify({ rows }, null, 2) }] };
      },
    );
    server.registerTool('ping_db', { description: 'Check the database' }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    return server;
  }

  it('finds, calls and compacts like a direct call; refuses invalid arguments before the upstream', async () => {
    const received: unknown[] = [];
    const [proxyUpstream, serverSide] = InMemoryTransport.createLinkedPair();
    await rowsServer(received).connect(serverSide);
    const proxy = await lazyProxy(proxyUpstream);
    try {
      const { tools } = await proxy.client.listTools();
      assert.deepEqual(names(tools), [FIND_TOOLS_NAME, CALL_TOOL_NAME]);
      const [rows] = found(
        await proxy.client.callTool({ name: FIND_TOOLS_NAME, arguments: { query: 'table rows' } }),
      );
      assert.deepEqual(rows, modelDefinition(upstreamTools(proxy)[0]!));

      const through = (await proxy.client.callTool({
        name: CALL_TOOL_NAME,
        arguments: { name: 'list_rows', arguments: { table: 't', limit: 12 } },
      })) as ToolResult;
      const direct = (await proxy.client.callTool({
        name: 'list_rows',
        arguments: { table: 't', limit: 12 },
      })) as ToolResult;
      assert.deepEqual(through, direct);
      assert.equal(through._meta?.['toonwire/encodingStrategy'], 'toon');
      assert.deepEqual(parseCompact(through.content[0]!.text, 'toon'), {
        rows: Array.from({ length: 12 }, (_, i) => ({ id: i, table: 't' })),
      });
      assert.equal(received.length, 2);

      const calls = toolCalls(proxy).length;
      const refused = (await proxy.client.callTool({
        name: CALL_TOOL_NAME,
        arguments: { name: 'list_rows', arguments: { table: 't', limit: 0 } },
      })) as ToolResult;
      assert.equal(refused.isError, true);
      assert.match(refused.content[0]!.text, /`limit` must be >= 1/);
      assert.equal(toolCalls(proxy).length, calls, 'the invalid call never reached the upstream');
      assert.equal(received.length, 2);
    } finally {
      await proxy.close();
    }
  });
});

// ---- The real servers --------------------------------------------------------------------------

const serverBin = (name: string) =>
  join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

describe('lazy ProxySessions in front of server-everything, server-filesystem and server-memory', () => {
  let folder: string;
  const proxies = new Map<string, LazyProxy>();

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toonwire-lazy-'));
    writeFileSync(join(folder, 'notes.txt'), 'first line\nsecond line\n');
    const env = { ...process.env, MEMORY_FILE_PATH: join(folder, 'memory.jsonl') };
    const servers: Record<string, string[]> = {
      everything: [serverBin('server-everything'), 'stdio'],
      filesystem: [serverBin('server-filesystem'), folder],
      memory: [serverBin('server-memory')],
    };
    for (const [name, args] of Object.entries(servers)) {
      const upstream = new ChildProcessTransport({ command: process.execPath, args, env });
      const proxy = await lazyProxy(upstream);
      proxies.set(name, proxy);
      await proxy.client.listTools();
    }
  });

  after(async () => {
    for (const proxy of proxies.values()) await proxy.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const call = async (server: string, name: string, args: Record<string, unknown>) =>
    (await proxies.get(server)!.client.callTool({
      name: CALL_TOOL_NAME,
      arguments: { name, arguments: args },
    })) as ToolResult;

  it('finds every tool by its name, with the definition exactly as the upstream sent it', async () => {
    for (const [server, proxy] of proxies) {
      const tools = upstreamTools(proxy);
      assert.ok(tools.length >= 9, `${server} listed ${tools.length} tools`);
      for (const tool of tools) {
        const result = await proxy.client.callTool({
          name: FIND_TOOLS_NAME,
          arguments: { query: tool.name, limit: 1 },
        });
        assert.equal(
          text(result),
          JSON.stringify([modelDefinition(tool)]),
          `${server} ${tool.name}`,
        );
      }
    }
  });

  it("lists at most 15% of the full listing's o200k tokens, for the three servers together", async () => {
    const count = await loadTokenizer('o200k_base');
    let full = 0;
    let lazy = 0;
    for (const proxy of proxies.values()) {
      full += count(JSON.stringify({ tools: upstreamTools(proxy) }));
      lazy += count(JSON.stringify(await proxy.client.listTools()));
    }
    assert.ok(lazy <= full * 0.15, `lazy ${lazy} tokens, full ${full}`);
  });

  it('calls tools of each server through toonwire_call_tool', async () => {
    assert.equal(
      (await call('everything', 'echo', { message: 'hi' })).content[0]!.text,
      'Echo: hi',
    );
    assert.match((await call('everything', 'get-sum', { a: 2, b: 3 })).content[0]!.text, /5/);
    const notes = await call('filesystem', 'read_text_file', { path: join(folder, 'notes.txt') });
    assert.equal(notes.content[0]!.text, 'first line\nsecond line\n');
    const entities = Array.from({ length: 6 }, (_, i) => ({
      name: `person-${i}`,
      entityType: 'person',
      observations: [`likes ${i % 2 === 0 ? 'tea' : 'coffee'}`],
    }));
    const created = await call('memory', 'create_entities', { entities });
    assert.equal(created.isError, undefined);
  });

  it('compacts results of calls through toonwire_call_tool as it does direct calls', async () => {
    const memory = proxies.get('memory')!;
    const through = await call('memory', 'read_graph', {});
    const direct = (await memory.client.callTool({ name: 'read_graph' })) as ToolResult;
    assert.deepEqual(through, direct);
    const strategy = through._meta?.['toonwire/encodingStrategy'] as string;
    assert.equal(typeof strategy, 'string');
    assert.deepEqual(parseCompact(through.content[0]!.text, strategy), through.structuredContent);
  });

  it('refuses invalid arguments before they reach the upstream', async () => {
    const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
      ['everything', 'get-sum', { a: 'two', b: 3 }, /`a` is "two", but must be of type number/],
      [
        'everything',
        'get-annotated-message',
        { messageType: 'shout' },
        /`messageType` is "shout", but must be one of "error", "success", "debug"/,
      ],
      ['filesystem', 'read_text_file', {}, /lack the required property "path"/],
      [
        'memory',
        'create_entities',
        { entities: [{ name: 'x', observations: [] }] },
        /`entities\[0\]` lacks the required property "entityType"/,
      ],
    ];
    for (const [server, tool, args, problem] of cases) {
      const proxy = proxies.get(server)!;
      const calls = toolCalls(proxy).length;
      const result = await call(server, tool, args);
      assert.equal(result.isError, true, `${server} ${tool}`);
      assert.match(result.content[0]!.text, problem);
      assert.match(result.content[0]!.text, /inputSchema at #/);
      assert.equal(toolCalls(proxy).length, calls, `${tool}: nothing reached the upstream`);
    }
  });

  it('answers a misspelled tool name with the real one', async () => {
    const result = await call('filesystem', 'list_directry', { path: folder });
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /Did you mean "list_directory"/);
  });
});

// ---- Through the built CLI ---------------------------------------------------------------------

describe('toonwire proxy --lazy-tools in front of server-filesystem and server-memory', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'toonwire-lazy-cli-'));
    writeFileSync(join(folder, 'notes.txt'), 'a note\n');
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** The SDK's Client over stdio to `node <args>`, what the process wrote on stderr, its exit. */
  async function connect(args: readonly string[]) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...args],
      stderr: 'pipe',
      env: {
        ...(process.env as Record<string, string>),
        MEMORY_FILE_PATH: join(folder, 'm.jsonl'),
      },
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'lazy-cli-test', version: '1.0.0' });
    const connecting = client.connect(transport);
    const child = (transport as unknown as { _process: ChildProcess })._process;
    const exited = new Promise((resolve) => child.once('close', resolve));
    await connecting;
    return { client, stderr: () => stderr, exited };
  }

  it('lists the pinned tool and its own two, finds exact definitions and calls through them', async () => {
    const server = [serverBin('server-filesystem'), folder];
    const direct = await connect(server);
    const raw = (await direct.client.request({ method: 'tools/list' }, z.any())) as {
      tools: Definition[];
    };
    await direct.client.close();
    const proxied = await connect([
      proxyCli(),
      'proxy',
      '--lazy-tools',
      '--pin-tools',
      'read_text_file',
      '--',
      process.execPath,
      ...server,
    ]);
    try {
      const { tools } = await proxied.client.listTools();
      assert.deepEqual(names(tools), ['read_text_file', FIND_TOOLS_NAME, CALL_TOOL_NAME]);
      for (const tool of raw.tools) {
        const result = await proxied.client.callTool({
          name: FIND_TOOLS_NAME,
          arguments: { query: tool.name, limit: 1 },
        });
        assert.equal(text(result), JSON.stringify([modelDefinition(tool)]));
      }
      const listing = (await proxied.client.callTool({
        name: CALL_TOOL_NAME,
        arguments: { name: 'list_directory', arguments: { path: folder } },
      })) as ToolResult;
      assert.match(listing.content[0]!.text, /\[FILE\] notes\.txt/);
    } finally {
      await proxied.client.close();
    }
  });

  it('answers invalid arguments itself: the upstream never sees the call (--stats)', async () => {
    const proxied = await connect([
      proxyCli(),
      'proxy',
      '--lazy-tools',
      '--stats',
      '--',
      process.execPath,
      serverBin('server-memory'),
    ]);
    await proxied.client.listTools();
    const refused = (await proxied.client.callTool({
      name: CALL_TOOL_NAME,
      arguments: { name: 'create_entities', arguments: { entities: [{ name: 'x' }] } },
    })) as ToolResult;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]!.text, /^toonwire proxy: the arguments for "create_entities"/);
    const graph = (await proxied.client.callTool({
      name: CALL_TOOL_NAME,
      arguments: { name: 'read_graph', arguments: {} },
    })) as ToolResult;
    assert.equal(graph.isError, undefined);
    await proxied.client.close();
    await proxied.exited; // the stats table is written on exit
    // It has a row per tool the upstream answered: read_graph, not create_entities.
    assert.match(proxied.stderr(), /^read_graph\s+1\s/m);
    assert.doesNotMatch(proxied.stderr(), /^create_entities\s/m);
  });
});
