// toonwire/koa beyond the shared matrix: what a real connection does that a whole request
// cannot, such as a client that hangs up halfway through its body.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { toon } from '../../src/http/koa.js';
import { closer, listening } from './field-apps.js';

describe('Koa adapter, a client that disconnects mid-body', () => {
  const app = new Koa();
  // Errors handed to Koa's 'error' event (logged as server errors by default), less the parse
  // error Koa itself reports (through on-finished) for any request whose socket closes early.
  const emitted: unknown[] = [];
  app.on('error', (error: { code?: unknown }) => {
    if (!String(error.code).startsWith('HPE_')) emitted.push(error);
  });
  const outcomes: Array<(status: number) => void> = [];
  app.use(async (ctx, next) => {
    await next();
    outcomes.shift()?.(ctx.status);
  });
  app.use(toon());
  app.use((ctx) => {
    ctx.body = { got: (ctx.request as unknown as { body?: unknown }).body };
  });
  const server: Server = app.listen(0, '127.0.0.1');
  after(closer(server));

  for (const [name, encoding, firstBytes] of [
    ['identity', undefined, Buffer.from('sku: TEA\n')],
    ['gzip', 'gzip', gzipSync('sku: TEA\nquantity: 2').subarray(0, 12)],
  ] as const) {
    it(`answers a ${name} body cut short with a 400, as @koa/bodyparser does, not a logged 500`, async () => {
      const port = Number(new URL(await listening(server)).port);
      const status = new Promise<number>((resolve) => outcomes.push(resolve));
      const requested = new Promise<void>((resolve) => server.once('request', () => resolve()));
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        [
          'POST /orders HTTP/1.1',
          'Host: 127.0.0.1',
          'Content-Type: text/toon',
          'Content-Length: 500',
          ...(encoding === undefined ? [] : [`Content-Encoding: ${encoding}`]),
          '',
          '',
        ].join('\r\n'),
      );
      socket.write(firstBytes);
      await requested;
      socket.destroy();
      assert.equal(await status, 400);
      assert.deepEqual(emitted, []);
    });
  }
});
