// The proxy levers over real MCP sessions: the SDK's Client, the proxy (in process over
// Streamable HTTP, and the built CLI over stdio) and the SDK's McpServer upstream of
// fixtures/levers-upstream.mjs. Projection for every tool, budgets with lossless paging,
// metrics that equal what the test computes, per-tool settings from a config file.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JsonValue } from '../../src/codec/types.js';
import { byteLength, loadTokenizer, parseCompact } from '../../src/compact/index.js';
import { parseProxyConfig } from '../../src/mcp/proxy/config/config.js';
import { ProxyMetrics } from '../../src/mcp/proxy/telemetry/metrics.js';
import { listenProxy, type ProxyHttpServer } from '../../src/mcp/proxy.js';
import { orderRows } from './fixtures/levers-upstream.mjs';
import { connectStdio, proxyCli } from './helpers.js';

const UPSTREAM_SCRIPT = join(
  dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'levers-upstream.mjs',
);
const upstream = { command: process.execPath, args: [UPSTREAM_SCRIPT] };
const META = 'toonwire/encodingStrategy';

type Text = { type: 'text'; text: string };
type Result = {
  content: Text[];
  isError?: boolean;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
};

async function connectHttp(url: string): Promise<Client> {
  const client = new Client({ name: 'levers-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

/** The value the first text content decodes to, with the strategy the result names (or JSON). */
function decoded(result: Result): JsonValue {
  return parseCompact(result.content[0]!.text, (result._meta?.[META] as string) ?? 'json');
}

/** What the upstream itself answers, without the proxy. */
async function direct(name: string, args: Record<string, unknown>): Promise<Result> {
  const connection = await connectStdio(upstream.command, upstream.args);
  try {
    return await call(connection.client, name, args);
  } finally {
    await connection.client.close();
  }
}

describe('proxy levers over MCP', () => {
  let proxy: ProxyHttpServer;
  let client: Client;
  let metrics: ProxyMetrics;
  let countTokens: (text: string) => number;

  before(async () => {
    countTokens = await loadTokenizer('o200k_base');
    metrics = await ProxyMetrics.create({ defaultMetrics: false });
    proxy = await listenProxy({
      upstream,
      listen: { host: '127.0.0.1', port: 0 },
      fieldsParam: true,
      pageTtlMs: 60_000,
      metrics,
      // The budget comes from the file here: a maxTokens flag would win over every tool's.
      config: parseProxyConfig(
        JSON.stringify({
          maxTokens: 20000,
          tools: { array_rows: { maxTokens: 300, fields: 'id,total' } },
        }),
      ),
      log: () => {},
    });
    client = await connectHttp(proxy.url);
  });
  after(async () => {
    await client.close();
    await proxy.close();
  });

  it('offers fields to every tool without its own, and toonwire_more', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['query', 'echo', 'array_rows', 'blob', 'prose']) {
      const fields = byName.get(name)?.inputSchema.properties?.fields as { description?: string };
      assert.match(fields.description!, /Comma-separated fields to return for each item/, name);
    }
    const own = byName.get('own_fields')!.inputSchema.properties!.fields as {
      description?: string;
    };
    assert.equal(own.description, undefined);
    assert.deepEqual(byName.get('toonwire_more')?.inputSchema.required, ['cursor']);
  });

  it('removes fields before forwarding and projects the text', async () => {
    const result = await call(client, 'echo', { count: 3, fields: 'id,shipping.city' });
    const value = decoded(result) as { arguments: unknown; items: unknown[] };
    assert.deepEqual(value.arguments, { count: 3 }); // the upstream never saw `fields`
    assert.deepEqual(value.items, [
      { id: 100000, shipping: { city: 'city-0' } },
      { id: 100001, shipping: { city: 'city-1' } },
      { id: 100002, shipping: { city: 'city-2' } },
    ]);
    assert.equal(result.content.length, 1);

    const own = await call(client, 'own_fields', { count: 2, fields: 'id' });
    const ownValue = decoded(own) as { arguments: unknown; items: unknown[] };
    assert.deepEqual(ownValue.arguments, { count: 2, fields: 'id' }); // left alone
    assert.equal(Object.keys(ownValue.items[0] as object).length, 7);
  });

  it('says which fields exist when the projection names one that does not', async () => {
    const result = await call(client, 'echo', { count: 2, fields: 'id,custmer' });
    assert.deepEqual((decoded(result) as { items: unknown[] }).items, [
      { id: 100000 },
      { id: 100001 },
    ]);
    assert.match(
      result.content[1]!.text,
      /no item has "custmer"; the fields are id, customer, country, status, total, created_at, shipping, shipping\.city, shipping\.zip/,
    );
  });

  it('pages a 20,000-row query within the budget, and the pages reassemble to it', async () => {
    const tokensOf = (result: Result) =>
      result.content.reduce((sum, block) => sum + countTokens(block.text), 0);
    let result = await call(client, 'query', { sql: 'select * from orders', limit: 20000 });
    const first = decoded(result) as { query: string; rowCount: number; rows: JsonValue[] };
    assert.equal(first.query, 'select * from orders');
    assert.equal(first.rowCount, 20000);
    const rows = [...first.rows];
    let pages = 1;
    for (;;) {
      assert.ok(tokensOf(result) <= 20000, `page ${pages}: ${tokensOf(result)} tokens`);
      const note = result.content.at(-1)!.text;
      const cursor = (result._meta?.['toonwire/page'] as { nextCursor?: string } | undefined)
        ?.nextCursor;
      if (cursor === undefined) {
        assert.match(note, /rows \d+-20000 of 20000 of "rows"; this is the last page/);
        break;
      }
      assert.match(note, new RegExp(`call toonwire_more with \\{"cursor":"${cursor}"\\}`));
      result = await call(client, 'toonwire_more', { cursor });
      const page = decoded(result) as { rows: JsonValue[] };
      assert.deepEqual(Object.keys(page), ['rows']);
      rows.push(...page.rows);
      pages += 1;
    }
    assert.deepEqual(rows, orderRows(20000));
    assert.ok(pages > 10, `${pages} pages`);
  });

  it('projects first, then pages: fewer fields, fewer pages, still every row', async () => {
    let result = await call(client, 'query', { sql: 'q', limit: 5000, fields: 'id,status' });
    const rows = [...(decoded(result) as { rows: JsonValue[] }).rows];
    let pages = 1;
    for (;;) {
      const cursor = (result._meta?.['toonwire/page'] as { nextCursor?: string } | undefined)
        ?.nextCursor;
      if (cursor === undefined) break;
      result = await call(client, 'toonwire_more', { cursor });
      rows.push(...(decoded(result) as { rows: JsonValue[] }).rows);
      pages += 1;
    }
    assert.deepEqual(
      rows,
      orderRows(5000).map(({ id, status }) => ({ id, status })),
    );
    assert.equal(pages, 2);
  });

  it('a per-tool budget and default projection from the config apply', async () => {
    const result = await call(client, 'array_rows', { count: 100 });
    const page = decoded(result) as JsonValue[];
    assert.deepEqual(page[0], { id: 100000, total: 0.99 });
    const tokens = result.content.reduce((sum, block) => sum + countTokens(block.text), 0);
    // Messages on every assert.ok: without one, node re-reads the transpiled source to write it.
    assert.ok(page.length < 100, `${page.length} rows on the first page`);
    assert.ok(tokens <= 300, `${tokens} tokens`);
  });

  it('ships a list-less result over budget whole, with a warning', async () => {
    const result = await call(client, 'blob', { size: 20000 });
    const original = await direct('blob', { size: 20000 });
    assert.deepEqual(decoded(result), JSON.parse(original.content[0]!.text));
    assert.match(result.content[1]!.text, /over the budget of 20000.*shipped whole, nothing cut/);
  });

  it('an unknown or expired cursor is a clear isError result', async (t) => {
    const result = await call(client, 'toonwire_more', { cursor: 'nope.100' });
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /expired or is unknown.*Call the original tool again/);

    // The page cache's clock is mocked (Date only: timers and I/O run as usual), so a page
    // expires when the test moves the clock past its TTL, however slow the machine is.
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const short = await listenProxy({
      upstream,
      listen: { host: '127.0.0.1', port: 0 },
      maxTokens: 500,
      pageTtlMs: 100,
      log: () => {},
    });
    const shortClient = await connectHttp(short.url);
    try {
      const paged = await call(shortClient, 'array_rows', { count: 200 });
      const cursor = (paged._meta?.['toonwire/page'] as { nextCursor: string } | undefined)!
        .nextCursor;
      assert.equal((await call(shortClient, 'toonwire_more', { cursor })).isError, undefined);
      t.mock.timers.tick(250);
      const expired = await call(shortClient, 'toonwire_more', { cursor });
      assert.equal(expired.isError, true);
      assert.match(expired.content[0]!.text, /has expired or is unknown.*kept for 100 ms/);
    } finally {
      await shortClient.close();
      await short.close();
    }
  });
});

describe('proxy metrics equal what the client saw', () => {
  it('counts calls, bytes, tokens, pages and pass-throughs per tool', async () => {
    const metrics = await ProxyMetrics.create({ defaultMetrics: false });
    const proxy = await listenProxy({
      upstream,
      listen: { host: '127.0.0.1', port: 0 },
      maxTokens: 2000,
      metrics,
      log: () => {},
    });
    const client = await connectHttp(proxy.url);
    const countTokens = await loadTokenizer('o200k_base');
    const texts = (result: Result) => result.content.map((block) => block.text);
    const sum = (values: string[], measure: (text: string) => number) =>
      values.reduce((total, text) => total + measure(text), 0);
    try {
      const first = await call(client, 'query', { sql: 'q', limit: 300 });
      const cursor = (first._meta?.['toonwire/page'] as { nextCursor: string } | undefined)!
        .nextCursor;
      const second = await call(client, 'toonwire_more', { cursor });
      const prose = await call(client, 'prose', {});
      const upstreamQuery = await direct('query', { sql: 'q', limit: 300 });
      const text = await metrics.text();
      const value = (line: string): number => {
        const match = new RegExp(`^${line.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
        assert.ok(match, `no ${line} in\n${text}`);
        return Number(match[1]);
      };
      assert.equal(value('toonwire_proxy_tool_calls_total{tool="query",strategy="toon"}'), 1);
      assert.equal(value('toonwire_proxy_tool_calls_total{tool="prose",strategy="verbatim"}'), 1);
      assert.equal(value('toonwire_proxy_passthrough_total{tool="prose",reason="not-json"}'), 1);
      assert.equal(value('toonwire_proxy_pages_served_total{tool="query"}'), 2);
      assert.equal(
        value('toonwire_proxy_tool_bytes_in_total{tool="query"}'),
        sum(texts(upstreamQuery), byteLength),
      );
      assert.equal(
        value('toonwire_proxy_tool_bytes_out_total{tool="query"}'),
        sum([...texts(first), ...texts(second)], byteLength),
      );
      assert.equal(
        value('toonwire_proxy_tool_tokens_out_total{tool="query"}'),
        sum([...texts(first), ...texts(second)], countTokens),
      );
      assert.equal(
        value('toonwire_proxy_tool_bytes_out_total{tool="prose"}'),
        byteLength(texts(prose)[0]!),
      );
      assert.equal(value('toonwire_proxy_upstream_latency_seconds_count{tool="query"}'), 1);
      assert.equal(value('toonwire_proxy_sessions'), 1);
      assert.equal(value('toonwire_proxy_upstream_starts_total'), 1);
      assert.equal(value('toonwire_proxy_page_cache_entries'), 1);
    } finally {
      await client.close();
      await proxy.close();
    }
    const after = await metrics.text();
    assert.match(after, /^toonwire_proxy_sessions 0$/m);
  });
});

describe('toonwire proxy --config, --metrics (the built CLI over stdio)', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'toonwire-levers-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a tool with "compact": false is byte-identical; the others are compacted and counted', async () => {
    const config = join(dir, 'proxy.json');
    writeFileSync(config, JSON.stringify({ tools: { query: { compact: false } } }));
    const connection = await connectStdio(process.execPath, [
      proxyCli(),
      'proxy',
      '--config',
      config,
      '--metrics',
      '127.0.0.1:0',
      '--',
      ...[upstream.command, ...upstream.args],
    ]);
    try {
      await connection.client.listTools();
      const proxied = await call(connection.client, 'query', { sql: 'q', limit: 50 });
      assert.deepEqual(proxied, await direct('query', { sql: 'q', limit: 50 }));
      const compacted = await call(connection.client, 'echo', { count: 50 });
      assert.equal(compacted._meta?.[META], 'toon');
      const url = /metrics at (http:\/\/\S+)/.exec(connection.stderr())?.[1];
      assert.ok(url, connection.stderr());
      const text = await (await fetch(url)).text();
      assert.match(text, /^toonwire_proxy_passthrough_total\{tool="query",reason="config"\} 1$/m);
      assert.match(text, /^toonwire_proxy_tool_calls_total\{tool="echo",strategy="toon"\} 1$/m);
    } finally {
      await connection.client.close();
      await connection.exited;
    }
  });

  it('a bad key in the config file is a usage error naming it', async () => {
    const config = join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ tools: { query: { maxToken: 5 } } }));
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(
      process.execPath,
      [proxyCli(), 'proxy', '--config', config, '--', upstream.command, ...upstream.args],
      { encoding: 'utf8', input: '' },
    );
    assert.equal(run.status, 2);
    assert.match(run.stderr, /unknown key "tools\.query\.maxToken"/);
  });
});
