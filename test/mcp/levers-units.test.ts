// The proxy levers' parts on their own: config validation and precedence, the fields argument
// and projection, page cutting and the page cache, the metrics registry.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../../src/codec/types.js';
import { loadTokenizer, parseCompact, pick } from '../../src/compact/index.js';
import { projectFields } from '../../src/mcp/fields.js';
import { parseProxyConfig, resolveToolSettings } from '../../src/mcp/proxy/config/config.js';
import {
  FIELDS_PARAM_DESCRIPTION,
  takeFieldsArgument,
  withFieldsParam,
} from '../../src/mcp/proxy/config/fields-param.js';
import {
  type Continuation,
  largestFitting,
  mainList,
  PageCache,
  Pager,
  pageValue,
  unknownCursorResult,
} from '../../src/mcp/proxy/paging/pages.js';
import { ProxyMetrics } from '../../src/mcp/proxy/telemetry/metrics.js';
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
      { tool: 'query', value, list: mainList(value)!, budget: 5000, encoder },
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
      page = (await pager.next(page.nextCursor))!.page;
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
      { tool: 'q', value: rows, list: mainList(rows)!, budget: 100, encoder },
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
      strategy: 'verbatim',
      verbatim: 'content',
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
      'toonwire_proxy_tool_calls_total{tool="read_file",strategy="verbatim"} 1',
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
