// A real redis-server for the tests of `--page-store` (Debian's, started on a free port in the
// test's process tree, without persistence) and the skip reason when it is not installed.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withinHangGuard } from '../support/patience.js';

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

/** `false` when redis-server is installed, else why the Redis tests are skipped. */
export const skipWithoutRedis: false | string = hasRedis
  ? false
  : 'redis-server is not installed (Debian: apt-get install -y redis-server; .ci/run installs it)';

/** A TCP port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * redis-server on `port` (default: a free one), without persistence, once it accepts
 * connections; `extra` are more of its arguments (e.g. `['--requirepass', secret]`).
 */
export async function startRedis(
  extra: readonly string[] = [],
  port?: number,
): Promise<{ url: string; port: number; child: ChildProcess; stop(): Promise<void> }> {
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  await withinHangGuard(
    new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) resolve();
      });
      void exited.then(() => reject(new Error(`redis-server exited: ${output}`)));
    }),
    20_000,
    'redis-server',
  );
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * How many times the Redis that `client` talks to has run `command` since its statistics were
 * last reset (`INFO commandstats`): for tests that count the round trips a store makes.
 *
 * @example
 * await client.configResetStat();
 * // ... the store works ...
 * assert.equal(await commandCalls(client, 'getex'), 1);
 */
export async function commandCalls(
  client: { info(section: string): Promise<string> },
  command: string,
): Promise<number> {
  const found = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(
    await client.info('commandstats'),
  );
  return Number(found?.[1] ?? 0);
}
