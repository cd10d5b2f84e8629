// The response Hono's adapter builds for c.json: every header the handler gave (c.header, c.json's
// headers record or ResponseInit) exactly once, in JSON and in TOON, Set-Cookie included (a
// cookie in c.json's ResponseInit used to reach TOON clients twice when the handler also named a
// file, since the adapter built the response twice and Hono appends that cookie on every build),
// and one Response per answer (the adapter used to build one only to read its headers).
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { toon as toonHono } from '../../src/http/hono.js';
import { closer, listening } from './field-apps.js';

const DATA = {
  rows: [
    { id: 1, name: 'Ann' },
    { id: 2, name: 'Bo' },
  ],
};
const FORMATS = ['text/toon', 'application/json'] as const;

function twoCookies(): Headers {
  const headers = new Headers();
  headers.append('Set-Cookie', 'a=1; Path=/');
  headers.append('Set-Cookie', 'b=2; HttpOnly');
  return headers;
}

/** Each route: how the handler answers, and the cookies it sets, in order. */
const ROUTES: Record<string, { handler: (c: Context) => Response; cookies: string[] }> = {
  '/init-file': {
    handler: (c) => {
      c.header('Content-Disposition', 'attachment; filename="rows.json"');
      return c.json(DATA, { status: 200, headers: { 'Set-Cookie': 'a=1; Path=/' } });
    },
    cookies: ['a=1; Path=/'],
  },
  '/init-two-file': {
    handler: (c) => {
      c.header('Content-Disposition', 'inline');
      return c.json(DATA, { status: 201, headers: twoCookies() });
    },
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
  },
  '/init-two-header': {
    handler: (c) => {
      c.header('X-Trace', 'abc');
      return c.json(DATA, { status: 201, headers: twoCookies() });
    },
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
  },
  '/record-two-file': {
    handler: (c) => {
      c.header('Content-Disposition', 'inline');
      return c.json(DATA, 200, { 'Set-Cookie': ['a=1; Path=/', 'b=2; HttpOnly'] });
    },
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
  },
  '/appended-and-init': {
    handler: (c) => {
      c.header('Set-Cookie', 'c=3', { append: true });
      c.header('Content-Disposition', 'inline');
      return c.json(DATA, { headers: twoCookies() });
    },
    cookies: ['c=3', 'a=1; Path=/', 'b=2; HttpOnly'],
  },
  '/outer-file': {
    // The file is named by middleware mounted before toon() (see the app below).
    handler: (c) => c.json(DATA, { status: 200, headers: twoCookies() }),
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
  },
};

function honoApp(): Hono {
  const app = new Hono();
  app.use('/outer-file', async (c, next) => {
    c.header('Content-Disposition', 'attachment; filename="rows.json"');
    await next();
  });
  app.use(toonHono());
  for (const [path, { handler }] of Object.entries(ROUTES)) app.get(path, handler);
  return app;
}

const closers: Array<() => Promise<void>> = [];
after(() => Promise.all(closers.map((close) => close())));

describe('Hono: c.json headers, once each', () => {
  it('every cookie exactly once, in JSON and TOON, over HTTP', async () => {
    const server = serve({ fetch: honoApp().fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    closers.push(closer(server));
    const base = await listening(server);
    for (const [path, { cookies }] of Object.entries(ROUTES))
      for (const accept of FORMATS) {
        const response = await fetch(`${base}${path}`, { headers: { accept } });
        const text = await response.text();
        assert.deepEqual(response.headers.getSetCookie(), cookies, `${path} ${accept}`);
        const named = response.headers.get('content-disposition') !== null;
        const toon = accept === 'text/toon' && !named;
        assert.match(
          String(response.headers.get('content-type')),
          toon ? /^text\/toon/ : /^application\/json/,
          `${path} ${accept}`,
        );
        if (!toon) assert.deepEqual(JSON.parse(text), DATA, `${path} ${accept}`);
        assert.equal(response.headers.get('vary'), 'Accept', `${path} ${accept}`);
      }
  });
});

describe('Hono: one Response per c.json answer', () => {
  it('builds one Response for TOON as for JSON', async () => {
    const app = new Hono();
    app.use(toonHono());
    app.get('/rows', (c) => {
      c.header('X-Trace', 'abc');
      return c.json(DATA);
    });
    const Original = globalThis.Response;
    let built = 0;
    globalThis.Response = new Proxy(Original, {
      construct(target, args, newTarget) {
        built++;
        return Reflect.construct(target, args, newTarget);
      },
    });
    try {
      for (const accept of FORMATS) {
        built = 0;
        const response = await app.request('/rows', { headers: { accept } });
        await response.text();
        assert.equal(response.headers.get('x-trace'), 'abc', accept);
        assert.equal(built, 1, `${accept}: one Response`);
      }
    } finally {
      globalThis.Response = Original;
    }
  });
});
