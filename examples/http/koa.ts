// The orders API on Koa 3 with @koa/router and @koa/bodyparser, validated with zod. Run:
// node --import tsx examples/http/koa.ts (PORT, default 3000). Handlers are plain Koa:
// ctx.body = obj and ctx.request.body.
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { addToonToOpenApi } from '../../src/http/index.js'; // in your app: from 'toonwire/http'
import { toon } from '../../src/http/koa.js'; // in your app: from 'toonwire/koa'
import { OrderStore, type OrdersAppOptions, runningServer } from './orders.js';
import { listQuerySchema, newOrderSchema, ordersOpenApi, parseOrProblem } from './zod-schemas.js';

/** Builds the app; `settings` is the live negotiation settings, `store` the order store. */
export function buildApp(options: OrdersAppOptions = {}) {
  const store = options.store ?? new OrderStore();
  const limit = options.bodyLimit ?? 100 * 1024;
  const negotiation = toon({
    defaultFormat: options.defaultFormat,
    delimiter: options.delimiter,
    limit,
    notFound: true,
    // Refuse bodies no parser here reads (without it, they reach the handlers unparsed).
    bodyTypes: ['application/json'],
    skip: (ctx) => ctx.path === '/openapi.json', // always JSON: OpenAPI tools expect it
  });
  const openapi = addToonToOpenApi(ordersOpenApi());

  const router = new Router();
  router.get('/orders', (ctx) => {
    const query = parseOrProblem(listQuerySchema, ctx.query, 'querystring');
    ctx.body = store.list(query.limit, query.cursor);
  });
  router.get('/orders/:id', (ctx) => {
    ctx.body = store.get(ctx.params.id!);
  });
  router.post('/orders', (ctx) => {
    const order = store.create(parseOrProblem(newOrderSchema, ctx.request.body));
    ctx.status = 201;
    ctx.set('Location', `/orders/${order.id}`);
    ctx.body = order;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });

  const app = new Koa();
  // First, so it sees every error and every body; the JSON parser gets the same limit.
  app.use(negotiation);
  app.use(bodyParser({ jsonLimit: limit }));
  app.use(router.routes());
  return { app, settings: negotiation.settings, store };
}

/** Builds the app and listens on `host:port` (port 0: any free port). */
export async function startServer(
  options: OrdersAppOptions & { port?: number; host?: string } = {},
) {
  const { app, settings, store } = buildApp(options);
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port ?? 3000, host, () => resolve(listening));
    listening.once('error', reject);
  });
  const running = runningServer(server, host);
  return { ...running, settings, store };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startServer({ port: Number(process.env.PORT ?? 3000) });
  console.log(`orders API (Koa) listening on ${server.url}`);
}
