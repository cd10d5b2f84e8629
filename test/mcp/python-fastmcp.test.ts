// The proxy in front of a server written with the `fastmcp` package
// (test/mcp/fixtures/python/fastmcp_server.py), driven by the TypeScript SDK Client:
// - a `-> str` tool returning `json.dumps(rows)` ships verbatim by the string-evidence rule, and
//   compacted, lossless, once the user names it in `--include-tools`;
// - what each Python framework sends, and what the model reads through the proxy (the figures
//   docs/mcp.md quotes are printed here: o200k_base tokens, direct and through the proxy).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadTokenizer, parseCompact } from '../../src/index.js';
import { hangGuardMs } from '../support/patience.js';
import { fastmcpServerCommand, pythonServerCommand, pythonWithFastmcp } from '../support/python.js';
import { connectStdio, proxyArgs, type StdioConnection, type ToolResult } from './helpers.js';

const setup = await pythonWithFastmcp();
const skip = setup.skip;

const call = async (connection: StdioConnection, name: string, args: Record<string, unknown>) =>
  (await connection.client.callTool({ name, arguments: args })) as ToolResult;

/** What the model reads of a result: its texts' tokens. */
const tokensOf = (count: (text: string) => number, result: ToolResult) =>
  result.content.reduce((sum, block) => sum + count(block.text), 0);

/** A result's data: its one text decoded with the strategy in `_meta`, else parsed as JSON. */
function dataOf(result: ToolResult): unknown {
  const strategy = result._meta?.['toonwire/encodingStrategy'] as string | undefined;
  if (strategy !== undefined) return parseCompact(result.content[0]!.text, strategy);
  return result.content.length === 1
    ? JSON.parse(result.content[0]!.text)
    : result.content.map((block) => JSON.parse(block.text));
}

describe('toonwire proxy in front of a fastmcp-package server', { skip }, () => {
  let direct: StdioConnection;
  let plain: StdioConnection;
  let included: StdioConnection;

  before(async () => {
    const server = () => fastmcpServerCommand(setup.python!);
    [direct, plain, included] = await Promise.all([
      connectStdio(server()[0]!, server().slice(1)),
      connectStdio(process.execPath, proxyArgs([], server())),
      connectStdio(process.execPath, proxyArgs(['--include-tools', 'rows_as_text'], server())),
    ]);
  });
  after(async () => {
    await Promise.all([direct?.client.close(), plain?.client.close(), included?.client.close()]);
  });

  it('a -> str tool returning json.dumps(rows): verbatim by default, compacted and lossless when named in --include-tools', async () => {
    const args = { count: 200 };
    const [before, untouched, compacted] = await Promise.all([
      call(direct, 'rows_as_text', args),
      call(plain, 'rows_as_text', args),
      call(included, 'rows_as_text', args),
    ]);
    // fastmcp says the text is a string value: { result: "<the JSON>" }.
    assert.equal((before.structuredContent as { result: string }).result, before.content[0]!.text);
    assert.equal(untouched.content[0]!.text, before.content[0]!.text);
    assert.equal(untouched._meta?.['toonwire/encodingStrategy'], undefined);
    assert.equal(compacted._meta?.['toonwire/encodingStrategy'], 'toon');
    assert.deepEqual(dataOf(compacted), JSON.parse(before.content[0]!.text));
    const count = await loadTokenizer('o200k_base');
    assert.ok(tokensOf(count, compacted) < tokensOf(count, before));
  });

  it('what each Python framework sends, and what the model reads through the proxy (o200k_base tokens, printed)', {
    timeout: hangGuardMs(120_000),
  }, async (t) => {
    const count = await loadTokenizer('o200k_base');
    const sdk = pythonServerCommand(setup.python!);
    const [sdkDirect, sdkProxied] = await Promise.all([
      connectStdio(sdk[0]!, sdk.slice(1)),
      connectStdio(process.execPath, proxyArgs([], sdk)),
    ]);
    try {
      const cases: Array<[string, StdioConnection, StdioConnection, string, object]> = [
        [
          'mcp MCPServer, list[Model] (one pretty text per item)',
          sdkDirect,
          sdkProxied,
          'list_orders',
          { count: 200 },
        ],
        [
          'fastmcp, list[dict] uniform (one compact JSON text)',
          direct,
          plain,
          'list_rows',
          { count: 200 },
        ],
        ['fastmcp, list[dict] with an optional key', direct, plain, 'sparse_rows', { count: 200 }],
        [
          'fastmcp, -> str json.dumps, --include-tools',
          direct,
          included,
          'rows_as_text',
          { count: 200 },
        ],
      ];
      for (const [what, from, through, tool, args] of cases) {
        const [before, after] = await Promise.all([
          call(from, tool, args as Record<string, unknown>),
          call(through, tool, args as Record<string, unknown>),
        ]);
        const rows = dataOf(before);
        assert.deepEqual(dataOf(after), rows, `${what}: lossless`);
        const [was, is] = [tokensOf(count, before), tokensOf(count, after)];
        assert.ok(is <= was, `${what}: ${is} > ${was}`);
        t.diagnostic(
          `${what}: ${before.content.length} text(s), ${was} tokens direct, ${is} through the proxy (${Math.round((100 * (is - was)) / was)}%, ${(after._meta?.['toonwire/encodingStrategy'] as string | undefined) ?? 'verbatim'})`,
        );
      }
    } finally {
      await Promise.all([sdkDirect.client.close(), sdkProxied.client.close()]);
    }
  });
});
