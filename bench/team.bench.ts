// What authentication adds to a small tool call on `toonwire proxy --listen` (issue 30): the
// same one-line tool of the same stdio upstream, through four proxies (no auth on loopback, the
// same again as a control, --auth-tokens with 50 callers, --auth-issuer with an ES256 JWT
// checked against a JWKS served here), called in turn, call by call, over one keep-alive
// connection each on the 2026-07-28 route. Target: at most 1.05x the no-auth p50.
//
// Two processes running the same code can differ by several percent for their whole life, more
// than the check costs; so the bench runs BATCHES batches of fresh processes and reports the
// median over batches of each batch's ratio, beside the control's ratio (the noise floor) and
// the proxies' CPU per call (from /proc). A second table times the checks alone in this process.
//
// Run: npm run build && npm run bench:team   (BATCHES=8 and ROUNDS=200 per batch by default)

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import {
  type Authenticator,
  oauthAuthenticator,
  parseTokens,
  tokenAuthenticator,
} from '../src/mcp/proxy/serve/auth.js';
import { cpuMsOf } from './harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'team-upstream.mjs');
const ROUNDS = Number(process.env.ROUNDS ?? 200);
const BATCHES = Number(process.env.BATCHES ?? 8);
const WARMUP = 50;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Starts `toonwire proxy --listen 127.0.0.1:0 <args>` and resolves with it and its URL. */
function startProxy(
  args: string[],
): Promise<{ url: string; pid: number | undefined; stop(): void }> {
  const child = spawn(
    process.execPath,
    [CLI, 'proxy', '--listen', '127.0.0.1:0', ...args, '--', process.execPath, UPSTREAM],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /serving MCP at (http:\/\/\S+)/.exec(stderr);
      if (match !== null)
        resolve({ url: match[1]!, pid: child.pid, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', () => reject(new Error(`the proxy exited: ${stderr}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One tools/call of `echo` on the 2026-07-28 route; resolves with its milliseconds. */
function call(url: string, token: string | undefined, id: number): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { label: 'x' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'team-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
    'content-length': String(Buffer.byteLength(body)),
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers, agent }, (response) => {
      response.resume();
      response.once('end', () => {
        if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}`));
        else resolve(performance.now() - start);
      });
    });
    sent.once('error', reject);
    sent.end(body);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'toonwire-team-bench-'));
const tokens = Array.from({ length: 50 }, (_, index) => ({
  name: `caller${index}`,
  token: randomBytes(24).toString('hex'),
}));
writeFileSync(join(dir, 'tokens'), tokens.map(({ name, token }) => `${name}:${token}`).join('\n'));

const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256' };
const issuerServer = createServer((incoming, response) => {
  response.setHeader('content-type', 'application/json');
  if (incoming.url === '/.well-known/oauth-authorization-server')
    response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
  else response.end(JSON.stringify({ keys: [jwk] }));
});
await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
const audience = 'https://mcp.example.com/mcp';
const jwt = await new SignJWT({ scope: 'mcp' })
  .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
  .setIssuer(issuer)
  .setAudience(audience)
  .setSubject('bench')
  .setExpirationTime('1h')
  .sign(privateKey);

/** The four proxies of each batch: a label, the proxy's arguments, the token a caller sends. */
const contenders: Array<{ label: string; args: string[]; token: string | undefined }> = [
  { label: 'no auth (loopback)', args: [], token: undefined },
  // The same proxy again: how far two identical processes differ is the noise floor the
  // ratios below must be read against.
  { label: 'no auth, a second process', args: [], token: undefined },
  {
    label: '--auth-tokens, 50 callers (the last one calls)',
    args: ['--auth-tokens', join(dir, 'tokens')],
    token: tokens.at(-1)!.token,
  },
  {
    label: '--auth-issuer, ES256 JWT',
    args: ['--auth-issuer', issuer, '--auth-audience', audience],
    token: jwt,
  },
];

let running: Array<Awaited<ReturnType<typeof startProxy>>> = [];

/**
 * One batch: fresh processes, `WARMUP` + `ROUNDS` rounds of one call to each, and per contender
 * its p50 and CPU per call. Fresh processes per batch because one process can be a few percent
 * faster than its twin for its whole life (where it was scheduled, what its JIT chose): the
 * median over batches of the per-batch ratios cancels that out.
 */
async function batch(): Promise<Array<{ p50: number; cpu: number }>> {
  running = [];
  for (const { args } of contenders) running.push(await startProxy(args));
  const times = running.map(() => [] as number[]);
  let cpuStart: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    if (round === WARMUP) cpuStart = running.map((proxy) => cpuMsOf(proxy.pid));
    // Each round in a different order, so no contender always goes first.
    const order = running.map((_, index) => (index + round) % running.length);
    for (const index of order) {
      const ms = await call(running[index]!.url, contenders[index]!.token, round);
      if (round >= WARMUP) times[index]!.push(ms);
    }
  }
  const result = running.map((proxy, index) => ({
    p50: median(times[index]!),
    cpu: (cpuMsOf(proxy.pid) - cpuStart[index]!) / ROUNDS,
  }));
  for (const proxy of running) proxy.stop();
  running = [];
  return result;
}

try {
  const batches: Array<Array<{ p50: number; cpu: number }>> = [];
  for (let index = 0; index < BATCHES; index++) batches.push(await batch());
  console.log(
    `\nA small tool call through --listen: ${BATCHES} batches of fresh processes, ${ROUNDS} rounds each; medians over the batches\n`,
  );
  console.log('| proxy | p50 | p50 vs no auth | proxy CPU per call | CPU vs no auth |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  contenders.forEach(({ label }, index) => {
    const p50 = median(batches.map((one) => one[index]!.p50));
    const ratio = median(batches.map((one) => one[index]!.p50 / one[0]!.p50));
    const cpu = median(batches.map((one) => one[index]!.cpu));
    const cpuRatio = median(batches.map((one) => one[index]!.cpu / one[0]!.cpu));
    console.log(
      `| ${label} | ${p50.toFixed(3)} ms | ${ratio.toFixed(3)}x | ${cpu.toFixed(3)} ms | ${cpuRatio.toFixed(3)}x |`,
    );
  });
  const base = median(batches.map((one) => one[0]!.p50));
  const checks: Array<[string, Authenticator, string]> = [
    [
      '--auth-tokens, 50 callers',
      tokenAuthenticator(
        parseTokens(tokens.map(({ name, token }) => `${name}:${token}`).join('\n')),
      ),
      tokens.at(-1)!.token,
    ],
    ['--auth-issuer (a token seen before)', await oauthAuthenticator({ issuer, audience }), jwt],
  ];
  console.log('\nThe check alone, in this process (median of 20 batches of 1,000)\n');
  console.log('| check | per request | of the no-auth p50 |');
  console.log('| --- | ---: | ---: |');
  for (const [label, auth, token] of checks) {
    const request = { headers: { authorization: `Bearer ${token}` } } as never;
    await auth.check(request); // the first one verifies; later ones are what a caller pays
    const batches: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const start = performance.now();
      for (let index = 0; index < 1000; index++) await auth.check(request);
      batches.push((performance.now() - start) / 1000);
    }
    const each = median(batches);
    console.log(
      `| ${label} | ${(each * 1000).toFixed(1)} µs | ${((each / base) * 100).toFixed(3)}% |`,
    );
  }
  console.log(
    `\nload average: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const proxy of running) proxy.stop();
  agent.destroy();
  issuerServer.close();
  rmSync(dir, { recursive: true, force: true });
}
