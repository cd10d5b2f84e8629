// The orders API on Hono 4 (served by @hono/node-server), validated with zod through
// @hono/zod-validator, whose failures become problem documents (zodProblemHook). Run:
// node --import tsx examples/http/hono.ts (PORT, default 3000). Handlers are plain Hono:
// c.json(obj) and c.req.valid('json').
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { zValidator } from '@hono/zod-validator';
import { Hono } from 'hono';
import { toon } from '../../src/http/hono.js'; // in your app: from 'toonwire/hono'
import { addToonToOpenApi } from '../../src/http/index.js'; // in your app: from 'toonwire/http'
import { OrderStore, type OrdersAppOptions, runningServer } from './orders.js';
import { listQuerySchema, newOrderSchema, ordersOpenApi, zodProblemHook } from './zod-schemas.js';

/** Builds the app; `settings` is the live negotiation settings, `store` the order store. */
export function buildApp(options: OrdersAppOptions = {}) {
  const store = options.store ?? new OrderStore();
  const negotiation = toon({
    defaultFormat: options.defaultFormat,
    delimiter: options.delimiter,
    maxSize: options.bodyLimit ?? 100 * 1024,
    bodyTypes: ['application/json'],
    skip: (c) => c.req.path === '/openapi.json',
  });
  const openapi = addToonToOpenApi(ordersOpenApi());

  const app = new Hono();
  app.use(negotiation);
  app.onError(negotiation.onError);
  app.notFound(negotiation.notFound);

  app.get('/orders', zValidator('query', listQuerySchema, zodProblemHook), (c) => {
    const { limit, cursor } = c.req.valid('query');
    return c.json(store.list(limit, cursor));
  });

  app.get('/orders/:id', (c) => c.json(store.get(c.req.param('id'))));

  app.post('/orders', zValidator('json', newOrderSchema, zodProblemHook), (c) => {
    const order = store.create(c.req.valid('json'));
    return c.json(order, 201, { Location: `/orders/${order.id}` });
  });

  app.get('/openapi.json', (c) => c.json(openapi));

  return { app, settings: negotiation.settings, store };
}

/** Builds the app and listens on `host:port` (port 0: any free port). */
export async function startServer(
  options: OrdersAppOptions & { port?: number; host?: string } = {},
) {
  const { app, settings, store } = buildApp(options);
  const hostname = options.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 3000, hostname }, () =>
      resolve(started as Server),
    );
  });
  const running = runningServer(server, hostname);
  return { ...running, settings, store };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startServer({ port: Number(process.env.PORT ?? 3000) });
  console.log(`orders API (Hono) listening on ${server.url}`);
}
