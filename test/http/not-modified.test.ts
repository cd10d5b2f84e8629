// Every response whose representation an adapter negotiates carries `Vary: Accept`, its 304s
// included (RFC 9110, section 15.4.5: a 304 carries the Vary its 200 would): those etag
// middleware answers (@fastify/etag, Express's built-in ETags, hono/etag in every position) and
// those the handler answers itself from its own If-None-Match check, which never reach the
// adapter's serializer. The app's own Vary is kept and Accept never written twice; a TOON answer
// never shares the JSON answer's ETag; a request left out of negotiation varies on nothing new.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import fastifyEtag from '@fastify/etag';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono, type MiddlewareHandler } from 'hono';
import { etag } from 'hono/etag';
import Koa from 'koa';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import { renderToon, toon as toonKoa } from '../../src/http/koa.js';
import { closer, koaBodyEtag, koaConditionalGet, listening, rawGet } from './field-apps.js';

const ROWS = {
  rows: [
    { id: 1, name: 'Ann' },
    { id: 2, name: 'Bo' },
  ],
};
/** The strong ETag handlers set for their data (the JSON representation's). */
const OWN_TAG = '"rows-v1"';
const FORMATS = ['text/toon', 'application/json'] as const;

const closers: Array<() => Promise<void>> = [];
after(() => Promise.all(closers.map((close) => close())));

function served(server: Server): Promise<string> {
  closers.push(closer(server));
  return listening(server);
}

/**
 * GET /rows (the data, with the app's own `Vary: Origin`), then the same request with its ETag
 * in If-None-Match: a 304 with the same Vary, for both formats; the two ETags differ.
 */
async function checkRevalidation(base: string, path = '/rows'): Promise<void> {
  const tags: string[] = [];
  for (const accept of FORMATS) {
    const first = await rawGet(`${base}${path}`, { accept });
    assert.equal(first.status, 200, accept);
    assert.equal(first.headers.vary, 'Origin, Accept', `${accept}: 200`);
    const tag = first.headers.etag;
    assert.ok(tag, `${accept}: the 200 carries an ETag`);
    tags.push(tag);
    const again = await rawGet(`${base}${path}`, { accept, 'if-none-match': tag });
    assert.equal(again.status, 304, accept);
    assert.equal(again.headers.vary, 'Origin, Accept', `${accept}: 304`);
  }
  assert.notEqual(tags[0], tags[1], 'TOON and JSON never share an ETag');
}

/** A handler's own conditional GET answers 304 for its tag; its 304 carries Vary: Accept. */
async function checkOwn304(base: string): Promise<void> {
  const answer = await rawGet(`${base}/own`, {
    accept: 'application/json',
    'if-none-match': OWN_TAG,
  });
  assert.equal(answer.status, 304);
  assert.equal(answer.headers.etag, OWN_TAG);
  assert.equal(answer.headers.vary, 'Origin, Accept');
  const skipped = await rawGet(`${base}/skipped`, { 'if-none-match': OWN_TAG });
  assert.equal(skipped.status, 304);
  assert.equal(skipped.headers.vary, 'Origin', 'a request left out of negotiation');
}

const fresh = (ifNoneMatch: string | undefined): boolean => ifNoneMatch === OWN_TAG;

describe('Fastify with @fastify/etag', () => {
  for (const order of ['etag first', 'etag last'] as const) {
    it(order, async () => {
      const app = Fastify();
      if (order === 'etag first') await app.register(fastifyEtag);
      await app.register(toonFastify, { skip: (request) => request.url === '/skipped' });
      if (order === 'etag last') await app.register(fastifyEtag);
      app.get('/rows', async (_request, reply) => {
        reply.header('vary', 'Origin');
        return ROWS;
      });
      for (const path of ['/own', '/skipped'])
        app.get(path, async (request, reply) => {
          reply.header('vary', 'Origin').header('etag', OWN_TAG);
          if (fresh(request.headers['if-none-match'])) return reply.code(304).send();
          return ROWS;
        });
      await app.listen({ port: 0, host: '127.0.0.1' });
      closers.push(() => app.close());
      const base = await listening(app.server);
      await checkRevalidation(base);
      await checkOwn304(base);
    });
  }
});

describe('Express with its built-in ETags', () => {
  it('the app answering 304s through Express and by itself', async () => {
    const app = express();
    app.use(toonExpress({ skip: (req) => req.path === '/skipped' }));
    app.get('/rows', (_req, res) => {
      res.vary('Origin').json(ROWS);
    });
    for (const path of ['/own', '/skipped'])
      app.get(path, (req, res) => {
        res.vary('Origin').set('ETag', OWN_TAG);
        if (req.fresh) {
          res.status(304).end();
          return;
        }
        res.json(ROWS);
      });
    const base = await served(app.listen(0, '127.0.0.1'));
    await checkRevalidation(base);
    await checkOwn304(base);
  });
});

describe('Hono with hono/etag', () => {
  for (const order of ['etag first', 'etag last'] as const) {
    it(order, async () => {
      const app = new Hono();
      const negotiation = toonHono({ skip: (c) => c.req.path === '/skipped' });
      const chain: MiddlewareHandler[] =
        order === 'etag first' ? [etag(), negotiation] : [negotiation, etag()];
      for (const middleware of chain) app.use(middleware);
      app.get('/rows', (c) => {
        c.header('Vary', 'Origin');
        return c.json(ROWS);
      });
      for (const path of ['/own', '/skipped'])
        app.get(path, (c) => {
          c.header('Vary', 'Origin');
          c.header('ETag', OWN_TAG);
          if (fresh(c.req.header('if-none-match'))) return c.body(null, 304);
          return c.json(ROWS);
        });
      const base = await served(
        serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server,
      );
      await checkRevalidation(base);
      await checkOwn304(base);
    });
  }
});

describe('Koa with conditional GET and body ETags', () => {
  for (const order of [
    'mounted before toon()',
    'mounted after toon()',
    'mounted before renderToon',
  ] as const) {
    it(order, async () => {
      const app = new Koa();
      const negotiation = toonKoa({ skip: (ctx) => ctx.path === '/skipped' });
      const chain =
        order === 'mounted before toon()'
          ? [koaConditionalGet, koaBodyEtag, negotiation]
          : order === 'mounted after toon()'
            ? [negotiation, koaConditionalGet, koaBodyEtag]
            : [koaConditionalGet, koaBodyEtag, renderToon, negotiation];
      for (const middleware of chain) app.use(middleware);
      app.use((ctx) => {
        ctx.vary('Origin');
        if (ctx.path !== '/rows') {
          ctx.set('ETag', OWN_TAG);
          ctx.status = 200;
          if (ctx.fresh) {
            ctx.status = 304;
            return;
          }
        }
        ctx.body = ROWS;
      });
      const base = await served(app.listen(0, '127.0.0.1'));
      if (order === 'mounted before renderToon') await checkRevalidation(base);
      else {
        // Otherwise the tag is computed from the object, before toon() renders it when Koa
        // writes the answer: it names the JSON, so the TOON answer drops it (a strong tag names one
        // representation) and only JSON revalidates; its 304 varies on Accept all the same.
        const json = await rawGet(`${base}/rows`, { accept: 'application/json' });
        const tag = String(json.headers.etag);
        const again = await rawGet(`${base}/rows`, {
          accept: 'application/json',
          'if-none-match': tag,
        });
        assert.equal(again.status, 304);
        assert.equal(again.headers.vary, 'Origin, Accept');
        const toon = await rawGet(`${base}/rows`, { accept: 'text/toon' });
        assert.equal(toon.status, 200);
        assert.equal(toon.headers.vary, 'Origin, Accept');
        assert.equal(toon.headers.etag, undefined, 'TOON never carries the JSON tag');
      }
      await checkOwn304(base);
    });
  }
});
