// The proxy over Streamable HTTP: an HTTP upstream (--upstream-url) and an HTTP downstream
// (--listen), each with the SDK's real client and server transports.

import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  EmptyResultSchema,
  type JSONRPCMessage,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { byteLength, parseCompact } from '../../src/index.js';
import {
  dropSeenEvents,
  SeenEventIds,
  SseEventSplitter,
} from '../../src/mcp/proxy/transport/sse-events.js';
import { createUpstreamServer } from './fixtures/upstream-tools.mjs';
import {
  connectStdio,
  LineProcess,
  modernRequest,
  post,
  proxyArgs,
  proxyCli,
  ROOT,
  serveOverHttp,
  startListening,
  stopListening,
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

// ---- Every client through every set-up (issue 20): error answers, the 2026-07-28 wire, events once

const MODERN_UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'modern-upstream.mjs');

/** Stops a --listen proxy, checks it exited 0, and returns what it wrote to stderr. */
async function stopped(proxy: LineProcess): Promise<string> {
  const { code, stderr } = await stopListening(proxy);
  assert.equal(code, 0, stderr);
  return stderr;
}

const startsIn = (stderr: string) => stderr.split('modern-upstream: started').length - 1;

describe('server-sent events, split on their boundaries', () => {
  const text =
    'id: a\ndata: {"n":1}\n\n: keep-alive\n\nid:b\r\nevent: message\r\ndata: {"n":2}\r\n\r\ndata: no id\r\rid\ndata: reset\n\n';
  const expected = [
    { id: 'a', text: 'id: a\ndata: {"n":1}\n\n' },
    { id: undefined, text: ': keep-alive\n\n' },
    { id: 'b', text: 'id:b\r\nevent: message\r\ndata: {"n":2}\r\n\r\n' },
    { id: undefined, text: 'data: no id\r\r' },
    { id: undefined, text: 'id\ndata: reset\n\n' },
  ];
  const bytes = new TextEncoder().encode(text);

  it('finds every event and its id wherever the chunks are cut', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      for (const size of [1, cut]) {
        const events: Array<{ id: string | undefined; text: string }> = [];
        const splitter = new SseEventSplitter((pieces, id) => {
          events.push({ id, text: Buffer.concat(pieces).toString('utf8') });
        });
        for (let start = 0; start < bytes.length; start += size)
          splitter.push(bytes.subarray(start, Math.min(start + size, bytes.length)));
        splitter.flush();
        assert.deepEqual(events, expected, `chunks of ${size} bytes, cut at ${cut}`);
      }
    }
  });

  it('drops an event whose id was passed before, and passes the rest byte for byte', async () => {
    const seen = new SeenEventIds();
    const read = async (input: string) => {
      const stream = new Blob([input]).stream() as ReadableStream<Uint8Array>;
      return new Response(dropSeenEvents(stream, seen)).text();
    };
    assert.equal(await read(text), text);
    assert.equal(
      await read('id: b\ndata: {"n":2}\n\nid: c\ndata: {"n":3}\n\n'),
      'id: c\ndata: {"n":3}\n\n',
    );
  });
});

describe('toonwire proxy --upstream-url: error answers and the 2026-07-28 wire', () => {
  /** What the fake upstream received: method, headers. */
  const received: Array<{
    method: string | undefined;
    headers: Record<string, string | string[] | undefined>;
  }> = [];
  let server: ReturnType<typeof createServer>;
  let url: string;

  before(async () => {
    // A server that answers the 2026-07-28 wire as the Python SDK's does (routing headers checked
    // against the body), and everything else the ways HTTP servers refuse a request.
    server = createServer(async (request, response) => {
      let text = '';
      for await (const chunk of request) text += chunk;
      const message = JSON.parse(text) as { id?: unknown; method?: string; params?: any };
      received.push({ method: message.method, headers: request.headers });
      const json = (status: number, body: unknown) =>
        response
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify(body));
      if (message.id === undefined)
        return json(400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Bad Request: Missing session ID' },
        });
      if (message.method === 'x/accepted') return response.writeHead(202).end();
      if (message.method === 'x/plain-404')
        return response.writeHead(404, { 'content-type': 'text/plain' }).end('no such thing');
      const version = message.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
      if (version === undefined)
        return json(400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Bad Request: Missing session ID' },
        });
      const name = message.params?.name;
      const expectedName =
        typeof name === 'string' && !/^[\x20-\x7e]*$/.test(name)
          ? `=?base64?${Buffer.from(name).toString('base64')}?=`
          : name;
      if (
        request.headers['mcp-protocol-version'] !== version ||
        request.headers['mcp-method'] !== message.method ||
        request.headers['mcp-name'] !== expectedName ||
        request.headers['mcp-session-id'] !== undefined
      )
        return json(400, {
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32020, message: 'header mismatch' },
        });
      return json(200, { jsonrpc: '2.0', id: message.id, result: { echoed: message.method } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers requests refused with an HTTP error as the upstream meant it, logs a refused notification, and goes on', async () => {
    const proxy = new LineProcess(process.execPath, [proxyCli(), 'proxy', '--upstream-url', url]);
    try {
      const answer = async (line: { id: number | string; [key: string]: unknown }) => {
        proxy.write(JSON.stringify(line));
        const index = await proxy.waitFor((text) => JSON.parse(text).id === line.id);
        return JSON.parse(proxy.lines[index]!) as {
          result?: unknown;
          error?: { code: number; message: string };
        };
      };
      // A request before any session: the upstream's JSON-RPC error, with this request's id.
      assert.deepEqual((await answer({ jsonrpc: '2.0', id: 1, method: 'ping' })).error, {
        code: -32600,
        message: 'Bad Request: Missing session ID',
      });
      // No JSON-RPC error in the body: one made from the status, as the Python SDK does.
      const notFound = (await answer({ jsonrpc: '2.0', id: 2, method: 'x/plain-404' })).error!;
      assert.equal(notFound.code, -32601);
      assert.match(notFound.message, /HTTP 404/);
      // 202 says no answer will follow: the request is answered now, not after --timeout.
      assert.equal(
        (await answer({ jsonrpc: '2.0', id: 4, method: 'x/accepted' })).error?.code,
        -32600,
      );
      proxy.write('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}');
      // A 2026-07-28 request goes with its routing headers (a name that is not plain ASCII in
      // base64) and without a session id.
      const { body } = modernRequest(3, 'tools/call', { name: 'café', arguments: {} });
      assert.deepEqual((await answer(body)).result, { echoed: 'tools/call' });
      assert.equal(received.at(-1)!.headers['mcp-name'], '=?base64?Y2Fmw6k=?=');
      assert.equal(await proxy.close(), 0);
      assert.match(proxy.stderr, /answered 'notifications\/roots\/list_changed' with HTTP 400/);
      assert.doesNotMatch(proxy.stderr, /could not pass a message/);
    } finally {
      proxy.kill();
    }
  });
});

describe('toonwire proxy --upstream-url in front of a server that replays events', () => {
  /**
   * An event store like server-everything's: a resumption replays every later event of every
   * stream. After the replay it sends one new event, "replayed", so a test can tell when the
   * client has seen the whole replay (events of one stream arrive in order).
   */
  class ReplayingEventStore {
    readonly events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];
    /** The streams that clients resumed, in order. */
    readonly resumed: string[] = [];
    async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
      const id = `event-${this.events.length + 1}`;
      this.events.push({ id, streamId, message });
      return id;
    }
    async replayEventsAfter(
      lastEventId: string,
      { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> },
    ): Promise<string> {
      const index = this.events.findIndex((event) => event.id === lastEventId);
      const streamId = this.events[index]!.streamId;
      this.resumed.push(streamId);
      for (const event of this.events.slice(index + 1)) await send(event.id, event.message);
      const sentinel: JSONRPCMessage = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'replayed' },
      };
      await send(await this.storeEvent(streamId, sentinel), sentinel);
      return streamId;
    }
  }

  it('forwards each notification once, and neither replays nor noise reach the client', async () => {
    const store = new ReplayingEventStore();
    let transport!: StreamableHTTPServerTransport;
    const mcp = new McpServer(
      { name: 'replaying', version: '1' },
      { capabilities: { logging: {} } },
    );
    const log = (data: string) => ({
      method: 'notifications/message' as const,
      params: { level: 'info' as const, data },
    });
    mcp.registerTool('announce', {}, async () => {
      await mcp.server.notification(log('hello')); // not about a request: the GET stream
      return { content: [] };
    });
    mcp.registerTool('notify', {}, async (extra) => {
      await extra.sendNotification(log('n1'));
      await extra.sendNotification(log('n2'));
      return { content: [] };
    });
    mcp.registerTool('drop_stream', {}, async () => {
      transport.closeStandaloneSSEStream();
      return { content: [] };
    });
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => 'session-1',
      eventStore: store,
    });
    await mcp.connect(transport);
    const server = createServer(
      (request, response) => void transport.handleRequest(request, response),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const proxied = await connectStdio(process.execPath, [
      proxyCli(),
      'proxy',
      '--upstream-url',
      upstreamUrl,
    ]);
    try {
      const messages: string[] = [];
      const waiters = new Map<string, () => void>();
      const arrived = (data: string) =>
        new Promise<void>((resolve) => {
          if (messages.includes(data)) resolve();
          else waiters.set(data, resolve);
        });
      proxied.client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
        messages.push(String(params.data));
        waiters.get(String(params.data))?.();
      });
      await proxied.client.callTool({ name: 'announce' });
      await arrived('hello'); // the GET stream has an event id to resume from
      // A JSON-RPC error on a POST stream: the SDK's transport would resume that stream.
      await assert.rejects(
        proxied.client.request({ method: 'x/unknown' }, EmptyResultSchema),
        /-32601/,
      );
      const errorStream = store.events.at(-1)!.streamId;
      await proxied.client.callTool({ name: 'notify' });
      await proxied.client.callTool({ name: 'drop_stream' });
      // The proxy resumes the GET stream; the server replays everything since "hello".
      await arrived('replayed');
      assert.deepEqual(messages, ['hello', 'n1', 'n2', 'replayed']);
      assert.ok(!store.resumed.includes(errorStream), `resumed: ${store.resumed.join(', ')}`);
      assert.deepEqual(store.resumed, ['_GET_stream']);
    } finally {
      await proxied.client.close();
      await mcp.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    assert.equal(await proxied.exited, 0);
    assert.doesNotMatch(proxied.stderr(), /reported|could not pass/);
  });
});

describe('toonwire proxy --listen and the 2026-07-28 wire', () => {
  it('forwards the refusal of server/discover to each client, starting a command upstream for the first probe only', async () => {
    const { proxy, url } = await startListening(['--', process.execPath, MODERN_UPSTREAM], {
      ...process.env,
      MODERN_UPSTREAM_REFUSE: '1',
    });
    try {
      for (const id of [1, 2]) {
        const { body, headers } = modernRequest(id, 'server/discover');
        const answer = await post(url, body, headers);
        assert.equal(answer.status, 404);
        assert.deepEqual(answer.messages, [
          { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
        ]);
      }
    } finally {
      const stderr = await stopped(proxy);
      assert.equal(startsIn(stderr), 1, stderr);
      assert.doesNotMatch(stderr, /client connection error/);
    }
  });

  it('serves requests of several clients on one upstream: ids and progress tokens remapped, answers and progress to their own client, results compacted', async () => {
    const { proxy, url } = await startListening(['--', process.execPath, MODERN_UPSTREAM], {
      ...process.env,
      MODERN_UPSTREAM_BATCH: '2', // both calls wait at the upstream, which answers the second first
    });
    try {
      const list = modernRequest(1, 'tools/list');
      const tools = await post(url, list.body, list.headers);
      assert.equal(tools.status, 200);
      assert.equal(tools.headers.get('content-type'), 'application/json');
      assert.equal(tools.messages[0]!.result.tools[0].name, 'rows');
      const call = (label: string) => {
        const { body, headers } = modernRequest(
          7,
          'tools/call',
          { name: 'rows', arguments: { label, count: 20 }, _meta: { progressToken: 'p' } },
          `client-${label}`,
        );
        return post(url, body, headers);
      };
      const answers = await Promise.all([call('A'), call('B')]);
      for (const [label, answer] of [
        ['A', answers[0]],
        ['B', answers[1]],
      ] as const) {
        assert.equal(answer.status, 200);
        // The progress notification came first, so the answer is an event stream.
        assert.equal(answer.headers.get('content-type'), 'text/event-stream');
        const [progress, result] = answer.messages as [any, any];
        assert.deepEqual(progress.params, {
          progressToken: 'p',
          progress: 1,
          total: 1,
          message: label,
        });
        assert.equal(result.id, 7);
        const strategy = result.result._meta['toonwire/encodingStrategy'];
        assert.equal(strategy, 'toon');
        const rows = parseCompact(result.result.content[0].text, strategy) as Array<{
          label: string;
        }>;
        assert.equal(rows.length, 20);
        assert.ok(rows.every((row) => row.label === label));
      }
    } finally {
      const stderr = await stopped(proxy);
      assert.equal(startsIn(stderr), 1, stderr);
    }
  });

  it("delivers a subscriptions/listen stream's notifications to its own client, not the latest request's", async () => {
    const { proxy, url } = await startListening(['--', process.execPath, MODERN_UPSTREAM], {
      ...process.env,
      MODERN_UPSTREAM_BATCH: '2',
    });
    try {
      const listen = modernRequest('L1', 'subscriptions/listen', { notifications: {} }, 'listener');
      const listening = post(url, listen.body, listen.headers);
      // The call arrives second: the latest request while the stream's notifications go out.
      const call = modernRequest('C1', 'tools/call', { name: 'rows', arguments: { label: 'C' } });
      const [stream, answer] = await Promise.all([listening, post(url, call.body, call.headers)]);
      const subscription = { 'io.modelcontextprotocol/subscriptionId': 'L1' };
      assert.deepEqual(
        stream.messages.map((message) => [
          message.method ?? message.id,
          message.params?._meta ?? message.result._meta,
        ]),
        [
          ['notifications/subscriptions/acknowledged', subscription],
          ['notifications/resources/updated', subscription],
          ['L1', subscription],
        ],
      );
      assert.equal(answer.headers.get('content-type'), 'application/json');
      assert.deepEqual(
        answer.messages.map((message) => message.id),
        ['C1'],
      );
    } finally {
      await stopped(proxy);
    }
  });

  it('does not refuse a handshake version newer than its SDK knows, which the upstream accepted', async () => {
    const { proxy, url } = await startListening(['--', process.execPath, MODERN_UPSTREAM]);
    const newer = '2026-03-01';
    try {
      const initialize = await post(
        url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: newer,
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        },
        { 'mcp-protocol-version': newer },
      );
      assert.equal(initialize.status, 200);
      assert.equal(initialize.messages[0]!.result.protocolVersion, newer);
      const session = {
        'mcp-session-id': initialize.headers.get('mcp-session-id')!,
        'mcp-protocol-version': newer,
      };
      const initialized = await post(
        url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        session,
      );
      assert.equal(initialized.status, 202);
      const tools = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
      assert.equal(tools.status, 200);
      assert.equal(tools.messages[0]!.result.tools[0].name, 'rows');
    } finally {
      await stopped(proxy);
    }
  });
});
