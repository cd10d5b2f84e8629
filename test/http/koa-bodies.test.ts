// toonwire/koa reads TOON request bodies for the methods @koa/bodyparser reads JSON bodies for
// (its `parsedMethods`), so the same request with either body gives the app the same
// ctx.request.body: a DELETE's body is left unread in both formats, malformed or not.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { toon } from '../../src/http/koa.js';
import { closer, listening } from './field-apps.js';
import { send } from './harness.js';

const BODIES = [
  ['application/json', '{"id":1}'],
  ['text/toon', 'id: 1'],
  ['application/json', '{"id":'],
  ['text/toon', 'id[2]: 1'],
] as const;

async function start(parsedMethods?: string[]): Promise<string> {
  const app = new Koa();
  app.silent = true;
  app.use(toon(parsedMethods === undefined ? {} : { parsedMethods }));
  app.use(bodyParser(parsedMethods === undefined ? {} : { parsedMethods }));
  app.use((ctx) => {
    ctx.body = { body: (ctx.request as unknown as { body?: unknown }).body ?? null };
  });
  const server: Server = app.listen(0, '127.0.0.1');
  after(closer(server));
  return listening(server);
}

/** What the app answers to each body, by format: well-formed, then malformed. */
async function outcomes(url: string, method: string) {
  const answers: Record<string, Array<[number, unknown]>> = { json: [], toon: [] };
  for (const [contentType, body] of BODIES) {
    const response = await send(
      { url },
      { method, path: '/', headers: { 'content-type': contentType }, body },
    );
    const data = response.status === 200 ? response.data : undefined;
    answers[contentType === 'text/toon' ? 'toon' : 'json']!.push([response.status, data]);
  }
  return answers;
}

describe('Koa adapter, request bodies by method, beside @koa/bodyparser', () => {
  it('leaves the body of a method @koa/bodyparser does not parse unread, as for JSON', async () => {
    const url = await start();
    for (const method of ['DELETE', 'OPTIONS', 'PURGE']) {
      const { json, toon: toonAnswers } = await outcomes(url, method);
      assert.deepEqual(json, [
        [200, { body: null }],
        [200, { body: null }],
      ]);
      assert.deepEqual(toonAnswers, json, method);
    }
  });

  it('reads the bodies of POST, PUT and PATCH, as for JSON', async () => {
    const url = await start();
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const { json, toon: toonAnswers } = await outcomes(url, method);
      assert.deepEqual(json, [
        [200, { body: { id: 1 } }],
        [400, undefined],
      ]);
      assert.deepEqual(toonAnswers, json, method);
    }
  });

  it('reads a DELETE body when parsedMethods names DELETE, as @koa/bodyparser then does', async () => {
    const url = await start(['POST', 'DELETE']);
    const { json, toon: toonAnswers } = await outcomes(url, 'DELETE');
    assert.deepEqual(json, [
      [200, { body: { id: 1 } }],
      [400, undefined],
    ]);
    assert.deepEqual(toonAnswers, json);
  });
});
