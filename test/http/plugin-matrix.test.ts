// The plugin matrix (issue 24): one table of cases run over real HTTP against the same small API
// on Fastify, Express and Hono, each next to its framework's usual plugins (plugin-apps.ts): a
// TOON body is its JSON twin (the empty body, numbers beyond a double, the validators' coercions),
// an app-level skip reaches routes other plugins register, and problem documents follow one
// convention for q=0 and charset.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify from 'fastify';
import { encode } from '../../src/codec/encode.js';
import toonFastify from '../../src/http/fastify.js';
import { DATA, listening } from './field-apps.js';
import { type AdapterName, type HttpResponse, ServerPool, send } from './harness.js';
import { PLUGIN_ADAPTERS, type PluginOptions, type PluginServer } from './plugin-apps.js';

interface PluginCase {
  it: string;
  options?: PluginOptions;
  run(server: PluginServer, adapter: AdapterName): Promise<void>;
}

const PROBLEM_JSON = 'application/problem+json; charset=utf-8';
const PROBLEM_TOON = 'text/toon; charset=utf-8; profile=problem';
const TOON = 'text/toon; charset=utf-8';

function sendBody(
  server: PluginServer,
  method: string,
  path: string,
  contentType: string,
  body: string,
  accept = 'application/json',
): Promise<HttpResponse> {
  return send(server, { method, path, headers: { 'content-type': contentType, accept }, body });
}

/** The same request answered alike: status, and the data or the problem document. */
function assertSameAnswer(toon: HttpResponse, json: HttpResponse, what: string): void {
  assert.equal(toon.status, json.status, `${what}: TOON ${toon.text} / JSON ${json.text}`);
  assert.equal(toon.headers.get('content-type'), json.headers.get('content-type'), what);
  assert.deepEqual(toon.data, json.data, what);
}

function assertVaries(response: HttpResponse, ...fields: string[]): void {
  const vary = (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/);
  for (const field of fields)
    assert.ok(vary.includes(field.toLowerCase()), `Vary "${vary}" lacks ${field}`);
}

/**
 * TOON bodies next to their JSON twins, sent to PATCH /profile (every field optional; count an
 * integer up to 1,000,000, ratio a number, name a string, flag a boolean, tags strings). The twin
 * is the JSON text of the same tokens; `02` has none in JSON, where it is invalid, so its twin is
 * the string TOON reads it as.
 */
const TWINS: ReadonlyArray<readonly [toon: string, json: string]> = [
  ['count: 1e400', '{"count":1e400}'],
  ['count: -1e400', '{"count":-1e400}'],
  ['ratio: 1e400', '{"ratio":1e400}'],
  ['name: 1e400', '{"name":1e400}'],
  ['tags[2]: a,1e400', '{"tags":["a",1e400]}'],
  ['count: "1e400"', '{"count":"1e400"}'],
  ['name: "1e400"', '{"name":"1e400"}'],
  ['count: 1e-400', '{"count":1e-400}'],
  ['count: "02"', '{"count":"02"}'],
  ['count: 02', '{"count":"02"}'],
  ['count: "1e5"', '{"count":"1e5"}'],
  ['count: 1e5', '{"count":1e5}'],
  ['count: 1e7', '{"count":1e7}'],
  ['count: 2.5', '{"count":2.5}'],
  ['count: -0', '{"count":-0}'],
  ['count: null', '{"count":null}'],
  ['flag: "true"', '{"flag":"true"}'],
  ['flag: "false"', '{"flag":"false"}'],
  ['flag: true', '{"flag":true}'],
  ['flag: ""', '{"flag":""}'],
  ['flag: 1', '{"flag":1}'],
  ['name: 12', '{"name":12}'],
  ['name: true', '{"name":true}'],
  ['tags[1]: 7', '{"tags":[7]}'],
  ['count: 12345678901234567890123', '{"count":12345678901234567890123}'],
];

const CASES: PluginCase[] = [
  // Defect 1: an empty object sent as TOON.
  {
    it: 'reads an empty text/toon body (encode({}), Content-Length: 0) as {}, answered as the JSON body {}',
    async run(server) {
      assert.equal(encode({}), '');
      for (const [method, path] of [
        ['PATCH', '/profile'],
        ['POST', '/signup'],
      ] as const) {
        const toon = await sendBody(server, method, path, 'text/toon', encode({}));
        const json = await sendBody(server, method, path, 'application/json', '{}');
        assertSameAnswer(toon, json, `${method} ${path}`);
      }
      const patched = await sendBody(server, 'PATCH', '/profile', 'text/toon', '');
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.data, { body: {} });
      const refused = await sendBody(server, 'POST', '/signup', 'text/toon', '', 'text/toon');
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.headers.get('content-type'), PROBLEM_TOON);
    },
  },
  {
    it: 'reads an empty chunked text/toon body as {} too',
    async run(server) {
      const response = await fetch(`${server.url}/profile`, {
        method: 'PATCH',
        headers: { 'content-type': 'text/toon', accept: 'application/json' },
        body: new ReadableStream({ start: (controller) => controller.close() }),
        duplex: 'half',
      } as RequestInit);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { body: {} });
    },
  },

  // Defect 2: numbers beyond a double, and the validators' coercions.
  {
    it: 'refuses 1e400 in a TOON body with the 400 problem its JSON twin gets',
    async run(server) {
      for (const accept of ['application/json', 'text/toon']) {
        const toon = await sendBody(
          server,
          'PATCH',
          '/profile',
          'text/toon',
          'count: 1e400',
          accept,
        );
        const json = await sendBody(
          server,
          'PATCH',
          '/profile',
          'application/json',
          '{"count":1e400}',
          accept,
        );
        assert.equal(json.status, 400, json.text);
        assertSameAnswer(toon, json, accept);
      }
    },
  },
  ...TWINS.map(
    ([toonBody, jsonBody]): PluginCase => ({
      it: `answers the TOON body ${JSON.stringify(toonBody)} as its JSON twin ${jsonBody}`,
      async run(server) {
        const toon = await sendBody(server, 'PATCH', '/profile', 'text/toon', toonBody);
        const json = await sendBody(server, 'PATCH', '/profile', 'application/json', jsonBody);
        assertSameAnswer(toon, json, toonBody);
      },
    }),
  ),

  // Defect 3: an app-level skip reaches routes the app did not declare.
  {
    it: 'keeps /docs/json JSON under a TOON default through skip, whatever the client accepts',
    options: { defaultFormat: 'toon' },
    async run(server) {
      for (const accept of [undefined, '*/*', 'text/toon']) {
        const docs = await send(server, {
          path: '/docs/json',
          headers: accept === undefined ? {} : { accept },
        });
        assert.equal(docs.status, 200, docs.text);
        assert.equal(docs.mediaType, 'application/json', `Accept: ${accept}`);
        const paths = (docs.data as { paths: Record<string, Record<string, any>> }).paths;
        assert.ok(paths['/data']?.get?.responses?.['200']?.content?.['text/toon']);
      }
      const data = await send(server, { path: '/data' });
      assert.equal(data.headers.get('content-type'), TOON);
      assert.deepEqual(data.data, DATA);
    },
  },
  {
    it: 'answers errors on skipped paths with JSON problems under a TOON default',
    options: { defaultFormat: 'toon' },
    async run(server) {
      const response = await send(server, {
        path: '/docs/nowhere.json',
        headers: { accept: 'text/toon' },
      });
      assert.equal(response.status, 404, response.text);
      assert.equal(response.headers.get('content-type'), PROBLEM_JSON);
      const elsewhere = await send(server, { path: '/nowhere', headers: { accept: 'text/toon' } });
      assert.equal(elsewhere.headers.get('content-type'), PROBLEM_TOON);
    },
  },

  // Defect 4: problem documents under q=0, one charset convention.
  {
    it: 'writes every JSON problem as application/problem+json; charset=utf-8',
    async run(server) {
      const notFound = await send(server, { path: '/nowhere' });
      const invalid = await sendBody(server, 'PATCH', '/profile', 'text/toon', 'count: x');
      const malformed = await sendBody(server, 'PATCH', '/profile', 'text/toon', 'tags[2]: a');
      const refused = await send(server, { path: '/data', headers: { accept: '*/*;q=0' } });
      for (const [response, status] of [
        [notFound, 404],
        [invalid, 400],
        [malformed, 400],
        [refused, 406],
      ] as const) {
        assert.equal(response.status, status, response.text);
        assert.equal(response.headers.get('content-type'), PROBLEM_JSON);
      }
    },
  },
  ...(['json', 'toon'] as const).map(
    (defaultFormat): PluginCase => ({
      it: `follows the q=0 rules for data and problem documents (default ${defaultFormat})`,
      options: { defaultFormat },
      async run(server) {
        // Accept → [data, error], as docs/http.md's table gives them.
        const rules: ReadonlyArray<readonly [string, string, string]> = [
          ['application/json;q=0', 'toon', defaultFormat],
          ['text/toon, application/json;q=0', 'toon', 'toon'],
          ['application/json;q=0, application/problem+json;q=0', 'toon', 'toon'],
          ['text/toon;q=0', 'json', 'json'],
          ['text/toon; profile=problem;q=0', defaultFormat, 'json'],
          ['text/toon;q=0, application/json;q=0', '406', 'json'],
          ['*/*;q=0', '406', 'json'],
        ];
        for (const [accept, data, error] of rules) {
          const answer = await send(server, { path: '/data', headers: { accept } });
          if (data === '406') {
            assert.equal(answer.status, 406, accept);
            assert.equal(answer.headers.get('content-type'), PROBLEM_JSON, accept);
          } else {
            assert.equal(answer.status, 200, accept);
            assert.equal(
              answer.mediaType,
              data === 'toon' ? 'text/toon' : 'application/json',
              accept,
            );
          }
          const problem = await send(server, { path: '/nowhere', headers: { accept } });
          assert.equal(problem.status, 404, `${accept}: an error keeps its status`);
          assert.equal(
            problem.headers.get('content-type'),
            error === 'toon' ? PROBLEM_TOON : PROBLEM_JSON,
            accept,
          );
        }
      },
    }),
  ),
  {
    it: "keeps the plugins' headers on negotiated responses and problems (Vary: Origin, Accept; security headers)",
    async run(server) {
      const origin = { origin: 'https://app.example', accept: 'text/toon' };
      for (const path of ['/data', '/nowhere']) {
        const response = await send(server, { path, headers: origin });
        assertVaries(response, 'Origin', 'Accept');
        assert.equal(response.headers.get('access-control-allow-origin'), 'https://app.example');
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(response.mediaType, 'text/toon');
      }
    },
  },
  {
    it: "answers HEAD with GET's Content-Type and Vary, no body, and Content-Length as the framework itself sends it",
    async run(server, adapter) {
      for (const accept of ['text/toon', 'application/json']) {
        // No Accept-Encoding: compression middleware would make GET's headers differ from HEAD's.
        const headers = { accept, 'accept-encoding': 'identity' };
        const get = await fetch(`${server.url}/data`, { headers });
        const length = Buffer.byteLength(await get.text());
        const head = await fetch(`${server.url}/data`, { method: 'HEAD', headers });
        assert.equal(head.status, 200);
        assert.equal(await head.text(), '');
        assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
        // hono/compress adds Accept-Encoding to GET's Vary only: compare Accept.
        assertVaries({ headers: head.headers } as HttpResponse, 'Accept', 'Origin');
        // Plain Hono on @hono/node-server sends none on HEAD either (adapters.test.ts checks it).
        assert.equal(
          head.headers.get('content-length'),
          adapter === 'hono' ? null : String(length),
        );
      }
    },
  },
];

for (const adapter of PLUGIN_ADAPTERS) {
  describe(`HTTP adapters next to the usual plugins: ${adapter.name}`, () => {
    const pool = new ServerPool(adapter.start);
    after(() => pool.closeAll());
    for (const testCase of CASES) {
      it(testCase.it, async () => testCase.run(await pool.get(testCase.options), adapter.name));
    }
  });
}

describe('Fastify next to @fastify/rate-limit', () => {
  const pool = new ServerPool(PLUGIN_ADAPTERS[0]!.start);
  after(() => pool.closeAll());

  it("answers the limiter's 429 with a negotiated problem carrying its Retry-After", async () => {
    const server = await pool.get();
    const first = await send(server, { path: '/limited', headers: { accept: 'text/toon' } });
    assert.equal(first.status, 200, first.text);
    const limited = await send(server, { path: '/limited', headers: { accept: 'text/toon' } });
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.headers.get('content-type'), PROBLEM_TOON);
    assert.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After is kept');
    assert.equal((limited.data as { status: number }).status, 429);
  });
});

describe('Fastify skip and @fastify/swagger-ui', () => {
  const closers: Array<() => Promise<void>> = [];
  after(() => Promise.all(closers.map((close) => close())));

  async function start(uiFirst: boolean, skip: boolean): Promise<{ url: string }> {
    const app = Fastify();
    await app.register(swagger, { openapi: { info: { title: 'Docs', version: '1.0.0' } } });
    if (uiFirst) await app.register(swaggerUi, { routePrefix: '/docs' });
    await app.register(toonFastify, {
      defaultFormat: 'toon',
      ...(skip ? { skip: (request) => request.url.startsWith('/docs') } : {}),
    });
    if (!uiFirst) await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/data', async () => DATA);
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return { url: await listening(app.server) };
  }

  for (const uiFirst of [false, true]) {
    const order = uiFirst ? 'registered before the plugin' : 'registered after the plugin';
    it(`without skip, negotiates swagger-ui's /docs/json ${order} (the defect skip fixes)`, async () => {
      const server = await start(uiFirst, false);
      const docs = await send(server, { path: '/docs/json' });
      assert.equal(docs.headers.get('content-type'), TOON);
    });
    it(`with skip, answers JSON from swagger-ui's /docs/json ${order}`, async () => {
      const server = await start(uiFirst, true);
      const docs = await send(server, { path: '/docs/json', headers: { accept: '*/*' } });
      assert.equal(docs.status, 200, docs.text);
      assert.equal(docs.mediaType, 'application/json');
      assert.equal(docs.headers.get('vary'), null, 'a skipped response does not vary');
      assert.match(String((docs.data as { openapi?: string }).openapi), /^3\./);
      const data = await send(server, { path: '/data' });
      assert.equal(data.headers.get('content-type'), TOON);
    });
  }
});
