// toonwire/koa beyond the shared matrix: what a real connection does that a whole request
// cannot, such as a client that hangs up halfway through its body, and middleware mounted
// before the adapter (CORS), whose headers problem documents keep.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { HttpProblem } from '../../src/http/index.js';
import { toon } from '../../src/http/koa.js';
import { closer, listening } from './field-apps.js';
import { profileOf, send, sendCutShort } from './harness.js';

describe('Koa adapter, a client that disconnects mid-body', () => {
  const app = new Koa();
  // Errors handed to Koa's 'error' event (logged as server errors by default), less the parse
  // error Koa itself reports (through on-finished) for any request whose socket closes early.
  const emitted: unknown[] = [];
  app.on('error', (error: { code?: unknown }) => {
    if (!String(error.code).startsWith('HPE_')) emitted.push(error);
  });
  const outcomes: Array<(status: number) => void> = [];
  app.use(async (ctx, next) => {
    await next();
    outcomes.shift()?.(ctx.status);
  });
  app.use(toon());
  app.use((ctx) => {
    ctx.body = { got: (ctx.request as unknown as { body?: unknown }).body };
  });
  const server: Server = app.listen(0, '127.0.0.1');
  after(closer(server));

  for (const [name, encoding, firstBytes] of [
    ['identity', undefined, Buffer.from('sku: TEA\n')],
    ['gzip', 'gzip', gzipSync('sku: TEA\nquantity: 2').subarray(0, 12)],
  ] as const) {
    it(`answers a ${name} body cut short with a 400, as @koa/bodyparser does, not a logged 500`, async () => {
      const status = new Promise<number>((resolve) => outcomes.push(resolve));
      await sendCutShort(server, {
        path: '/orders',
        firstBytes,
        ...(encoding === undefined ? {} : { headers: [`Content-Encoding: ${encoding}`] }),
      });
      assert.equal(await status, 400);
      assert.deepEqual(emitted, []);
    });
  }
});

describe('Koa adapter after middleware that sets headers on the way in (@koa/cors, koa-helmet)', () => {
  const app = new Koa();
  app.silent = true;
  // What @koa/cors does before calling next(): the allowed origin, and Vary: Origin.
  app.use(async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', 'https://app.example');
    ctx.vary('Origin');
    ctx.set('X-Request-Id', 'r-1');
    // And what koa-helmet sets.
    ctx.set('Content-Security-Policy', "default-src 'self'");
    await next();
  });
  app.use(toon({ notFound: true }));
  app.use((ctx) => {
    if (ctx.path === '/orders') {
      ctx.set('Cache-Control', 'max-age=60');
      ctx.set('X-Rows', '2');
      throw new HttpProblem({ status: 409, detail: 'Paid already.', headers: { 'X-Own': 'y' } });
    }
  });
  const server: Server = app.listen(0, '127.0.0.1');
  after(closer(server));

  it('keeps their headers on problem documents and 404s, and drops those of the failed answer', async () => {
    const url = await listening(server);
    for (const [path, status] of [
      ['/orders', 409],
      ['/missing', 404],
    ] as const) {
      const response = await send({ url }, { path, headers: { accept: 'text/toon' } });
      assert.equal(response.status, status);
      assert.equal(profileOf(response), 'problem');
      assert.equal(response.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.equal(response.headers.get('x-request-id'), 'r-1');
      assert.equal(response.headers.get('content-security-policy'), "default-src 'self'");
      assert.equal(response.headers.get('vary'), 'Origin, Accept');
      assert.equal(response.headers.get('cache-control'), null, path);
      assert.equal(response.headers.get('x-rows'), null, path);
    }
    const own = await send({ url }, { path: '/orders' });
    assert.equal(own.headers.get('x-own'), 'y');
    assert.equal(own.mediaType, 'application/problem+json');
  });
});

describe('Koa adapter after middleware that read the body already', () => {
  const servers: Server[] = [];
  after(() => Promise.all(servers.map((server) => closer(server)())));
  const errors: Error[] = [];

  async function start(before: Koa.Middleware): Promise<string> {
    const app = new Koa();
    app.silent = true;
    app.on('error', (error: Error) => errors.push(error));
    app.use(before);
    app.use(toon());
    app.use((ctx) => {
      ctx.body = { got: (ctx.request as unknown as { body?: unknown }).body ?? null };
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    return listening(server);
  }

  it('decodes the text that parser read, instead of the nothing left on the stream', async () => {
    const url = await start(
      bodyParser({ enableTypes: ['json', 'form', 'text'], extendTypes: { text: ['text/*'] } }),
    );
    const response = await send(
      { url },
      { method: 'POST', path: '/', headers: { 'content-type': 'text/toon' }, body: 'a: 1' },
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.data, { got: { a: 1 } });
  });

  it('keeps a body the adapter mounted twice (app and router) decoded already', async () => {
    const url = await start(toon());
    const response = await send(
      { url },
      { method: 'POST', path: '/', headers: { 'content-type': 'text/toon' }, body: 'a: 1' },
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.data, { got: { a: 1 } });
  });

  it('answers a body read and dropped by earlier middleware with a 500 that says to mount toon() first', async () => {
    const url = await start(async (ctx, next) => {
      for await (const _chunk of ctx.req);
      await next();
    });
    const response = await send(
      { url },
      { method: 'POST', path: '/', headers: { 'content-type': 'text/toon' }, body: 'a: 1' },
    );
    assert.equal(response.status, 500);
    assert.equal(response.mediaType, 'application/problem+json');
    assert.match(String(errors.at(-1)?.message), /mount toon\(\) first/);
  });
});

describe("Koa adapter with notFound and @koa/router's allowedMethods()", () => {
  const app = new Koa();
  const emitted: unknown[] = [];
  app.on('error', (error: unknown) => emitted.push(error));
  app.use(toon({ notFound: true }));
  const router = new Router();
  router.get('/orders', (ctx) => {
    ctx.body = { data: [] };
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  const server: Server = app.listen(0, '127.0.0.1');
  after(closer(server));

  it('answers its bodyless 405 and 501 with negotiated problems that keep Allow, as 404s are', async () => {
    const url = await listening(server);
    for (const [method, status] of [
      ['POST', 405],
      ['PURGE', 501],
    ] as const) {
      const toonAnswer = await send(
        { url },
        { method, path: '/orders', headers: { accept: 'text/toon' } },
      );
      assert.equal(toonAnswer.status, status, toonAnswer.text);
      assert.equal(profileOf(toonAnswer), 'problem');
      assert.equal(toonAnswer.headers.get('allow'), 'HEAD, GET');
      assert.equal(toonAnswer.headers.get('vary'), 'Accept');
      assert.match(String((toonAnswer.data as { detail: string }).detail), /Allow: HEAD, GET/);
      const json = await send({ url }, { method, path: '/orders' });
      assert.equal(json.status, status);
      assert.equal(json.mediaType, 'application/problem+json');
      assert.equal(json.headers.get('allow'), 'HEAD, GET');
    }
    // The router answered; nothing failed, so nothing is reported as a server error.
    assert.deepEqual(emitted, []);
  });
});
