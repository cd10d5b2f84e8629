// toonwire/nest inherits the adapters' conditional GETs (cross-format-revalidation.test.ts): a
// controller's own If-None-Match check of its data's tag answers 304 for TOON only to the TOON
// answer's tag, on Express and on Fastify, and the JSON answer's tag gets a TOON 200.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { Controller, Get, Module, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { useToon } from '../../src/http/nest.js';

const ROWS = {
  rows: [
    { id: 1, name: 'Ann' },
    { id: 2, name: 'Bo' },
  ],
};
const DATA_TAG = 'W/"rows-v1"';

interface Answer {
  status: number;
  etag: string | undefined;
  contentType: string | undefined;
}

function get(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          etag: response.headers.etag,
          contentType: response.headers['content-type'],
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** Express's response and Fastify's reply, as far as the controller uses them. */
interface PlatformResponse {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
  code?: (status: number) => unknown;
  status?: (status: number) => unknown;
}

class Routes {
  rows(request: { headers: Record<string, string | undefined> }, response: PlatformResponse) {
    if (response.header !== undefined) response.header('ETag', DATA_TAG);
    else response.setHeader?.('ETag', DATA_TAG);
    const sent = request.headers['if-none-match'] ?? '';
    if (sent.split(',').some((tag) => tag.trim() === DATA_TAG)) {
      if (response.code !== undefined) response.code(304);
      else response.status?.(304);
      return undefined;
    }
    return ROWS;
  }
}
const descriptor = Object.getOwnPropertyDescriptor(Routes.prototype, 'rows')!;
Reflect.decorate([Get('rows')], Routes.prototype, 'rows', descriptor);
Object.defineProperty(Routes.prototype, 'rows', descriptor);
Req()(Routes.prototype, 'rows', 0);
Res({ passthrough: true })(Routes.prototype, 'rows', 1);
Controller()(Routes);
class AppModule {}
Module({ controllers: [Routes] })(AppModule);

for (const platform of ['express', 'fastify'] as const) {
  describe(`toonwire/nest on ${platform}: conditional GETs`, () => {
    it("answers 304 for each format's own tag only", async () => {
      const app =
        platform === 'fastify'
          ? await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false })
          : await NestFactory.create(AppModule, new ExpressAdapter(), { logger: false });
      try {
        await useToon(app);
        await app.listen(0, '127.0.0.1');
        const { port } = app.getHttpServer().address() as { port: number };
        const url = `http://127.0.0.1:${port}/rows`;
        const toon = await get(url, { accept: 'text/toon' });
        const json = await get(url, { accept: 'application/json' });
        assert.equal(json.etag, DATA_TAG);
        assert.equal(toon.etag, 'W/"rows-v1-toon"');
        const cross = await get(url, { accept: 'text/toon', 'if-none-match': DATA_TAG });
        assert.equal(cross.status, 200, "the JSON answer's tag, for TOON");
        assert.match(String(cross.contentType), /^text\/toon/);
        const same = await get(url, { accept: 'text/toon', 'if-none-match': String(toon.etag) });
        assert.equal(same.status, 304, "the TOON answer's tag, for TOON");
        assert.equal(same.etag, toon.etag);
        const back = await get(url, { accept: 'application/json', 'if-none-match': DATA_TAG });
        assert.equal(back.status, 304, "the JSON answer's tag, for JSON");
        assert.equal(back.etag, DATA_TAG);
        const other = await get(url, {
          accept: 'application/json',
          'if-none-match': String(toon.etag),
        });
        assert.equal(other.status, 200, "the TOON answer's tag, for JSON");
      } finally {
        await app.close();
      }
    });
  });
}
