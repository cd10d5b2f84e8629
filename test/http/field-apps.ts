// The same small app on Fastify, Express and Hono, with the routes issue 15 found broken "in
// the field": streams, Buffers and pre-serialized JSON, explicit Content-Types, a per-route
// opt-out, ETags set by the handler, problems carrying headers, a user's own error handler, the
// app's own form/raw parsers, and a JSON echo for body parity. Each runs on 127.0.0.1 with an
// ephemeral port and is closed by the test.
import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { stream } from 'hono/streaming';
import { validator } from 'hono/validator';
import Koa, { type Middleware } from 'koa';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import { type DefaultFormat, HttpProblem, type ToonSettings } from '../../src/http/index.js';
import { toon as toonKoa } from '../../src/http/koa.js';
import type { AdapterName } from './harness.js';

/** Options every field app takes. */
export interface FieldOptions {
  defaultFormat?: DefaultFormat;
  /** `false`: leave the adapter's error handling out (Fastify `errorHandler: false`, no Express `errorHandler`, no Hono `onError`). */
  errorWiring?: boolean;
}

export interface FieldServer {
  url: string;
  settings: ToonSettings;
  /** Lets the second chunk of GET /stream go (the test calls it once it has read the first). */
  release(): void;
  close(): Promise<void>;
}

/** What GET /data answers with. */
export const DATA = {
  page: 1,
  rows: [
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Bob' },
  ],
};
/** GET /preserialized: a number JSON.parse would round. */
export const PRESERIALIZED = '{"id":12345678901234567890123}';
/** GET /stream: the two chunks. */
export const STREAM_CHUNKS = ['{"rows":[1,', '2]}'] as const;
/** GET /buffer. */
export const BUFFER_JSON = '{"bytes":true}';

/** GET /gone: the handler's own 404, with a body of its own; GET /empty/204 and /empty/304 send it with a status that has no content. */
export const GONE = { error: 'gone' };

/** GET /tagged: DATA with the validators a handler sets for it. */
export const TAGGED_HEADERS = {
  ETag: 'W/"data-1"',
  'Last-Modified': 'Tue, 01 Dec 2026 10:00:00 GMT',
};

/** GET /deep: 1,001 objects deep, one more than TOON documents may nest. */
export const DEEP_LEVELS = 1001;
function deepValue(): unknown {
  let value: unknown = { leaf: true };
  for (let level = 1; level < DEEP_LEVELS; level++) value = { a: value };
  return value;
}

/** GET /twin/:kind: values JSON.stringify writes its own way. */
export const TWIN_KINDS = ['map', 'set', 'bigint', 'date'] as const;
function twinValue(kind: string): unknown {
  switch (kind) {
    case 'map':
      return { counts: new Map([['a', 1]]), id: 1 };
    case 'set':
      return { tags: new Set(['x', 'y']), id: 1 };
    case 'bigint':
      return { n: 10n, id: 1 };
    default:
      return { at: new Date(0), id: 1 };
  }
}

/** Thrown by GET /teapot; the app's own error handler answers it, not the adapter. */
export class TeapotError extends Error {}
export const TEAPOT_TEXT = 'short and stout';

/** Routes that throw, the same in every app. */
const THROWING: ReadonlyArray<readonly [string, () => unknown]> = [
  ['/allow', () => ALLOW_PROBLEM],
  ['/busy', () => BUSY_PROBLEM],
  ['/teapot', () => new TeapotError('teapot')],
  // Not an Error: JavaScript lets a handler throw anything.
  ['/thrown-string', () => THROWN_STRING],
];

/** What GET /thrown-string throws. */
export const THROWN_STRING = 'a thrown string, not an Error';

const ALLOW_PROBLEM = new HttpProblem({
  status: 405,
  detail: 'Use GET or HEAD.',
  headers: { Allow: 'GET, HEAD' },
});
const BUSY_PROBLEM = new HttpProblem({
  status: 503,
  detail: 'Try again later.',
  headers: { 'Retry-After': '30' },
});

function gate(): { wait: Promise<void>; release(): void } {
  let release = (): void => {};
  const wait = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { wait, release };
}

/** The base URL of a server once it listens on its ephemeral port. */
export function listening(server: Server): Promise<string> {
  return new Promise((resolve) => {
    const done = (): void => {
      const address = server.address();
      resolve(
        typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '',
      );
    };
    if (server.listening) done();
    else server.once('listening', done);
  });
}

/** Closes a server and its keep-alive connections. */
export function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** A response read whole. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * GETs `url` through node:http, not fetch: fetch sends Cache-Control: no-cache with
 * If-None-Match, and Express's and Koa's freshness checks never answer 304 to that.
 */
export function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

// koa-conditional-get and koa-etag are not installed here: these are their few lines (Koa's own
// ctx.fresh; a tag from the body as koa-etag computes it, JSON.stringify for an object, and none
// when the response has one).

/** koa-conditional-get: a 304 when the request is fresh. */
export const koaConditionalGet: Middleware = async (ctx, next) => {
  await next();
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
  }
};

/** koa-etag: a tag of the body, unless the response has one. */
export const koaBodyEtag: Middleware = async (ctx, next) => {
  await next();
  const body: unknown = ctx.body;
  if (body == null || ctx.response.get('ETag')) return;
  const entity = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  ctx.response.etag = createHash('sha1').update(entity).digest('base64').slice(0, 27);
};

async function startFastify(options: FieldOptions): Promise<FieldServer> {
  const app = Fastify();
  const streamGate = gate();
  // The user's handler comes first: the plugin, registered after it, wraps it.
  if (options.errorWiring !== false) {
    app.setErrorHandler((error, _request, reply) => {
      if (error instanceof TeapotError) return reply.code(418).type('text/plain').send(TEAPOT_TEXT);
      throw error;
    });
  }
  await app.register(toonFastify, {
    defaultFormat: options.defaultFormat,
    notFound: true,
    errorHandler: options.errorWiring !== false,
  });
  // The app's own parsers, for types the plugin does not read.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.get('/data', async () => DATA);
  app.get('/gone', async (_request, reply) => reply.code(404).send(GONE));
  app.get('/tagged', async (_request, reply) => reply.headers(TAGGED_HEADERS).send(DATA));
  app.get<{ Params: { status: string } }>('/empty/:status', async (request, reply) =>
    reply.code(Number(request.params.status)).send(GONE),
  );
  app.get('/deep', async () => deepValue());
  app.get<{ Params: { kind: string } }>('/twin/:kind', async (request) =>
    twinValue(request.params.kind),
  );
  app.get('/stream', (_request, reply) => {
    const chunks = async function* () {
      yield STREAM_CHUNKS[0];
      await streamGate.wait;
      yield STREAM_CHUNKS[1];
    };
    reply.type('application/json').send(Readable.from(chunks()));
  });
  app.get('/buffer', (_request, reply) => {
    reply.type('application/json').send(Buffer.from(BUFFER_JSON));
  });
  app.get('/preserialized', (_request, reply) => {
    reply.type('application/json').send(PRESERIALIZED);
  });
  // Fastify writes `application/json; charset=utf-8` whether the handler sets it or not, so an
  // explicit plain application/json cannot be told apart: the explicit type here is a JSON flavour.
  app.get('/explicit', (_request, reply) => {
    reply.type('application/vnd.api+json').send(DATA);
  });
  app.get<{ Querystring: { fail?: string } }>(
    '/opt-out',
    { config: { toon: false } },
    async (request) => {
      if (request.query.fail !== undefined)
        throw new HttpProblem({ status: 400, detail: 'failed' });
      return DATA;
    },
  );
  app.get('/etag', async (_request, reply) => {
    reply.header('etag', '"v1"');
    return DATA;
  });
  for (const [path, error] of THROWING)
    app.get(path, async () => {
      throw error();
    });
  app.post('/echo', async (request) => ({ body: request.body ?? null }));
  app.post('/form', async (request) => ({ form: request.body }));
  app.post('/webhook', async (request) => ({
    bytes: (request.body as Buffer | undefined)?.length ?? 0,
  }));

  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: await listening(app.server),
    settings: app.toon,
    release: streamGate.release,
    close: () => app.close(),
  };
}

async function startExpress(options: FieldOptions): Promise<FieldServer> {
  const app = express();
  const streamGate = gate();
  const negotiation = toonExpress({ defaultFormat: options.defaultFormat });
  app.use(
    express.json(),
    express.urlencoded({ extended: false }),
    express.raw({ type: 'application/octet-stream' }),
    negotiation,
  );

  app.get('/data', (_req, res) => {
    res.json(DATA);
  });
  app.get('/gone', (_req, res) => {
    res.status(404).json(GONE);
  });
  app.get('/tagged', (_req, res) => {
    res.set(TAGGED_HEADERS).json(DATA);
  });
  app.get('/empty/:status', (req, res) => {
    res.status(Number(req.params.status)).json(GONE);
  });
  app.get('/deep', (_req, res) => {
    res.json(deepValue());
  });
  app.get('/twin/:kind', (req, res) => {
    res.json(twinValue(req.params.kind));
  });
  app.get('/stream', async (_req, res) => {
    res.type('application/json');
    res.write(STREAM_CHUNKS[0]);
    await streamGate.wait;
    res.end(STREAM_CHUNKS[1]);
  });
  app.get('/buffer', (_req, res) => {
    res.type('application/json').send(Buffer.from(BUFFER_JSON));
  });
  app.get('/preserialized', (_req, res) => {
    res.type('application/json').send(PRESERIALIZED);
  });
  app.get('/explicit', (_req, res) => {
    res.type('application/json').json(DATA);
  });
  app.get('/opt-out', (req, res) => {
    res.locals.toon = false;
    if (req.query.fail !== undefined) throw new HttpProblem({ status: 400, detail: 'failed' });
    res.json(DATA);
  });
  app.get('/etag', (_req, res) => {
    res.set('ETag', '"v1"').json(DATA);
  });
  for (const [path, error] of THROWING)
    app.get(path, () => {
      throw error();
    });
  app.post('/echo', (req, res) => {
    res.json({ body: req.body ?? null });
  });
  app.post('/form', (req, res) => {
    res.json({ form: req.body });
  });
  app.post('/webhook', (req, res) => {
    res.json({ bytes: Buffer.isBuffer(req.body) ? req.body.length : 0 });
  });

  if (options.errorWiring !== false) {
    app.use(
      negotiation.notFound,
      (
        error: unknown,
        _req: express.Request,
        res: express.Response,
        next: express.NextFunction,
      ) => {
        if (error instanceof TeapotError) res.status(418).type('text/plain').send(TEAPOT_TEXT);
        else next(error);
      },
      negotiation.errorHandler,
    );
  }
  const server = app.listen(0, '127.0.0.1');
  return {
    url: await listening(server),
    settings: negotiation.settings,
    release: streamGate.release,
    close: closer(server),
  };
}

async function startHono(options: FieldOptions): Promise<FieldServer> {
  const app = new Hono();
  const streamGate = gate();
  const negotiation = toonHono({
    defaultFormat: options.defaultFormat,
    skip: (c) => c.req.path === '/opt-out',
  });
  app.use(negotiation);
  if (options.errorWiring !== false) {
    app.onError((error, c) =>
      error instanceof TeapotError
        ? c.text(TEAPOT_TEXT, 418)
        : (negotiation.onError(error, c) as Response),
    );
    app.notFound(negotiation.notFound);
  }

  app.get('/data', (c) => c.json(DATA));
  app.get('/gone', (c) => c.json(GONE, 404));
  app.get('/tagged', (c) => c.json(DATA, 200, TAGGED_HEADERS));
  // Hono's types rule out a body with 204 or 304; a handler written in JavaScript sends one anyway.
  app.get('/empty/:status', (c) => c.json(GONE, Number(c.req.param('status')) as 200));
  app.get('/deep', (c) => c.json(deepValue()));
  app.get('/twin/:kind', (c) => c.json(twinValue(c.req.param('kind'))));
  app.get('/stream', (c) => {
    c.header('Content-Type', 'application/json');
    return stream(c, async (body) => {
      await body.write(STREAM_CHUNKS[0]);
      await streamGate.wait;
      await body.write(STREAM_CHUNKS[1]);
    });
  });
  app.get('/buffer', (c) =>
    c.body(new TextEncoder().encode(BUFFER_JSON).buffer as ArrayBuffer, 200, {
      'Content-Type': 'application/json',
    }),
  );
  app.get('/preserialized', (c) =>
    c.body(PRESERIALIZED, 200, { 'Content-Type': 'application/json' }),
  );
  app.get('/explicit', (c) => c.json(DATA, 200, { 'Content-Type': 'application/json' }));
  app.get('/opt-out', (c) => {
    if (c.req.query('fail') !== undefined) throw new HttpProblem({ status: 400, detail: 'failed' });
    return c.json(DATA);
  });
  app.get('/etag', (c) => {
    c.header('ETag', '"v1"');
    return c.json(DATA);
  });
  for (const [path, error] of THROWING)
    app.get(path, () => {
      throw error();
    });
  app.post(
    '/echo',
    validator('json', (value) => value),
    (c) => c.json({ body: c.req.valid('json') ?? null }),
  );
  app.post('/form', async (c) => c.json({ form: await c.req.parseBody() }));
  app.post('/webhook', async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }));

  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  return {
    url: await listening(server),
    settings: negotiation.settings,
    release: streamGate.release,
    close: closer(server),
  };
}

async function startKoa(options: FieldOptions): Promise<FieldServer> {
  const app = new Koa();
  const streamGate = gate();
  const wired = options.errorWiring !== false;
  const negotiation = toonKoa({
    defaultFormat: options.defaultFormat,
    errors: wired,
    notFound: wired,
    skip: (ctx) => ctx.path === '/opt-out',
  });
  app.use(negotiation);
  // The app's own error handling, inside the negotiation: what it does not answer goes on.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof TeapotError)) throw error;
      ctx.status = 418;
      ctx.type = 'text/plain';
      ctx.body = TEAPOT_TEXT;
    }
  });
  app.use(bodyParser());
  const raw = async (ctx: Koa.Context): Promise<number> => {
    let bytes = 0;
    for await (const chunk of ctx.req) bytes += (chunk as Buffer).length;
    return bytes;
  };

  const router = new Router();
  router.get('/data', (ctx) => {
    ctx.body = DATA;
  });
  router.get('/gone', (ctx) => {
    ctx.status = 404;
    ctx.body = GONE;
  });
  router.get('/tagged', (ctx) => {
    ctx.set(TAGGED_HEADERS);
    ctx.body = DATA;
  });
  router.get('/empty/:status', (ctx) => {
    ctx.status = Number(ctx.params.status);
    ctx.body = GONE;
  });
  router.get('/deep', (ctx) => {
    ctx.body = deepValue();
  });
  router.get('/twin/:kind', (ctx) => {
    ctx.body = twinValue(ctx.params.kind!);
  });
  router.get('/stream', (ctx) => {
    const chunks = async function* () {
      yield STREAM_CHUNKS[0];
      await streamGate.wait;
      yield STREAM_CHUNKS[1];
    };
    ctx.type = 'application/json';
    ctx.body = Readable.from(chunks());
  });
  router.get('/buffer', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = Buffer.from(BUFFER_JSON);
  });
  router.get('/preserialized', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = PRESERIALIZED;
  });
  // As in Fastify, an explicit plain application/json is what Koa sets for any object itself.
  router.get('/explicit', (ctx) => {
    ctx.type = 'application/vnd.api+json';
    ctx.body = DATA;
  });
  router.get('/opt-out', (ctx) => {
    if (ctx.query.fail !== undefined) throw new HttpProblem({ status: 400, detail: 'failed' });
    ctx.body = DATA;
  });
  router.get('/etag', (ctx) => {
    ctx.set('ETag', '"v1"');
    ctx.body = DATA;
  });
  for (const [path, error] of THROWING)
    router.get(path, () => {
      throw error();
    });
  router.post('/echo', (ctx) => {
    ctx.body = { body: ctx.request.body ?? null };
  });
  router.post('/form', (ctx) => {
    ctx.body = { form: ctx.request.body };
  });
  router.post('/webhook', async (ctx) => {
    ctx.body = { bytes: await raw(ctx) };
  });
  app.use(router.routes());

  const server = app.listen(0, '127.0.0.1');
  return {
    url: await listening(server),
    settings: negotiation.settings,
    release: streamGate.release,
    close: closer(server),
  };
}

export const FIELD_ADAPTERS: ReadonlyArray<{
  name: AdapterName;
  start: (options: FieldOptions) => Promise<FieldServer>;
}> = [
  { name: 'fastify', start: startFastify },
  { name: 'express', start: startExpress },
  { name: 'hono', start: startHono },
  { name: 'koa', start: startKoa },
];
