// The proxy's options, end to end through the built CLI.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byteLength, loadTokenizer, parseCompact } from '../../src/index.js';
import { connectStdio, proxyArgs, UPSTREAM } from './helpers.js';

type Result = { content: Array<{ type: string; text: string }>; _meta?: Record<string, unknown> };

async function withProxy<T>(
  options: string[],
  body: (call: (name: string, count?: number) => Promise<Result>) => Promise<T>,
): Promise<{ value: T; stderr: string }> {
  const connection = await connectStdio(process.execPath, proxyArgs(options));
  try {
    await connection.client.listTools(); // as clients do: the proxy learns which tools declare an outputSchema
    const value = await body(
      async (name, count) =>
        (await connection.client.callTool({
          name,
          arguments: count === undefined ? {} : { count },
        })) as Result,
    );
    await connection.client.close();
    await connection.exited;
    return { value, stderr: connection.stderr() };
  } finally {
    await connection.client.close();
  }
}

async function upstreamText(name: string, count: number): Promise<string> {
  const connection = await connectStdio(UPSTREAM[0], [UPSTREAM[1]]);
  try {
    return ((await connection.client.callTool({ name, arguments: { count } })) as Result)
      .content[0]!.text;
  } finally {
    await connection.client.close();
  }
}

/** A count as the --stats table writes it: with thousands separators. */
const thousands = (count: number) => count.toLocaleString('en-US');

describe('toonwire proxy options', () => {
  it('--tools compacts only the listed tools', async () => {
    const original = await upstreamText('list_rows', 10);
    const { value } = await withProxy(['--tools', 'array_rows'], async (call) => [
      await call('list_rows', 10),
      await call('array_rows', 10),
    ]);
    const [listed, arrayed] = value as [(typeof value)[number], (typeof value)[number]];
    assert.equal(listed.content[0]!.text, original);
    assert.equal(listed._meta, undefined);
    assert.equal(typeof arrayed._meta?.['toonwire/encodingStrategy'], 'string');
  });

  it('--candidates json ships compact JSON, smaller than the pretty-printed original', async () => {
    const original = await upstreamText('list_rows', 10);
    const { value } = await withProxy(['--candidates', 'json'], (call) => call('list_rows', 10));
    assert.equal(value._meta?.['toonwire/encodingStrategy'], 'json');
    assert.equal(value.content[0]!.text, JSON.stringify(JSON.parse(original)));
  });

  it('--meta-key names the strategy under another key', async () => {
    const { value } = await withProxy(['--meta-key', 'com.apify/encodingStrategy'], (call) =>
      call('array_rows', 10),
    );
    assert.equal(value._meta?.['com.apify/encodingStrategy'], 'toon');
    assert.equal(value._meta?.['toonwire/encodingStrategy'], undefined);
  });

  it('--hint starts compacted text with a one-line format label', async () => {
    const { value } = await withProxy(['--hint'], (call) => call('array_rows', 10));
    const [label, ...rest] = value.content[0]!.text.split('\n');
    assert.match(label!, /^Format: TOON \(toonformat\.dev\)/);
    const original = JSON.parse(await upstreamText('array_rows', 10)) as unknown;
    assert.deepEqual(
      parseCompact(rest.join('\n'), value._meta?.['toonwire/encodingStrategy'] as string),
      original,
    );
  });

  it('--by tokens picks by o200k_base tokens, never more than the original text', async () => {
    const count = await loadTokenizer('o200k_base');
    const original = await upstreamText('list_rows', 20);
    const { value } = await withProxy(['--by', 'tokens'], (call) => call('list_rows', 20));
    assert.ok(count(value.content[0]!.text) < count(original));
  });

  it('-t picks the tokenizer -b tokens counts with (one row: JSON is smaller in o200k_base, TOON in cl100k_base)', async () => {
    const strategy = (value: Result) => value._meta?.['toonwire/encodingStrategy'];
    const o200k = await withProxy(['-b', 'tokens'], (call) => call('array_rows', 1));
    const cl100k = await withProxy(['-b', 'tokens', '-t', 'cl100k_base'], (call) =>
      call('array_rows', 1),
    );
    assert.equal(strategy(o200k.value), undefined, 'JSON wins: the text is forwarded as it is');
    assert.equal(strategy(cl100k.value), 'toon');
    const count = await loadTokenizer('cl100k_base');
    assert.ok(count(cl100k.value.content[0]!.text) < count(await upstreamText('array_rows', 1)));
  });

  it('--candidates all lets toon-tab compete, as in pick and report', async () => {
    const { value } = await withProxy(['--candidates', 'all'], (call) => call('array_rows', 10));
    const strategy = value._meta?.['toonwire/encodingStrategy'] as string;
    assert.ok(['json', 'toon', 'toon-flatten', 'toon-tab'].includes(strategy));
    assert.deepEqual(
      parseCompact(value.content[0]!.text, strategy),
      JSON.parse(await upstreamText('array_rows', 10)),
    );
  });

  it('--structured-content: keep (the default for this client) adds none, add adds it, strip removes it and outputSchema', async () => {
    const typedOriginal = JSON.parse(await upstreamText('typed_rows', 10));
    const calls = async (call: (name: string, count?: number) => Promise<Result>) =>
      [await call('list_rows', 10), await call('typed_rows', 10)] as Array<
        Result & { structuredContent?: unknown }
      >;
    const kept = (await withProxy([], calls)).value;
    assert.equal(typeof kept[0]!._meta?.['toonwire/encodingStrategy'], 'string');
    assert.equal(kept[0]!.structuredContent, undefined);
    assert.deepEqual(kept[1]!.structuredContent, typedOriginal);

    const added = (await withProxy(['--structured-content', 'add'], calls)).value;
    assert.deepEqual(added[0]!.structuredContent, JSON.parse(await upstreamText('list_rows', 10)));
    assert.deepEqual(added[1]!.structuredContent, typedOriginal);

    const connection = await connectStdio(
      process.execPath,
      proxyArgs(['--structured-content', 'strip']),
    );
    try {
      const { tools } = await connection.client.listTools();
      assert.ok(tools.length > 0);
      assert.ok(tools.every((tool) => tool.outputSchema === undefined));
      const stripped = (await connection.client.callTool({
        name: 'typed_rows',
        arguments: { count: 10 },
      })) as Result & { structuredContent?: unknown };
      assert.equal('structuredContent' in stripped, false);
      const strategy = stripped._meta?.['toonwire/encodingStrategy'] as string;
      assert.deepEqual(parseCompact(stripped.content[0]!.text, strategy), typedOriginal);
    } finally {
      await connection.client.close();
    }
  });

  it('--structured-content auto (the default): strip for a client that initializes as Claude Code, keep for others', async () => {
    const typedOriginal = JSON.parse(await upstreamText('typed_rows', 10));
    const asClient = async (name: string) => {
      const connection = await connectStdio(process.execPath, proxyArgs(), {
        name,
        version: '2.1.3',
      });
      try {
        const { tools } = await connection.client.listTools();
        const result = (await connection.client.callTool({
          name: 'typed_rows',
          arguments: { count: 10 },
        })) as Result & { structuredContent?: unknown };
        return { tools, result, stderr: connection.stderr() };
      } finally {
        await connection.client.close();
      }
    };
    const claude = await asClient('claude-code');
    assert.ok(claude.tools.some((tool) => tool.name === 'typed_rows'));
    assert.ok(claude.tools.every((tool) => tool.outputSchema === undefined));
    assert.equal('structuredContent' in claude.result, false);
    const strategy = claude.result._meta?.['toonwire/encodingStrategy'] as string;
    assert.deepEqual(parseCompact(claude.result.content[0]!.text, strategy), typedOriginal);
    assert.match(
      claude.stderr,
      /the client is Claude Code, which shows the model structuredContent/,
    );
    const sdk = await asClient('toonwire-test-client');
    assert.ok(sdk.tools.some((tool) => tool.outputSchema !== undefined));
    assert.deepEqual(sdk.result.structuredContent, typedOriginal);
    assert.doesNotMatch(sdk.stderr, /the client is/);
  });

  it('--stats logs per-tool bytes, tokens and what shipped to stderr on exit', async () => {
    const { value, stderr } = await withProxy(['--stats'], async (call) => [
      await call('array_rows', 10),
      await call('array_rows', 10),
      await call('prose'),
    ]);
    const count = await loadTokenizer('o200k_base');
    const shipped = value[0]!.content[0]!.text;
    const original = await upstreamText('array_rows', 10);
    const percent = (before: number, after: number) =>
      `${((1 - after / before) * 100).toFixed(1)}%`;
    assert.match(
      stderr,
      /toonwire proxy stats \(UTF-8 bytes and o200k_base tokens of tool-result text\):/,
    );
    const arrayLine = stderr.split('\n').find((line) => line.startsWith('array_rows'));
    const [bytesIn, bytesOut] = [byteLength(original) * 2, byteLength(shipped) * 2];
    const [tokensIn, tokensOut] = [count(original) * 2, count(shipped) * 2];
    assert.deepEqual(arrayLine?.split(/\s{2,}/), [
      'array_rows',
      '2',
      '2',
      thousands(bytesIn),
      thousands(bytesOut),
      percent(bytesIn, bytesOut),
      thousands(tokensIn),
      thousands(tokensOut),
      percent(tokensIn, tokensOut),
      'toon 2',
    ]);
    assert.match(
      stderr,
      /^prose\s+1\s+0\s+36\s+36\s+0\.0%\s+7\s+7\s+0\.0%\s+verbatim 1 \(1 not JSON\)$/m,
    );
  });

  it('--stats under --by tokens, and verbatim calls with their sizes and reason', async () => {
    const { value, stderr } = await withProxy(
      ['--stats', '--by', 'tokens', '--exclude-tools', 'list_rows'],
      async (call) => [await call('array_rows', 10), await call('list_rows', 10)],
    );
    const count = await loadTokenizer('o200k_base');
    const arrayLine = stderr.split('\n').find((line) => line.startsWith('array_rows'));
    const before = count(await upstreamText('array_rows', 10));
    const after = count(value[0]!.content[0]!.text);
    assert.deepEqual(arrayLine?.split(/\s{2,}/).slice(6, 8), [thousands(before), thousands(after)]);
    const listed = await upstreamText('list_rows', 10);
    assert.equal(value[1]!.content[0]!.text, listed);
    const [bytes, tokens] = [byteLength(listed), count(listed)];
    assert.match(
      stderr,
      new RegExp(
        `^list_rows\\s+1\\s+0\\s+${thousands(bytes)}\\s+${thousands(bytes)}\\s+0\\.0%\\s+${thousands(tokens)}\\s+${thousands(tokens)}\\s+0\\.0%\\s+verbatim 1 \\(1 excluded\\)$`,
        'm',
      ),
    );
  });
});
