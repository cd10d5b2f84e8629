// A conditional GET gets 304 only for the tag of the representation it would get now: a TOON
// answer and a JSON answer of the same data never validate each other. A cache holding the JSON
// answer sends its ETag on a request for TOON (RFC 9111, section 4.3.1, sends every stored tag);
// the app's own If-None-Match check (a tag of the data), Koa's ctx.fresh before toon() renders,
// and etag middleware on every adapter used to answer 304 to it, and the client kept JSON it had
// not asked for. Real apps over HTTP, with the real etag middleware where it is installed
// (@fastify/etag, Express's built-in ETags, hono/etag; Koa's koa-etag and koa-conditional-get are
// not installed here, so their few lines are below).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
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
import { holdsTag, ifNoneMatchOfData, toonTagOfNotModified } from '../../src/http/kit.js';
import { renderToon, toon as toonKoa } from '../../src/http/koa.js';
import {
  closer,
  koaBodyEtag,
  koaConditionalGet,
  listening,
  type RawAnswer,
  rawGet,
} from './field-apps.js';

const ROWS = {
  rows: [
    { id: 1, name: 'Ann' },
    { id: 2, name: 'Bo' },
  ],
};
const LAST_MODIFIED = 'Tue, 01 Dec 2026 10:00:00 GMT';
const LATER = 'Wed, 02 Dec 2026 10:00:00 GMT';
/** The tag an app computes from its data, whatever format it is sent in. */
const DATA_TAG = `"${createHash('sha1').update(JSON.stringify(ROWS)).digest('hex').slice(0, 16)}"`;
const tagOf = (path: string): string => (path === '/own-weak' ? `W/${DATA_TAG}` : DATA_TAG);
const TOON = 'text/toon';
const JSON_TYPE = 'application/json';
const OTHER = { [TOON]: JSON_TYPE, [JSON_TYPE]: TOON } as const;
/**
 * /rows: the data, tagged by etag middleware (Koa: from the body); /own and /own-weak: the app's
 * own check of a strong or weak tag of the data (with a Last-Modified on Express and Koa, whose
 * ctx.fresh and req.fresh fall back to If-Modified-Since without If-None-Match).
 */
const PATHS = ['/rows', '/own', '/own-weak'] as const;

/** An app's own check: does If-None-Match list `tag` (exactly, as the app wrote it)? */
function sent(header: string | undefined, tag: string): boolean {
  return header?.split(',').some((listed) => listed.trim() === tag) ?? false;
}

const closers: Array<() => Promise<void>> = [];
after(() => Promise.all(closers.map((close) => close())));

function served(server: Server): Promise<string> {
  closers.push(closer(server));
  return listening(server);
}

function formatOf(answer: RawAnswer): string {
  return String(answer.headers['content-type']).startsWith(TOON) ? TOON : JSON_TYPE;
}

/**
 * For each path and format: the 200's tag revalidates the same format (304, the same tag), never
 * the other (200 in the other format, with its own tag), alone or listed with other tags; a
 * cache sending both formats' tags gets the 304 naming the one asked for; the data's tag with a
 * later If-Modified-Since still gets a 200 in TOON. `etagReadsLists: false`: the etag middleware
 * compares the header whole, not as a list (@fastify/etag), so no request sends two tags.
 */
async function checkRevalidation(base: string, etagReadsLists = true): Promise<void> {
  for (const path of PATHS) {
    const tags: Record<string, string> = {};
    for (const accept of [TOON, JSON_TYPE] as const) {
      const first = await rawGet(`${base}${path}`, { accept });
      assert.equal(first.status, 200, `${path} ${accept}`);
      assert.equal(formatOf(first), accept, `${path} ${accept}`);
      const tag = first.headers.etag;
      if (tag === undefined) continue; // a strong tag of the data is dropped from TOON
      tags[accept] = tag;
      const same = await rawGet(`${base}${path}`, { accept, 'if-none-match': tag });
      assert.equal(same.status, 304, `${path} ${accept}: its own tag`);
      assert.equal(same.headers.etag, tag, `${path} ${accept}: the 304 names it`);
      assert.match(String(same.headers.vary), /Accept/, `${path} ${accept}: 304 Vary`);
      for (const header of etagReadsLists ? [tag, `"other", ${tag}`] : [tag]) {
        const cross = await rawGet(`${base}${path}`, {
          accept: OTHER[accept],
          'if-none-match': header,
        });
        assert.equal(cross.status, 200, `${path}: ${accept}'s tag sent for ${OTHER[accept]}`);
        assert.equal(formatOf(cross), OTHER[accept], `${path}: the format asked for`);
        assert.notEqual(cross.headers.etag, tag, `${path}: never the other format's tag`);
      }
    }
    if (tags[TOON] !== undefined && tags[JSON_TYPE] !== undefined && etagReadsLists) {
      for (const accept of [TOON, JSON_TYPE] as const) {
        const both = await rawGet(`${base}${path}`, {
          accept,
          'if-none-match': `${tags[JSON_TYPE]}, ${tags[TOON]}`,
        });
        assert.equal(both.status, 304, `${path} ${accept}: both stored tags sent`);
        assert.equal(both.headers.etag, tags[accept], `${path} ${accept}: the 304 names its own`);
      }
    }
    if (path !== '/rows') {
      const dated = await rawGet(`${base}${path}`, {
        accept: TOON,
        'if-none-match': tagOf(path),
        'if-modified-since': LATER,
      });
      assert.equal(dated.status, 200, `${path}: the data's tag and a date, for TOON`);
      assert.equal(formatOf(dated), TOON);
    }
  }
}

/**
 * GET /raw (the handler's own bytes, not negotiated) for TOON, then again with its tag: etag
 * middleware that compares after the answer is sent (docs/http.md, Conditional GETs) sees the
 * client's own header and answers 304.
 */
async function checkOwnBytes(base: string): Promise<void> {
  const first = await rawGet(`${base}/raw`, { accept: TOON });
  assert.equal(first.text, RAW);
  const tag = first.headers.etag;
  assert.ok(tag, 'the bytes are tagged');
  const again = await rawGet(`${base}/raw`, { accept: TOON, 'if-none-match': tag });
  assert.equal(again.status, 304, 'its own tag revalidates the bytes');
}
const RAW = 'raw bytes';

describe('Fastify with @fastify/etag', () => {
  for (const order of ['etag first', 'etag last'] as const) {
    it(order, async () => {
      const app = Fastify();
      if (order === 'etag first') await app.register(fastifyEtag);
      await app.register(toonFastify);
      if (order === 'etag last') await app.register(fastifyEtag);
      app.get('/rows', async () => ROWS);
      app.get('/raw', async (_request, reply) => reply.type('text/plain').send(RAW));
      for (const path of ['/own', '/own-weak'])
        app.get(path, async (request, reply) => {
          reply.header('etag', tagOf(path));
          if (sent(request.headers['if-none-match'], tagOf(path))) return reply.code(304).send();
          return ROWS;
        });
      await app.listen({ port: 0, host: '127.0.0.1' });
      closers.push(() => app.close());
      const base = await listening(app.server);
      await checkRevalidation(base, false);
      if (order === 'etag last') await checkOwnBytes(base);
    });
  }
});

describe("Express with its built-in ETags and the app's req.fresh", () => {
  it('answers each format for its own tag only', async () => {
    const app = express();
    app.use(toonExpress());
    app.get('/rows', (_req, res) => {
      res.json(ROWS);
    });
    app.get('/raw', (_req, res) => {
      res.type('text/plain').send(RAW);
    });
    for (const path of ['/own', '/own-weak'])
      app.get(path, (req, res) => {
        res.set({ ETag: tagOf(path), 'Last-Modified': LAST_MODIFIED });
        if (req.fresh) {
          res.sendStatus(304);
          return;
        }
        res.json(ROWS);
      });
    const base = await served(app.listen(0, '127.0.0.1'));
    await checkRevalidation(base);
    await checkOwnBytes(base);
  });
});

describe('Hono with hono/etag', () => {
  for (const order of ['etag first', 'etag last'] as const) {
    it(order, async () => {
      const app = new Hono();
      const negotiation = toonHono();
      const chain: MiddlewareHandler[] =
        order === 'etag first' ? [etag(), negotiation] : [negotiation, etag()];
      for (const middleware of chain) app.use(middleware);
      app.get('/rows', (c) => c.json(ROWS));
      app.get('/raw', (c) => c.text(RAW));
      for (const path of ['/own', '/own-weak'])
        app.get(path, (c) => {
          c.header('ETag', tagOf(path));
          if (sent(c.req.header('if-none-match'), tagOf(path))) return c.body(null, 304);
          return c.json(ROWS);
        });
      const base = await served(
        serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server,
      );
      await checkRevalidation(base);
      if (order === 'etag first') await checkOwnBytes(base);
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
      const negotiation = toonKoa();
      const chain =
        order === 'mounted before toon()'
          ? [koaConditionalGet, koaBodyEtag, negotiation]
          : order === 'mounted after toon()'
            ? [negotiation, koaConditionalGet, koaBodyEtag]
            : [koaConditionalGet, koaBodyEtag, renderToon, negotiation];
      for (const middleware of chain) app.use(middleware);
      app.use((ctx) => {
        if (ctx.path === '/raw') {
          ctx.type = 'text/plain';
          ctx.body = RAW;
          return;
        }
        if (ctx.path !== '/rows') {
          ctx.set({ ETag: tagOf(ctx.path), 'Last-Modified': LAST_MODIFIED });
          ctx.status = 200;
          if (ctx.fresh) {
            ctx.status = 304;
            return;
          }
        }
        ctx.body = ROWS;
      });
      const base = await served(app.listen(0, '127.0.0.1'));
      await checkRevalidation(base);
      if (order !== 'mounted after toon()') await checkOwnBytes(base);
    });
  }
});

describe('the If-None-Match an app sees for a TOON request', () => {
  it("keeps TOON's tags in the data's terms and hides the rest", () => {
    assert.equal(ifNoneMatchOfData('W/"abc-toon"'), 'W/"abc"');
    assert.equal(ifNoneMatchOfData('"abc", W/"def-toon" ,W/"g,h-toon"'), 'W/"def", W/"g,h"');
    assert.equal(ifNoneMatchOfData('"abc"'), 'W/""');
    assert.equal(ifNoneMatchOfData(' * '), ' * ');
    for (const hostile of ['', 'W/', '"abc', 'abc-toon', '\u00e9"x-toon', ',,,'])
      assert.equal(typeof ifNoneMatchOfData(hostile), 'string', hostile);
    // One pass over a header far longer than any server accepts.
    const many = Array.from({ length: 50_000 }, (_, i) => `W/"t${i}-toon"`).join(', ');
    assert.equal(ifNoneMatchOfData(many).split(', ').length, 50_000);
    assert.equal(ifNoneMatchOfData(`"${'x'.repeat(1_000_000)}`), 'W/""');
  });
  it("names a 304 by the TOON answer's tag, and compares tags weakly", () => {
    assert.equal(toonTagOfNotModified('W/"abc"'), 'W/"abc-toon"');
    assert.equal(toonTagOfNotModified('"abc"'), 'W/"abc-toon"');
    assert.equal(holdsTag('W/"abc", "def"', '"abc"'), true);
    assert.equal(holdsTag('"abc"', 'W/"abcd"'), false);
    assert.equal(holdsTag('"abc"', 'no quotes'), false);
  });
});
