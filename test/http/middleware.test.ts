// The adapters next to the compression and ETag middleware people mount, in both orders:
// Fastify with @fastify/compress and @fastify/etag, Express with compression (its ETags are
// built in), Hono with hono/compress and hono/etag. Each response must decompress to valid TOON
// (or JSON), and an ETag must never be shared by, or revalidate, the other representation.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import fastifyEtag from '@fastify/etag';
import { serve } from '@hono/node-server';
import compression from 'compression';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { etag } from 'hono/etag';
import { decode } from '../../src/codec/decode.js';
import { toon as toonExpress } from '../../src/http/express.js';
import toonFastify from '../../src/http/fastify.js';
import { toon as toonHono } from '../../src/http/hono.js';
import { mediaTypeOf } from '../../src/http/index.js';
import { closer, listening } from './field-apps.js';

// Large enough for every compressor's default threshold (1 KiB).
const ROWS = {
  rows: Array.from({ length: 60 }, (_, id) => ({
    id,
    name: `customer ${id}`,
    active: id % 2 === 0,
  })),
};

/** JSON the handler serialized itself, labelled application/json. */
const RAW = JSON.stringify(ROWS);

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function get(url: string, headers: Record<string, string>, path = '/rows'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

interface Started {
  url: string;
  close(): Promise<void>;
}

/** The checks every combination must pass. */
async function checkCombination(server: Started): Promise<void> {
  const gzip = { 'accept-encoding': 'gzip' };
  const toon = await get(server.url, { ...gzip, accept: 'text/toon' });
  const json = await get(server.url, { ...gzip, accept: 'application/json' });
  for (const [response, mediaType] of [
    [toon, 'text/toon'],
    [json, 'application/json'],
  ] as const) {
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-encoding'], 'gzip', 'compressed');
    assert.equal(mediaTypeOf(response.headers['content-type']), mediaType);
    assert.match(String(response.headers.vary), /accept(?!-)/i);
    const text = gunzipSync(response.body).toString('utf8');
    assert.deepEqual(mediaType === 'text/toon' ? decode(text) : JSON.parse(text), ROWS);
  }
  const toonTag = toon.headers.etag;
  const jsonTag = json.headers.etag;
  assert.ok(toonTag && jsonTag, 'both representations carry an ETag');
  assert.notEqual(toonTag, jsonTag);
  // The JSON ETag never revalidates the TOON representation, nor the other way round.
  const crossed = await get(server.url, { ...gzip, accept: 'text/toon', 'if-none-match': jsonTag });
  assert.equal(crossed.status, 200);
  assert.equal(mediaTypeOf(crossed.headers['content-type']), 'text/toon');
  const crossedBack = await get(server.url, {
    ...gzip,
    accept: 'application/json',
    'if-none-match': toonTag,
  });
  assert.equal(crossedBack.status, 200);
  // Its own ETag does.
  const own = await get(server.url, { ...gzip, accept: 'text/toon', 'if-none-match': toonTag });
  assert.equal(own.status, 304);
  // Uncompressed, TOON is still TOON.
  const plain = await get(server.url, { accept: 'text/toon' });
  assert.deepEqual(decode(plain.body.toString('utf8')), ROWS);
  // JSON the handler serialized itself is not negotiated: its compressed bytes are never read
  // back as text (Hono used to re-encode them: `1f ef bf bd ...`), and its ETag is its own.
  const raw = await get(server.url, { ...gzip, accept: 'text/toon' }, '/raw');
  assert.equal(raw.status, 200);
  assert.equal(mediaTypeOf(raw.headers['content-type']), 'application/json');
  assert.equal(raw.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(raw.body).toString('utf8'), RAW);
  const rawJson = await get(server.url, { ...gzip, accept: 'application/json' }, '/raw');
  assert.equal(raw.headers.etag, rawJson.headers.etag, 'one representation, one ETag');
}

type Order = 'toonwire first' | 'toonwire last';
const ORDERS: readonly Order[] = ['toonwire first', 'toonwire last'];

async function startFastify(order: Order): Promise<Started> {
  const app = Fastify();
  const plugins = async (): Promise<void> => {
    await app.register(fastifyCompress);
    await app.register(fastifyEtag);
  };
  if (order === 'toonwire last') await plugins();
  await app.register(toonFastify);
  if (order === 'toonwire first') await plugins();
  app.get('/rows', async () => ROWS);
  app.get('/raw', (_request, reply) => {
    reply.type('application/json').send(RAW);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: await listening(app.server), close: () => app.close() };
}

async function startExpress(order: Order): Promise<Started> {
  const app = express();
  const negotiation = toonExpress();
  if (order === 'toonwire first') app.use(negotiation, compression());
  else app.use(compression(), negotiation);
  app.get('/rows', (_req, res) => {
    res.json(ROWS);
  });
  app.get('/raw', (_req, res) => {
    res.type('application/json').send(RAW);
  });
  const server = app.listen(0, '127.0.0.1');
  return { url: await listening(server), close: closer(server) };
}

type HonoOrder = Order | 'toonwire between';

async function startHono(order: HonoOrder): Promise<Started> {
  const app = new Hono();
  const negotiation = toonHono();
  const chain =
    order === 'toonwire first'
      ? [negotiation, compress(), etag()]
      : order === 'toonwire last'
        ? [compress(), etag(), negotiation]
        : [etag(), negotiation, compress()];
  for (const middleware of chain) app.use(middleware);
  app.get('/rows', (c) => c.json(ROWS));
  app.get('/raw', (c) => c.body(RAW, 200, { 'Content-Type': 'application/json' }));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  return { url: await listening(server), close: closer(server) };
}

const started: Started[] = [];
after(() => Promise.all(started.map((server) => server.close())));

async function run(start: () => Promise<Started>): Promise<void> {
  const server = await start();
  started.push(server);
  await checkCombination(server);
}

describe('Fastify with @fastify/compress and @fastify/etag', () => {
  for (const order of ORDERS) it(order, () => run(() => startFastify(order)));
});

describe('Express with compression (and its built-in ETags)', () => {
  for (const order of ORDERS) it(order, () => run(() => startExpress(order)));
});

describe('Hono with hono/compress and hono/etag', () => {
  for (const order of [...ORDERS, 'toonwire between'] as const)
    it(order, () => run(() => startHono(order)));
});
