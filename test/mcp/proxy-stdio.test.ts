// `toonwire proxy` over real stdio processes: the built CLI in front of a real SDK server.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { byteLength, parseCompact } from '../../src/index.js';
import { connectStdio, LineProcess, proxyArgs, type StdioConnection, UPSTREAM } from './helpers.js';

type TextResult = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  isError?: boolean;
};

function textOf(result: unknown): string {
  const [first] = (result as TextResult).content;
  assert.equal(first?.type, 'text');
  return first.text!;
}

function strategyOf(result: unknown): unknown {
  return (result as TextResult)._meta?.['toonwire/encodingStrategy'];
}

describe('toonwire proxy over stdio, with the SDK client', () => {
  let direct: StdioConnection;
  let proxied: StdioConnection;

  before(async () => {
    direct = await connectStdio(UPSTREAM[0], [UPSTREAM[1]]);
    proxied = await connectStdio(process.execPath, proxyArgs());
  });
  after(async () => {
    await direct?.client.close();
    await proxied?.client.close();
  });

  it('reports the same tools as the upstream', async () => {
    assert.deepEqual(await proxied.client.listTools(), await direct.client.listTools());
  });

  it('passes the server info, capabilities and instructions through', () => {
    assert.deepEqual(proxied.client.getServerVersion(), direct.client.getServerVersion());
    assert.deepEqual(proxied.client.getServerCapabilities(), direct.client.getServerCapabilities());
    assert.equal(proxied.client.getInstructions(), direct.client.getInstructions());
  });

  it('shrinks a JSON object result, which still decodes to the same data', async () => {
    const upstream = await direct.client.callTool({ name: 'list_rows', arguments: { count: 100 } });
    const result = await proxied.client.callTool({ name: 'list_rows', arguments: { count: 100 } });
    const original = JSON.parse(textOf(upstream));
    assert.ok(byteLength(textOf(result)) < byteLength(textOf(upstream)));
    const strategy = strategyOf(result);
    assert.equal(typeof strategy, 'string');
    assert.deepEqual(parseCompact(textOf(result), strategy as string), original);
  });

  it('adds no structuredContent by default (--structured-content keep)', async () => {
    await proxied.client.listTools();
    const upstream = await direct.client.callTool({ name: 'list_rows', arguments: { count: 5 } });
    const result = await proxied.client.callTool({ name: 'list_rows', arguments: { count: 5 } });
    assert.equal(upstream.structuredContent, undefined);
    assert.equal('structuredContent' in result, false);
    assert.notEqual(textOf(result), textOf(upstream));
  });

  it('keeps structuredContent exactly as the upstream sent it, and it validates against the outputSchema', async () => {
    await direct.client.listTools();
    await proxied.client.listTools(); // the SDK client validates structuredContent from here on
    const upstream = await direct.client.callTool({ name: 'typed_rows', arguments: { count: 50 } });
    const result = await proxied.client.callTool({ name: 'typed_rows', arguments: { count: 50 } });
    assert.deepEqual(result.structuredContent, upstream.structuredContent);
    assert.ok(byteLength(textOf(result)) < byteLength(textOf(upstream)));
    assert.deepEqual(
      parseCompact(textOf(result), strategyOf(result) as string),
      upstream.structuredContent,
    );
  });

  it('shrinks a JSON array result without inventing structuredContent (MCP requires an object)', async () => {
    const upstream = await direct.client.callTool({ name: 'array_rows', arguments: { count: 30 } });
    const result = await proxied.client.callTool({ name: 'array_rows', arguments: { count: 30 } });
    assert.ok(byteLength(textOf(result)) < byteLength(textOf(upstream)));
    assert.deepEqual(
      parseCompact(textOf(result), strategyOf(result) as string),
      JSON.parse(textOf(upstream)),
    );
    assert.equal(result.structuredContent, undefined);
  });

  for (const [tool, why] of [
    ['prose', 'text that is not JSON'],
    ['failing', 'an isError result'],
    ['picture', 'images and resource links'],
    ['big_ids', 'JSON whose integers a JavaScript number cannot hold'],
  ] as const) {
    it(`passes ${why} through untouched`, async () => {
      assert.deepEqual(
        await proxied.client.callTool({ name: tool }),
        await direct.client.callTool({ name: tool }),
      );
    });
  }

  it('forwards progress notifications and logging for a pending call', async () => {
    const progress: number[] = [];
    const result = await proxied.client.callTool({ name: 'with_progress' }, undefined, {
      onprogress: ({ progress: step }) => progress.push(step),
    });
    assert.deepEqual(progress, [1, 2, 3]);
    assert.equal(typeof strategyOf(result), 'string');
  });

  it('forwards server-to-client requests (sampling) and their answers', async () => {
    const result = await proxied.client.callTool({ name: 'ask_client' });
    assert.equal(textOf(result), 'client said: hi');
  });

  it('forwards cancellation to the upstream', async () => {
    const controller = new AbortController();
    const waiting = proxied.client.callTool({ name: 'wait_for_cancel' }, undefined, {
      signal: controller.signal,
    });
    // The request must reach the upstream before it is cancelled; a ping round trip orders that.
    await proxied.client.ping();
    controller.abort('test');
    await assert.rejects(waiting);
    assert.equal(textOf(await proxied.client.callTool({ name: 'was_cancelled' })), 'true');
  });

  it('passes JSON-RPC errors through', async () => {
    const fromDirect = await direct.client
      .readResource({ uri: 'test://nowhere' })
      .catch((error: unknown) => error);
    const fromProxy = await proxied.client
      .readResource({ uri: 'test://nowhere' })
      .catch((error: unknown) => error);
    assert.ok(fromProxy instanceof McpError);
    assert.deepEqual(
      { ...fromProxy, message: fromProxy.message },
      { ...(fromDirect as McpError), message: (fromDirect as McpError).message },
    );
  });
});

describe('toonwire proxy on the wire', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'toonwire-proxy-'));
  after(() => rmSync(workdir, { recursive: true, force: true }));

  // Odd spacing, key order and escapes: whatever a client writes must reach the server as written.
  const script = [
    '{ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": { "roots": {} }, "clientInfo": { "name": "raw", "version": "1" } } }',
    '{"method":"notifications/initialized","jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{}}',
    '{"jsonrpc":"2.0","id":2,"method":"resources/list"}',
    '{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}',
    '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://readme"}}',
    '{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://rows/3"}}',
    '{"jsonrpc":"2.0","id":6,"method":"prompts/list"}',
    '{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"summarize","arguments":{"status":"FAIL\\u0045D"}}}',
    '{"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"summarize"},"argument":{"name":"status","value":"S"}}}',
    '{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}',
    '{"jsonrpc":"2.0","id":"ping-10","method":"ping"}',
    '{"jsonrpc":"2.0","id":11,"method":"no/such/method"}',
    '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"prose","arguments":{}}}',
    '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
    '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"with_progress","arguments":{},"_meta":{"progressToken":"p-1"}}}',
    '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"picture"}}',
  ];
  const compacted =
    '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"list_rows","arguments":{"count":20}}}';

  /** Runs the script one request at a time; returns every line the client received. */
  async function run(
    command: string,
    args: readonly string[],
    log: string,
  ): Promise<{ lines: string[]; exitCode: number | null; stderr: string }> {
    const process_ = new LineProcess(command, args, { ...process.env, RAW_INPUT_LOG: log });
    try {
      for (const line of [...script, compacted]) {
        const message = JSON.parse(line) as { id?: unknown };
        const from = process_.lines.length;
        process_.write(line);
        if (message.id !== undefined) {
          // Waiting for the answer, answering the server's pings on the way (as a client does).
          let seen = from;
          for (;;) {
            const index = await process_.waitFor(() => true, seen);
            seen = index + 1;
            const out = JSON.parse(process_.lines[index]!) as { id?: unknown; method?: string };
            if (out.method === 'ping')
              process_.write(JSON.stringify({ jsonrpc: '2.0', id: out.id, result: {} }));
            else if (out.method === undefined && out.id === message.id) break;
          }
        }
      }
      const exitCode = await process_.close();
      return { lines: process_.lines, exitCode, stderr: process_.stderr };
    } finally {
      process_.kill();
    }
  }

  for (const [startDelayMs, when] of [
    [0, ''],
    // Longer than the second the proxy gives an upstream after end of input before SIGTERM.
    [1500, ', also when the upstream is slow to start'],
  ] as const) {
    it(`answers requests a client sends just before it closes its input, then exits 0 (MCP stdio shutdown)${when}`, async () => {
      const env = { ...process.env, START_DELAY_MS: String(startDelayMs) };
      const proxy = new LineProcess(process.execPath, proxyArgs(), env);
      try {
        for (const line of [script[0]!, script[1]!, compacted, script[11]!]) proxy.write(line);
        assert.equal(await proxy.close(), 0, proxy.stderr);
        const ids = proxy.lines.map((line) => (JSON.parse(line) as { id?: unknown }).id);
        assert.deepEqual([...ids].sort(), [0, 16, 'ping-10'].sort());
        const answer = JSON.parse(proxy.lines[ids.indexOf(16)]!) as { result: TextResult };
        assert.equal(typeof strategyOf(answer.result), 'string');
      } finally {
        proxy.kill();
      }
    });
  }

  it('--observe delivers every byte unchanged in both directions, and --stats says what compaction would have saved', async () => {
    const directLog = join(workdir, 'direct-observe.log');
    const observedLog = join(workdir, 'observed.log');
    const direct = await run(UPSTREAM[0], [UPSTREAM[1]], directLog);
    const observed = await run(process.execPath, proxyArgs(['--observe', '--stats']), observedLog);
    assert.equal(observed.exitCode, 0, observed.stderr);
    assert.equal(readFileSync(observedLog, 'utf8'), readFileSync(directLog, 'utf8'));
    assert.deepEqual(observed.lines, direct.lines);
    assert.match(
      observed.stderr,
      /--observe: nothing was changed, "after" is what compaction would have shipped/,
    );
    const rows = observed.stderr.split('\n').find((line) => line.startsWith('list_rows'))!;
    const [, calls, compacted, bytesBefore, bytesAfter] = rows.split(/\s{2,}/);
    assert.deepEqual([calls, compacted], ['1', '1']);
    const number = (cell: string | undefined) => Number(cell?.replaceAll(',', ''));
    assert.ok(number(bytesAfter) < number(bytesBefore) / 2, rows);
  });

  it('delivers every byte unchanged in both directions, except compacted tool results', async () => {
    const directLog = join(workdir, 'direct.log');
    const proxiedLog = join(workdir, 'proxied.log');
    const direct = await run(UPSTREAM[0], [UPSTREAM[1]], directLog);
    const proxied = await run(process.execPath, proxyArgs(), proxiedLog);

    assert.equal(proxied.exitCode, 0, proxied.stderr);
    assert.equal(readFileSync(proxiedLog, 'utf8'), readFileSync(directLog, 'utf8'));
    assert.equal(proxied.lines.length, direct.lines.length);
    const compactedIds = new Set([14, 16]); // with_progress and list_rows answer with JSON text
    let compactedSeen = 0;
    direct.lines.forEach((line, index) => {
      const message = JSON.parse(line) as { id?: number; result?: TextResult };
      if (message.id === undefined || !compactedIds.has(message.id)) {
        assert.equal(proxied.lines[index], line);
        return;
      }
      compactedSeen += 1;
      const rewritten = JSON.parse(proxied.lines[index]!) as {
        id: number;
        jsonrpc: string;
        result: TextResult;
      };
      assert.equal(rewritten.id, message.id);
      assert.ok(byteLength(textOf(rewritten.result)) < byteLength(textOf(message.result)));
      const original = JSON.parse(textOf(message.result)) as unknown;
      assert.deepEqual(
        parseCompact(textOf(rewritten.result), strategyOf(rewritten.result) as string),
        original,
      );
      assert.equal(rewritten.result.structuredContent, undefined); // keep: none added
    });
    assert.equal(compactedSeen, 2);
  });
});
