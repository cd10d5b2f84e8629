// Large tool results through the proxy: a result over --max-compact-mb (default 16 MiB) goes
// through as it came, unread, and one below it is compacted as usual (bench/large.bench.ts
// measures time and memory at 10 and 50 MB). The stdio client here
// reads lines as buffers: the SDK's own stdio client refuses a line over 10 MiB (its
// ReadBuffer's maxBufferSize), which is where a 10 MB result failed without any proxy.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseCompact } from '../../src/index.js';
import { rowsText } from './fixtures/big-upstream.mjs';
import { proxyCli, ROOT } from './helpers.js';

const BIG_UPSTREAM = [process.execPath, join(ROOT, 'test', 'mcp', 'fixtures', 'big-upstream.mjs')];

/** A stdio MCP client that reads whole lines of any length as buffers, in linear time. */
class LineClient {
  private readonly child: ChildProcess;
  private readonly lines: Buffer[] = [];
  private partial: Buffer[] = [];
  private wake: (() => void) | undefined;
  private nextId = 1;
  stderr = '';

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.child.stdout!.on('data', (chunk: Buffer) => {
      let start = 0;
      for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
        this.partial.push(chunk.subarray(start, end));
        this.lines.push(Buffer.concat(this.partial));
        this.partial = [];
        start = end + 1;
      }
      if (start < chunk.length) this.partial.push(chunk.subarray(start));
      this.wake?.();
    });
  }

  async request(
    method: string,
    params: object,
  ): Promise<{ result?: Record<string, unknown>; raw: Buffer }> {
    this.child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params })}\n`,
    );
    while (this.lines.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    const raw = this.lines.shift()!;
    return { ...(JSON.parse(raw.toString('utf8')) as { result?: Record<string, unknown> }), raw };
  }

  async initialize(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'line-client', version: '1.0.0' },
    });
    this.child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null)
      await new Promise((resolve) => this.child.once('close', resolve));
  }
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
type Text = { content: Array<{ text: string }>; _meta?: Record<string, unknown> };

describe('toonwire proxy with large results', () => {
  it('forwards a 20 MB result over --max-compact-mb (16) byte for byte, and says so under a budget', async () => {
    const expected = rowsText(20);
    for (const flags of [[], ['--max-tokens', '2000']]) {
      const client = new LineClient([proxyCli(), 'proxy', ...flags, '--', ...BIG_UPSTREAM]);
      try {
        await client.initialize();
        const { result } = await client.request('tools/call', {
          name: 'rows',
          arguments: { mb: 20 },
        });
        const shipped = result as unknown as Text;
        assert.equal(shipped.content[0]!.text.length, expected.length);
        assert.equal(sha(shipped.content[0]!.text), sha(expected));
        assert.equal(shipped._meta, undefined);
        if (flags.length === 0) assert.equal(shipped.content.length, 1);
        else
          assert.match(
            shipped.content[1]!.text,
            /^toonwire proxy: this result is 20\.\d MiB of text, more than the proxy reads \(--max-compact-mb\)/,
          );
      } finally {
        await client.close();
      }
    }
  });

  it('compacts a 4 MB result below --max-compact-mb, and forwards it unread above it', async () => {
    const expected = rowsText(4);
    for (const [limit, compacted] of [
      ['16', true],
      ['2', false],
    ] as const) {
      const client = new LineClient([
        proxyCli(),
        'proxy',
        '--max-compact-mb',
        limit,
        '--',
        ...BIG_UPSTREAM,
      ]);
      try {
        await client.initialize();
        const { result } = await client.request('tools/call', {
          name: 'rows',
          arguments: { mb: 4 },
        });
        const shipped = result as unknown as Text;
        const strategy = shipped._meta?.['toonwire/encodingStrategy'];
        if (compacted) {
          assert.equal(strategy, 'toon');
          assert.ok(shipped.content[0]!.text.length < expected.length / 1.5);
          assert.deepEqual(parseCompact(shipped.content[0]!.text, 'toon'), JSON.parse(expected));
        } else {
          assert.equal(strategy, undefined);
          assert.equal(shipped.content[0]!.text, expected);
        }
      } finally {
        await client.close();
      }
    }
  });
});
