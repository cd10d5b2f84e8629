// Framework-specific behaviour the shared matrix cannot express: each adapter's conventions and
// the traps listed for it (Fastify's content maps, response schemas and error-path serializer;
// Express's res.send and explicit types; Hono's stale headers and request swap).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import swagger from '@fastify/swagger';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { OrderStore } from '../../examples/http/orders.js';
import { encode } from '../../src/codec/encode.js';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify, { problemErrorHandler, withToonOpenApi } from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import { HttpProblem, ToonSettings } from '../../src/http/index.js';
import { listening } from './field-apps.js';
import { type AppServer, send, sendCutShort } from './harness.js';

function listen(server: Server): Promise<AppServer> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        settings: new ToonSettings(),
        store: new OrderStore([]),
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

async function listenHono(app: Hono, settings?: ToonSettings): Promise<AppServer> {
  const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise((resolve) => started.once('listening', resolve));
  const address = started.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    settings: settings ?? new ToonSettings(),
    store: new OrderStore([]),
    close: () =>
      new Promise<void>((done) => {
        started.close(() => done());
        started.closeAllConnections();
      }),
  };
}

async function listenFastify(app: FastifyInstance): Promise<AppServer> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    settings: app.toon,
    store: new OrderStore([]),
    close: () => app.close(),
  };
}

const TOON = { accept: 'text/toon' };

describe('Fastify adapter', () => {
  let server: AppServer;
  const bodySchema = {
    type: 'object',
    required: ['quantity'],
    properties: { quantity: { type: 'integer', minimum: 1 } },
  } as const;
  const contentMap = { content: { 'application/json': { schema: bodySchema } } };
  const contentMapBefore = structuredClone(contentMap);
  let cyclic: Record<string, unknown>;

  before(async () => {
    const app = Fastify();
    await app.register(
      swagger,
      withToonOpenApi({
        openapi: { info: { title: 'T', version: '1' } },
        transformObject: ({ openapiObject }: { openapiObject: Record<string, unknown> }) => ({
          ...openapiObject,
          'x-mine': true,
        }),
      } as Parameters<typeof swagger>[1]),
    );
    await app.register(toonFastify);
    app.post('/content-map', { schema: { body: contentMap } }, async (request) => ({
      got: request.body,
    }));
    app.get('/text', async (_request, reply) => reply.type('text/plain').send('plain, untouched'));
    app.get('/hal', async (_request, reply) =>
      reply.type('application/hal+json').send({ _links: {} }),
    );
    app.get(
      '/filtered',
      {
        schema: { response: { 200: { type: 'object', properties: { id: { type: 'integer' } } } } },
      },
      async () => ({ id: 7, passwordHash: 'secret' }),
    );
    // Fastify picks a response schema by status, then status class, then `default`; the first
    // key the route has decides, even when its content map names no JSON type.
    const idOnly = { type: 'object', properties: { id: { type: 'integer' } } };
    const secret = async () => ({ id: 7, passwordHash: 'secret' });
    app.get('/filtered/default', { schema: { response: { default: idOnly } } }, secret);
    app.get(
      '/filtered/not-found',
      { schema: { response: { '2xx': idOnly, default: idOnly } } },
      async (_request, reply) => reply.code(404).send({ id: 7, passwordHash: 'secret' }),
    );
    app.get(
      '/filtered/html-only',
      {
        schema: {
          response: { 200: { content: { 'text/html': { schema: {} } } }, '2xx': idOnly },
        },
      },
      secret,
    );
    app.get('/crash', async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    });
    cyclic = { a: 1 };
    cyclic.self = cyclic;
    app.get('/cyclic', async () => cyclic);
    app.post('/echo', async (request) => ({ got: request.body }));
    app.get('/openapi.json', async () => app.swagger());
    server = await listenFastify(app);
  });
  after(() => server.close());

  it('validates TOON bodies against a schema.body.content map written for application/json', async () => {
    const ok = await send(server, {
      method: 'POST',
      path: '/content-map',
      headers: { 'content-type': 'text/toon' },
      body: 'quantity: 2',
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.data, { got: { quantity: 2 } });
    const bad = await send(server, {
      method: 'POST',
      path: '/content-map',
      headers: { 'content-type': 'text/toon' },
      body: 'quantity: 0',
    });
    const badJson = await send(server, {
      method: 'POST',
      path: '/content-map',
      headers: { 'content-type': 'application/json' },
      body: '{"quantity":0}',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.data, badJson.data);
    assert.deepEqual(contentMap, contentMapBefore, "the route's schema object is not modified");
  });

  it('composes with your own transformObject when adding TOON to the @fastify/swagger document', async () => {
    const document = (await send(server, { path: '/openapi.json' })).data as Record<string, any>;
    assert.equal(document['x-mine'], true);
    assert.ok(document.paths['/content-map'].post.requestBody.content['text/toon']);
  });

  it('leaves strings and explicitly typed JSON flavours alone', async () => {
    const text = await send(server, { path: '/text', headers: TOON });
    assert.equal(text.text, 'plain, untouched');
    assert.equal(text.mediaType, 'text/plain');
    const hal = await send(server, { path: '/hal', headers: TOON });
    assert.equal(hal.mediaType, 'application/hal+json');
  });

  it('filters TOON responses through the route response schema, like JSON', async () => {
    const response = await send(server, { path: '/filtered', headers: TOON });
    assert.equal(response.headers.get('content-type'), 'text/toon; charset=utf-8');
    assert.deepEqual(response.data, { id: 7 });
  });

  it('filters TOON responses through the schema Fastify picks for JSON: default, and the status before the class', async () => {
    for (const path of ['/filtered/default', '/filtered/not-found', '/filtered/html-only']) {
      const json = await send(server, { path, headers: { accept: 'application/json' } });
      const toon = await send(server, { path, headers: TOON });
      assert.equal(toon.mediaType, 'text/toon', path);
      assert.equal(toon.status, json.status, path);
      assert.deepEqual(toon.data, json.data, path);
    }
    const defaulted = await send(server, { path: '/filtered/default', headers: TOON });
    assert.deepEqual(defaulted.data, { id: 7 }, 'no secret where the JSON has none');
  });

  it('hides the message of unexpected errors in the 500 problem', async () => {
    const response = await send(server, { path: '/crash', headers: TOON });
    assert.equal(response.status, 500);
    assert.deepEqual(response.data, {
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      instance: '/crash',
    });
  });

  it('answers a problem document, not the stale TOON serializer, when serialization itself fails', async () => {
    const response = await send(server, { path: '/cyclic', headers: TOON });
    assert.equal(response.status, 500);
    assert.equal(response.headers.get('content-type'), 'text/toon; charset=utf-8; profile=problem');
    assert.equal((response.data as { status: number }).status, 500);
  });

  it('refuses __proto__ keys in TOON bodies as Fastify does in JSON bodies', async () => {
    const fromToon = await send(server, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'text/toon' },
      body: '__proto__:\n  admin: true',
    });
    const fromJson = await send(server, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{"__proto__":{"admin":true}}',
    });
    assert.equal(fromJson.status, 400);
    assert.equal(fromToon.status, 400);
  });
});

describe('Fastify with a JSON serializer of its own', () => {
  // Serializers that redact and write BigInts, which Fastify uses before any response schema.
  const redact = (payload: unknown): string =>
    JSON.stringify(payload, (key, value: unknown) =>
      key === 'password' ? undefined : typeof value === 'bigint' ? value.toString() : value,
    );
  const user = () => ({ id: 1, password: 'hunter2', visits: 10n });
  const servers: AppServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));

  async function start(defaultFormat: 'json' | 'auto'): Promise<AppServer> {
    const app = Fastify();
    await app.register(toonFastify, { defaultFormat });
    app.get('/per-reply', async (_request, reply) =>
      reply.type('application/json').serializer(redact).send(user()),
    );
    await app.register(async (scope) => {
      scope.setReplySerializer(redact);
      scope.get('/scoped', async () => user());
      scope.get(
        '/scoped-schema',
        {
          schema: {
            response: {
              200: {
                type: 'object',
                properties: { id: { type: 'integer' }, password: { type: 'string' } },
              },
            },
          },
        },
        async () => user(),
      );
    });
    const server = await listenFastify(app);
    servers.push(server);
    return server;
  }

  it('gives TOON clients the data that serializer wrote for JSON, never what it left out', async () => {
    const server = await start('json');
    for (const path of ['/per-reply', '/scoped', '/scoped-schema']) {
      const json = await send(server, { path });
      const toon = await send(server, { path, headers: TOON });
      assert.equal(json.text, '{"id":1,"visits":"10"}', path);
      assert.equal(toon.status, 200, `${path}: ${toon.text}`);
      assert.equal(toon.mediaType, 'text/toon', path);
      assert.deepEqual(toon.data, json.data, path);
    }
  });

  it("sends that serializer's own text when 'auto' picks JSON", async () => {
    const server = await start('auto');
    const picked = await send(server, { path: '/scoped' });
    assert.equal(picked.mediaType, 'application/json');
    assert.equal(picked.text, '{"id":1,"visits":"10"}');
  });
});

describe("Express with the app's own json replacer", () => {
  // A replacer that redacts and writes BigInts, as apps use it: what res.json writes is the data.
  const redact = (key: string, value: unknown): unknown =>
    key === 'password' ? undefined : typeof value === 'bigint' ? value.toString() : value;
  const servers: AppServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));

  it('gives TOON clients the data the replacer wrote for JSON, never what it left out', async () => {
    for (const defaultFormat of ['json', 'auto'] as const) {
      const app = express();
      app.set('json replacer', redact);
      app.use(toonExpress({ defaultFormat }));
      app.get('/user', (_req, res) => {
        res.json({ id: 1, password: 'hunter2', visits: 10n });
      });
      const server = await listen(createServer(app));
      servers.push(server);
      const json = await send(server, { path: '/user', headers: { accept: 'application/json' } });
      const toon = await send(server, { path: '/user', headers: TOON });
      assert.equal(json.text, '{"id":1,"visits":"10"}', defaultFormat);
      assert.equal(toon.status, 200, `${defaultFormat}: ${toon.text}`);
      assert.equal(toon.mediaType, 'text/toon', defaultFormat);
      assert.deepEqual(toon.data, json.data, defaultFormat);
    }
  });
});

describe('Express with res.json wrapped by middleware mounted before it', () => {
  // The express-mung pattern: middleware that wraps res.json to redact or envelope what every
  // handler sends. JSON clients get what the wrapper writes; TOON must carry that same data.
  const servers: AppServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));

  type Json = (body: unknown) => unknown;
  const redactNow: express.RequestHandler = (_req, res, next) => {
    const json = res.json.bind(res) as Json;
    res.json = ((body: { password?: string }) => {
      const { password: _hidden, ...rest } = body;
      return json({ data: rest });
    }) as express.Response['json'];
    next();
  };
  const redactLater: express.RequestHandler = (_req, res, next) => {
    const json = res.json.bind(res) as Json;
    res.json = ((body: { password?: string }) => {
      const { password: _hidden, ...rest } = body;
      void Promise.resolve().then(() => json({ data: rest }));
      return res;
    }) as express.Response['json'];
    next();
  };

  it('gives TOON clients the data the wrapper wrote for JSON, never what it left out', async () => {
    for (const wrapper of [redactNow, redactLater]) {
      const plain = express();
      plain.use(wrapper);
      plain.get('/user', (_req, res) => {
        res.json({ id: 1, password: 'hunter2', name: 'Ann' });
      });
      const plainServer = await listen(createServer(plain));
      servers.push(plainServer);
      const expected = await send(plainServer, { path: '/user' });
      for (const defaultFormat of ['json', 'auto', 'toon'] as const) {
        const app = express();
        app.use(wrapper, toonExpress({ defaultFormat }));
        app.get('/user', (_req, res) => {
          res.json({ id: 1, password: 'hunter2', name: 'Ann' });
        });
        const server = await listen(createServer(app));
        servers.push(server);
        const label = `${wrapper === redactNow ? 'sync' : 'async'} wrapper, ${defaultFormat}`;
        const json = await send(server, { path: '/user', headers: { accept: 'application/json' } });
        assert.equal(json.text, expected.text, label);
        assert.equal(json.headers.get('content-type'), expected.headers.get('content-type'), label);
        const toon = await send(server, { path: '/user', headers: TOON });
        assert.equal(toon.status, 200, `${label}: ${toon.text}`);
        assert.equal(toon.mediaType, 'text/toon', label);
        assert.deepEqual(toon.data, { data: { id: 1, name: 'Ann' } }, label);
        assert.equal(toon.headers.get('vary'), 'Accept', label);
        const refused = await send(server, { path: '/user', headers: { accept: '*/*;q=0' } });
        assert.equal(refused.status, 406, label);
      }
    }
  });
});

describe('a file the handler names (Content-Disposition) stays JSON', () => {
  // What Nest's @Header('Content-Disposition', ...) does: the header alone, no Content-Type.
  const servers: AppServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));
  const disposition = 'attachment; filename="orders.json"';
  const orders = {
    data: [
      { id: 1, status: 'paid' },
      { id: 2, status: 'open' },
    ],
  };

  it('on Express, Fastify and Hono, under every default format', async () => {
    for (const defaultFormat of ['json', 'auto', 'toon'] as const) {
      const app = express();
      app.use(toonExpress({ defaultFormat }));
      app.get('/export', (_req, res) => {
        res.set('Content-Disposition', disposition).json(orders);
      });
      const fastify = Fastify();
      await fastify.register(toonFastify, { defaultFormat });
      fastify.get('/export', async (_request, reply) => {
        reply.header('content-disposition', disposition);
        return orders;
      });
      const hono = new Hono();
      hono.use(toonHono({ defaultFormat }));
      hono.get('/export', (c) => {
        c.header('Content-Disposition', disposition);
        return c.json(orders);
      });
      const pair = [
        await listen(createServer(app)),
        await listenFastify(fastify),
        await listenHono(hono),
      ];
      servers.push(...pair);
      for (const server of pair) {
        const answer = await send(server, { path: '/export', headers: TOON });
        assert.equal(answer.mediaType, 'application/json', defaultFormat);
        assert.equal(answer.text, JSON.stringify(orders), defaultFormat);
        assert.equal(answer.headers.get('content-disposition'), disposition);
      }
    }
  });
});

describe('Fastify error handler composition', () => {
  class Teapot extends Error {}
  const servers: AppServer[] = [];
  after(() => Promise.all(servers.map((server) => server.close())));

  async function teapotApp(build: (app: FastifyInstance) => Promise<void>): Promise<AppServer> {
    const app = Fastify();
    await build(app);
    app.get('/teapot', async () => {
      throw new Teapot('teapot');
    });
    app.get('/gone', async () => {
      throw new HttpProblem({ status: 410, detail: 'Gone for good.' });
    });
    const server = await listenFastify(app);
    servers.push(server);
    return server;
  }

  async function assertComposed(server: AppServer): Promise<void> {
    const teapot = await send(server, { path: '/teapot', headers: TOON });
    assert.equal(teapot.status, 418);
    assert.equal(teapot.text, 'short and stout');
    const gone = await send(server, { path: '/gone', headers: TOON });
    assert.equal(gone.status, 410);
    assert.equal(gone.headers.get('content-type'), 'text/toon; charset=utf-8; profile=problem');
  }

  it('with errorHandler: false, leaves error handling to yours, which can call problemErrorHandler', async () => {
    const server = await teapotApp(async (app) => {
      await app.register(toonFastify, { errorHandler: false });
      app.setErrorHandler((error, request, reply) => {
        if (error instanceof Teapot)
          return reply.code(418).type('text/plain').send('short and stout');
        return problemErrorHandler(error, request, reply);
      });
    });
    await assertComposed(server);
  });

  it('wraps a handler set before it: yours answers first, what it rethrows becomes a problem', async () => {
    const server = await teapotApp(async (app) => {
      app.setErrorHandler(async (error, _request, reply) => {
        if (error instanceof Teapot)
          return reply.code(418).type('text/plain').send('short and stout');
        throw error;
      });
      await app.register(toonFastify);
    });
    await assertComposed(server);
  });

  it('warns, naming the fix, when a handler set after it replaces its problem documents', async () => {
    const lines: string[] = [];
    const app = Fastify({
      logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } },
    });
    await app.register(toonFastify);
    app.setErrorHandler((_error, _request, reply) => reply.code(500).send('mine'));
    await app.ready();
    await app.close();
    assert.ok(
      lines.some((line) => /problemErrorHandler/.test(line)),
      `expected a warning, got ${lines.join('')}`,
    );
  });

  it('does not warn when nothing replaced it', async () => {
    const lines: string[] = [];
    const app = Fastify({
      logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } },
    });
    await app.register(toonFastify);
    await app.ready();
    await app.close();
    assert.deepEqual(lines, []);
  });
});

describe('Express options', () => {
  it('skip(req) keeps JSON for the requests it selects; strict: false accepts primitive roots', async () => {
    const app = express();
    const negotiation = toonExpress({
      strict: false,
      skip: (req) => req.path.startsWith('/internal'),
    });
    app.use(negotiation);
    app.get('/internal/health', (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/health', (_req, res) => {
      res.json({ ok: true });
    });
    app.post('/echo', (req, res) => {
      res.json({ body: req.body });
    });
    app.use(negotiation.errorHandler);
    const server = await listen(createServer(app));
    try {
      const skipped = await send(server, { path: '/internal/health', headers: TOON });
      assert.equal(skipped.mediaType, 'application/json');
      assert.equal(skipped.headers.get('vary'), null);
      assert.equal((await send(server, { path: '/health', headers: TOON })).mediaType, 'text/toon');
      const primitive = await send(server, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'text/toon', accept: 'application/json' },
        body: '42',
      });
      assert.deepEqual(primitive.data, { body: 42 });
    } finally {
      await server.close();
    }
  });
});

describe('Express under auto, where JSON wins', () => {
  it('answers what res.json writes, its app settings included, with the same headers', async () => {
    // Nested records of few rows: JSON is the smaller, so 'auto' ships JSON.
    const page = {
      data: [
        { id: 1, at: new Date(0), tags: ['a'], meta: { by: 'web' } },
        { id: 2, at: new Date(1), tags: [], meta: { by: 'card', note: 'x <y> & z' } },
      ],
    };
    const answers: Record<string, { text: string; type: string | null; etag: string | null }> = {};
    for (const [name, settings] of Object.entries({
      plain: {},
      spaces: { 'json spaces': 2 },
      escape: { 'json escape': true },
      replacer: { 'json replacer': (key: string, value: unknown) => (key === 'by' ? 'x' : value) },
    })) {
      for (const auto of [false, true]) {
        const app = express();
        for (const [setting, value] of Object.entries(settings)) app.set(setting, value);
        if (auto) app.use(toonExpress({ defaultFormat: 'auto' }));
        app.get('/page', (_req, res) => {
          res.json(page);
        });
        const server = await listen(createServer(app));
        try {
          const response = await send(server, { path: '/page' });
          answers[`${name} ${auto ? 'auto' : 'express'}`] = {
            text: response.text,
            type: response.headers.get('content-type'),
            etag: response.headers.get('etag'),
          };
        } finally {
          await server.close();
        }
      }
      assert.deepEqual(answers[`${name} auto`], answers[`${name} express`], name);
    }
    assert.notEqual(answers['spaces auto']!.text, answers['plain auto']!.text);
    assert.notEqual(answers['escape auto']!.text, answers['plain auto']!.text);
    assert.notEqual(answers['replacer auto']!.text, answers['plain auto']!.text);
  });
});

describe('Express adapter', () => {
  let server: AppServer;

  before(async () => {
    const app = express();
    app.set('env', 'test');
    const negotiation = toonExpress();
    app.use(express.json(), negotiation);
    app.get('/send', (_req, res) => {
      res.send({ rows: [{ a: 1 }, { a: 2 }] });
    });
    app.get('/hal', (_req, res) => {
      res.type('application/hal+json').json({ _links: {} });
    });
    app.get('/vary', (_req, res) => {
      res.vary('Origin').json({ ok: true });
    });
    app.get('/crash', () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    });
    app.post('/empty', (req, res) => {
      res.json({ body: req.body ?? null });
    });
    app.use(negotiation.errorHandler);
    server = await listen(createServer(app));
  });
  after(() => server.close());

  it('negotiates res.send(obj) as well as res.json(obj)', async () => {
    const response = await send(server, { path: '/send', headers: TOON });
    assert.equal(response.text, 'rows[2]{a}:\n  1\n  2');
  });

  it('keeps a JSON flavour the handler chose explicitly', async () => {
    const response = await send(server, { path: '/hal', headers: TOON });
    assert.equal(response.mediaType, 'application/hal+json');
  });

  it('adds Accept to a Vary header the handler already set', async () => {
    const response = await send(server, { path: '/vary', headers: TOON });
    assert.equal(response.headers.get('vary'), 'Origin, Accept');
  });

  it('hides the message of unexpected errors in the 500 problem', async () => {
    const response = await send(server, { path: '/crash', headers: TOON });
    assert.equal(response.status, 500);
    assert.deepEqual(response.data, {
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      instance: '/crash',
    });
  });

  it('does not refuse an empty body for its Content-Type', async () => {
    const response = await send(server, {
      method: 'POST',
      path: '/empty',
      headers: { 'content-type': 'application/xml' },
      body: '',
    });
    assert.equal(response.status, 200, response.text);
  });
});

describe('Hono adapter', () => {
  let server: AppServer;

  before(async () => {
    const app = new Hono();
    const negotiation = toonHono({ maxSize: 64 });
    app.use(negotiation);
    app.onError(negotiation.onError);
    app.get('/sized', () => {
      const text = JSON.stringify({ rows: [{ a: 1 }, { a: 2 }] });
      return new Response(text, {
        headers: {
          'content-type': 'application/json',
          'content-length': String(text.length),
          'x-request-id': 'r1',
        },
      });
    });
    app.get('/cookie', (c) => {
      c.header('set-cookie', 'a=1');
      c.header('x-trace', 't1');
      return c.json({ ok: true });
    });
    app.get('/text', (c) => c.text('plain, untouched'));
    app.get('/hal', (c) => c.json({ ok: true }, 200, { 'content-type': 'application/hal+json' }));
    // A Content-Type in c.json's ResponseInit, in each HeadersInit form: Hono writes its own
    // application/json over it, and the adapter leaves the answer as plain Hono's.
    const vnd = 'application/vnd.api+json';
    app.get('/init-array', (c) => c.json({ ok: true }, { headers: [['Content-Type', vnd]] }));
    app.get('/init-record', (c) => c.json({ ok: true }, { headers: { 'Content-Type': vnd } }));
    app.get('/init-headers', (c) =>
      c.json({ ok: true }, { headers: new Headers({ 'Content-Type': vnd }) }),
    );
    app.get('/vary', (c) => {
      c.header('Vary', 'Origin');
      return c.json({ ok: true }, 201);
    });
    app.post('/raw-json', async (c) => c.json({ got: await c.req.json() }));
    app.post('/json-twice', async (c) => {
      const first = await c.req.json();
      first.a.push(3);
      const second = await c.req.json();
      return c.json({ first, second, same: first === second });
    });
    app.post('/raw-text', async (c) => c.json({ text: await c.req.text() }));
    app.post('/raw-request', async (c) => c.json({ text: await c.req.raw.text() }));
    app.get('/forbidden', () => {
      throw new HTTPException(403, { message: 'Orders of other customers are private.' });
    });
    app.get('/custom', () => {
      throw new HTTPException(401, { res: new Response('custom', { status: 401 }) });
    });
    server = await listenHono(app, negotiation.settings);
  });
  after(() => server.close());

  it('leaves a JSON Response the handler built itself untouched: only c.json(obj) is negotiated', async () => {
    const response = await send(server, { path: '/sized', headers: TOON });
    assert.equal(response.text, '{"rows":[{"a":1},{"a":2}]}');
    assert.equal(response.mediaType, 'application/json');
    assert.equal(response.headers.get('content-length'), String(Buffer.byteLength(response.text)));
    assert.equal(response.headers.get('x-request-id'), 'r1');
  });

  it("leaves c.json with a Content-Type in its ResponseInit's headers alone, array form included", async () => {
    for (const path of ['/init-array', '/init-record', '/init-headers']) {
      const response = await send(server, { path, headers: TOON });
      assert.equal(response.mediaType, 'application/json', path);
      assert.equal(response.text, '{"ok":true}', path);
      assert.equal(response.headers.get('vary'), null, path);
    }
  });

  it('keeps headers and cookies set through the context', async () => {
    const response = await send(server, { path: '/cookie', headers: TOON });
    assert.equal(response.mediaType, 'text/toon');
    assert.equal(response.headers.get('set-cookie'), 'a=1');
    assert.equal(response.headers.get('x-trace'), 't1');
  });

  it('keeps a JSON flavour the handler chose explicitly', async () => {
    const response = await send(server, { path: '/hal', headers: TOON });
    assert.equal(response.mediaType, 'application/hal+json');
  });

  it('adds Accept to a Vary header set through the context, in both formats', async () => {
    for (const headers of [TOON, { accept: 'application/json' }]) {
      const response = await send(server, { path: '/vary', headers });
      assert.equal(response.status, 201);
      assert.equal(response.headers.get('vary'), 'Origin, Accept');
    }
  });

  it('leaves non-JSON responses alone', async () => {
    const response = await send(server, { path: '/text', headers: TOON });
    assert.equal(response.text, 'plain, untouched');
  });

  it('gives c.req.json() the decoded TOON body', async () => {
    const response = await send(server, {
      method: 'POST',
      path: '/raw-json',
      headers: { 'content-type': 'text/toon', accept: 'application/json' },
      body: 'a[2]: 1,2',
    });
    assert.deepEqual(response.data, { got: { a: [1, 2] } });
  });

  it('gives each c.req.json() call its own copy of the body, as JSON.parse would', async () => {
    const response = await send(server, {
      method: 'POST',
      path: '/json-twice',
      headers: { 'content-type': 'text/toon', accept: 'application/json' },
      body: 'a[2]: 1,2',
    });
    assert.deepEqual(response.data, {
      first: { a: [1, 2, 3] },
      second: { a: [1, 2] },
      same: false,
    });
  });

  it('gives c.req.text() and c.req.raw the JSON text of a TOON body, numbers beyond a double kept', async () => {
    for (const path of ['/raw-text', '/raw-request']) {
      const response = await send(server, {
        method: 'POST',
        path,
        headers: { 'content-type': 'text/toon', accept: 'application/json' },
        body: 'a[2]: 1,2\nq: 1e400\nname: "x, y"',
      });
      assert.deepEqual(response.data, { text: '{"a":[1,2],"q":1e999,"name":"x, y"}' }, path);
    }
  });

  it('refuses a chunked body over maxSize with a 413 problem', async () => {
    const chunks = [encode({ note: 'x'.repeat(50) }), encode({ more: 'y'.repeat(50) })];
    const body = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await fetch(`${server.url}/raw-json`, {
      method: 'POST',
      headers: { 'content-type': 'text/toon', accept: 'text/toon' },
      body,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(response.headers.get('content-type'), 'text/toon; charset=utf-8; profile=problem');
    await response.text();
  });

  it("renders HTTPException as a problem, but keeps one carrying the app's own Response", async () => {
    const forbidden = await send(server, { path: '/forbidden', headers: TOON });
    assert.equal(forbidden.status, 403);
    assert.equal(
      (forbidden.data as { detail: string }).detail,
      'Orders of other customers are private.',
    );
    const custom = await send(server, { path: '/custom', headers: TOON });
    assert.equal(custom.status, 401);
    assert.equal(custom.text, 'custom');
  });
});

describe('Hono HEAD responses', () => {
  const servers: Server[] = [];
  after(() =>
    Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      ),
    ),
  );

  async function start(withAdapter: boolean): Promise<string> {
    const app = new Hono();
    if (withAdapter) app.use(toonHono());
    app.get('/data', (c) => c.json({ rows: [1, 2] }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    servers.push(server);
    return `${await listening(server)}/data`;
  }

  it("send the headers plain Hono sends: @hono/node-server's HEAD has no Content-Length, with or without the adapter", async () => {
    const [plain, adapted] = await Promise.all([start(false), start(true)]);
    const headersOf = async (url: string, method: string) => {
      const response = await fetch(url, { method, headers: { accept: 'application/json' } });
      await response.arrayBuffer();
      return response.headers;
    };
    const plainGet = await headersOf(plain, 'GET');
    const plainHead = await headersOf(plain, 'HEAD');
    const adaptedHead = await headersOf(adapted, 'HEAD');
    assert.equal(plainGet.get('content-length'), String('{"rows":[1,2]}'.length), 'GET has one');
    assert.equal(plainHead.get('content-length'), null, 'plain Hono: none on HEAD');
    assert.equal(adaptedHead.get('content-length'), plainHead.get('content-length'));
    assert.equal(adaptedHead.get('content-type'), plainHead.get('content-type'));
    assert.equal(adaptedHead.get('vary'), 'Accept');
  });
});

describe('Hono adapter, a client that disconnects mid-body', () => {
  const app = new Hono();
  const negotiation = toonHono();
  const outcomes: Array<(status: number) => void> = [];
  app.use(async (c, next) => {
    await next();
    outcomes.shift()?.(c.res.status);
  });
  app.use(negotiation);
  app.onError(negotiation.onError);
  app.post('/orders', async (c) => c.json({ got: await c.req.json() }));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  after(
    () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  );

  it('answers a TOON body cut short with the 400 body-parser gives, not a logged 500', async () => {
    const status = new Promise<number>((resolve) => outcomes.push(resolve));
    const logged: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      await sendCutShort(server, { path: '/orders', firstBytes: 'sku: TEA\n' });
      assert.equal(await status, 400);
    } finally {
      console.error = consoleError;
    }
    assert.deepEqual(logged, []);
  });
});
