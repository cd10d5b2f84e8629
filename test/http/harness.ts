// Starts the example apps on 127.0.0.1 with ephemeral ports and speaks HTTP to them, so
// the behaviour matrix runs one table of cases against every adapter.

import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { connect } from 'node:net';
import { startServer as startExpress } from '../../examples/http/express.js';
import { startServer as startFastify } from '../../examples/http/fastify.js';
import { startServer as startHono } from '../../examples/http/hono.js';
import { startServer as startKoa } from '../../examples/http/koa.js';
import { startServer as startNest } from '../../examples/http/nest.js';
import type { OrderStore, OrdersAppOptions } from '../../examples/http/orders.js';
import { decode } from '../../src/codec/decode.js';
import type { ToonSettings } from '../../src/http/index.js';
import { contentTypeParameter, mediaTypeOf } from '../../src/http/index.js';

export interface AppServer {
  url: string;
  settings: ToonSettings;
  store: OrderStore;
  close(): Promise<void>;
}

export type AdapterName = 'fastify' | 'express' | 'hono' | 'koa' | 'nest-express' | 'nest-fastify';

type Start = (options: OrdersAppOptions & { port: number; host: string }) => Promise<AppServer>;

export const ADAPTERS: ReadonlyArray<{ name: AdapterName; start: Start }> = [
  { name: 'fastify', start: startFastify },
  { name: 'express', start: startExpress },
  { name: 'hono', start: startHono },
  { name: 'koa', start: startKoa },
  { name: 'nest-express', start: (options) => startNest({ ...options, platform: 'express' }) },
  { name: 'nest-fastify', start: (options) => startNest({ ...options, platform: 'fastify' }) },
];

/** Servers of one adapter, one per distinct option set, started on first use. */
export class ServerPool<Options extends object, Running extends { close(): Promise<void> }> {
  readonly #start: (options: Options) => Promise<Running>;
  readonly #servers = new Map<string, Promise<Running>>();

  constructor(start: (options: Options) => Promise<Running>) {
    this.#start = start;
  }

  get(options: Options = {} as Options): Promise<Running> {
    const key = JSON.stringify(options);
    let server = this.#servers.get(key);
    if (server === undefined) {
      server = this.#start(options);
      this.#servers.set(key, server);
    }
    return server;
  }

  async closeAll(): Promise<void> {
    const servers = await Promise.all(this.#servers.values());
    this.#servers.clear();
    await Promise.all(servers.map((server) => server.close()));
  }
}

/** The pool of an example app, each started on 127.0.0.1 with an ephemeral port. */
export function examplePool(start: Start): ServerPool<Omit<OrdersAppOptions, 'store'>, AppServer> {
  return new ServerPool((options) => start({ ...options, port: 0, host: '127.0.0.1' }));
}

export interface HttpRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** A string, or bytes (sent as they are, and without a Content-Type unless given one). */
  body?: string | Uint8Array;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The media type of Content-Type (`text/toon`, `application/json`, ...). */
  mediaType: string | undefined;
  /** The body decoded according to its Content-Type (TOON or JSON); `undefined` for other types. */
  data: unknown;
}

/** Sends one request; the body is decoded with the codec or JSON.parse as its Content-Type says. */
export async function send(server: { url: string }, request: HttpRequest): Promise<HttpResponse> {
  const response = await fetch(server.url + request.path, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  const mediaType = mediaTypeOf(contentType);
  let data: unknown;
  // A 204 or 304 has no content, whatever Content-Type a framework labels it with.
  if (text === '' && (response.status === 204 || response.status === 304)) data = undefined;
  else if (mediaType === 'text/toon') data = decode(text);
  else if (mediaType === 'application/json' || mediaType === 'application/problem+json')
    data = JSON.parse(text);
  return { status: response.status, headers: response.headers, text, mediaType, data };
}

/** The `profile` parameter of the response Content-Type. */
export function profileOf(response: HttpResponse): string | undefined {
  return contentTypeParameter(response.headers.get('content-type'), 'profile');
}

/** A JSON round trip: what a value looks like on the wire, without `undefined` members. */
export function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A client that vanishes halfway through its body: sends a POST whose headers announce 500 bytes
 * of `text/toon`, then `firstBytes` of it, and hangs up once the server has begun handling the
 * request (its 'request' event), so the server sees the body end early. `headers` are extra
 * header lines (`Content-Encoding: gzip`).
 *
 * @example
 * await sendCutShort(server, { path: '/orders', firstBytes: 'sku: TEA\n' });
 */
export async function sendCutShort(
  server: Server,
  request: { path: string; firstBytes: string | Uint8Array; headers?: readonly string[] },
): Promise<void> {
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const requested = once(server, 'request');
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    [
      `POST ${request.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Content-Type: text/toon',
      'Content-Length: 500',
      ...(request.headers ?? []),
      '',
      '',
    ].join('\r\n'),
  );
  socket.write(request.firstBytes);
  await requested;
  socket.destroy();
}
