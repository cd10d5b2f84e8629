// toonwire/nest beyond the shared matrix (which runs the orders example on both platforms):
// ValidationPipe failures as JSON Pointers, Nest's own 404 as the adapters' problem, Nest's
// HttpExceptions and toonwire problems wrapped in `cause`, and no FSTWRN004 on Fastify; then
// exceptions from Nest middleware and from handlers that had already started their answer.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import {
  BadRequestException,
  Controller,
  Get,
  type MiddlewareConsumer,
  Module,
  NotFoundException,
  Post,
  Req,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { startServer } from '../../examples/http/nest.js';
import { HttpProblem, notFoundProblem } from '../../src/http/index.js';
import { problemOf, useToon, validationIssues } from '../../src/http/nest.js';
import { profileOf, send } from './harness.js';

describe('problemOf', () => {
  it('takes a toonwire problem wrapped as the cause of a Nest exception as it is', () => {
    const problem = new HttpProblem({ status: 400, detail: 'bad', line: 2, column: 3 });
    assert.equal(problemOf(new BadRequestException('x', { cause: problem })), problem);
  });
  it("gives a Nest HttpException's status and message", () => {
    const problem = problemOf(new NotFoundException('No order 7')) as HttpProblem;
    assert.equal(problem.problem.status, 404);
    assert.equal(problem.problem.detail, 'No order 7');
  });
  it('writes the default ValidationPipe message list as errors', () => {
    const problem = problemOf(new BadRequestException(['a must be a string'])) as HttpProblem;
    assert.deepEqual(problem.problem.errors, [{ pointer: '', message: 'a must be a string' }]);
  });
});

describe('validationIssues', () => {
  it('locates nested failures by JSON Pointer, escaping ~ and /', () => {
    const issues = validationIssues([
      {
        property: 'items',
        children: [
          {
            property: '0',
            children: [{ property: 'a/b~c', constraints: { min: 'too small' }, children: [] }],
          },
        ],
      },
    ]);
    assert.deepEqual(issues, [{ pointer: '/items/0/a~1b~0c', message: 'too small' }]);
  });
});

for (const platform of ['express', 'fastify'] as const) {
  describe(`toonwire/nest on ${platform}`, async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }): void => {
      warnings.push(`${warning.code ?? ''} ${warning.message}`);
    };
    process.on('warning', onWarning);
    const server = await startServer({ platform, port: 0, host: '127.0.0.1' });
    after(async () => {
      process.off('warning', onWarning);
      await server.close();
    });

    it('gives ValidationPipe failures as a negotiated problem with JSON Pointers', async () => {
      const response = await send(server, {
        method: 'POST',
        path: '/orders',
        headers: { 'content-type': 'text/toon', accept: 'text/toon' },
        body: 'items[1]{sku,quantity,unitPriceCents}:\n  TEA,0,300',
      });
      assert.equal(response.status, 400, response.text);
      assert.equal(profileOf(response), 'problem');
      const problem = response.data as { errors: Array<{ pointer: string }> };
      assert.deepEqual(
        problem.errors.map((error) => error.pointer),
        ['/items/0/quantity'],
      );
    });

    it("answers a request no route matches with the adapters' 404 problem", async () => {
      const response = await send(server, {
        path: '/no/such?x=1',
        headers: { accept: 'text/toon' },
      });
      assert.equal(response.status, 404);
      assert.equal(profileOf(response), 'problem');
      assert.deepEqual(response.data, {
        ...notFoundProblem('GET', '/no/such').problem,
        instance: '/no/such',
      });
    });

    it("keeps Nest's error handler in place (no FSTWRN004: the plugin installs none)", () => {
      assert.deepEqual(
        warnings.filter((warning) => /FSTWRN004|error handler/i.test(warning)),
        [],
      );
    });
  });
}

/**
 * A Nest app as apps are written (decorators applied by calls, as in examples/http/nest.ts),
 * created with `rawBody: true`: middleware that refuses a request without a key (on `/skipped`
 * too, which `skip` leaves out of negotiation), a handler that starts its answer on the
 * platform's response, then throws, and one that echoes `req.rawBody`.
 */
async function startWiredApp(platform: 'express' | 'fastify') {
  class RequireKey {
    use(request: IncomingMessage, _response: unknown, next: () => void): void {
      if (request.headers['x-key'] !== 'open') throw new UnauthorizedException('Send x-key.');
      next();
    }
  }
  class Routes {
    guarded() {
      return { ok: true };
    }
    skipped() {
      return { ok: true };
    }
    echo(request: { rawBody?: Buffer; body: unknown }) {
      return { rawBody: request.rawBody?.toString('utf8') ?? null, body: request.body };
    }
    partial(response: { raw?: ServerResponse } & ServerResponse): never {
      const raw = response.raw ?? response;
      raw.writeHead(200, { 'content-type': 'text/plain' });
      raw.write('partial');
      throw new Error('failed after the headers went out');
    }
  }
  const proto = Routes.prototype;
  for (const [key, route] of [
    ['guarded', Get('guarded')],
    ['skipped', Get('skipped')],
    ['partial', Get('partial')],
    ['echo', Post('echo')],
  ] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, key)!;
    Reflect.decorate([route], proto, key, descriptor);
    Object.defineProperty(proto, key, descriptor);
  }
  Res()(proto, 'partial', 0);
  Req()(proto, 'echo', 0);
  Controller()(Routes);
  class AppModule {
    configure(consumer: MiddlewareConsumer): void {
      consumer.apply(RequireKey).forRoutes('guarded', 'skipped');
    }
  }
  Module({ controllers: [Routes], providers: [RequireKey] })(AppModule);
  const app =
    platform === 'fastify'
      ? await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false, rawBody: true })
      : await NestFactory.create(AppModule, new ExpressAdapter(), { logger: false, rawBody: true });
  await useToon(app, { skip: (request) => request.url.startsWith('/skipped') });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as import('node:http').Server;
  const address = server.address() as { port: number };
  return { app, server, url: `http://127.0.0.1:${address.port}` };
}

for (const platform of ['express', 'fastify'] as const) {
  describe(`toonwire/nest on ${platform}: middleware and started answers`, async () => {
    const { app, server, url } = await startWiredApp(platform);
    after(async () => {
      server.closeAllConnections();
      await app.close();
    });

    it("answers an HttpException thrown by Nest middleware with its status (on Fastify, middleware gets Node's response)", async () => {
      const response = await send({ url }, { path: '/guarded', headers: { accept: 'text/toon' } });
      assert.equal(response.status, 401, response.text);
      assert.equal(profileOf(response), 'problem');
      assert.equal((response.data as { detail: string }).detail, 'Send x-key.');
      assert.equal(response.headers.get('vary'), 'Accept');
      const json = await send({ url }, { path: '/guarded' });
      assert.equal(json.status, 401);
      assert.equal(json.mediaType, 'application/problem+json');
      assert.equal(json.headers.get('content-length'), String(Buffer.byteLength(json.text)));
    });

    it('answers an exception of Nest middleware on a request `skip` selects with a JSON problem', async () => {
      const response = await send({ url }, { path: '/skipped', headers: { accept: 'text/toon' } });
      assert.equal(response.status, 401, response.text);
      assert.equal(response.mediaType, 'application/problem+json');
      assert.equal((response.data as { instance: string }).instance, '/skipped');
    });

    it('gives a TOON body its bytes as req.rawBody under rawBody: true, as Nest gives a JSON body', async () => {
      for (const [contentType, body] of [
        ['application/json', '{"sku":"TEA","quantity":2}'],
        ['text/toon', 'sku: TEA\nquantity: 2'],
      ] as const) {
        const response = await send(
          { url },
          { method: 'POST', path: '/echo', headers: { 'content-type': contentType }, body },
        );
        assert.equal(response.status, 201, response.text);
        assert.deepEqual(response.data, { rawBody: body, body: { sku: 'TEA', quantity: 2 } });
      }
    });

    it('ends a response whose headers went out before the handler threw, as Nest does', async () => {
      let serverResponse: ServerResponse | undefined;
      const onRequest = (_request: IncomingMessage, response: ServerResponse): void => {
        serverResponse = response;
      };
      server.on('request', onRequest);
      const logged: unknown[] = [];
      const consoleError = console.error;
      console.error = (...args: unknown[]) => logged.push(args);
      const body = await new Promise<string>((resolve, reject) => {
        const request = httpRequest(`${url}/partial`, { agent: false }, (response) => {
          const chunks: Buffer[] = [];
          response.once('data', () => {
            // The handler threw and the filter ran before the first chunk could arrive here.
            if (serverResponse?.writableEnded !== true) {
              request.destroy();
              reject(new Error('the filter left the started response open'));
            }
          });
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve(Buffer.concat(chunks).toString()));
        });
        request.on('error', reject);
        request.end();
      }).finally(() => {
        console.error = consoleError;
        server.off('request', onRequest);
      });
      assert.equal(body, 'partial');
      assert.equal(logged.length, 1, 'the 500 is logged once');
    });
  });
}
