// The proxy levers' parts on their own: config validation and precedence, the fields argument
// and projection, page cutting and the page cache, the metrics registry.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../../src/codec/types.js';
import { byteLength, loadTokenizer, parseCompact, pick } from '../../src/compact/index.js';
import { parseProxyConfig, resolveToolSettings } from '../../src/mcp/proxy/config.js';
import {
  FIELDS_PARAM_DESCRIPTION,
  projectFields,
  takeFieldsArgument,
  withFieldsParam,
} from '../../src/mcp/proxy/fields-param.js';
import { createToolLevers, type ToolLevers } from '../../src/mcp/proxy/levers.js';
import { ProxyMetrics, type ToolCallRecord } from '../../src/mcp/proxy/metrics.js';
import {
  type Continuation,
  largestFitting,
  mainList,
  PageCache,
  Pager,
  pageValue,
  unknownCursorResult,
} from '../../src/mcp/proxy/paging.js';
import { ProxyStats } from '../../src/mcp/proxy/stats.js';
import { orderRows } from './fixtures/levers-upstream.mjs';

describe('--config', () => {
  it('parses global and per-tool settings', () => {
    const config = parseProxyConfig(
      JSON.stringify({
        maxTokens: 20000,
        candidates: 'all',
        tokenizer: 'cl100k_base',
        tools: { read_file: { compact: false }, query: { fields: 'id, total', by: 'tokens' } },
      }),
    );
    assert.equal(config.maxTokens, 20000);
    assert.deepEqual(config.candidates, ['json', 'toon', 'toon-flatten', 'toon-tab']);
    assert.equal(config.tools?.read_file?.compact, false);
    assert.equal(config.tools?.query?.fields, 'id,total');
  });

  it('names the bad key', () => {
    assert.throws(
      () => parseProxyConfig('{"tools":{"query":{"maxToken":5}}}', 'proxy.json'),
      /proxy\.json: unknown key "tools\.query\.maxToken"/,
    );
    assert.throws(() => parseProxyConfig('{"maxtokens":5}'), /unknown key "maxtokens"/);
    assert.throws(
      () => parseProxyConfig('{"tools":{"q":{"compact":"no"}}}'),
      /"tools\.q\.compact" must be true or false, got "no"/,
    );
    assert.throws(() => parseProxyConfig('{"candidates":["toon","yaml"]}'), /"candidates" must be/);
    assert.throws(() => parseProxyConfig('{"maxTokens":-1}'), /"maxTokens" must be a whole number/);
    assert.throws(() => parseProxyConfig('{"fields":"a,,b"}'), /"fields" must be/);
    assert.throws(() => parseProxyConfig('[1]'), /expected a JSON object/);
    assert.throws(() => parseProxyConfig('{'), /not JSON/);
  });

  it('flags win over the tool, the tool over the top level, the top level over defaults', () => {
    const config = parseProxyConfig(
      '{"maxTokens":5000,"fieldsParam":true,"tools":{"big":{"maxTokens":20000,"compact":false}}}',
    );
    assert.equal(resolveToolSettings(config, {}, 'big').maxTokens, 20000);
    assert.equal(resolveToolSettings(config, {}, 'other').maxTokens, 5000);
    assert.equal(resolveToolSettings(config, { maxTokens: 100 }, 'big').maxTokens, 100);
    assert.equal(resolveToolSettings(config, { maxTokens: 0 }, 'big').maxTokens, undefined);
    assert.equal(resolveToolSettings(config, {}, 'big').compact, false);
    assert.equal(resolveToolSettings(config, {}, 'other').fieldsParam, true);
    assert.deepEqual(resolveToolSettings({}, {}, 'x'), {
      compact: true,
      candidates: undefined,
      by: undefined,
      fields: undefined,
      maxTokens: undefined,
      fieldsParam: false,
    });
  });
});

describe('--fields-param', () => {
  it('adds an optional fields string to object input schemas only', () => {
    const tool = {
      name: 'q',
      inputSchema: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] },
    };
    const augmented = withFieldsParam(tool) as { inputSchema: Record<string, unknown> };
    assert.deepEqual(augmented.inputSchema.properties, {
      sql: { type: 'string' },
      fields: { type: 'string', description: FIELDS_PARAM_DESCRIPTION },
    });
    assert.deepEqual(augmented.inputSchema.required, ['sql']);
    assert.equal(
      withFieldsParam({ name: 'x', inputSchema: { type: 'object' } }) !== undefined,
      true,
    );
    assert.equal(
      withFieldsParam({ name: 'own', inputSchema: { type: 'object', properties: { fields: {} } } }),
      undefined,
    );
    assert.equal(withFieldsParam({ name: 'odd', inputSchema: { type: 'string' } }), undefined);
    assert.match(FIELDS_PARAM_DESCRIPTION, /structuredContent stays whole/);
  });

  it('takes the fields argument off the call', () => {
    assert.deepEqual(takeFieldsArgument({ sql: 'x', fields: ' id,total ' }), {
      args: { sql: 'x' },
      fields: 'id,total',
    });
    assert.deepEqual(takeFieldsArgument({ sql: 'x', fields: '' }), {
      args: { sql: 'x' },
      fields: undefined,
    });
    const args = { sql: 'x' };
    assert.equal(takeFieldsArgument(args).args, args);
  });

  it('projects, and says which fields exist when one does not', () => {
    const value = { query: 'q', rows: 2, items: orderRows(2) } as unknown as JsonValue;
    const good = projectFields(value, 'id,shipping.city');
    assert.equal(good.note, undefined);
    assert.deepEqual((good.value as { items: unknown[] }).items[0], {
      id: 100000,
      shipping: { city: 'city-0' },
    });
    const bad = projectFields(value, 'id,custmer');
    assert.match(bad.note!, /no item has "custmer"; the fields are id, customer, country/);
    assert.match(bad.note!, /shipping\.city/);
    const sql = { query: 'q', rowCount: 2, rows: orderRows(2) } as unknown as JsonValue;
    assert.deepEqual(projectFields(sql, 'id,total').value, {
      query: 'q',
      rowCount: 2,
      rows: [
        { id: 100000, total: 0.99 },
        { id: 100001, total: 1.36 },
      ],
    });
    const record = { id: 7, name: 'n', orders: [{ sku: 'a' }] } as JsonValue;
    assert.deepEqual(projectFields(record, 'id').value, { id: 7 });
    assert.deepEqual(projectFields(record, 'sku').value, {
      id: 7,
      name: 'n',
      orders: [{ sku: 'a' }],
    });
    const malformed = projectFields(value, 'id,,total');
    assert.equal(malformed.value, value);
    assert.match(malformed.note!, /fields ignored, the whole result follows/);
  });
});

describe('--max-tokens paging', () => {
  it('finds the largest count within the budget with few probes', () => {
    let probes = 0;
    const fitted = largestFitting(
      20000,
      (n) => {
        probes += 1;
        return { cost: 40 + 27 * n + Math.floor(n / 7), value: n };
      },
      20000,
    );
    const cost = (n: number) => 40 + 27 * n + Math.floor(n / 7);
    assert.ok(
      cost(fitted.count) <= 20000 && cost(fitted.count + 1) > 20000,
      `${fitted.count} is not the largest count within the budget`,
    );
    assert.ok(probes <= 12, `${probes} probes`);
    assert.equal(largestFitting(5, () => ({ cost: 99, value: 0 }), 10).count, 1);
    assert.equal(largestFitting(3, (n) => ({ cost: n, value: 0 }), 10).count, 3);
  });

  it('picks the main list', () => {
    assert.equal(mainList([1, 2])?.key, undefined);
    assert.equal(mainList({ data: [1], items: [1, 2] })?.key, 'items');
    assert.equal(mainList({ columns: ['a'], rows: [[1], [2]] })?.key, 'rows');
    assert.equal(mainList({ a: 1 }), undefined);
    const value = { q: 'x', rows: [1, 2, 3], n: 3 } as JsonValue;
    const list = mainList(value)!;
    assert.deepEqual(pageValue(value, list, 0, 2), { q: 'x', rows: [1, 2], n: 3 });
    assert.deepEqual(pageValue(value, list, 2, 3), { rows: [3] });
  });

  it('cuts pages within the budget that reassemble to the list', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const rows = orderRows(3000) as unknown as JsonValue[];
    const value: JsonValue = { query: 'select *', rowCount: 3000, rows };
    const pager = new Pager(new PageCache<Continuation>());
    const encoder = {
      encode: (page: JsonValue) => pick(page),
      countTokens,
    };
    let page = pager.first(
      { tool: 'query', value, list: mainList(value)!, budget: 5000, encoder, metaKey: 'k' },
      0,
    );
    const first = parseCompact(page.text, page.strategy) as { query: string; rows: JsonValue[] };
    assert.equal(first.query, 'select *');
    const all = [...first.rows];
    let pages = 1;
    while (page.nextCursor !== undefined) {
      assert.ok(
        countTokens(page.text) + countTokens(page.note) <= 5000,
        `rows ${page.from}-${page.to}`,
      );
      assert.match(page.note, /call toonwire_more with \{"cursor":"/);
      page = pager.next(page.nextCursor)!.page;
      const later = parseCompact(page.text, page.strategy) as { rows: JsonValue[] };
      assert.deepEqual(Object.keys(later), ['rows']);
      all.push(...later.rows);
      pages += 1;
    }
    assert.match(page.note, /rows \d+-3000 of 3000 of "rows"; this is the last page/);
    assert.deepEqual(all, rows);
    assert.ok(pages > 3 && pages < 40, `${pages} pages`);
  });

  it('counts the note a page ships in its tokens, also when one row alone is over the budget', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const rows = [{ text: 'many words '.repeat(400) }, { text: 'short' }] as JsonValue[];
    const pager = new Pager(new PageCache<Continuation>());
    const encoder = { encode: (page: JsonValue) => pick(page), countTokens };
    const page = pager.first(
      { tool: 'q', value: rows, list: mainList(rows)!, budget: 100, encoder, metaKey: 'k' },
      0,
    );
    assert.match(page.note, /over the budget of 100 tokens because one row alone is larger/);
    assert.equal(page.tokens, countTokens(page.text) + countTokens(page.note));
  });

  it('expires cursors and bounds its size', () => {
    let now = 0;
    const cache = new PageCache<string>({ ttlMs: 1000, maxBytes: 10, now: () => now });
    const a = cache.add('a', 6);
    now = 500;
    assert.equal(cache.get(a), 'a');
    now = 1400; // 900 ms after its last use
    assert.equal(cache.get(a), 'a');
    const b = cache.add('b', 6); // over 10 bytes: the least recently used goes
    assert.equal(cache.get(a), undefined);
    assert.equal(cache.get(b), 'b');
    now = 5000;
    assert.equal(cache.get(b), undefined);
    assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
    const result = unknownCursorResult('abc.10', 600000);
    assert.equal(result.isError, true);
    assert.match(
      result.content[0].text,
      /has expired or is unknown.*call the original tool again/i,
    );
  });
});

describe('--metrics', () => {
  it('exports the documented names and labels', async () => {
    const metrics = await ProxyMetrics.create({ defaultMetrics: false });
    metrics.recordCall({
      tool: 'query',
      strategy: 'toon',
      bytesIn: 100,
      bytesOut: 40,
      tokensOut: 12,
      pages: 1,
    });
    metrics.recordCall({
      tool: 'read_file',
      strategy: 'passthrough',
      passthrough: 'content',
      bytesIn: 5,
      bytesOut: 5,
      pages: 0,
    });
    metrics.recordPage('query', 30, 9);
    metrics.observeUpstreamLatency('query', 0.02);
    metrics.sessionChanged(1);
    metrics.upstreamStarted();
    const text = await metrics.text();
    for (const line of [
      'toonwire_proxy_tool_calls_total{tool="query",strategy="toon"} 1',
      'toonwire_proxy_tool_calls_total{tool="read_file",strategy="passthrough"} 1',
      'toonwire_proxy_tool_bytes_in_total{tool="query"} 100',
      'toonwire_proxy_tool_bytes_out_total{tool="query"} 70',
      'toonwire_proxy_tool_tokens_out_total{tool="query"} 21',
      'toonwire_proxy_pages_served_total{tool="query"} 2',
      'toonwire_proxy_passthrough_total{tool="read_file",reason="content"} 1',
      'toonwire_proxy_upstream_latency_seconds_count{tool="query"} 1',
      'toonwire_proxy_sessions 1',
      'toonwire_proxy_upstream_starts_total 1',
      'toonwire_proxy_upstream_failures_total 0',
      'toonwire_proxy_page_cache_entries 0',
    ]) {
      assert.ok(text.includes(line), `missing ${line}`);
    }
    const endpoint = await metrics.serve({ host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(endpoint.url);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type')!, /^text\/plain/);
      assert.ok((await response.text()).includes('toonwire_proxy_sessions 1'), 'no sessions gauge');
      assert.equal((await fetch(endpoint.url.replace('/metrics', '/'))).status, 404);
    } finally {
      await endpoint.close();
    }
  });
});

describe('the levers around the compactor', () => {
  const schema = { type: 'object', properties: { count: { type: 'number' } } };
  const textResult = (...texts: string[]) => ({
    content: texts.map((text) => ({ type: 'text', text })),
  });
  type Shipped = { content: Array<{ text: string }>; _meta?: Record<string, unknown> };

  /** Every row of a paged result, following its cursors through toonwire_more. */
  function reassemble(session: ReturnType<ToolLevers['session']>, first: Shipped): JsonValue[] {
    const rows: JsonValue[] = [];
    let page = first;
    for (;;) {
      const value = parseCompact(
        page.content[0]!.text,
        page._meta?.['toonwire/encodingStrategy'] as string,
      );
      rows.push(...(Array.isArray(value) ? value : (value as { rows: JsonValue[] }).rows));
      const cursor = (page._meta?.['toonwire/page'] as { nextCursor?: string } | undefined)
        ?.nextCursor;
      if (cursor === undefined) return rows;
      const plan = session.call({ name: 'toonwire_more', arguments: { cursor } });
      assert.equal(plan.kind, 'answer');
      page = (plan as unknown as { result: Shipped }).result;
    }
  }

  it('pages by the general way when the first page holds most rows, and keeps other texts', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const rows = orderRows(100) as unknown as JsonValue[];
    const whole = JSON.stringify({ query: 'q', rows });
    const fullTokens = countTokens(pick({ query: 'q', rows }).text);
    const budget = Math.ceil(fullTokens * 0.8); // the first page holds about 80% of the rows
    const levers = await createToolLevers({ maxTokens: budget });
    const session = levers.session();
    session.toolsList({ tools: [{ name: 'q', inputSchema: schema }] });
    const outcome = session.result(
      textResult(whole, 'Query took 3 ms.'),
      { tool: 'q', fields: undefined, started: 0 },
      'none',
    );
    const shipped = outcome.result as Shipped;
    assert.equal(shipped.content[1]!.text, 'Query took 3 ms.');
    assert.match(shipped.content[2]!.text, /^toonwire proxy: rows 1-\d+ of 100 of "rows"/);
    const tokens = shipped.content.reduce((sum, block) => sum + countTokens(block.text), 0);
    assert.ok(tokens <= budget, `${tokens} tokens over ${budget}`);
    assert.deepEqual(reassemble(session, shipped), rows);
    // The quick first cut was dropped (it held most rows); only the general way's rest is kept.
    assert.equal(levers.pager?.cache.size.entries, 1);
  });

  /** Levers whose token counts are recorded, text by text, and whose metrics are kept. */
  async function countingLevers(options: Parameters<typeof createToolLevers>[0]) {
    const counted: string[] = [];
    const calls: ToolCallRecord[] = [];
    const metrics = {
      recordCall: (record: ToolCallRecord) => calls.push(record),
      observeUpstreamLatency: () => {},
      watchPageCache: () => {},
      recordPage: () => {},
    } as unknown as ProxyMetrics;
    const levers = await createToolLevers({ ...options, metrics });
    const count = levers.tokens.bind(levers);
    levers.tokens = (text: string) => {
      counted.push(text);
      return count(text);
    };
    const session = levers.session();
    session.toolsList({ tools: [{ name: 'q', inputSchema: schema }] });
    return { levers, session, counted, calls };
  }

  it('counts each text once for the budget, the warning and the metrics', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    // Over the budget and no list to page: the warning says how many tokens it is.
    const whole = JSON.stringify({ report: 'word '.repeat(3000), n: 1 });
    const { session, counted, calls } = await countingLevers({ maxTokens: 500, by: 'bytes' });
    const shipped = session.result(
      textResult(whole),
      { tool: 'q', fields: undefined, started: 0 },
      'none',
    ).result as Shipped;
    const text = shipped.content[0]!.text;
    assert.match(shipped.content[1]!.text, /over the budget of 500, and has no list of rows/);
    assert.equal(counted.filter((counting) => counting === text).length, 1);
    assert.equal(
      calls[0]?.tokensOut,
      shipped.content.reduce((sum, block) => sum + countTokens(block.text), 0),
    );
  });

  it('cuts a long list into its first page without compacting the whole, and counts nothing again for the metrics', async () => {
    const countTokens = await loadTokenizer('o200k_base');
    const rows = orderRows(2000) as unknown as JsonValue[];
    const whole = JSON.stringify({ query: 'q', rows }, null, 2);
    const { levers, session, counted, calls } = await countingLevers({ maxTokens: 2000 });
    const compactor = levers.compactorFor(levers.settingsFor('q'));
    let compacted = 0;
    const compact = compactor.compact.bind(compactor);
    compactor.compact = (...args) => {
      compacted += 1;
      return compact(...args);
    };
    const shipped = session.result(
      textResult(whole),
      { tool: 'q', fields: 'id,total', started: 0 },
      'none',
    ).result as Shipped;
    assert.match(shipped.content.at(-1)!.text, /^toonwire proxy: rows 1-\d+ of 2000 of "rows"/);
    assert.equal(compacted, 0);
    // The pager counted the page it cut; the metrics reuse that count.
    assert.equal(counted.filter((text) => text === shipped.content[0]!.text).length, 1);
    assert.equal(
      calls[0]?.tokensOut,
      shipped.content.reduce((sum, block) => sum + countTokens(block.text), 0),
    );
    assert.deepEqual(reassemble(session, shipped), projectFields(rows, 'id,total').value);
  });

  it('keeps no pages of a result that is not paged, so other results keep theirs', async () => {
    // A cache so small that each entry added evicts every older one.
    const levers = await createToolLevers({ maxTokens: 2000, pageCacheBytes: 1 });
    const session = levers.session();
    session.toolsList({ tools: [{ name: 'q', inputSchema: schema }] });
    const call = { tool: 'q', fields: undefined, started: 0 };
    const long = textResult(JSON.stringify({ rows: orderRows(2000) }, null, 2));
    const first = session.result(long, call, 'none').result as Shipped;
    const cursor = (first._meta!['toonwire/page'] as { nextCursor: string }).nextCursor;
    // Over the budget as pretty JSON, within it compacted: shipped whole, nothing cached.
    const short = textResult(JSON.stringify({ rows: orderRows(40) }, null, 2));
    const whole = session.result(short, call, 'none').result as Shipped;
    assert.equal(whole._meta?.['toonwire/page'], undefined);
    assert.equal(levers.pager?.cache.size.entries, 1);
    const next = session.call({ name: 'toonwire_more', arguments: { cursor } });
    assert.equal((next as { result: { isError?: boolean } }).result.isError, undefined);
  });

  it('--stats counts in its own unit a tool that --config gives another measure', async () => {
    const levers = await createToolLevers({
      config: parseProxyConfig('{"tools":{"t":{"by":"tokens"}}}'),
    });
    const session = levers.session();
    session.toolsList({ tools: [{ name: 't', inputSchema: schema }] });
    const text = JSON.stringify(orderRows(30), null, 2);
    const outcome = session.result(
      textResult(text),
      { tool: 't', fields: undefined, started: 0 },
      'none',
    );
    const stats = new ProxyStats(); // the default measure: UTF-8 bytes
    stats.record('t', outcome);
    const shipped = (outcome.result as Shipped).content[0]!.text;
    assert.notEqual(shipped, text);
    assert.equal(stats.snapshot().t?.sizeBefore, byteLength(text));
    assert.equal(stats.snapshot().t?.sizeAfter, byteLength(shipped));
  });

  it('leaves results within budget, errors and excluded tools alone', async () => {
    const session = (
      await createToolLevers({
        maxTokens: 50,
        config: parseProxyConfig('{"tools":{"raw":{"compact":false}}}'),
      })
    ).session();
    const call = (tool: string) => ({ tool, fields: undefined, started: 0 });
    const big = JSON.stringify(orderRows(50), null, 2);
    const raw = textResult(big);
    assert.equal(session.result(raw, call('raw'), 'none').result, raw);
    const error = { isError: true, ...textResult(big) };
    assert.equal(session.result(error, call('q'), 'none').result, error);
    const small = textResult('[{"a":1},{"a":2}]');
    assert.equal(session.result(small, call('q'), 'none').changed, false);
  });
});
