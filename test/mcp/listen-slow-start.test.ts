// `--listen` in front of an upstream slower to start than a client waits for its first probe
// (issue 29, item 8), without Python and without waiting for time: the fixture holds every request
// until the test lets it start. A client that gave up on its `server/discover` sends initialize;
// the proxy holds that until the probe is answered, then refuses it with -32022 naming the
// versions the upstream speaks, and the client's second probe is answered by the same upstream.
// The Python client against a real 12 s start: test/mcp/python-slow-start.test.ts.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type LineProcess,
  MODERN,
  modernRequest,
  post,
  ROOT,
  startListening,
  stopListening,
  waitUntil,
} from './helpers.js';

const MODERN_UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'modern-upstream.mjs');

const startsIn = (stderr: string) => stderr.split('modern-upstream: started').length - 1;

/** The initialize the Python SDK's client falls back to, from the client that probed. */
const fallbackInitialize = {
  jsonrpc: '2.0',
  id: 2,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'modern-client', version: '1.0.0' },
  },
};

describe('--listen in front of an upstream that starts after the client gave up its probe', () => {
  const folders: string[] = [];
  const proxies: LineProcess[] = [];
  after(async () => {
    for (const proxy of proxies) await stopListening(proxy);
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  async function slowProxy(env: Record<string, string> = {}) {
    const folder = mkdtempSync(join(tmpdir(), 'toonwire-slow-start-'));
    folders.push(folder);
    const started = join(folder, 'started');
    const { proxy, url } = await startListening(['--', process.execPath, MODERN_UPSTREAM], {
      ...process.env,
      MODERN_UPSTREAM_HOLD: started,
      ...env,
    });
    proxies.push(proxy);
    return { proxy, url, start: () => writeFileSync(started, '') };
  }

  /**
   * A client's probe, held by the upstream, then its `initialize` sent once the probe is out:
   * resolves with both answers after the upstream is let start; `holdsInitialize` waits for the
   * proxy to say it holds the initialize first; `patient` sends the initialize 5 s after the probe,
   * as a client whose patience ran out does.
   */
  async function probeThenInitialize(
    setup: Awaited<ReturnType<typeof slowProxy>>,
    initialize: unknown,
    holdsInitialize: boolean,
    patient = holdsInitialize,
  ) {
    const { proxy, url, start } = setup;
    const discover = modernRequest(1, 'server/discover');
    const probe = post(url, discover.body, discover.headers);
    assert.ok(
      await waitUntil(() => proxy.stderr.includes('holding server/discover'), 30_000),
      proxy.stderr,
    );
    // A client falls back only once its patience ran out: the proxy takes no initialize sent
    // sooner than 5 s after the probe for a fallback.
    if (patient) await delay(5_000); // wait-ok: the least age of a probe whose client fell back
    const initialized = post(url, initialize, {});
    if (holdsInitialize)
      assert.ok(
        await waitUntil(() => proxy.stderr.includes('the initialize waits for the probe'), 30_000),
        proxy.stderr,
      );
    start();
    return Promise.all([probe, initialized]);
  }

  it('answers the fallback initialize -32022 from the probe, and one upstream serves', async () => {
    const setup = await slowProxy();
    const { proxy, url } = setup;
    // The client gave up waiting: its initialize comes while the probe is still out.
    const [probed, refused] = await probeThenInitialize(setup, fallbackInitialize, true);
    assert.deepEqual(probed.messages[0]!.result.supportedVersions, [MODERN]);
    assert.equal(refused.status, 400, JSON.stringify(refused.messages));
    assert.equal(refused.messages[0]!.id, 2);
    assert.equal(refused.messages[0]!.error.code, -32022);
    assert.deepEqual(refused.messages[0]!.error.data, {
      supported: [MODERN],
      requested: '2025-11-25',
    });
    // The client probes again: answered by the upstream already running.
    const again = modernRequest(3, 'server/discover');
    const second = await post(url, again.body, again.headers);
    assert.deepEqual(second.messages[0]!.result.supportedVersions, [MODERN]);
    const list = modernRequest(4, 'tools/list');
    assert.equal((await post(url, list.body, list.headers)).messages[0]!.result.tools.length, 1);
    assert.equal(startsIn(proxy.stderr), 1, proxy.stderr);
  });

  it('serves the fallback initialize as ever when the upstream refuses the probe', async () => {
    const setup = await slowProxy({ MODERN_UPSTREAM_REFUSE: '1' });
    const [probed, initialized] = await probeThenInitialize(setup, fallbackInitialize, true);
    assert.equal(probed.messages[0]!.error.code, -32601);
    assert.equal(initialized.status, 200, JSON.stringify(initialized.messages));
    assert.equal(initialized.messages[0]!.result.serverInfo.name, 'modern-upstream');
  });

  it('serves an initialize of another client as ever while a probe is out', async () => {
    const other = {
      ...fallbackInitialize,
      params: { ...fallbackInitialize.params, clientInfo: { name: 'other', version: '2.0.0' } },
    };
    const [, answer] = await probeThenInitialize(await slowProxy(), other, false);
    assert.equal(answer.messages[0]!.result.serverInfo.name, 'modern-upstream');
  });
  it('serves as ever an initialize of the same client sent right after the probe (a client in legacy mode)', async () => {
    // fastmcp's Client in mode="legacy" and in its default mode share their clientInfo: with a
    // probe of the default one out, the legacy one's initialize was held and refused -32022,
    // which a client that never probes cannot act on.
    const [probed, answer] = await probeThenInitialize(
      await slowProxy(),
      fallbackInitialize,
      false,
      false,
    );
    assert.deepEqual(probed.messages[0]!.result.supportedVersions, [MODERN]);
    assert.equal(answer.status, 200, JSON.stringify(answer.messages));
    assert.equal(answer.messages[0]!.result.serverInfo.name, 'modern-upstream');
  });
});
