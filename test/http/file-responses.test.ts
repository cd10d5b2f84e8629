// A file the handler names (Content-Disposition) stays JSON on every adapter, by the one rule in
// kit.ts (namesFile), and costs one serialization: the JSON the file is, never a TOON render
// thrown away (Hono used to render TOON first and discard it once the headers showed the file).
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import { namesFile } from '../../src/http/kit.js';
import { toon as toonKoa } from '../../src/http/koa.js';
import { closer, listening, rawGet } from './field-apps.js';

const DISPOSITION = 'attachment; filename="orders.json"';
const ROWS = [
  { id: 1, status: 'paid' },
  { id: 2, status: 'open' },
];

/** Data whose `rows` counts how often a serializer reads it. */
function countedOrders(): { body: { rows: typeof ROWS }; reads: () => number } {
  let reads = 0;
  const body = {
    get rows() {
      reads++;
      return ROWS;
    },
  };
  return { body, reads: () => reads };
}

const closers: Array<() => Promise<void>> = [];
after(() => Promise.all(closers.map((close) => close())));

async function served(server: Server): Promise<string> {
  closers.push(closer(server));
  return listening(server);
}

/** Each adapter's app with GET /export naming a file, the counted body handed in per request. */
const APPS: Record<string, (next: () => ReturnType<typeof countedOrders>) => Promise<string>> = {
  express: async (next) => {
    const app = express();
    app.use(toonExpress());
    app.get('/export', (_req, res) => {
      res.set('Content-Disposition', DISPOSITION).json(next().body);
    });
    return served(app.listen(0, '127.0.0.1'));
  },
  fastify: async (next) => {
    const app = Fastify();
    await app.register(toonFastify);
    app.get('/export', async (_request, reply) => {
      reply.header('content-disposition', DISPOSITION);
      return next().body;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return listening(app.server);
  },
  'hono (c.header)': async (next) => {
    const app = new Hono();
    app.use(toonHono());
    app.get('/export', (c) => {
      c.header('Content-Disposition', DISPOSITION);
      return c.json(next().body);
    });
    return served(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  'hono (c.json headers)': async (next) => {
    const app = new Hono();
    app.use(toonHono());
    app.get('/export', (c) => c.json(next().body, 200, { 'Content-Disposition': DISPOSITION }));
    return served(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  koa: async (next) => {
    const app = new Koa();
    app.use(toonKoa());
    app.use((ctx) => {
      ctx.attachment('orders.json');
      ctx.body = next().body;
    });
    return served(app.listen(0, '127.0.0.1'));
  },
};

describe('a file the handler names stays JSON, serialized once', () => {
  for (const [name, start] of Object.entries(APPS)) {
    it(name, async () => {
      let counted = countedOrders();
      const url = `${await start(() => counted)}/export`;
      for (const accept of ['text/toon', 'application/json', 'text/toon, application/json;q=0.5']) {
        counted = countedOrders();
        const answer = await rawGet(url, { accept });
        assert.equal(answer.status, 200, accept);
        assert.match(String(answer.headers['content-type']), /^application\/json/, accept);
        assert.equal(answer.text, JSON.stringify({ rows: ROWS }), accept);
        assert.equal(answer.headers['content-disposition'], DISPOSITION, accept);
        assert.equal(counted.reads(), 1, `${accept}: the body is serialized once, as JSON`);
      }
    });
  }
});

describe('namesFile', () => {
  it('is true for any Content-Disposition the handler set, false for none', () => {
    assert.equal(namesFile(DISPOSITION), true);
    assert.equal(namesFile('inline; filename="orders.json"'), true);
    assert.equal(namesFile(['attachment']), true);
    assert.equal(namesFile(undefined), false);
    assert.equal(namesFile(null), false);
  });
});
