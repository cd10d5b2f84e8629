// The orders API on Express 5, validated with zod. Run: node --import tsx examples/http/express.ts
// (PORT, default 3000). Handlers are plain Express: res.json(obj) and req.body.
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { toon } from '../../src/http/express.js'; // in your app: from 'toonwire/express'
import { addToonToOpenApi } from '../../src/http/index.js'; // in your app: from 'toonwire/http'
import { OrderStore, type OrdersAppOptions, runningServer } from './orders.js';
import { listQuerySchema, newOrderSchema, ordersOpenApi, parseOrProblem } from './zod-schemas.js';

/** Builds the app; `settings` is the live negotiation settings, `store` the order store. */
export function buildApp(options: OrdersAppOptions = {}) {
  const store = options.store ?? new OrderStore();
  const limit = options.bodyLimit ?? '100kb';
  const negotiation = toon({
    defaultFormat: options.defaultFormat,
    delimiter: options.delimiter,
    limit,
    // Refuse bodies no parser here reads (without it, they reach the handlers unparsed).
    bodyTypes: ['application/json'],
  });
  const openapi = addToonToOpenApi(ordersOpenApi());

  const app = express();
  app.use(express.json({ limit }), negotiation);

  app.get('/orders', (req, res) => {
    const query = parseOrProblem(listQuerySchema, req.query, 'querystring');
    res.json(store.list(query.limit, query.cursor));
  });

  app.get('/orders/:id', (req, res) => {
    res.json(store.get(req.params.id));
  });

  app.post('/orders', (req, res) => {
    const order = store.create(parseOrProblem(newOrderSchema, req.body));
    res.status(201).location(`/orders/${order.id}`).json(order);
  });

  app.get('/openapi.json', (_req, res) => {
    res.locals.toon = false; // always JSON: OpenAPI tools expect it
    res.json(openapi);
  });

  app.use(negotiation.notFound, negotiation.errorHandler);
  return { app, settings: negotiation.settings, store };
}

/** Builds the app and listens on `host:port` (port 0: any free port). */
export async function startServer(
  options: OrdersAppOptions & { port?: number; host?: string } = {},
) {
  const { app, settings, store } = buildApp(options);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(
      options.port ?? 3000,
      options.host ?? '127.0.0.1',
      (error?: Error) => (error ? reject(error) : resolve(listening)),
    );
  });
  const running = runningServer(server, options.host ?? '127.0.0.1');
  return { ...running, settings, store };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startServer({ port: Number(process.env.PORT ?? 3000) });
  console.log(`orders API (Express) listening on ${server.url}`);
}
