// Koa middleware mounted before toon() that changes ctx.body on its way out (after `await
// next()`): an envelope, a redaction, a replacement, a status. toon() used to render when it
// returned, so such middleware found text: the envelope wrapped it as a string and the redaction
// deleted nothing, in JSON and TOON alike. Each app here runs with and without toon(): JSON
// answers must be the bare app's bytes, TOON answers must decode to the bare app's data.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import Koa, { type Middleware } from 'koa';
import { decode } from '../../src/codec/decode.js';
import { mediaTypeOf } from '../../src/http/index.js';
import { renderToon, toon as toonKoa } from '../../src/http/koa.js';
import { closer, listening } from './field-apps.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function send(url: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const gzipped = response.headers['content-encoding'] === 'gzip';
        const text = (gzipped ? gunzipSync(bytes) : bytes).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

const closers: Array<() => Promise<void>> = [];
after(() => Promise.all(closers.map((close) => close())));

async function start(chain: Middleware[]): Promise<string> {
  const app = new Koa();
  for (const middleware of chain) app.use(middleware);
  const server = app.listen(0, '127.0.0.1');
  closers.push(closer(server));
  return listening(server);
}

const USER = () => ({
  id: 7,
  name: 'Ann',
  secret: 's3cr3t',
  profile: { city: 'Oslo', passwordHash: 'x1' },
  orders: [
    { id: 1, total: 9.5 },
    { id: 2, total: 12 },
  ],
});

const handler: Middleware = (ctx) => {
  ctx.body = USER();
};

/** Middleware people mount first, each changing the body after `await next()`. */
const OUTER: Record<string, Middleware[]> = {
  envelope: [
    async (ctx, next) => {
      await next();
      ctx.body = { data: ctx.body, meta: { version: 2 } };
    },
  ],
  'redaction in place': [
    async (ctx, next) => {
      await next();
      const body = ctx.body as Record<string, unknown>;
      delete body.secret;
    },
  ],
  'nested redaction': [
    async (ctx, next) => {
      await next();
      const body = ctx.body as { profile: Record<string, unknown> };
      delete body.profile.passwordHash;
    },
  ],
  'envelope around a redaction, with a status': [
    async (ctx, next) => {
      await next();
      ctx.status = 201;
      ctx.body = { data: ctx.body };
    },
    async (ctx, next) => {
      await next();
      const body = ctx.body as Record<string, unknown>;
      delete body.secret;
    },
  ],
  'a string in the data’s place': [
    async (ctx, next) => {
      await next();
      ctx.body = 'replaced';
    },
  ],
  'an app that writes the answer itself (ctx.respond = false)': [
    async (ctx, next) => {
      await next();
      ctx.respond = false;
      ctx.res.setHeader('content-type', 'application/json');
      ctx.res.end(JSON.stringify({ own: ctx.body }));
    },
  ],
};

const ACCEPTS = ['application/json', 'text/toon', '*/*', 'text/toon, application/json'];

describe('Koa middleware before toon() that edits ctx.body after await next()', () => {
  for (const [name, outer] of Object.entries(OUTER)) {
    it(name, async () => {
      const bare = await start([...outer, handler]);
      const negotiated = await start([...outer, toonKoa(), handler]);
      for (const accept of ACCEPTS) {
        const expected = await send(bare, { accept });
        const answer = await send(negotiated, { accept });
        assert.equal(answer.status, expected.status, accept);
        if (mediaTypeOf(answer.headers['content-type']) === 'text/toon')
          assert.deepEqual(decode(answer.text), JSON.parse(expected.text), accept);
        else {
          assert.equal(answer.text, expected.text, accept);
          assert.equal(answer.headers['content-type'], expected.headers['content-type'], accept);
        }
      }
      if (name === 'envelope') {
        // TOON is what a TOON client gets of data, and HEAD says its length.
        const toon = await send(negotiated, { accept: 'text/toon' });
        assert.equal(mediaTypeOf(toon.headers['content-type']), 'text/toon');
        assert.match(String(toon.headers.vary), /Accept/);
        const head = await send(negotiated, { accept: 'text/toon' }, 'HEAD');
        assert.equal(head.headers['content-length'], String(Buffer.byteLength(toon.text)));
        assert.equal(head.headers['content-type'], toon.headers['content-type']);
      }
    });
  }

  it('renders once when mounted twice, the edits of middleware between them included', async () => {
    const envelope: Middleware = async (ctx, next) => {
      await next();
      ctx.body = { data: ctx.body };
    };
    const url = await start([toonKoa(), envelope, toonKoa(), handler]);
    const answer = await send(url, { accept: 'text/toon' });
    assert.equal(mediaTypeOf(answer.headers['content-type']), 'text/toon');
    assert.deepEqual(decode(answer.text), { data: USER() });
  });

  it('answers data an outer middleware made unwritable with a problem, never text/plain', async () => {
    const url = await start([
      async (ctx, next) => {
        await next();
        (ctx.body as Record<string, unknown>).count = 10n;
      },
      toonKoa(),
      handler,
    ]);
    for (const accept of ['application/json', 'text/toon']) {
      const answer = await send(url, { accept });
      assert.equal(answer.status, 500, accept);
      assert.match(String(answer.headers['content-type']), /problem/, accept);
    }
  });

  it('still answers a client refusing both formats with a 406 that outer middleware sees', async () => {
    let seen = 0;
    const url = await start([
      async (ctx, next) => {
        await next();
        seen = ctx.status;
      },
      toonKoa(),
      handler,
    ]);
    const answer = await send(url, { accept: 'application/json;q=0, text/toon;q=0' });
    assert.equal(answer.status, 406);
    assert.equal(seen, 406);
  });

  // koa-compress and koa-etag are not installed here: these stand-ins do what they do with a
  // body, an object written as its JSON (compressed, or hashed), text as it is.
  const compressLike: Middleware = async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (body == null || ctx.status === 304) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = gzipSync(text);
  };
  const etagLike: Middleware = async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (body == null || ctx.response.get('ETag')) return;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    ctx.response.etag = String(Buffer.byteLength(text));
  };
  const envelope: Middleware = async (ctx, next) => {
    await next();
    ctx.body = { data: ctx.body };
  };

  it('without renderToon, body-writing middleware before toon() writes the data as JSON, and says so once', async (t) => {
    const warn = t.mock.method(console, 'warn', () => {});
    const url = await start([compressLike, envelope, toonKoa(), handler]);
    for (let i = 0; i < 2; i++) {
      const answer = await send(url, { accept: 'text/toon', 'accept-encoding': 'gzip' });
      assert.equal(answer.headers['content-encoding'], 'gzip');
      assert.deepEqual(JSON.parse(answer.text), { data: USER() });
      assert.match(String(answer.headers.vary), /Accept/);
    }
    // A JSON client lost nothing: no warning for it.
    await send(url, { accept: 'application/json', 'accept-encoding': 'gzip' });
    assert.equal(warn.mock.callCount(), 1);
    assert.match(
      String(warn.mock.calls[0]!.arguments[0]),
      /a client asking for TOON got JSON\. Mount renderToon after/,
    );
  });

  it('renderToon renders where it is mounted: outside it TOON text, inside it the data', async (t) => {
    const warn = t.mock.method(console, 'warn', () => {});
    const url = await start([compressLike, etagLike, renderToon, envelope, toonKoa(), handler]);
    const tags: string[] = [];
    for (const accept of ['text/toon', 'application/json']) {
      const answer = await send(url, { accept, 'accept-encoding': 'gzip' });
      assert.equal(answer.headers['content-encoding'], 'gzip', accept);
      const data = accept === 'text/toon' ? decode(answer.text) : JSON.parse(answer.text);
      assert.equal(mediaTypeOf(answer.headers['content-type']), accept);
      assert.deepEqual(data, { data: USER() }, accept);
      tags.push(String(answer.headers.etag));
    }
    assert.notEqual(tags[0], tags[1], 'each representation is tagged from its own text');
    assert.equal(warn.mock.callCount(), 0);
  });
});
