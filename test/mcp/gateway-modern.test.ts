// The results a gateway writes itself (merged lists, ping, logging/setLevel, a call to a tool no
// server has) are valid in every protocol version it negotiates (issue 29, item 7): checked
// against the Python SDK's 2026-07-28 wire schema (`mcp_types._v2026_07_28`, which requires
// `resultType`, and `ttlMs` and `cacheScope` of lists) and, for the handshake versions, by the
// TypeScript SDK's client, whose schemas are strict about an empty result.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pythonWithMcp, run } from '../support/python.js';
import {
  type LineProcess,
  modernRequest,
  post,
  ROOT,
  startListening,
  stopListening,
  type ToolResult,
} from './helpers.js';

const MODERN_UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'modern-upstream.mjs');

/** What each request's result is, in the 2026-07-28 schema. */
const REQUESTS: Array<[method: string, params: Record<string, unknown>, model: string]> = [
  ['tools/list', {}, 'ListToolsResult'],
  ['prompts/list', {}, 'ListPromptsResult'],
  ['resources/list', {}, 'ListResourcesResult'],
  ['resources/templates/list', {}, 'ListResourceTemplatesResult'],
  ['ping', {}, 'Result'],
  ['logging/setLevel', { level: 'info' }, 'Result'],
  ['tools/call', { name: 'nowhere__tool', arguments: {} }, 'CallToolResult'],
];

/** Validates each `[model, result]` with the Python SDK's 2026-07-28 models: the errors. */
const VALIDATE = `
import json, sys
from mcp_types import _v2026_07_28 as wire
errors = []
for model, result in json.load(open(sys.argv[1], encoding="utf-8")):
    try:
        getattr(wire, model).model_validate(result)
    except Exception as error:
        errors.append(f"{model}: {error}")
print(json.dumps(errors))
`;

describe('a one-server gateway behind --listen, on both protocol eras', () => {
  let folder: string;
  let proxy: LineProcess;
  let url: string;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toonwire-gateway-modern-'));
    const config = join(folder, 'gateway.json');
    writeFileSync(
      config,
      JSON.stringify({ servers: { rows: { command: process.execPath, args: [MODERN_UPSTREAM] } } }),
    );
    ({ proxy, url } = await startListening(['--config', config]));
  });

  after(async () => {
    if (proxy !== undefined) await stopListening(proxy);
    rmSync(folder, { recursive: true, force: true });
  });

  it('writes 2026-07-28 results that version requires, checked by the Python SDK schema', async (t) => {
    const results: Array<[string, Record<string, unknown>]> = [];
    for (const [index, [method, params, model]] of REQUESTS.entries()) {
      const { body, headers } = modernRequest(index + 1, method, params);
      const answer = await post(url, body, headers);
      const last = answer.messages.at(-1)!;
      assert.ok(last.result !== undefined, `${method}: ${JSON.stringify(answer.messages)}`);
      assert.equal(last.result.resultType, 'complete', `${method}: ${JSON.stringify(last)}`);
      results.push([model, last.result]);
    }
    const lists = results.filter(([model]) => model.startsWith('List'));
    for (const [model, result] of lists) {
      assert.equal(result.ttlMs, 0, model);
      assert.equal(result.cacheScope, 'private', model);
    }
    const setup = await pythonWithMcp();
    if (setup.skip !== undefined) {
      t.diagnostic(`the Python SDK schema check is skipped: ${setup.skip}`);
      return;
    }
    const written = join(folder, 'results.json');
    writeFileSync(written, JSON.stringify(results));
    const checked = await run(setup.python, ['-c', VALIDATE, written]);
    assert.equal(checked.code, 0, checked.stderr);
    assert.deepEqual(JSON.parse(checked.stdout), []);
  });

  it('keeps handshake results as they were (the TypeScript SDK client reads them)', async () => {
    const client = new Client({ name: 'handshake-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
      // The SDK's EmptyResultSchema refuses any key in an empty result.
      assert.deepEqual(await client.ping(), {});
      const tools = await client.listTools();
      assert.deepEqual(
        tools.tools.map((tool) => tool.name),
        ['rows__rows'],
      );
      assert.equal('resultType' in tools, false);
      const refused = (await client.callTool({
        name: 'nowhere__tool',
        arguments: {},
      })) as ToolResult & { resultType?: string };
      assert.equal(refused.isError, true);
      assert.equal(refused.resultType, undefined);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });
});
