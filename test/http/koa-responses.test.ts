// toonwire/koa's answers compared with the same Koa app without it: a file the handler names
// with ctx.attachment() keeps the JSON its name and type say (as toonwire/express keeps the type
// res.attachment() sets), byte for byte, under every Accept, while other objects are negotiated;
// under `notFound`, a bodyless 405 or 501 the handler set without an Allow header (no router's
// answer) stays Koa's own.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, describe, it } from 'node:test';
import Koa from 'koa';
import { toon } from '../../src/http/koa.js';
import { closer, listening } from './field-apps.js';
import { send } from './harness.js';

async function start(withToon: boolean): Promise<string> {
  const app = new Koa();
  if (withToon) app.use(toon({ notFound: true }));
  app.use((ctx) => {
    if (ctx.path === '/stub') {
      ctx.status = 501;
      return;
    }
    if (ctx.path === '/not-allowed') {
      ctx.status = 405;
      return;
    }
    if (ctx.path === '/data') {
      ctx.body = { rows: [{ id: 1 }, { id: 2 }] };
      return;
    }
    if (ctx.path === '/inline') ctx.set('Content-Disposition', 'inline; filename="orders.json"');
    else ctx.attachment('orders.json');
    ctx.body = { rows: [{ id: 1 }, { id: 2 }] };
  });
  const server: Server = app.listen(0, '127.0.0.1');
  after(closer(server));
  return listening(server);
}

describe('Koa adapter compared with plain Koa', () => {
  it('keeps an attachment or named inline file as the JSON Koa writes, under every Accept', async () => {
    const plain = await start(false);
    const adapted = await start(true);
    for (const path of ['/attachment', '/inline']) {
      const expected = await send({ url: plain }, { path });
      for (const accept of ['text/toon', 'application/json', '*/*']) {
        const response = await send({ url: adapted }, { path, headers: { accept } });
        assert.equal(response.status, 200);
        assert.equal(response.text, expected.text, `${path} ${accept}`);
        for (const name of ['content-type', 'content-disposition', 'content-length', 'vary']) {
          assert.equal(response.headers.get(name), expected.headers.get(name), name);
        }
      }
    }
    // The control case: an object with no Content-Disposition is negotiated.
    const data = await send({ url: adapted }, { path: '/data', headers: { accept: 'text/toon' } });
    assert.equal(data.mediaType, 'text/toon');
    assert.deepEqual(data.data, { rows: [{ id: 1 }, { id: 2 }] });
  });

  it("leaves a bodyless 405 or 501 the handler set without Allow as Koa's own answer", async () => {
    const plain = await start(false);
    const adapted = await start(true);
    for (const path of ['/stub', '/not-allowed']) {
      const expected = await send({ url: plain }, { path });
      const response = await send({ url: adapted }, { path });
      assert.equal(response.status, expected.status, path);
      assert.equal(response.text, expected.text, path);
      assert.equal(response.headers.get('allow'), null, path);
    }
  });
});
