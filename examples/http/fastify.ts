// The orders API on Fastify 5, validated with JSON Schema, documented by @fastify/swagger.
// Run: node --import tsx examples/http/fastify.ts (PORT, default 3000). Handlers are plain
// Fastify: return (or reply.send) an object, read request.body.
import { pathToFileURL } from 'node:url';
import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import toon, { withToonOpenApi } from '../../src/http/fastify.js'; // in your app: from 'toonwire/fastify'
import { PROBLEM_JSON_SCHEMA } from '../../src/http/index.js'; // in your app: from 'toonwire/http'
import { type NewOrder, OrderStore, type OrdersAppOptions, type RunningServer } from './orders.js';

export const orderItem = {
  type: 'object',
  required: ['sku', 'quantity', 'unitPriceCents'],
  additionalProperties: false,
  properties: {
    sku: { type: 'string', minLength: 1, maxLength: 64 },
    quantity: { type: 'integer', minimum: 1, maximum: 1000 },
    unitPriceCents: { type: 'integer', minimum: 0 },
  },
} as const;

export const newOrder = {
  type: 'object',
  required: ['items'],
  // Fastify's default Ajv setup drops unknown fields (removeAdditional), as zod does.
  additionalProperties: false,
  properties: {
    items: { type: 'array', minItems: 1, maxItems: 100, items: orderItem },
    note: { type: 'string', maxLength: 500 },
  },
} as const;

export const order = {
  type: 'object',
  required: ['id', 'status', 'items', 'totalCents'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['placed', 'paid', 'shipped', 'cancelled'] },
    items: { type: 'array', items: orderItem },
    totalCents: { type: 'integer' },
    note: { type: 'string' },
  },
} as const;

export const orderPage = {
  type: 'object',
  required: ['data', 'page'],
  properties: {
    data: { type: 'array', items: order },
    page: {
      type: 'object',
      required: ['nextCursor', 'hasMore'],
      properties: { nextCursor: { type: ['string', 'null'] }, hasMore: { type: 'boolean' } },
    },
  },
} as const;

const problem = {
  description: 'Problem document (RFC 9457)',
  content: {
    'application/problem+json': {
      schema: PROBLEM_JSON_SCHEMA,
    },
  },
} as const;

/** Options of the Fastify example: `toonwire: false` leaves the plugin out (to measure what it costs JSON clients). */
export type FastifyExampleOptions = OrdersAppOptions & { logger?: boolean; toonwire?: boolean };

/** Builds the app; `settings` is the live negotiation settings (also `app.toon`), `store` the order store. */
export async function buildApp(options: FastifyExampleOptions = {}) {
  const store = options.store ?? new OrderStore();
  const app = Fastify({
    logger: options.logger ?? false,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
  });

  await app.register(
    swagger,
    withToonOpenApi({ openapi: { openapi: '3.1.0', info: { title: 'Orders', version: '1.0.0' } } }),
  );
  if (options.toonwire !== false) {
    await app.register(toon, {
      defaultFormat: options.defaultFormat,
      delimiter: options.delimiter,
      notFound: true,
    });
  }

  app.get<{ Querystring: { limit: number; cursor?: string } }>(
    '/orders',
    {
      schema: {
        summary: 'List orders, newest first',
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            cursor: { type: 'string' },
          },
        },
        response: { 200: orderPage, 400: problem },
      },
    },
    async (request) => store.list(request.query.limit, request.query.cursor),
  );

  app.get<{ Params: { id: string } }>(
    '/orders/:id',
    { schema: { summary: 'One order', response: { 200: order, 404: problem } } },
    async (request) => store.get(request.params.id),
  );

  app.post<{ Body: NewOrder }>(
    '/orders',
    {
      schema: {
        summary: 'Place an order',
        body: newOrder,
        response: { 201: order, 400: problem, 413: problem, 415: problem },
      },
    },
    async (request, reply) => {
      const created = store.create(request.body);
      reply.code(201).header('location', `/orders/${created.id}`);
      return created;
    },
  );

  // config.toon: false keeps the document JSON whatever Accept says: OpenAPI tools expect it.
  app.get('/openapi.json', { schema: { hide: true }, config: { toon: false } }, async () =>
    app.swagger(),
  );

  await app.ready();
  return { app, settings: app.toon, store };
}

/** Builds the app and listens on `host:port` (port 0: any free port). */
export async function startServer(
  options: FastifyExampleOptions & { port?: number; host?: string } = {},
) {
  const { app, settings, store } = await buildApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 3000, host });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  const running: RunningServer = {
    url: `http://${host}:${address.port}`,
    close: () => app.close(),
  };
  return { ...running, settings, store };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startServer({
    port: Number(process.env.PORT ?? 3000),
    toonwire: process.env.TOONWIRE !== 'off',
  });
  console.log(`orders API (Fastify) listening on ${server.url}`);
}
