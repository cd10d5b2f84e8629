// The proxy over Streamable HTTP: an HTTP upstream (--upstream-url) and an HTTP downstream
// (--listen), each with the SDK's real client and server transports.

import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { byteLength, parseCompact } from '../../src/index.js';
import { createUpstreamServer } from './fixtures/upstream-tools.mjs';
import {
  connectStdio,
  LineProcess,
  proxyArgs,
  proxyCli,
  serveOverHttp,
  type ToolResult,
  UPSTREAM,
} from './helpers.js';

type Result = ToolResult;

/** The test upstream served over Streamable HTTP on 127.0.0.1, one McpServer per session. */
const serveUpstreamOverHttp = () => serveOverHttp(createUpstreamServer);

/** POSTs a ping with extra headers (node:http, which lets a test set Host) and returns the status. */
function postStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  });
}

function textOf(result: Result): string {
  return result.content[0]!.text;
}

describe('toonwire proxy --upstream-url', () => {
  let upstream: Awaited<ReturnType<typeof serveUpstreamOverHttp>>;
  before(async () => (upstream = await serveUpstreamOverHttp()));
  after(async () => {
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  it('fronts an HTTP server over stdio: same tools, compacted results, headers sent', async () => {
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    const proxied = await connectStdio(process.execPath, [
      proxyCli(),
      'proxy',
      '--upstream-url',
      upstream.url,
      '-H',
      'Authorization: Bearer test-token',
    ]);
    try {
      assert.deepEqual(await proxied.client.listTools(), await direct.listTools());
      const original = (await direct.callTool({
        name: 'typed_rows',
        arguments: { count: 40 },
      })) as Result;
      const result = (await proxied.client.callTool({
        name: 'typed_rows',
        arguments: { count: 40 },
      })) as Result;
      assert.deepEqual(result.structuredContent, original.structuredContent);
      assert.ok(byteLength(textOf(result)) < byteLength(textOf(original)));
      assert.deepEqual(
        parseCompact(textOf(result), result._meta?.['toonwire/encodingStrategy'] as string),
        original.structuredContent,
      );
      assert.ok(upstream.authorizations.includes('Bearer test-token'));
    } finally {
      await direct.close();
      await proxied.client.close();
    }
    assert.equal(await proxied.exited, 0);
  });

  it('answers with an error and exits 1 when the HTTP upstream cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const proxy = new LineProcess(process.execPath, [
      proxyCli(),
      'proxy',
      '--upstream-url',
      `http://127.0.0.1:${port}/mcp`,
    ]);
    try {
      proxy.write(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      );
      const index = await proxy.waitFor((line) => line.includes('"id":1'));
      const response = JSON.parse(proxy.lines[index]!) as {
        error?: { code: number; message: string };
      };
      assert.equal(response.error?.code, -32000);
      assert.match(
        response.error!.message,
        new RegExp(
          `could not pass a message to the upstream MCP server at http://127\\.0\\.0\\.1:${port}/mcp`,
        ),
      );
      assert.equal(await proxy.exited, 1);
    } finally {
      proxy.kill();
    }
  });
});

describe('toonwire proxy --listen', () => {
  let proxy: LineProcess;
  let url: string;

  before(async () => {
    proxy = new LineProcess(process.execPath, proxyArgs(['--listen', '127.0.0.1:0']));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /serving MCP at (http:\/\/\S+)/.exec(proxy.stderr);
        if (match !== null) {
          clearInterval(timer);
          resolve(match[1]!);
        } else if (proxy.child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`the proxy exited: ${proxy.stderr}`));
        }
      }, 20);
    });
  });
  after(() => proxy.kill());

  it('serves the upstream over Streamable HTTP with compacted results and progress', async () => {
    const client = new Client({ name: 'http-client', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const direct = await connectStdio(UPSTREAM[0], [UPSTREAM[1]]);
    try {
      assert.deepEqual(await client.listTools(), await direct.client.listTools());
      const original = (await direct.client.callTool({
        name: 'list_rows',
        arguments: { count: 30 },
      })) as Result;
      const result = (await client.callTool({
        name: 'list_rows',
        arguments: { count: 30 },
      })) as Result;
      assert.ok(byteLength(textOf(result)) < byteLength(textOf(original)));
      assert.deepEqual(
        parseCompact(textOf(result), result._meta?.['toonwire/encodingStrategy'] as string),
        JSON.parse(textOf(original)),
      );
      const progress: number[] = [];
      await client.callTool({ name: 'with_progress' }, undefined, {
        onprogress: ({ progress: step }) => progress.push(step),
      });
      assert.deepEqual(progress, [1, 2, 3]);
    } finally {
      await client.close();
      await direct.client.close();
    }
  });

  for (const [header, value] of [
    ['host', 'evil.example'],
    ['origin', 'http://evil.example'],
  ] as const) {
    it(`refuses requests whose ${header === 'host' ? 'Host' : 'Origin'} is not local (DNS rebinding)`, async () => {
      assert.equal(await postStatus(url, { [header]: value }), 403);
    });
  }

  it('serves requests from a local page', async () => {
    // Without a session id, a ping is refused by the SDK (400), which means it got past the check.
    assert.equal(await postStatus(url, { origin: 'http://localhost:5173' }), 400);
  });

  it('exits 0 on SIGTERM', async () => {
    proxy.child.kill('SIGTERM');
    assert.equal(await proxy.exited, 0);
  });
});
