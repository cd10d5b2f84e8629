// The proxy in front of a FastMCP-style Python server (test/mcp/fixtures/python/server.py),
// driven by the TypeScript SDK Client and by the Python SDK client in its default mode: a
// `list[Model]` result (one text per item) ships as one table, pages under a budget, and a `str`
// result (a file's text) arrives byte for byte.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadTokenizer, parseCompact } from '../../src/index.js';
import {
  type PythonToolResult,
  pythonServerCommand,
  pythonWithMcp,
  runPythonClient,
} from '../support/python.js';
import { connectStdio, proxyArgs, ROOT, type StdioConnection, type ToolResult } from './helpers.js';

const setup = await pythonWithMcp();
const skip = setup.skip;
const python = () => setup.python!;
const CONFIG_TEXT = () =>
  readFile(join(ROOT, 'test', 'mcp', 'fixtures', 'python', 'config.json'), 'utf8');

type Order = { id: number; sku: string };

/** The rows of a result the proxy shipped: its first text, decoded with the strategy in _meta. */
function decodedRows(result: Pick<ToolResult, 'content' | '_meta'>): unknown {
  const strategy = result._meta?.['toonwire/encodingStrategy'] as string;
  return parseCompact(result.content[0]!.text, strategy);
}

describe('toonwire proxy in front of a Python FastMCP server, the TypeScript SDK Client', {
  skip,
}, () => {
  let direct: StdioConnection;
  let proxied: StdioConnection;

  before(async () => {
    [direct, proxied] = await Promise.all([
      connectStdio(python(), [pythonServerCommand(python())[1]!]),
      connectStdio(process.execPath, proxyArgs(['--stats'], pythonServerCommand(python()))),
    ]);
  });
  after(async () => {
    await Promise.all([direct?.client.close(), proxied?.client.close()]);
  });

  const call = async (connection: StdioConnection, name: string, args: object = {}) =>
    (await connection.client.callTool({
      name,
      arguments: args as Record<string, unknown>,
    })) as ToolResult;

  it('ships a list[Model] of 200 uniform rows (200 texts) as one TOON table that decodes to the list', async () => {
    const [before, after] = await Promise.all([
      call(direct, 'list_orders', { count: 200 }),
      call(proxied, 'list_orders', { count: 200 }),
    ]);
    assert.equal(before.content.length, 200);
    assert.equal(after.content.length, 1);
    assert.equal(after._meta?.['toonwire/encodingStrategy'], 'toon');
    assert.equal(after._meta?.['toonwire/mergedBlocks'], 200);
    assert.match(
      after.content[0]!.text,
      /^\[200\]\{id,sku,customer,quantity,unit_price,status,region,created\}:\n/,
    );
    const rows = (before.structuredContent as { result: Order[] }).result;
    assert.deepEqual(decodedRows(after), rows);
    // What the model reads costs fewer tokens than the 200 texts it replaces.
    const count = await loadTokenizer('o200k_base');
    const tokens = (texts: readonly { text: string }[]) =>
      texts.reduce((sum, { text }) => sum + count(text), 0);
    assert.ok(
      tokens(after.content) < tokens(before.content) * 0.6,
      `${tokens(after.content)} vs ${tokens(before.content)}`,
    );
    // The JSON view for programs is the upstream's, unchanged (this client reads the text).
    assert.deepEqual(after.structuredContent, before.structuredContent);
  });

  it("ships a str result, a file's text, byte for byte", async () => {
    const after = await call(proxied, 'config_contents');
    assert.equal(after.content[0]!.text, await CONFIG_TEXT());
    assert.equal(after._meta?.['toonwire/encodingStrategy'], undefined);
  });

  it('compacts a nested model and a dict, each one text', async () => {
    for (const [name, args] of [
      ['get_customer', { customer_id: 7 }],
      ['order_stats', {}],
    ] as const) {
      const [before, after] = await Promise.all([
        call(direct, name, args),
        call(proxied, name, args),
      ]);
      assert.equal(after.content.length, 1, name);
      assert.ok(after.content[0]!.text.length < before.content[0]!.text.length, name);
      assert.deepEqual(decodedRows(after), before.structuredContent, name);
    }
  });
});

describe('toonwire proxy --max-tokens in front of a Python FastMCP server', { skip }, () => {
  it('pages a 3,000-row list[Model] (3,000 texts): each page within 2,000 tokens, the pages together equal the list', async () => {
    const count = await loadTokenizer('o200k_base');
    const [direct, proxied] = await Promise.all([
      connectStdio(python(), [pythonServerCommand(python())[1]!]),
      connectStdio(
        process.execPath,
        proxyArgs(['--max-tokens', '2000'], pythonServerCommand(python())),
      ),
    ]);
    try {
      const original = (await direct.client.callTool({
        name: 'list_orders',
        arguments: { count: 3000 },
      })) as ToolResult;
      assert.equal(original.content.length, 3000);
      const list = (original.structuredContent as { result: Order[] }).result;
      const rows: unknown[] = [];
      let page = (await proxied.client.callTool({
        name: 'list_orders',
        arguments: { count: 3000 },
      })) as ToolResult;
      let pages = 0;
      for (;;) {
        pages += 1;
        const tokens = page.content.reduce((sum, block) => sum + count(block.text), 0);
        assert.ok(tokens <= 2000, `page ${pages}: ${tokens} tokens`);
        rows.push(...(decodedRows(page) as unknown[]));
        const cursor = (page._meta?.['toonwire/page'] as { nextCursor?: string } | undefined)
          ?.nextCursor;
        if (cursor === undefined) break;
        page = (await proxied.client.callTool({
          name: 'toonwire_more',
          arguments: { cursor },
        })) as ToolResult;
      }
      assert.ok(pages > 10, `${pages} pages`);
      assert.deepEqual(rows, list);
    } finally {
      await Promise.all([direct.client.close(), proxied.client.close()]);
    }
  });
});

describe('toonwire proxy in front of a Python FastMCP server, the Python SDK client (default mode)', {
  skip,
}, () => {
  const calls = [
    { name: 'list_orders', arguments: { count: 200 } },
    { name: 'config_contents', arguments: {} },
  ];
  const proxy = () => [process.execPath, ...proxyArgs([], pythonServerCommand(python()))];

  it('gets the list as one table and the file text byte for byte, the same data as directly', async () => {
    const [direct, proxied] = await Promise.all([
      runPythonClient(python(), { command: pythonServerCommand(python()) }, { calls }),
      runPythonClient(python(), { command: proxy() }, { calls }),
    ]);
    assert.deepEqual(proxied.report.errors, [], proxied.stderr);
    assert.equal(proxied.report.protocolVersion, direct.report.protocolVersion);
    const [orders, config] = proxied.report.results as [PythonToolResult, PythonToolResult];
    assert.equal(orders.content!.length, 1);
    assert.deepEqual(
      decodedRows(orders as Pick<ToolResult, 'content' | '_meta'>),
      (direct.report.results[0]!.structuredContent as { result: Order[] }).result,
    );
    assert.equal(config.content![0]!.text, await CONFIG_TEXT());
    assert.deepEqual(config, direct.report.results[1]);
  });

  it('as Claude Code (auto): results without structuredContent, tools without outputSchema', async () => {
    const { report, stderr } = await runPythonClient(
      python(),
      { command: proxy() },
      {
        calls,
        clientName: 'claude-code',
        clientVersion: '2.1.332',
      },
    );
    assert.deepEqual(report.errors, [], stderr);
    assert.ok(report.tools.length > 0);
    assert.ok(
      report.tools.every((tool) => tool.outputSchema === undefined || tool.outputSchema === null),
    );
    for (const result of report.results)
      assert.equal(result.structuredContent ?? undefined, undefined);
    assert.equal(report.results[1]!.content![0]!.text, await CONFIG_TEXT());
  });
});
