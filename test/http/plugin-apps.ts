// One small API built on each framework as users build it, next to the framework's usual
// plugins (issue 24): Fastify 5 with compress, etag, cors, helmet, rate-limit, swagger and
// swagger-ui; Express 5 with compression, cors, helmet and zod; Hono on @hono/node-server with
// compress, etag, cors, secure-headers and @hono/zod-validator. Each validates with the
// framework's usual validator under its default settings (Fastify: Ajv with coerceTypes), runs
// on 127.0.0.1 with an ephemeral port and is closed by the test.
import type { Server } from 'node:http';
import compress from '@fastify/compress';
import fastifyCors from '@fastify/cors';
import etag from '@fastify/etag';
import helmetFastify from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { serve } from '@hono/node-server';
import { zValidator } from '@hono/zod-validator';
import compression from 'compression';
import cors from 'cors';
import express from 'express';
import Fastify from 'fastify';
import helmet from 'helmet';
import { Hono } from 'hono';
import { compress as honoCompress } from 'hono/compress';
import { cors as honoCors } from 'hono/cors';
import { etag as honoEtag } from 'hono/etag';
import { secureHeaders } from 'hono/secure-headers';
import { z } from 'zod';
import { parseOrProblem, zodProblemHook } from '../../examples/http/zod-schemas.js';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify, { withToonOpenApi } from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import { addToonToOpenApi, type DefaultFormat, type ToonSettings } from '../../src/http/index.js';
import { closer, DATA, listening } from './field-apps.js';
import type { AdapterName } from './harness.js';

export interface PluginOptions {
  defaultFormat?: DefaultFormat;
}

export interface PluginServer {
  url: string;
  settings: ToonSettings;
  close(): Promise<void>;
}

/** GET /data's response (Fastify: the schema-compiled serializers of both formats). */
const dataJsonSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer' },
    rows: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    },
  },
} as const;

/** Every field optional, as in a PATCH: the empty body is valid. */
const profileJsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    count: { type: 'integer', maximum: 1_000_000 },
    ratio: { type: 'number' },
    name: { type: 'string', maxLength: 64 },
    flag: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
  },
} as const;

const profileZod = z.object({
  count: z.number().int().max(1_000_000).optional(),
  ratio: z.number().optional(),
  name: z.string().max(64).optional(),
  flag: z.boolean().optional(),
  tags: z.array(z.string()).optional(),
});

/** One required field: the empty body is invalid. */
const signupJsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' } },
} as const;

const signupZod = z.object({ name: z.string() });

/** The OpenAPI document the Express and Hono apps serve at /docs/json (Fastify's is generated). */
const OPENAPI = addToonToOpenApi({
  openapi: '3.1.0',
  info: { title: 'Plugins', version: '1.0.0' },
  paths: {
    '/data': {
      get: {
        responses: { '200': { description: 'Data', content: { 'application/json': {} } } },
      },
    },
  },
});

/** Requests under /docs (the API's documentation) always answer JSON. */
const DOCS = '/docs';

async function startFastify(options: PluginOptions): Promise<PluginServer> {
  const app = Fastify();
  await app.register(compress);
  await app.register(etag);
  await app.register(fastifyCors, { origin: true });
  await app.register(helmetFastify);
  await app.register(rateLimit, { max: 10_000, timeWindow: '1 minute' });
  await app.register(
    swagger,
    withToonOpenApi({ openapi: { info: { title: 'Plugins', version: '1.0.0' } } }),
  );
  await app.register(toonFastify, {
    defaultFormat: options.defaultFormat,
    notFound: true,
    skip: (request) => request.url.startsWith(DOCS),
  });
  // Registered after the plugin, in a scope of its own: route config cannot reach its routes.
  await app.register(swaggerUi, { routePrefix: DOCS });

  app.get('/data', { schema: { response: { 200: dataJsonSchema } } }, async () => DATA);
  app.patch('/profile', { schema: { body: profileJsonSchema } }, async (request) => ({
    body: request.body,
  }));
  app.post('/signup', { schema: { body: signupJsonSchema } }, async (request) => ({
    body: request.body,
  }));
  app.get(
    '/limited',
    { config: { rateLimit: { max: 1, timeWindow: '1 minute' } } },
    async () => DATA,
  );

  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: await listening(app.server), settings: app.toon, close: () => app.close() };
}

async function startExpress(options: PluginOptions): Promise<PluginServer> {
  const app = express();
  const negotiation = toonExpress({
    defaultFormat: options.defaultFormat,
    skip: (req) => req.path.startsWith(DOCS),
  });
  app.use(compression(), cors({ origin: true }), helmet(), express.json(), negotiation);

  app.get('/data', (_req, res) => {
    res.json(DATA);
  });
  app.patch('/profile', (req, res) => {
    res.json({ body: parseOrProblem(profileZod, req.body) });
  });
  app.post('/signup', (req, res) => {
    res.json({ body: parseOrProblem(signupZod, req.body) });
  });
  app.get(`${DOCS}/json`, (_req, res) => {
    res.json(OPENAPI);
  });

  app.use(negotiation.notFound, negotiation.errorHandler);
  const server = app.listen(0, '127.0.0.1');
  return { url: await listening(server), settings: negotiation.settings, close: closer(server) };
}

async function startHono(options: PluginOptions): Promise<PluginServer> {
  const app = new Hono();
  const negotiation = toonHono({
    defaultFormat: options.defaultFormat,
    skip: (c) => c.req.path.startsWith(DOCS),
  });
  app.use(honoCompress(), honoEtag(), honoCors({ origin: (origin) => origin }), secureHeaders());
  app.use(negotiation);
  app.onError(negotiation.onError);
  app.notFound(negotiation.notFound);

  app.get('/data', (c) => c.json(DATA));
  app.patch('/profile', zValidator('json', profileZod, zodProblemHook), (c) =>
    c.json({ body: c.req.valid('json') }),
  );
  app.post('/signup', zValidator('json', signupZod, zodProblemHook), (c) =>
    c.json({ body: c.req.valid('json') }),
  );
  app.get(`${DOCS}/json`, (c) => c.json(OPENAPI));

  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  return { url: await listening(server), settings: negotiation.settings, close: closer(server) };
}

export const PLUGIN_ADAPTERS: ReadonlyArray<{
  name: AdapterName;
  start: (options: PluginOptions) => Promise<PluginServer>;
}> = [
  { name: 'fastify', start: startFastify },
  { name: 'express', start: startExpress },
  { name: 'hono', start: startHono },
];
