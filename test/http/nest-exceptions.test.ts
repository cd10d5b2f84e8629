// toonwire/nest's exception filter against Nest's own, on both platforms: the same controller
// served by a plain Nest app and by one with useToon. Exceptions that Nest answers without a
// problem (an HttpException thrown with a success or redirect status) keep Nest's answer, byte
// for byte in JSON; an HttpException's response members stay members of the document (a
// `headers` member is no response header, an `error` code the app gave is kept); an error that is no HttpException keeps Nest's 500
// unless it carries an http-errors `statusCode` (an HTTP client's upstream `status` is not ours).
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  BadRequestException,
  Controller,
  Get,
  HttpException,
  Module,
  PayloadTooLargeException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { HttpProblem } from '../../src/http/index.js';
import { problemOf, useToon } from '../../src/http/nest.js';
import { profileOf, send } from './harness.js';

describe('problemOf, as Nest sends an exception', () => {
  it('keeps a `headers` member of the response in the document, not as response headers', () => {
    const problem = problemOf(
      new BadRequestException({ message: 'Send the key.', headers: ['x-api-key'] }),
    ) as HttpProblem;
    assert.deepEqual(problem.headers, {});
    assert.deepEqual(problem.problem.headers, ['x-api-key']);
    assert.equal(problem.problem.detail, 'Send the key.');
  });

  it('reads a list thrown as the response (`new HttpException([...], 400)`) as messages', () => {
    const problem = problemOf(new HttpException(['first', 'second'], 400)) as HttpProblem;
    assert.equal(problem.problem.detail, 'first; second');
    assert.deepEqual(problem.problem.errors, [
      { pointer: '', message: 'first' },
      { pointer: '', message: 'second' },
    ]);
    assert.equal(problem.problem['0'], undefined);
  });

  it("keeps an `error` the app gave (a code) and drops Nest's default one, the status's name", () => {
    const coded = problemOf(new BadRequestException('Email taken', 'EMAIL_TAKEN')) as HttpProblem;
    assert.equal(coded.problem.error, 'EMAIL_TAKEN');
    assert.equal(coded.problem.detail, 'Email taken');
    for (const exception of [
      new BadRequestException('Email taken'),
      new UnprocessableEntityException('Too late'),
      new PayloadTooLargeException(),
    ]) {
      assert.equal((problemOf(exception) as HttpProblem).problem.error, undefined);
    }
  });

  it('keeps a message that is no text as a member, as Nest sends it', () => {
    const problem = problemOf(
      new BadRequestException({ message: { email: 'taken' } }),
    ) as HttpProblem;
    assert.deepEqual(problem.problem.message, { email: 'taken' });
  });

  it("answers an error with a `status` alone (an HTTP client's, for its upstream) with a 500", () => {
    const upstream = Object.assign(new Error('Request failed with status code 404'), {
      status: 404,
      code: 'ERR_BAD_REQUEST',
    });
    const problem = problemOf(upstream) as HttpProblem;
    assert.equal(problem.problem.status, 500);
    assert.equal(problem.problem.detail, undefined);
  });

  it('keeps an error that carries an http-errors statusCode (body-parser, Fastify) as it is', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), {
      status: 413,
      statusCode: 413,
    });
    assert.equal(problemOf(tooLarge), tooLarge);
  });
});

/** A controller as apps write it (decorators applied by calls, as tsx emits no metadata). */
function appModule(): new () => object {
  class Thrown {
    moved() {
      throw new HttpException({ message: 'moved', location: '/v2' }, 302);
    }
    fine() {
      throw new HttpException('fine', 200);
    }
    headersMember() {
      throw new BadRequestException({ message: 'bad', headers: { 'bad header': 'x' } });
    }
    upstream() {
      throw Object.assign(new Error('Request failed with status code 401'), { status: 401 });
    }
  }
  const proto = Thrown.prototype;
  for (const [key, path] of [
    ['moved', 'moved'],
    ['fine', 'fine'],
    ['headersMember', 'headers-member'],
    ['upstream', 'upstream'],
  ] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, key)!;
    Reflect.decorate([Get(path)], proto, key, descriptor);
    Object.defineProperty(proto, key, descriptor);
  }
  Controller()(Thrown);
  class AppModule {}
  Module({ controllers: [Thrown] })(AppModule);
  return AppModule;
}

async function start(platform: 'express' | 'fastify', withToon: boolean) {
  const module = appModule();
  const app =
    platform === 'fastify'
      ? await NestFactory.create(module, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(module, new ExpressAdapter(), { logger: false });
  if (withToon) await useToon(app);
  await app.listen(0, '127.0.0.1');
  const address = (app.getHttpServer() as import('node:http').Server).address() as {
    port: number;
  };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

for (const platform of ['express', 'fastify'] as const) {
  describe(`toonwire/nest on ${platform}, exceptions compared with plain Nest`, async () => {
    const plain = await start(platform, false);
    const toon = await start(platform, true);
    after(() => Promise.all([plain.app.close(), toon.app.close()]));

    it('answers an HttpException with a success or redirect status as Nest does, negotiated', async () => {
      for (const [path, status, data] of [
        ['/moved', 302, { message: 'moved', location: '/v2' }],
        ['/fine', 200, { statusCode: 200, message: 'fine' }],
      ] as const) {
        const expected = await send(plain, { path });
        assert.equal(expected.status, status);
        const json = await send(toon, { path });
        assert.equal(json.status, status, json.text);
        assert.equal(json.text, expected.text);
        assert.equal(json.headers.get('content-type'), expected.headers.get('content-type'));
        const toonAnswer = await send(toon, { path, headers: { accept: 'text/toon' } });
        assert.equal(toonAnswer.status, status);
        assert.equal(toonAnswer.mediaType, 'text/toon');
        assert.deepEqual(toonAnswer.data, data);
      }
    });

    it('keeps a `headers` member of the response in the problem, sending no header from it', async () => {
      for (const accept of ['application/json', 'text/toon']) {
        const response = await send(toon, { path: '/headers-member', headers: { accept } });
        assert.equal(response.status, 400, response.text);
        assert.equal(
          profileOf(response) ?? response.mediaType,
          accept === 'text/toon' ? 'problem' : 'application/problem+json',
        );
        assert.deepEqual((response.data as { headers: unknown }).headers, { 'bad header': 'x' });
      }
    });

    it("answers an upstream client's error (a `status`, no statusCode) with Nest's 500, its message hidden", async () => {
      const expected = await send(plain, { path: '/upstream' });
      assert.equal(expected.status, 500);
      const consoleError = console.error;
      console.error = () => {};
      try {
        const response = await send(toon, { path: '/upstream', headers: { accept: 'text/toon' } });
        assert.equal(response.status, 500, response.text);
        assert.equal((response.data as { detail?: string }).detail, undefined);
        assert.doesNotMatch(response.text, /Request failed/);
      } finally {
        console.error = consoleError;
      }
    });
  });
}
