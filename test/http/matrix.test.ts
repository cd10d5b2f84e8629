// The behaviour matrix: one table of cases, run over real HTTP against the Fastify, Express and
// Hono example apps (127.0.0.1, ephemeral ports, closed after each adapter's suite).

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { OrdersAppOptions } from '../../examples/http/orders.js';
import { encode } from '../../src/codec/encode.js';
import { pick } from '../../src/compact/pick.js';
import { mediaTypeOf, notFoundProblem } from '../../src/http/index.js';
import { hangGuardMs } from '../support/patience.js';
import {
  BUFFER_JSON,
  DATA,
  DEEP_LEVELS,
  FIELD_ADAPTERS,
  type FieldOptions,
  type FieldServer,
  GONE,
  PRESERIALIZED,
  STREAM_CHUNKS,
  TAGGED_HEADERS,
  TEAPOT_TEXT,
  TWIN_KINDS,
} from './field-apps.js';
import {
  ADAPTERS,
  type AdapterName,
  type AppServer,
  examplePool,
  type HttpResponse,
  profileOf,
  ServerPool,
  send,
  wire,
} from './harness.js';

interface MatrixCase {
  it: string;
  options?: Omit<OrdersAppOptions, 'store'>;
  run(server: AppServer): Promise<void>;
}

const ORDERS_PAGE = '/orders?limit=2';

function assertVaryAccept(response: HttpResponse): void {
  const vary = response.headers.get('vary') ?? '';
  assert.ok(/(^|,\s*)accept(\s*,|$)/i.test(vary), `expected Vary to include Accept, got "${vary}"`);
}

function assertFormat(response: HttpResponse, format: 'json' | 'toon'): void {
  if (format === 'toon')
    assert.equal(response.headers.get('content-type'), 'text/toon; charset=utf-8');
  else assert.equal(response.mediaType, 'application/json');
}

function assertProblem(
  response: HttpResponse,
  format: 'json' | 'toon',
  status: number,
): Record<string, unknown> {
  assert.equal(response.status, status, response.text);
  if (format === 'toon') {
    assert.equal(response.headers.get('content-type'), 'text/toon; charset=utf-8; profile=problem');
  } else {
    assert.equal(response.mediaType, 'application/problem+json');
    assert.equal(profileOf(response), undefined);
  }
  assertVaryAccept(response);
  const problem = response.data as Record<string, unknown>;
  assert.equal(problem.type, 'about:blank');
  assert.equal(problem.status, status);
  assert.equal(typeof problem.title, 'string');
  assert.equal(typeof problem.detail, 'string');
  return problem;
}

/** GET /orders?limit=2 with this Accept answers in `expected`, carrying the same page as the store. */
function acceptCase(
  accept: string | undefined,
  expected: 'json' | 'toon',
  defaultFormat: 'json' | 'toon' = 'json',
): MatrixCase {
  const sent = accept === undefined ? 'no Accept' : `Accept: ${accept}`;
  return {
    it: `answers ${expected.toUpperCase()} to ${sent} when the default is ${defaultFormat}`,
    options: defaultFormat === 'json' ? {} : { defaultFormat },
    async run(server) {
      const response = await send(server, {
        path: ORDERS_PAGE,
        headers: accept === undefined ? {} : { accept },
      });
      assert.equal(response.status, 200, response.text);
      assertFormat(response, expected);
      assertVaryAccept(response);
      assert.deepEqual(response.data, wire(server.store.list(2)));
    },
  };
}

const ORDER = {
  items: [
    { sku: 'CAKE, LEMON', quantity: 1, unitPriceCents: 450 },
    { sku: 'TEA', quantity: 2, unitPriceCents: 300 },
  ],
  note: 'ring twice: "back door" — merci',
};

// The same order written by hand in TOON, with a field the schemas do not know.
const ORDER_TOON = [
  'items[2]{sku,quantity,unitPriceCents}:',
  '  "CAKE, LEMON",1,450',
  '  TEA,2,300',
  'note: "ring twice: \\"back door\\" — merci"',
  'coupon: SPRING',
].join('\n');

const INVALID_ORDERS: ReadonlyArray<{ name: string; body: unknown }> = [
  {
    name: 'a quantity below the minimum',
    body: { items: [{ sku: 'TEA', quantity: 0, unitPriceCents: 300 }] },
  },
  { name: 'a missing required field', body: { note: 'no items' } },
  {
    name: 'a string where an integer belongs',
    body: { items: [{ sku: 'TEA', quantity: 'two', unitPriceCents: 300 }] },
  },
  { name: 'an empty items array', body: { items: [] } },
];

function post(server: AppServer, contentType: string, body: string, accept = 'application/json') {
  return send(server, {
    method: 'POST',
    path: '/orders',
    headers: { 'content-type': contentType, accept },
    body,
  });
}

const CASES: MatrixCase[] = [
  // Accept negotiation: q-values, wildcards, specificity, defaults.
  acceptCase(undefined, 'json'),
  acceptCase('application/json', 'json'),
  acceptCase('text/toon', 'toon'),
  acceptCase('TEXT/TOON', 'toon'),
  acceptCase('text/toon; charset=utf-8', 'toon'),
  acceptCase('*/*', 'json'),
  acceptCase('*/*', 'toon', 'toon'),
  acceptCase(undefined, 'toon', 'toon'),
  acceptCase('application/json', 'json', 'toon'),
  acceptCase('text/*', 'toon'),
  acceptCase('application/*', 'json', 'toon'),
  acceptCase('text/toon;q=0.5, application/json', 'json', 'toon'),
  acceptCase('application/json;q=0.4, text/toon;q=0.9', 'toon'),
  acceptCase('text/toon, */*;q=0.1', 'toon'),
  acceptCase('*/*, text/toon;q=0', 'json', 'toon'),
  acceptCase('image/png', 'json'),
  acceptCase('image/png', 'toon', 'toon'),
  // Issue 15, defect 1: equal preference is never decided by order, in either order.
  acceptCase('text/toon, application/json', 'json'),
  acceptCase('application/json, text/toon', 'json'),
  acceptCase('text/toon, application/json', 'toon', 'toon'),
  acceptCase('application/json, text/toon', 'toon', 'toon'),
  acceptCase('text/toon;q=0.8, application/json;q=0.8', 'json'),
  acceptCase('application/json;q=0.8, text/toon;q=0.8', 'toon', 'toon'),
  // Specificity: a named type beats a wildcard at the same q (axios sends this header).
  acceptCase('application/json, text/plain, */*', 'json', 'toon'),
  acceptCase('text/*, application/json', 'json', 'toon'),
  // JSON is sent as application/json; charset=utf-8, so a client naming exactly that (Spring's
  // APPLICATION_JSON_UTF8 does) asks for JSON, under a TOON default too; utf8 reads as utf-8.
  acceptCase('application/json; charset=utf-8', 'json', 'toon'),
  acceptCase('application/json;charset=UTF-8, */*', 'json', 'toon'),
  acceptCase('text/toon; charset=utf8', 'toon'),
  // Issue 15, defect 2: a type refused with q=0 is never sent, even as the default.
  acceptCase('text/toon;q=0', 'json', 'toon'),
  acceptCase('application/json;q=0', 'toon'),
  acceptCase('text/toon;q=0, */*', 'json', 'toon'),
  {
    it: 'answers 406 with a JSON problem when Accept refuses both JSON and TOON (issue 15, defect 2)',
    options: { defaultFormat: 'toon' },
    async run(server) {
      for (const accept of ['text/toon;q=0, application/json;q=0', '*/*;q=0']) {
        const response = await send(server, { path: ORDERS_PAGE, headers: { accept } });
        const problem = assertProblem(response, 'json', 406);
        assert.match(String(problem.detail), /refuses both/);
      }
    },
  },

  {
    it: 'follows a default changed at runtime through the exposed settings, on the next request',
    async run(server) {
      try {
        server.settings.defaultFormat = 'toon';
        const toon = await send(server, { path: ORDERS_PAGE });
        assertFormat(toon, 'toon');
        assert.deepEqual(toon.data, wire(server.store.list(2)));
        const asked = await send(server, {
          path: ORDERS_PAGE,
          headers: { accept: 'application/json' },
        });
        assertFormat(asked, 'json');
        server.settings.defaultFormat = 'json';
        assertFormat(await send(server, { path: ORDERS_PAGE }), 'json');
        assert.throws(() => {
          server.settings.defaultFormat = 'xml' as never;
        }, TypeError);
      } finally {
        server.settings.defaultFormat = 'json';
      }
    },
  },
  {
    it: "with defaultFormat 'auto', answers the picker's choice (never more tokens than JSON), labelled with its Content-Type",
    options: { defaultFormat: 'auto' },
    async run(server) {
      const auto = await send(server, { path: '/orders?limit=20' });
      const json = await send(server, {
        path: '/orders?limit=20',
        headers: { accept: 'application/json' },
      });
      const toon = await send(server, {
        path: '/orders?limit=20',
        headers: { accept: 'text/toon' },
      });
      assertFormat(json, 'json');
      assertFormat(toon, 'toon');
      assertVaryAccept(auto);
      const chosen = pick(json.data, { candidates: ['json', 'toon'] }).strategy;
      assertFormat(auto, chosen === 'json' ? 'json' : 'toon');
      assert.equal(auto.text, chosen === 'json' ? json.text : toon.text);
      assert.ok(countTokens(auto.text) <= countTokens(json.text), 'no more o200k tokens than JSON');
      assert.deepEqual(auto.data, json.data);
    },
  },
  {
    it: "writes TOON tables with the configured '|' delimiter",
    options: { delimiter: '|' },
    async run(server) {
      const response = await send(server, { path: ORDERS_PAGE, headers: { accept: 'text/toon' } });
      assertFormat(response, 'toon');
      assert.match(
        response.text,
        /items\[2\|\]\{sku\|quantity\|unitPriceCents\}:\n\s+TEA\|2\|300\n\s+CAKE, LEMON\|1\|450/,
      );
      assert.deepEqual(response.data, wire(server.store.list(2)));
    },
  },
  {
    it: 'writes TOON tables with the configured tab delimiter',
    options: { delimiter: '\t' },
    async run(server) {
      const response = await send(server, { path: ORDERS_PAGE, headers: { accept: 'text/toon' } });
      assertFormat(response, 'toon');
      assert.match(response.text, /items\[2\t\]\{sku\tquantity\tunitPriceCents\}:\n\s+TEA\t2\t300/);
      assert.deepEqual(response.data, wire(server.store.list(2)));
    },
  },

  // Request bodies.
  {
    it: 'gives the handler identical input for the same order sent as JSON and as TOON (unknown fields dropped alike)',
    async run(server) {
      const fromJson = await post(
        server,
        'application/json',
        JSON.stringify({ ...ORDER, coupon: 'SPRING' }),
      );
      const fromToon = await post(server, 'text/toon', ORDER_TOON);
      assert.equal(fromJson.status, 201, fromJson.text);
      assert.equal(fromToon.status, 201, fromToon.text);
      const [jsonInput, toonInput] = server.store.created.slice(-2);
      assert.deepEqual(wire(toonInput), wire(jsonInput));
      assert.deepEqual(wire(jsonInput), ORDER);
      const { id: _jsonId, ...jsonOrder } = fromJson.data as Record<string, unknown>;
      const { id: _toonId, ...toonOrder } = fromToon.data as Record<string, unknown>;
      assert.deepEqual(toonOrder, jsonOrder);
    },
  },
  {
    it: 'reads a TOON body produced by the encoder, with charset=utf-8, into the same input as JSON',
    async run(server) {
      const response = await post(server, 'text/toon; charset=utf-8', encode(ORDER), 'text/toon');
      assert.equal(response.status, 201, response.text);
      assertFormat(response, 'toon');
      assert.deepEqual(wire(server.store.created.at(-1)), ORDER);
    },
  },
  ...INVALID_ORDERS.map(
    ({ name, body }): MatrixCase => ({
      it: `rejects ${name} identically whether the body is JSON or TOON`,
      async run(server) {
        const before = server.store.created.length;
        const fromJson = await post(server, 'application/json', JSON.stringify(body));
        const fromToon = await post(server, 'text/toon', encode(body));
        const problem = assertProblem(fromJson, 'json', 400);
        assert.deepEqual(assertProblem(fromToon, 'json', 400), problem);
        assert.ok(
          Array.isArray(problem.errors) && problem.errors.length > 0,
          'expected an errors list',
        );
        assert.equal(server.store.created.length, before, 'no handler ran');
      },
    }),
  ),
  {
    it: 'answers a malformed TOON body with a 400 problem naming line and column',
    async run(server) {
      const response = await post(
        server,
        'text/toon',
        'items[1]{sku,quantity,unitPriceCents}:\n  TEA,2\n',
        'text/toon',
      );
      const problem = assertProblem(response, 'toon', 400);
      assert.equal(problem.line, 2);
      assert.equal(typeof problem.column, 'number');
      assert.match(
        String(problem.detail),
        new RegExp(`line 2, column ${String(problem.column)}\\b`),
      );
      assert.equal(problem.instance, '/orders');
    },
  },
  {
    it: 'answers a TOON body that breaks strict mode (duplicate key) with a 400 problem',
    async run(server) {
      const response = await post(server, 'text/toon', 'note: a\nnote: b');
      const problem = assertProblem(response, 'json', 400);
      assert.equal(problem.line, 2);
      assert.match(String(problem.detail), /line 2, column \d+/);
    },
  },
  {
    it: 'refuses JSON and TOON bodies over the same size limit with a 413 problem',
    options: { bodyLimit: 300 },
    async run(server) {
      const big = {
        items: [{ sku: 'TEA', quantity: 1, unitPriceCents: 1 }],
        note: 'x'.repeat(400),
      };
      assertProblem(
        await post(server, 'application/json', JSON.stringify(big), 'text/toon'),
        'toon',
        413,
      );
      assertProblem(await post(server, 'text/toon', encode(big), 'text/toon'), 'toon', 413);
      assertProblem(await post(server, 'text/toon', encode(big)), 'json', 413);
      const small = await post(server, 'text/toon', encode(ORDER));
      assert.equal(small.status, 201, small.text);
    },
  },
  {
    it: 'refuses a request body of an unsupported Content-Type with a 415 problem',
    async run(server) {
      assertProblem(await post(server, 'application/xml', '<order/>', 'text/toon'), 'toon', 415);
      assertProblem(
        await post(server, 'application/x-www-form-urlencoded', 'items=none'),
        'json',
        415,
      );
    },
  },
  {
    it: 'refuses a TOON body declared in a charset other than UTF-8 with a 415 problem',
    async run(server) {
      assertProblem(
        await post(server, 'text/toon; charset=iso-8859-1', encode(ORDER)),
        'json',
        415,
      );
    },
  },

  // Problem documents from the framework's error handling.
  {
    it: 'negotiates problem documents thrown by handlers: TOON with profile=problem, or application/problem+json',
    async run(server) {
      const toon = assertProblem(
        await send(server, { path: '/orders/nope', headers: { accept: 'text/toon' } }),
        'toon',
        404,
      );
      assert.equal(toon.title, 'Not Found');
      assert.equal(toon.instance, '/orders/nope');
      assert.match(String(toon.detail), /nope/);
      const json = assertProblem(
        await send(server, { path: '/orders/nope', headers: { accept: 'application/json' } }),
        'json',
        404,
      );
      assert.deepEqual(json, toon);
      assertProblem(
        await send(server, {
          path: '/orders/nope',
          headers: { accept: 'application/problem+json' },
        }),
        'json',
        404,
      );
      assertProblem(
        await send(server, {
          path: '/orders/nope',
          headers: { accept: 'text/toon; profile=problem' },
        }),
        'toon',
        404,
      );
      assertProblem(await send(server, { path: '/orders/nope' }), 'json', 404);
    },
  },
  {
    it: 'negotiates problem documents with the default format when Accept states no preference',
    options: { defaultFormat: 'toon' },
    async run(server) {
      assertProblem(await send(server, { path: '/orders/nope' }), 'toon', 404);
      assertProblem(
        await send(server, { path: '/orders/nope', headers: { accept: '*/*' } }),
        'toon',
        404,
      );
    },
  },
  {
    it: 'never sends a problem document in a refused format, nor decides one by entry order',
    options: { defaultFormat: 'toon' },
    async run(server) {
      for (const accept of ['text/toon;q=0', 'text/toon; profile=problem;q=0']) {
        assertProblem(
          await send(server, { path: '/orders/nope', headers: { accept } }),
          'json',
          404,
        );
      }
      assertProblem(
        await send(server, { path: '/orders/nope', headers: { accept: 'application/json;q=0' } }),
        'toon',
        404,
      );
      for (const accept of [
        'application/problem+json, text/toon; profile=problem',
        'text/toon; profile=problem, application/problem+json',
      ]) {
        assertProblem(
          await send(server, { path: '/orders/nope', headers: { accept } }),
          'toon',
          404,
        );
      }
    },
  },
  {
    it: 'answers unknown routes with a negotiated 404 problem',
    async run(server) {
      const problem = assertProblem(
        await send(server, { path: '/no/such/route', headers: { accept: 'text/toon' } }),
        'toon',
        404,
      );
      assert.equal(problem.instance, '/no/such/route');
    },
  },
  {
    it: 'reports query validation failures as negotiated 400 problems',
    async run(server) {
      const problem = assertProblem(
        await send(server, { path: '/orders?limit=0', headers: { accept: 'text/toon' } }),
        'toon',
        400,
      );
      assert.match(String(problem.detail), /querystring/);
    },
  },

  // OpenAPI.
  {
    it: 'serves an OpenAPI document listing text/toon next to every JSON body and problem',
    async run(server) {
      const response = await send(server, {
        path: '/openapi.json',
        headers: { accept: 'application/json' },
      });
      assert.equal(response.status, 200);
      const document = response.data as {
        openapi: string;
        paths: Record<string, Record<string, any>>;
      };
      assert.match(document.openapi, /^3\./);
      let jsonBodies = 0;
      let problems = 0;
      for (const pathItem of Object.values(document.paths)) {
        for (const operation of Object.values(pathItem)) {
          const holders = [operation.requestBody, ...Object.values(operation.responses ?? {})];
          for (const holder of holders) {
            const content = (holder as { content?: Record<string, unknown> } | undefined)?.content;
            if (content === undefined) continue;
            if ('application/json' in content) {
              jsonBodies++;
              assert.deepEqual(content['text/toon'], content['application/json']);
            }
            if ('application/problem+json' in content) {
              problems++;
              assert.deepEqual(
                content['text/toon; profile=problem'],
                content['application/problem+json'],
              );
            }
          }
        }
      }
      assert.ok(
        document.paths['/orders']?.post?.requestBody?.content?.['text/toon'],
        'POST /orders lists a TOON body',
      );
      assert.ok(jsonBodies >= 4, `expected JSON bodies and responses, found ${jsonBodies}`);
      assert.ok(problems >= 3, `expected problem responses, found ${problems}`);
    },
  },
];

for (const adapter of ADAPTERS) {
  describe(`HTTP negotiation through the ${adapter.name} adapter`, () => {
    const pool = examplePool(adapter.start);
    after(() => pool.closeAll());
    for (const testCase of CASES) {
      it(testCase.it, async () => testCase.run(await pool.get(testCase.options)));
    }
  });
}

// The field matrix: issue 15's defects, one table run against the same small app on every
// adapter (test/http/field-apps.ts), over real HTTP.
interface FieldCase {
  it: string;
  options?: FieldOptions;
  run(server: FieldServer, adapter: AdapterName): Promise<void>;
}

const TOON_ACCEPT = { accept: 'text/toon' };
const JSON_ACCEPT = { accept: 'application/json' };

/** `promise`, or a rejection once a hang guard of `ms` (scaled: hangGuardMs) has passed. */
function timeout<T>(promise: Promise<T>, baseMs: number, what: string): Promise<T> {
  const ms = hangGuardMs(baseMs);
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function echo(server: FieldServer, contentType: string, body: string | Uint8Array) {
  return send(server, {
    method: 'POST',
    path: '/echo',
    headers: { 'content-type': contentType, accept: 'application/json' },
    body,
  });
}

/** The same body as JSON and as TOON gets the same answer, the framework's own for JSON. */
function parityCase(name: string, body: string, status: Record<AdapterName, number>): FieldCase {
  return {
    it: `treats ${name} in TOON exactly as the framework treats it in JSON (defect 10)`,
    async run(server, adapter) {
      const json = await echo(server, 'application/json', body);
      const toon = await echo(server, 'text/toon', body);
      assert.equal(json.status, status[adapter], json.text);
      assert.equal(toon.status, json.status, toon.text);
      if (json.status === 200) assert.deepEqual(toon.data, json.data);
      else assertProblem(toon, 'json', json.status);
    },
  };
}

const FIELD_CASES: FieldCase[] = [
  {
    it: 'negotiates an object the framework would serialize as JSON (the control case)',
    async run(server) {
      const toon = await send(server, { path: '/data', headers: TOON_ACCEPT });
      assertFormat(toon, 'toon');
      assertVaryAccept(toon);
      assert.deepEqual(toon.data, DATA);
    },
  },
  {
    it: 'streams a JSON stream as it is produced, untouched (defect 3: buffered, or 500 for string chunks)',
    async run(server) {
      const decoder = new TextDecoder();
      let text = '';
      let reader: ReadableStreamDefaultReader<Uint8Array>;
      try {
        // The second chunk is held back until released: a buffering adapter shows nothing.
        const response = await timeout(
          fetch(`${server.url}/stream`, { headers: TOON_ACCEPT }),
          3000,
          'the response head',
        );
        assert.equal(response.status, 200);
        assert.equal(mediaTypeOf(response.headers.get('content-type')), 'application/json');
        reader = (response.body as ReadableStream<Uint8Array>).getReader();
        while (text.length < STREAM_CHUNKS[0].length) {
          const { value, done } = await timeout(reader.read(), 3000, 'the first chunk');
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        assert.equal(text, STREAM_CHUNKS[0]);
      } finally {
        server.release();
      }
      for (;;) {
        const { value, done } = await timeout(reader.read(), 3000, 'the rest');
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      assert.equal(text, STREAM_CHUNKS.join(''));
    },
  },
  {
    it: 'sends a Buffer labelled application/json untouched',
    async run(server) {
      const response = await send(server, { path: '/buffer', headers: TOON_ACCEPT });
      assert.equal(response.mediaType, 'application/json');
      assert.equal(response.text, BUFFER_JSON);
    },
  },
  {
    it: 'sends a pre-serialized JSON string untouched, digits intact (defect 3: precision loss)',
    async run(server) {
      const response = await send(server, { path: '/preserialized', headers: TOON_ACCEPT });
      assert.equal(response.mediaType, 'application/json');
      assert.equal(response.text, PRESERIALIZED);
    },
  },
  {
    it: 'keeps a Content-Type the handler set explicitly (defect 3: re-encoded anyway)',
    async run(server, adapter) {
      const response = await send(server, { path: '/explicit', headers: TOON_ACCEPT });
      assert.equal(
        mediaTypeOf(response.headers.get('content-type')),
        adapter === 'fastify' || adapter === 'koa'
          ? 'application/vnd.api+json'
          : 'application/json',
      );
      assert.deepEqual(JSON.parse(response.text), DATA);
    },
  },
  {
    it: 'lets a route opt out: JSON and JSON problems whatever Accept and the default say (defect 4)',
    options: { defaultFormat: 'toon' },
    async run(server) {
      for (const headers of [TOON_ACCEPT, {}]) {
        const response = await send(server, { path: '/opt-out', headers });
        assertFormat(response, 'json');
        assert.deepEqual(response.data, DATA);
        const failed = await send(server, { path: '/opt-out?fail=1', headers });
        assert.equal(failed.status, 400);
        assert.equal(failed.mediaType, 'application/problem+json');
      }
      assertFormat(await send(server, { path: '/data' }), 'toon');
    },
  },
  {
    it: 'never sends the JSON ETag on the TOON representation (defect 3: wrong 304)',
    async run(server) {
      const json = await send(server, { path: '/etag', headers: JSON_ACCEPT });
      assert.equal(json.headers.get('etag'), '"v1"');
      const toon = await send(server, { path: '/etag', headers: TOON_ACCEPT });
      assertFormat(toon, 'toon');
      assertVaryAccept(toon);
      assert.notEqual(toon.headers.get('etag'), '"v1"');
      const conditional = await send(server, {
        path: '/etag',
        headers: { ...TOON_ACCEPT, 'if-none-match': '"v1"' },
      });
      assert.equal(conditional.status, 200);
      assertFormat(conditional, 'toon');
    },
  },
  {
    it: "sends an HttpProblem's headers on the response, never in the document (defect 8)",
    async run(server) {
      for (const headers of [TOON_ACCEPT, JSON_ACCEPT]) {
        const format = headers === TOON_ACCEPT ? 'toon' : 'json';
        const allow = await send(server, { path: '/allow', headers });
        const problem = assertProblem(allow, format, 405);
        assert.equal(allow.headers.get('allow'), 'GET, HEAD');
        assert.equal(problem.headers, undefined);
        assert.doesNotMatch(allow.text, /GET, HEAD/);
        const busy = await send(server, { path: '/busy', headers });
        assertProblem(busy, format, 503);
        assert.equal(busy.headers.get('retry-after'), '30');
      }
    },
  },
  {
    it: "keeps the app's own error handler's answers and problem documents for the rest (defect 6)",
    async run(server) {
      const teapot = await send(server, { path: '/teapot', headers: TOON_ACCEPT });
      assert.equal(teapot.status, 418);
      assert.equal(teapot.text, TEAPOT_TEXT);
      assertProblem(await send(server, { path: '/allow', headers: TOON_ACCEPT }), 'toon', 405);
    },
  },
  {
    it: "keeps an HttpProblem's status and headers without the adapter's error handling (defect 7)",
    options: { errorWiring: false },
    async run(server) {
      const response = await send(server, { path: '/allow', headers: TOON_ACCEPT });
      assert.equal(response.status, 405, response.text);
      assert.equal(response.headers.get('allow'), 'GET, HEAD');
    },
  },
  {
    it: "leaves form posts, raw webhooks and bodies without a Content-Type to the app's parsers (defect 5)",
    async run(server) {
      const form = await send(server, {
        method: 'POST',
        path: '/form',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...JSON_ACCEPT },
        body: 'a=1&b=two',
      });
      assert.equal(form.status, 200, form.text);
      assert.deepEqual(form.data, { form: { a: '1', b: 'two' } });
      const webhook = await send(server, {
        method: 'POST',
        path: '/webhook',
        headers: { 'content-type': 'application/octet-stream', ...JSON_ACCEPT },
        body: new Uint8Array([1, 2, 3, 4, 5]),
      });
      assert.equal(webhook.status, 200, webhook.text);
      assert.deepEqual(webhook.data, { bytes: 5 });
      const untyped = await send(server, {
        method: 'POST',
        path: '/webhook',
        headers: JSON_ACCEPT,
        body: new Uint8Array([1, 2, 3]),
      });
      assert.equal(untyped.status, 200, untyped.text);
    },
  },
  {
    it: 'refuses ill-formed UTF-8 in a TOON body with a 400 naming the byte offset (defect 9)',
    async run(server) {
      const response = await echo(
        server,
        'text/toon',
        new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0xfe]),
      );
      const problem = assertProblem(response, 'json', 400);
      assert.equal(problem.offset, 3);
      assert.match(String(problem.detail), /byte offset 3\b/);
    },
  },
  // express.json() is strict (objects and arrays only).
  parityCase('a primitive root', '42', {
    fastify: 200,
    express: 400,
    hono: 200,
    koa: 400,
    'nest-express': 400,
    'nest-fastify': 200,
  }),
  {
    // Issue 24 replaced defect 10's rule (an empty TOON body answered as an empty JSON body,
    // which Fastify and Hono refuse): encode({}) is the empty text, so it is the object {}.
    it: 'reads an empty TOON body as the JSON body {} (issue 24), in every adapter',
    async run(server) {
      const toon = await echo(server, 'text/toon', '');
      const json = await echo(server, 'application/json', '{}');
      assert.equal(toon.status, 200, toon.text);
      assert.equal(json.status, 200, json.text);
      assert.deepEqual(toon.data, { body: {} });
      assert.deepEqual(toon.data, json.data);
    },
  },
  {
    it: "never shows the app a Content-Length that is not a number: Node's parser answers 400 first",
    async run(server) {
      // fetch refuses to send such a header, so the request is written by hand.
      const { host, port } = new URL(server.url);
      const socket = connect(Number(port), host.replace(/:\d+$/, ''));
      socket.end(
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/toon\r\nContent-Length: abc\r\n\r\na: 1',
      );
      let answer = '';
      for await (const chunk of socket) answer += String(chunk);
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
      // The server's own client-error answer (Fastify's is JSON), never the adapter's problem.
      assert.doesNotMatch(answer, /problem|text\/toon/);
    },
  },
  {
    it: 'writes the same 404 problem in every adapter, from the shared kit (defect 11)',
    async run(server) {
      const problem = assertProblem(
        await send(server, { path: '/no/such?x=1', headers: TOON_ACCEPT }),
        'toon',
        404,
      );
      assert.equal(problem.instance, '/no/such');
      assert.equal(problem.detail, notFoundProblem('GET', '/no/such').problem.detail);
    },
  },

  // Issue 32: statuses, depth, data twins, encoded and poisoned bodies, in every adapter.
  {
    it: "keeps a handler's own error status under every Accept, */*;q=0 included (issue 32)",
    options: { defaultFormat: 'toon' },
    async run(server) {
      for (const accept of [
        '*/*;q=0',
        'text/toon;q=0, application/json;q=0',
        'image/png;q=1, */*;q=0',
      ]) {
        const response = await send(server, { path: '/gone', headers: { accept } });
        assert.equal(response.status, 404, `${accept}: ${response.text}`);
        assert.equal(response.mediaType, 'application/json', accept);
        assert.deepEqual(response.data, GONE);
      }
      const toon = await send(server, { path: '/gone', headers: TOON_ACCEPT });
      assert.equal(toon.status, 404);
      assertFormat(toon, 'toon');
      assert.deepEqual(toon.data, GONE);
      // Success statuses still get their 406.
      assertProblem(
        await send(server, { path: '/data', headers: { accept: '*/*;q=0' } }),
        'json',
        406,
      );
    },
  },
  {
    it: "keeps a handler's 204 and 304 under every Accept, */*;q=0 included: no content, nothing to negotiate",
    options: { defaultFormat: 'toon' },
    async run(server) {
      for (const status of [204, 304])
        for (const accept of ['*/*;q=0', 'text/toon;q=0, application/json;q=0', 'text/toon']) {
          const response = await send(server, { path: `/empty/${status}`, headers: { accept } });
          assert.equal(response.status, status, `${status}, ${accept}: ${response.text}`);
          assert.equal(response.text, '', `${status}, ${accept}`);
        }
    },
  },
  {
    it: 'answers a handler that throws a non-Error with a negotiated 500 problem, never an empty 500',
    async run(server) {
      const original = console.error;
      console.error = () => {};
      try {
        for (const [headers, format] of [
          [TOON_ACCEPT, 'toon'],
          [JSON_ACCEPT, 'json'],
        ] as const) {
          const response = await send(server, { path: '/thrown-string', headers });
          assert.equal(response.status, 500, response.text);
          assertVaryAccept(response);
          assert.equal(
            response.mediaType,
            format === 'toon' ? 'text/toon' : 'application/problem+json',
          );
          assert.deepEqual(
            { ...(response.data as object), instance: undefined },
            {
              type: 'about:blank',
              title: 'Internal Server Error',
              status: 500,
              instance: undefined,
            },
          );
          assert.doesNotMatch(response.text, /thrown string/, 'no detail of the error leaks');
        }
      } finally {
        console.error = original;
      }
    },
  },
  {
    it: 'sends the 406 without the validators the handler set for its data (they do not name the problem)',
    async run(server) {
      const refused = await send(server, { path: '/tagged', headers: { accept: '*/*;q=0' } });
      assertProblem(refused, 'json', 406);
      // None, or one the framework computed for the problem's own bytes (Express).
      assert.notEqual(refused.headers.get('etag'), TAGGED_HEADERS.ETag);
      assert.equal(refused.headers.get('last-modified'), null);
      const json = await send(server, { path: '/tagged', headers: JSON_ACCEPT });
      assert.equal(json.status, 200);
      assert.equal(json.headers.get('etag'), TAGGED_HEADERS.ETag);
      assert.equal(json.headers.get('last-modified'), TAGGED_HEADERS['Last-Modified']);
    },
  },
  {
    it: `sends a ${DEEP_LEVELS}-deep response as JSON to clients that take JSON, 406 to TOON-only clients, never 500 (issue 32)`,
    options: { defaultFormat: 'toon' },
    async run(server) {
      const json = await send(server, { path: '/deep', headers: JSON_ACCEPT });
      assert.equal(json.status, 200, json.text);
      const accepts: Array<Record<string, string>> = [
        {},
        { accept: '*/*' },
        { accept: 'text/toon, application/json;q=0.1' },
      ];
      for (const headers of accepts) {
        const response = await send(server, { path: '/deep', headers });
        assert.equal(response.status, 200, `${JSON.stringify(headers)}: ${response.text}`);
        assertFormat(response, 'json');
        assert.equal(response.text, json.text);
      }
      const toonOnly = await send(server, { path: '/deep', headers: TOON_ACCEPT });
      const problem = assertProblem(toonOnly, 'toon', 406);
      assert.match(String(problem.detail), /1000 levels/);
    },
  },
  ...TWIN_KINDS.map(
    (kind): FieldCase => ({
      it: `sends a ${kind} in TOON as the data its JSON twin carries, or fails alike (issue 32)`,
      async run(server) {
        for (const defaultFormat of ['json', 'auto'] as const) {
          server.settings.defaultFormat = defaultFormat;
          try {
            const json = await send(server, { path: `/twin/${kind}`, headers: JSON_ACCEPT });
            const toon = await send(server, { path: `/twin/${kind}`, headers: TOON_ACCEPT });
            const either = await send(server, { path: `/twin/${kind}` });
            for (const response of [toon, either]) {
              assert.equal(response.status, json.status, `${defaultFormat}: ${response.text}`);
              if (json.status === 200) assert.deepEqual(response.data, json.data);
            }
            if (kind === 'bigint') assert.equal(json.status, 500);
            else {
              assert.equal(json.status, 200);
              assertFormat(toon, 'toon');
            }
            if (kind === 'map' || kind === 'set')
              assert.deepEqual(Object.values(json.data as object)[0], {});
          } finally {
            server.settings.defaultFormat = 'json';
          }
        }
      },
    }),
  ),
  {
    it: 'answers a gzip TOON body as it answers the same body as gzip JSON (issue 32)',
    async run(server, adapter) {
      const body = { items: [{ sku: 'TEA', quantity: 2 }], note: 'a "quoted"\nline' };
      const gzipped = (text: string) => new Uint8Array(gzipSync(text));
      const headers = (type: string) => ({
        'content-type': type,
        'content-encoding': 'gzip',
        ...JSON_ACCEPT,
      });
      const json = await send(server, {
        method: 'POST',
        path: '/echo',
        headers: headers('application/json'),
        body: gzipped(JSON.stringify(body)),
      });
      const toon = await send(server, {
        method: 'POST',
        path: '/echo',
        headers: headers('text/toon'),
        body: gzipped(encode(body)),
      });
      assert.equal(toon.status, json.status, `${json.text} / ${toon.text}`);
      if (json.status === 200) assert.deepEqual(toon.data, json.data);
      // The adapters that read gzip JSON bodies out of the box read gzip TOON alike; the others
      // say why the bytes are not UTF-8.
      if (adapter === 'express' || adapter === 'koa') assert.deepEqual(toon.data, { body });
      else assert.match(String(assertProblem(toon, 'json', 400).detail), /Content-Encoding: gzip/);
    },
  },
  {
    it: 'refuses __proto__ keys in TOON bodies where the framework refuses them in JSON, and in Koa (issue 32)',
    async run(server, adapter) {
      const toon = await echo(server, 'text/toon', '__proto__:\n  admin: true\nname: x');
      const json = await echo(
        server,
        'application/json',
        '{"__proto__":{"admin":true},"name":"x"}',
      );
      if (adapter === 'fastify' || adapter === 'koa') {
        const problem = assertProblem(toon, 'json', 400);
        assert.match(String(problem.detail), /__proto__/);
      } else {
        assert.equal(toon.status, json.status, toon.text);
        assert.deepEqual(toon.data, json.data);
      }
      if (adapter === 'fastify') assert.equal(json.status, 400);
      const prototype = await echo(
        server,
        'text/toon',
        'constructor:\n  prototype:\n    admin: true',
      );
      if (adapter === 'fastify' || adapter === 'koa') assertProblem(prototype, 'json', 400);
      const clean = await echo(server, 'text/toon', 'name: prototype\nnote: __proto__');
      assert.equal(clean.status, 200, clean.text);
    },
  },
];

for (const adapter of FIELD_ADAPTERS) {
  describe(`HTTP adapters in the field: ${adapter.name}`, () => {
    const pool = new ServerPool(adapter.start);
    after(() => pool.closeAll());
    for (const testCase of FIELD_CASES) {
      it(testCase.it, async () => testCase.run(await pool.get(testCase.options), adapter.name));
    }
  });
}
