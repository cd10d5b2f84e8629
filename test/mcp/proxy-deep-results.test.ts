// A tools/call answer the proxy cannot encode (a result nested deeper than `JSON.stringify` goes)
// is still answered: with the upstream's own bytes where the proxy rewrote it, else with an error
// saying why. Before, the answer was dropped with a line on stderr and the call never returned.

import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { hangGuardMs } from '../support/patience.js';
import {
  INITIALIZE,
  LineProcess,
  modernRequest,
  post,
  proxyArgs,
  proxyCli,
  startListening,
  stopListening,
} from './helpers.js';

const DEEP_UPSTREAM = [
  process.execPath,
  join(import.meta.dirname, 'fixtures', 'deep-upstream.mjs'),
] as const;

type Answer = {
  id: number;
  result?: { content: Array<{ text: string }>; structuredContent?: unknown };
  error?: { code: number; message: string };
};

/** Initializes, lists, then calls `deep` and `after`; returns the raw lines and parsed answers. */
async function callDeep(
  proxy: LineProcess,
  prefix = '',
): Promise<{ line: string; deep: Answer; after: Answer }> {
  const send = (message: object) => proxy.child.stdin!.write(`${JSON.stringify(message)}\n`);
  const answerTo = async (id: number) => {
    const index = await proxy.waitFor((line) => line.includes(`"id":${id}`));
    return { line: proxy.lines[index]!, answer: JSON.parse(proxy.lines[index]!) as Answer };
  };
  send(INITIALIZE);
  await answerTo(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await answerTo(2);
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: `${prefix}deep` } });
  const deep = await answerTo(3);
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: `${prefix}after` } });
  const { answer } = await answerTo(4);
  return { line: deep.line, deep: deep.answer, after: answer };
}

describe('toonwire proxy with a result nested too deeply to encode again', {
  // Without the answer, the call hangs: the guard turns that into a failure.
  timeout: hangGuardMs(60_000),
}, () => {
  const started: LineProcess[] = [];
  const config = join(tmpdir(), `toonwire-deep-gateway-${process.pid}.json`);
  after(async () => {
    for (const proxy of started) proxy.kill();
    await Promise.all(started.map((proxy) => proxy.exited));
    await rm(config, { force: true });
  });

  it('sends the upstream its own bytes when a --max-tokens note would have changed the result', async () => {
    // The prose is over the budget and has no rows: the proxy adds a note, which means
    // re-encoding the whole answer, deep structuredContent included.
    const proxy = new LineProcess(
      process.execPath,
      proxyArgs(['--max-tokens', '50'], DEEP_UPSTREAM),
    );
    started.push(proxy);
    const { line, deep, after: next } = await callDeep(proxy);
    assert.equal(deep.error, undefined);
    assert.match(
      line,
      /^\{"jsonrpc":"2\.0","id":3,"result":\{"content":\[\{"type":"text","text":"a long note/,
    );
    assert.ok(line.endsWith(`${']'.repeat(5000)}}}}`), 'the upstream line, byte for byte');
    assert.equal(next.result?.content[0]?.text, 'still here');
    assert.equal(await proxy.close(), 0);
    assert.match(
      proxy.stderr,
      /could not pass the rewritten answer to 'tools\/call deep' \(id 3\) to the client \(.*nested too deeply.*\); sending it as the upstream did/,
    );
  });

  it('answers with an error naming the cause when a gateway cannot pass the answer on', async () => {
    await writeFile(
      config,
      JSON.stringify({ servers: { raw: { command: DEEP_UPSTREAM[0], args: [DEEP_UPSTREAM[1]] } } }),
    );
    const proxy = new LineProcess(process.execPath, [proxyCli(), 'proxy', '--config', config]);
    started.push(proxy);
    const { deep, after: next } = await callDeep(proxy, 'raw__');
    assert.equal(deep.error?.code, -32603);
    assert.match(
      deep.error?.message ?? '',
      /^toonwire proxy: could not pass the answer of .* to the client \(Maximum call stack size exceeded: the result is nested too deeply to be encoded again\), so 'tools\/call raw__deep' \(id 3\) got no answer$/,
    );
    assert.equal(next.result?.content[0]?.text, 'still here');
    assert.equal(await proxy.close(), 0);
  });
  for (const levers of [[], ['--max-tokens', '50']]) {
    it(`answers with an error over --listen, in a session and on the 2026-07-28 route (${levers.join(' ') || 'no levers'})`, async () => {
      // The SDK's server transport caught the failed encode, reported it to onerror and closed the
      // answer's stream with nothing in it; the 2026-07-28 route marked the exchange answered
      // before encoding, so the error that followed went nowhere and the POST never ended.
      const { proxy, url } = await startListening([...levers, '--', ...DEEP_UPSTREAM]);
      started.push(proxy);
      const opened = await post(url, INITIALIZE);
      const session = {
        'mcp-session-id': opened.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-06-18',
      };
      await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
      const call = (id: number, name: string) =>
        post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name } }, session);
      const cause =
        /^toonwire proxy: could not pass the answer of .* to the client \(Maximum call stack size exceeded: the result is nested too deeply to be encoded again\), so 'tools\/call deep' \(id \d+\) got no answer$/;
      const inSession = await call(3, 'deep');
      assert.equal(inSession.messages.length, 1);
      assert.equal(inSession.messages[0]!.id, 3);
      assert.equal(inSession.messages[0]!.error?.code, -32603);
      assert.match(inSession.messages[0]!.error?.message ?? '', cause);
      assert.equal((await call(4, 'after')).messages[0]!.result?.content[0]?.text, 'still here');

      const modern = modernRequest(5, 'tools/call', { name: 'deep' });
      const onRoute = await post(url, modern.body, modern.headers);
      assert.equal(onRoute.messages.length, 1);
      assert.equal(onRoute.messages[0]!.id, 5);
      assert.equal(onRoute.messages[0]!.error?.code, -32603);
      assert.match(onRoute.messages[0]!.error?.message ?? '', cause);
      const next = modernRequest(6, 'tools/call', { name: 'after' });
      const afterOnRoute = await post(url, next.body, next.headers);
      assert.equal(afterOnRoute.messages[0]!.result?.content[0]?.text, 'still here');
      assert.equal((await stopListening(proxy)).code, 0);
    });
  }
});
