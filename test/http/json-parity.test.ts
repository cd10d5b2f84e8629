// The JSON view stays intact: over real HTTP, each framework with and without its adapter, under
// every default, a response that goes out as JSON is what the framework sends without toonwire
// (status, Content-Type, Content-Length, the same bytes), and one that goes out as TOON decodes to
// the data of that JSON. A redirect keeps its status even for a client that refuses both formats.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { decode } from '../../src/codec/decode.js';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import type { DefaultFormat } from '../../src/http/index.js';
import { toon as toonKoa } from '../../src/http/koa.js';
import { closer, listening } from './field-apps.js';

const VALUES: Record<string, () => unknown> = {
  nested: () => ({
    a: {
      b: [
        { c: 1, d: 'x' },
        { c: 2, d: 'y' },
      ],
    },
  }),
  rows: () => ({
    rows: [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Bob' },
      { id: 3, name: 'Cy' },
    ],
  }),
  mixed: () => ({ rows: [{ a: 1 }, { b: 2 }, { a: 1, b: [1, { c: 2 }] }] }),
  host: () => ({ d: new Date(0), t: { toJSON: () => 'custom' }, u: undefined, m: new Map() }),
  text: () => ({ s: '\u2028 é 😀 "q" \\ \n', n: [-0, 1e21, 0.1 + 0.2, Number.NaN] }),
  array: () => [[1, 2], [], [{ a: 1 }]],
};

interface Running {
  url: string;
  close(): Promise<void>;
}
type Start = (adapter: boolean, defaultFormat: DefaultFormat) => Promise<Running>;

function nodeServer(server: Server): Promise<Running> {
  return listening(server).then((url) => ({ url, close: closer(server) }));
}

const FRAMEWORKS: Record<string, Start> = {
  fastify: async (adapter, defaultFormat) => {
    const app = Fastify();
    if (adapter) await app.register(toonFastify, { defaultFormat });
    app.get('/moved', async (_request, reply) =>
      reply.code(302).header('location', '/rows').send(MOVED),
    );
    app.get<{ Params: { name: string } }>('/:name', async (request) =>
      VALUES[request.params.name]!(),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: await listening(app.server), close: () => app.close() };
  },
  express: (adapter, defaultFormat) => {
    const app = express();
    if (adapter) app.use(toonExpress({ defaultFormat }));
    app.get('/moved', (_req, res) => {
      res.status(302).location('/rows').json(MOVED);
    });
    app.get('/:name', (req, res) => {
      res.json(VALUES[req.params.name!]!());
    });
    return nodeServer(app.listen(0, '127.0.0.1'));
  },
  hono: (adapter, defaultFormat) => {
    const app = new Hono();
    if (adapter) app.use(toonHono({ defaultFormat }));
    app.get('/moved', (c) => c.json(MOVED, 302, { Location: '/rows' }));
    app.get('/:name', (c) => c.json(VALUES[c.req.param('name')]!() as object));
    return nodeServer(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  koa: (adapter, defaultFormat) => {
    const app = new Koa();
    if (adapter) app.use(toonKoa({ defaultFormat }));
    app.use((ctx) => {
      if (ctx.path === '/moved') {
        ctx.status = 302;
        ctx.set('Location', '/rows');
        ctx.body = MOVED;
        return;
      }
      ctx.body = VALUES[ctx.path.slice(1)]!();
    });
    return nodeServer(app.listen(0, '127.0.0.1'));
  },
};

/** GET /moved: a 302 with a JSON body describing the redirect. */
const MOVED = { moved: '/rows' };

const ACCEPTS = [undefined, '*/*', 'application/json', 'application/json, text/plain, */*'];

for (const [framework, start] of Object.entries(FRAMEWORKS)) {
  describe(`JSON parity on ${framework}`, async () => {
    const running: Running[] = [];
    after(() => Promise.all(running.map((server) => server.close())));
    for (const defaultFormat of ['json', 'toon', 'auto'] as const) {
      const [plain, adapted] = await Promise.all([
        start(false, defaultFormat),
        start(true, defaultFormat),
      ]);
      running.push(plain, adapted);
      it(`under the ${defaultFormat} default, JSON as without the adapter, TOON with its data`, async () => {
        for (const name of Object.keys(VALUES)) {
          for (const accept of ACCEPTS) {
            const headers: Record<string, string> = accept === undefined ? {} : { accept };
            const [before, now] = await Promise.all([
              fetch(`${plain.url}/${name}`, { headers }),
              fetch(`${adapted.url}/${name}`, { headers }),
            ]);
            const [expected, text] = await Promise.all([before.text(), now.text()]);
            const label = `${name}, Accept ${accept ?? '(none)'}`;
            assert.equal(now.status, before.status, label);
            if (now.headers.get('content-type')?.startsWith('text/toon')) {
              assert.deepEqual(decode(text), JSON.parse(expected), label);
              continue;
            }
            assert.equal(text, expected, label);
            for (const header of ['content-type', 'content-length'])
              assert.equal(
                now.headers.get(header),
                before.headers.get(header),
                `${label}: ${header}`,
              );
          }
        }
      });
    }

    it('keeps a redirect and its Location for a client that refuses both formats, as without the adapter', async () => {
      const plain = running[0]!;
      const adapted = running[1]!;
      for (const accept of ['*/*;q=0', 'text/toon;q=0, application/json;q=0']) {
        const options = { headers: { accept }, redirect: 'manual' } as const;
        const [before, now] = await Promise.all([
          fetch(`${plain.url}/moved`, options),
          fetch(`${adapted.url}/moved`, options),
        ]);
        const [expected, text] = await Promise.all([before.text(), now.text()]);
        assert.equal(before.status, 302);
        assert.equal(now.status, 302, text);
        assert.equal(now.headers.get('location'), '/rows');
        assert.equal(text, expected);
      }
    });
  });
}
