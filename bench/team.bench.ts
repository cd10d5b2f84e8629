// What authentication adds to a small tool call on `toonwire proxy --listen` (issue 30): the
// same one-line tool of the same stdio upstream, through three proxies (no auth on loopback,
// --auth-tokens with 50 callers, --auth-issuer with an ES256 JWT checked against a JWKS served
// here), called in turn, call by call, over one keep-alive connection each on the 2026-07-28
// route. The ratio of the medians is the price of the check. Target: at most 1.05x. Three
// processes on a busy machine differ by more than the check costs, so a second table times the
// checks themselves in this process (the same authenticators, a request with the header), to
// compare with the p50 of a call.
//
// Run: npm run build && npm run bench:team   (ROUNDS=600 to change the number of call triples)

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

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const UPSTREAM = join(ROOT, 'test', 'mcp', 'fixtures', 'team-upstream.mjs');
const ROUNDS = Number(process.env.ROUNDS ?? 400);
const WARMUP = 50;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Starts `toonwire proxy --listen 127.0.0.1:0 <args>` and resolves with it and its URL. */
function startProxy(args: string[]): Promise<{ url: string; stop(): void }> {
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
      if (match !== null) resolve({ url: match[1]!, stop: () => child.kill('SIGTERM') });
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

const contenders = [
  { label: 'no auth (loopback)', proxy: await startProxy([]), token: undefined },
  {
    label: '--auth-tokens, 50 callers (the last one calls)',
    proxy: await startProxy(['--auth-tokens', join(dir, 'tokens')]),
    token: tokens.at(-1)!.token,
  },
  {
    label: '--auth-issuer, ES256 JWT',
    proxy: await startProxy(['--auth-issuer', issuer, '--auth-audience', audience]),
    token: jwt,
  },
];

try {
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    // Each round in a different order, so no contender always goes first.
    const order = contenders.map((_, index) => (index + round) % contenders.length);
    for (const index of order) {
      const { proxy, token } = contenders[index]!;
      const ms = await call(proxy.url, token, round);
      if (round >= WARMUP) times[index]!.push(ms);
    }
  }
  const base = median(times[0]!);
  console.log(`\nA small tool call through --listen: ${ROUNDS} rounds, medians (p50)\n`);
  console.log('| proxy | p50 | vs no auth |');
  console.log('| --- | ---: | ---: |');
  contenders.forEach(({ label }, index) => {
    const p50 = median(times[index]!);
    console.log(`| ${label} | ${p50.toFixed(3)} ms | ${(p50 / base).toFixed(3)}x |`);
  });
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
  for (const { proxy } of contenders) proxy.stop();
  agent.destroy();
  issuerServer.close();
  rmSync(dir, { recursive: true, force: true });
}
