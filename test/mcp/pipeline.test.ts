// The result pipeline, stage by stage: read → choose → project → page → pick → ship → record.
// Each test drives the whole pipeline with a result as a real server would send it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../../src/codec/types.js';
import { byteLength, loadTokenizer, parseCompact, pick } from '../../src/compact/index.js';
import type { StructuredContentMode } from '../../src/mcp/clients.js';
import { projectFields } from '../../src/mcp/fields.js';
import { parseProxyConfig } from '../../src/mcp/proxy/config/config.js';
import type { ToolFacts } from '../../src/mcp/proxy/config/tool-rules.js';
import {
  createResultPipeline,
  type PipelineOptions,
  type ResultPipeline,
} from '../../src/mcp/proxy/result/pipeline.js';
import { read } from '../../src/mcp/proxy/result/read.js';
import type { ShippedResult } from '../../src/mcp/proxy/result/ship.js';
import { ProxyMetrics, type ToolCallRecord } from '../../src/mcp/proxy/telemetry/metrics.js';
import { type CallSizes, ProxyStats } from '../../src/mcp/proxy/telemetry/stats.js';
import { ToolCatalog } from '../../src/mcp/proxy/tools/catalog.js';
import { orderRows } from './fixtures/levers-upstream.mjs';

type Shipped = {
  content: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
};

const rows = Array.from({ length: 12 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 }));
const text = (value: string) => ({ type: 'text', text: value });
const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const textResult = (...texts: string[]) => ({ content: texts.map(text) });
/** A FastMCP `list[Model]` result: one pretty-printed text per item, and the list wrapped. */
const fastMcpList = (items: readonly unknown[]) => ({
  content: items.map((item) => text(pretty(item))),
  structuredContent: { result: items },
});

/** A pipeline and a catalog that has seen `tools`, as a session has them. */
async function setUp(options: PipelineOptions = {}, tools: ToolFacts[] = [{ name: 'q' }]) {
  const pipeline = await createResultPipeline(options, () => {});
  const catalog = new ToolCatalog(pipeline);
  catalog.list(
    {
      tools: tools.map(({ name, inputSchema, outputSchema, hasUi }) => ({
        name,
        inputSchema: inputSchema ?? { type: 'object' },
        ...(outputSchema === undefined ? {} : { outputSchema }),
        ...(hasUi ? { _meta: { ui: { resourceUri: `ui://${name}/view.html` } } } : {}),
      })),
    },
    'keep',
  );
  const ship = (
    result: unknown,
    tool = tools[0]!.name,
    mode: StructuredContentMode = 'keep',
    fields?: string,
  ): ShippedResult => {
    const call = { tool, fields, started: 0 };
    const shipped = pipeline.ship(result, call, catalog.facts(tool), mode);
    pipeline.record(shipped, call);
    return shipped;
  };
  return { pipeline, catalog, ship };
}

/** The shipped text of a rewritten result, decoded with the strategy `_meta` names. */
function decoded(shipped: ShippedResult, index = 0): unknown {
  const result = shipped.result as Shipped;
  return parseCompact(
    result.content[index]!.text,
    result._meta!['toonwire/encodingStrategy'] as string,
  );
}

/** Every row of a paged result, following its cursors through toonwire_more. */
function reassemble(pipeline: ResultPipeline, first: Shipped): JsonValue[] {
  const all: JsonValue[] = [];
  let page = first;
  for (;;) {
    const value = parseCompact(
      page.content[0]!.text,
      page._meta?.['toonwire/encodingStrategy'] as string,
    );
    all.push(...(Array.isArray(value) ? value : (value as { rows: JsonValue[] }).rows));
    const cursor = (page._meta?.['toonwire/page'] as { nextCursor?: string } | undefined)
      ?.nextCursor;
    if (cursor === undefined) return all;
    page = pipeline.more({ name: 'toonwire_more', arguments: { cursor } }) as Shipped;
  }
}

describe('read: what a result holds', () => {
  it('(a) one text holding a JSON object or array is data', () => {
    const view = read(textResult(pretty({ items: rows })), { name: 'q' }, undefined);
    assert.equal(view.data?.from, 'text');
    assert.deepEqual(view.data?.value, { items: rows });
  });

  it('(b) several texts, each an item of the list in structuredContent.result, are that list', () => {
    const view = read(fastMcpList(rows), { name: 'q' }, undefined);
    assert.equal(view.data?.from, 'blocks');
    assert.equal(view.data?.count, 12);
    assert.deepEqual(view.data?.value, rows);
    // The list says what each item is: numbers too (a `list[int]`).
    assert.deepEqual(read(fastMcpList([1, 2, 3]), undefined, undefined).data?.value, [1, 2, 3]);
  });

  it('(b) several JSON objects or arrays one after the other are one list without structuredContent too', () => {
    const result = { content: [text('Found 2:'), text('{"id":1}'), text('{"id":2}')] };
    const view = read(result, undefined, undefined);
    assert.equal(view.data?.from, 'blocks');
    assert.equal(view.data?.first, 1);
    assert.deepEqual(view.data?.value, [{ id: 1 }, { id: 2 }]);
    // Bare numbers without a list to vouch for them are not data: they may be strings.
    assert.equal(read(textResult('1', '2'), undefined, undefined).verbatim, 'not-json');
  });

  it('(c) a text that is the serialization of structuredContent is data', () => {
    const result = { ...textResult(pretty({ items: rows })), structuredContent: { items: rows } };
    const data = read(result, undefined, undefined).data;
    assert.equal(data?.from, 'text');
    assert.deepEqual(data?.value, result.structuredContent);
  });

  it('(d) a text structuredContent shows to be a string is verbatim, even when it parses as JSON', () => {
    const file = pretty({ name: 'app', port: 8080, debug: false });
    const fromPython = { content: [text(file)], structuredContent: { result: file } };
    assert.equal(read(fromPython, { name: 'config_contents' }, undefined).verbatim, 'string');
    const listOfStrings = {
      content: [text('{"a":1}'), text('[2]')],
      structuredContent: { result: ['{"a":1}', '[2]'] },
    };
    assert.equal(read(listOfStrings, undefined, undefined).verbatim, 'string');
    const declared = {
      name: 'cat',
      outputSchema: { type: 'object', properties: { result: { type: 'string' } } },
    };
    assert.equal(read(textResult(file), declared, undefined).verbatim, 'string');
  });

  it('(d) everything else is verbatim, and says why', () => {
    const why = (result: unknown) => read(result, undefined, undefined).verbatim;
    assert.equal(why(textResult('All 12 rows are fine.', '"a JSON string"')), 'not-json');
    assert.equal(
      why({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }),
      'no-text',
    );
    assert.equal(why({ task: { taskId: 't1' } }), 'no-content');
    assert.equal(why({ ...textResult(pretty(rows)), isError: true }), 'error');
    assert.equal(why(textResult('[{"id": 9007199254740993}]')), 'unsafe-numbers');
    assert.equal(why(textResult('{"a":1}', 'then prose', '{"b":2}')), 'mixed');
    // A block with annotations cannot be merged without losing them.
    const annotated = {
      content: [text('{"a":1}'), { ...text('{"b":2}'), annotations: { priority: 1 } }],
    };
    assert.equal(why(annotated), 'mixed');
    assert.equal(read(textResult(pretty(rows)), { name: 'x' }, 'content').verbatim, 'content');
  });
});

describe('pick and ship: the text a result ships with', () => {
  it('rewrites data to the smaller encoding and names it in _meta, keeping other _meta', async () => {
    const { ship } = await setUp();
    const shipped = ship({ ...textResult(pretty({ items: rows })), _meta: { kept: 1 } });
    assert.equal(shipped.changed, true);
    assert.equal(shipped.strategy, 'toon');
    assert.equal((shipped.result as Shipped)._meta?.kept, 1);
    assert.deepEqual(decoded(shipped), { items: rows });
  });

  it('ships a FastMCP list as one table that decodes to the list, saying how many texts it merged', async () => {
    const { ship } = await setUp();
    const listed = orderRows(200).map(({ shipping: _, ...row }) => row);
    const shipped = ship(fastMcpList(listed));
    const result = shipped.result as Shipped;
    assert.equal(result.content.length, 1);
    assert.match(
      result.content[0]!.text,
      /^\[200\]\{id,customer,country,status,total,created_at\}:/,
    );
    assert.deepEqual(decoded(shipped), listed);
    assert.equal(result._meta?.['toonwire/mergedBlocks'], 200);
    assert.deepEqual(result.structuredContent, { result: listed });
  });

  it('keeps prose and images around the data where they were', async () => {
    const { ship } = await setUp();
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
    const shipped = ship({ content: [text('note'), text(pretty(rows)), image] });
    const result = shipped.result as Shipped;
    assert.equal(result.content[0]!.text, 'note');
    assert.deepEqual(decoded(shipped, 1), rows);
    assert.deepEqual(result.content[2], image);
    assert.deepEqual(shipped.texts().in, ['note', pretty(rows)]);
    assert.deepEqual(shipped.texts().out, ['note', result.content[1]!.text]);
  });

  for (const [why, result] of [
    ['an isError result', { ...textResult(pretty(rows)), isError: true }],
    ['a result without content (a task handle)', { task: { taskId: 't1', status: 'working' } }],
    ['text that is not JSON', textResult('All 12 rows are fine.')],
    ['text that only starts like JSON', textResult('{ not json')],
    ['JSON with integers beyond 2^53', textResult('[{"id": 9007199254740993}]')],
    ['already compact JSON that no candidate beats', textResult('{"a":[1,{"b":2}]}')],
    ['an image', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }],
    ['a string result, even one that parses as JSON', fastMcpString(pretty({ a: 1, b: [2, 3] }))],
  ] as const) {
    it(`ships ${why} as the same object`, async () => {
      const { ship } = await setUp();
      const shipped = ship(result);
      assert.equal(shipped.changed, false);
      assert.equal(shipped.result, result);
      assert.equal(shipped.strategy, 'verbatim');
    });
  }

  it('leaves the result itself untouched', async () => {
    const { ship } = await setUp();
    const input = fastMcpList(rows);
    const snapshot = structuredClone(input);
    ship(input, 'q', 'strip');
    assert.deepEqual(input, snapshot);
  });

  it('leaves alone the tools the rules name, and file contents (the content policy)', async () => {
    const file = pretty({ name: 'pkg', version: '1.0.0', dependencies: { a: '^1' } });
    const fileResult = textResult(file);
    const schema = { type: 'object', properties: { path: { type: 'string' } } };
    const tools = [
      { name: 'read_text_file' },
      { name: 'open_note', inputSchema: schema },
      { name: 'directory_tree', inputSchema: schema },
    ];
    const { ship } = await setUp({}, tools);
    for (const name of ['read_text_file', 'open_note']) {
      const shipped = ship(fileResult, name);
      assert.equal(shipped.result, fileResult, name);
      assert.equal(shipped.verbatim, 'content', name);
    }
    // A path argument alone does not make contents: directory_tree lists a directory as JSON.
    const tree = textResult(
      pretty([
        { name: 'a', type: 'file' },
        { name: 'b', children: [] },
      ]),
    );
    assert.equal(ship(tree, 'directory_tree').changed, true);
    // The user's word wins either way.
    for (const options of [
      { includeTools: ['read_text_file'] },
      { tools: ['read_text_file'] },
      { contentPolicy: false },
    ])
      assert.equal((await setUp(options, tools)).ship(fileResult, 'read_text_file').changed, true);
    const excluded = await setUp({ excludeTools: ['directory_tree'] }, tools);
    assert.equal(excluded.ship(tree, 'directory_tree').verbatim, 'excluded');
    const listed = await setUp({ tools: ['other'] }, tools);
    assert.equal(listed.ship(tree, 'directory_tree').verbatim, 'excluded');
    const config = await setUp(
      { config: parseProxyConfig('{"tools":{"directory_tree":{"compact":false}}}') },
      tools,
    );
    assert.equal(config.ship(tree, 'directory_tree').verbatim, 'config');
  });

  it("by: 'auto' (the default) keeps JSON where TOON saves bytes but costs tokens", async () => {
    // Two short rows: TOON is 20 bytes smaller, yet the picker's token guard keeps JSON.
    const data = {
      data: [
        { id: 1, sku: 'TEA' },
        { id: 2, sku: 'SCONE' },
      ],
    };
    const result = textResult(pretty(data));
    for (const by of [undefined, 'auto'] as const) {
      const shipped = (await setUp({ by })).ship(result).result as Shipped;
      assert.equal(shipped.content[0]!.text, JSON.stringify(data), `${by}`);
    }
    const bytes = (await setUp({ by: 'bytes' })).ship(result);
    assert.equal(bytes.strategy, 'toon');
    assert.deepEqual(decoded(bytes), data);
  });

  it('refuses invalid options up front', async () => {
    const fails = (options: PipelineOptions, message: RegExp) =>
      assert.rejects(
        createResultPipeline(options, () => {}),
        message,
      );
    await fails({ candidates: ['yaml' as never] }, /unknown candidate "yaml"/);
    await fails({ metaKey: '' }, /metaKey must be a non-empty string/);
    await fails(
      { structuredContent: 'drop' as never },
      /structuredContent must be 'auto', 'keep', 'add' or 'strip'/,
    );
    await fails({ hint: 'two\nlines' }, /hint must be/);
    await fails({ by: 'chars' as never }, /by must be 'auto', 'bytes' or 'tokens'/);
    await fails({ maxTokens: -1 }, /maxTokens must be a whole number/);
  });
});

function fastMcpString(value: string) {
  return { content: [text(value)], structuredContent: { result: value } };
}

describe('ship: structuredContent by mode', () => {
  const result = () => ({
    ...textResult(pretty({ items: rows })),
    structuredContent: { items: rows },
  });

  it('keep passes it through as the same object; strip removes it, from verbatim results too', async () => {
    const { ship } = await setUp();
    const kept = result();
    assert.equal(
      (ship(kept, 'q', 'keep').result as Shipped).structuredContent,
      kept.structuredContent,
    );
    assert.equal('structuredContent' in (ship(result(), 'q', 'strip').result as object), false);
    const error = { ...result(), isError: true };
    const stripped = ship(error, 'q', 'strip');
    assert.equal(stripped.changed, true);
    assert.equal('structuredContent' in (stripped.result as object), false);
  });

  it('add gives a rewritten object result the parsed JSON, only for tools known to declare no outputSchema', async () => {
    const { ship } = await setUp({}, [
      { name: 'plain' },
      { name: 'typed', outputSchema: { type: 'object' } },
    ]);
    const bare = textResult(pretty({ items: rows }));
    assert.deepEqual((ship(bare, 'plain', 'add').result as Shipped).structuredContent, {
      items: rows,
    });
    assert.equal('structuredContent' in (ship(bare, 'typed', 'add').result as object), false);
    assert.equal('structuredContent' in (ship(bare, 'unseen', 'add').result as object), false);
    // A list is not an object: nothing to add.
    const list = { content: rows.map((row) => text(pretty(row))) };
    assert.equal(ship(list, 'plain', 'add').strategy, 'toon');
    assert.equal('structuredContent' in (ship(list, 'plain', 'add').result as object), false);
  });

  it('an MCP Apps tool keeps structuredContent and outputSchema in every mode', async () => {
    const tools = [
      { name: 'get-time', outputSchema: { type: 'object' }, hasUi: true },
      { name: 'q', outputSchema: { type: 'object' } },
    ];
    const { ship, catalog } = await setUp({}, tools);
    for (const mode of ['keep', 'add', 'strip'] as const) {
      const app = result();
      assert.equal(
        (ship(app, 'get-time', mode).result as Shipped).structuredContent,
        app.structuredContent,
        mode,
      );
    }
    const listed = catalog.list(
      {
        tools: [
          {
            name: 'get-time',
            inputSchema: {},
            outputSchema: { type: 'object' },
            _meta: { 'ui/resourceUri': 'ui://t' },
          },
          { name: 'q', inputSchema: {}, outputSchema: { type: 'object' } },
        ],
      },
      'strip',
    );
    assert.deepEqual(listed?.tools, [
      {
        name: 'get-time',
        inputSchema: {},
        outputSchema: { type: 'object' },
        _meta: { 'ui/resourceUri': 'ui://t' },
      },
      { name: 'q', inputSchema: {} },
    ]);
  });
});

describe('project, then page: within a token budget, nothing lost', () => {
  const schema = { type: 'object', properties: { count: { type: 'number' } } };

  it('pages a result over budget into whole rows that reassemble to the list, other texts kept', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const all = orderRows(100) as unknown as JsonValue[];
    const fullTokens = countTokens(pick({ query: 'q', rows: all }).text);
    const budget = Math.ceil(fullTokens * 0.8); // the first page holds about 80% of the rows
    const { pipeline, ship } = await setUp({ maxTokens: budget }, [
      { name: 'q', inputSchema: schema },
    ]);
    const shipped = ship(textResult(JSON.stringify({ query: 'q', rows: all }), 'Query took 3 ms.'))
      .result as Shipped;
    assert.equal(shipped.content[1]!.text, 'Query took 3 ms.');
    assert.match(shipped.content[2]!.text, /^toonwire proxy: rows 1-\d+ of 100 of "rows"/);
    const tokens = shipped.content.reduce((sum, block) => sum + countTokens(block.text), 0);
    assert.ok(tokens <= budget, `${tokens} tokens over ${budget}`);
    assert.deepEqual(reassemble(pipeline, shipped), all);
    assert.equal(pipeline.pager?.cache.size.entries, 1);
  });

  it('pages a FastMCP list: 3,000 texts in, pages of one table each, the pages together equal the list', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const listed = orderRows(3000) as unknown as JsonValue[];
    const { pipeline, ship } = await setUp({ maxTokens: 2000 });
    const shipped = ship(fastMcpList(listed));
    const first = shipped.result as Shipped;
    assert.equal(first.content.length, 2);
    assert.match(first.content[1]!.text, /^toonwire proxy: rows 1-\d+ of 3000 of the result/);
    assert.ok(first.content.reduce((sum, b) => sum + countTokens(b.text), 0) <= 2000);
    assert.deepEqual(reassemble(pipeline, first), listed);
    assert.equal(first._meta?.['toonwire/mergedBlocks'], 3000);
  });

  it('cuts a long list into its first page without encoding the whole', async () => {
    const all = orderRows(2000) as unknown as JsonValue[];
    const encoded: number[] = [];
    const { pipeline, ship } = await setUp({ maxTokens: 2000 }, [
      { name: 'q', inputSchema: schema },
    ]);
    const encoder = (
      pipeline as unknown as {
        parts: { encoders: Map<string, { encode: (v: JsonValue) => unknown }> };
      }
    ).parts.encoders;
    for (const entry of encoder.values()) {
      const encode = entry.encode;
      entry.encode = (value) => {
        encoded.push(JSON.stringify(value).length);
        return encode(value);
      };
    }
    const whole = JSON.stringify({ query: 'q', rows: all }, null, 2);
    const shipped = ship(textResult(whole), 'q', 'keep', 'id,total').result as Shipped;
    assert.match(shipped.content.at(-1)!.text, /^toonwire proxy: rows 1-\d+ of 2000 of "rows"/);
    const projected = JSON.stringify(projectFields(all, 'id,total').value).length;
    assert.ok(Math.max(...encoded) < projected / 2, 'the whole list was encoded');
    assert.deepEqual(reassemble(pipeline, shipped), projectFields(all, 'id,total').value);
  });

  it('ships a list-less result over budget whole, with a warning that counts it', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const { ship } = await setUp({ maxTokens: 500, by: 'bytes' });
    const shipped = ship(textResult(JSON.stringify({ report: 'word '.repeat(3000), n: 1 })));
    const result = shipped.result as Shipped;
    assert.match(result.content[1]!.text, /over the budget of 500, and has no list of rows/);
    assert.equal(
      shipped.tokensOut,
      result.content.reduce((sum, b) => sum + countTokens(b.text), 0),
    );
  });

  it('keeps no pages of a result shipped whole, so other results keep theirs', async () => {
    // A cache so small that each entry added evicts every older one.
    const { pipeline, ship } = await setUp({ maxTokens: 2000, pageCacheBytes: 1 });
    const long = ship(textResult(pretty({ rows: orderRows(2000) }))).result as Shipped;
    const cursor = (long._meta!['toonwire/page'] as { nextCursor: string }).nextCursor;
    // Over the budget as pretty JSON, within it compacted: shipped whole, nothing cached.
    const short = ship(textResult(pretty({ rows: orderRows(40) }))).result as Shipped;
    assert.equal(short._meta?.['toonwire/page'], undefined);
    assert.equal(pipeline.pager?.cache.size.entries, 1);
    const next = await pipeline.more({ name: 'toonwire_more', arguments: { cursor } });
    assert.equal(next.isError, undefined);
  });

  it('leaves results within budget, errors and tools left alone untouched', async () => {
    const { ship } = await setUp({
      maxTokens: 50,
      config: parseProxyConfig('{"tools":{"raw":{"compact":false}}}'),
    });
    const big = pretty(orderRows(50));
    const raw = textResult(big);
    assert.equal(ship(raw, 'raw').result, raw);
    const error = { isError: true, ...textResult(big) };
    assert.equal(ship(error).result, error);
    assert.equal(ship(textResult('[{"a":1},{"a":2}]')).changed, false);
  });
});

describe('record: one strategy per result, bounded labels', () => {
  it('after 3,000-block results every metrics label value is at most 32 characters, and _meta stays small', async () => {
    const metrics = await ProxyMetrics.create({ defaultMetrics: false });
    const { ship } = await setUp({ metrics, maxTokens: 2000 });
    const big = fastMcpList(orderRows(3000));
    for (let i = 0; i < 3; i++) ship(big);
    ship({ content: Array.from({ length: 3000 }, (_, i) => text(`line ${i}`)) });
    ship({
      content: Array.from({ length: 3000 }, (_, i) => text(i % 2 ? pretty({ i }) : 'prose')),
    });
    const shipped = ship(big).result as Shipped;
    assert.ok(JSON.stringify(shipped._meta).length < 200, JSON.stringify(shipped._meta));
    const exposition = await metrics.text();
    const values = [...exposition.matchAll(/="([^"]*)"/g)].map((match) => match[1]!);
    assert.ok(values.length > 0);
    for (const value of values) assert.ok(value.length <= 32, `label value ${value.slice(0, 40)}…`);
    assert.match(exposition, /toonwire_proxy_tool_calls_total\{tool="q",strategy="verbatim"\} 2/);
    assert.match(exposition, /toonwire_proxy_passthrough_total\{tool="q",reason="mixed"\} 1/);
  });

  it('counts bytes and tokens of what the client saw, each text measured once', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const calls: ToolCallRecord[] = [];
    const metrics = {
      recordCall: (call: ToolCallRecord) => calls.push(call),
      observeUpstreamLatency: () => {},
      watchPageCache: () => {},
    } as unknown as ProxyMetrics;
    const stats = new ProxyStats();
    const { ship } = await setUp({ metrics, stats });
    const input = fastMcpList(rows);
    const shipped = ship(input).result as Shipped;
    const before = input.content.map((block) => block.text);
    const after = shipped.content.map((block) => block.text);
    const sum = (texts: string[], measure: (t: string) => number) =>
      texts.reduce((total, t) => total + measure(t), 0);
    assert.deepEqual(calls[0], {
      tool: 'q',
      strategy: 'toon',
      verbatim: undefined,
      bytesIn: sum(before, byteLength),
      bytesOut: sum(after, byteLength),
      tokensIn: sum(before, countTokens),
      tokensOut: sum(after, countTokens),
      pages: 0,
      caller: undefined, // no --listen caller here
    });
    const entry = stats.snapshot().q!;
    assert.equal(entry.tokensBefore, sum(before, countTokens));
    assert.equal(entry.bytesAfter, sum(after, byteLength));
    assert.deepEqual(entry.strategies, { toon: 1 });
    assert.match(stats.format(), /UTF-8 bytes and o200k_base tokens/);
  });

  it('writes counts in the thousands with separators in the --stats table', () => {
    const stats = new ProxyStats();
    const sizes = {
      strategy: 'toon',
      verbatim: undefined,
      tokensIn: undefined,
      tokensOut: undefined,
    };
    stats.record('q', { ...sizes, bytesIn: 1_234_567, bytesOut: 45_678 } as CallSizes);
    assert.match(stats.format(), /\b1,234,567\b.*\b45,678\b/);
  });
});
