// MCP's stdio framing: a message forwarded unmodified leaves as the exact bytes it came in, in
// one write; a message the proxy made is one line of JSON; a last line without its newline is
// still a message, and is written back with one.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineTransport } from '../../src/mcp/proxy/transport/json-lines.js';

/** A transport over fresh streams; `writes` is every chunk written to its output, as text. */
async function setUp() {
  const input = new PassThrough();
  const output = new PassThrough();
  const writes: string[] = [];
  const write = output.write.bind(output) as (...args: unknown[]) => boolean;
  output.write = ((chunk: unknown, ...rest: unknown[]) => {
    writes.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    return write(chunk, ...rest);
  }) as typeof output.write;
  output.resume(); // a reader at the other end, as a pipe has
  const transport = new JsonLineTransport({ input, output });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  return { input, transport, received, writes };
}

describe('JsonLineTransport', () => {
  it('writes a message it read back as the same bytes, newline and CR included, in one write', async () => {
    const { input, transport, received, writes } = await setUp();
    const line = '{ "jsonrpc":"2.0",  "id": 1, "result": {"n": 1.50} }\r\n';
    input.write(line);
    assert.equal(received.length, 1);
    await transport.send(received[0]!);
    assert.deepEqual(writes, [line]);
  });

  it('delivers a last line without its newline, and writes it back with one', async () => {
    const { input, transport, received, writes } = await setUp();
    input.end('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await once(input, 'end');
    assert.equal(received.length, 1);
    await transport.send(received[0]!);
    assert.deepEqual(writes, ['{"jsonrpc":"2.0","method":"notifications/initialized"}\n']);
  });

  it('writes a message it made as one line of JSON, small or large', async () => {
    const { transport, writes } = await setUp();
    const small = { jsonrpc: '2.0', id: 2, result: {} } as JSONRPCMessage;
    await transport.send(small);
    assert.deepEqual(writes, [`${JSON.stringify(small)}\n`]);
    const large = { jsonrpc: '2.0', id: 3, result: { text: 'x'.repeat(100_000) } };
    await transport.send(large as JSONRPCMessage);
    assert.equal(writes.slice(1).join(''), `${JSON.stringify(large)}\n`);
  });
});
