// The proxy as a team's gateway (issue 30): who may call `--listen`. Bearer tokens from a file,
// OAuth access tokens checked against a JWKS the test serves with keys the test makes, the
// refusal to start off loopback without either, the Origin list off loopback, and the health
// endpoints. Every proxy is the built CLI, a real process.

import assert from 'node:assert/strict';
import crypto, { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { parseTokens, tokenAuthenticator } from '../../src/mcp/proxy/serve/auth.js';
import { withinHangGuard } from '../support/patience.js';
import {
  INITIALIZE,
  LineProcess,
  post,
  proxyCli,
  startListening,
  stopListening,
  TEAM_UPSTREAM,
} from './helpers.js';

async function stopped(proxy: LineProcess): Promise<string> {
  const { code, stderr } = await stopListening(proxy);
  assert.equal(code, 0, stderr);
  return stderr;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A key-set server on 127.0.0.1 for the OAuth blocks: its origin, and how to stop it. */
async function keySetServer(
  handle: Parameters<typeof createServer>[1],
): Promise<{ origin: string; stop(): Promise<void> }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('toonwire proxy --listen off loopback', () => {
  it('refuses to start without authentication: exit 2, naming --auth-tokens, --auth-issuer and --allow-unauthenticated', async () => {
    const proxy = new LineProcess(process.execPath, [
      proxyCli(),
      'proxy',
      '--listen',
      '0.0.0.0:0',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    const code = await withinHangGuard(proxy.exited, 20_000, 'the refusal');
    assert.equal(code, 2, proxy.stderr);
    for (const flag of ['--auth-tokens', '--auth-issuer', '--allow-unauthenticated'])
      assert.match(proxy.stderr, new RegExp(flag), proxy.stderr);
    assert.doesNotMatch(proxy.stderr, /serving MCP/);
  });

  it('stops with exit 2 on auth flags that cannot work: without --listen, an issuer without an audience, a missing tokens file', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--auth-tokens', 'tokens.txt'], /only apply to --listen/],
      [['--listen', '0', '--auth-issuer', 'https://auth.example.com'], /go together/],
      [
        ['--listen', '0', '--auth-tokens', '/nonexistent/tokens'],
        /--auth-tokens \/nonexistent\/tokens/,
      ],
    ];
    for (const [flags, message] of cases) {
      const proxy = new LineProcess(process.execPath, [
        proxyCli(),
        'proxy',
        ...flags,
        '--',
        ...TEAM_UPSTREAM,
      ]);
      const code = await withinHangGuard(proxy.exited, 20_000, 'the usage error');
      assert.equal(code, 2, proxy.stderr);
      assert.match(proxy.stderr, message);
      assert.doesNotMatch(proxy.stderr, /team-upstream: pid/, 'no upstream was started');
    }
  });

  it('with --allow-unauthenticated starts, says on stderr what it exposes, and refuses browsers of Origins not in --allowed-origins', async () => {
    const { proxy, url } = await startListening([
      '--listen',
      '0.0.0.0:0',
      '--allow-unauthenticated',
      '--allowed-origins',
      'https://app.example.com',
      '--',
      ...TEAM_UPSTREAM,
    ]);
    const local = url.replace('0.0.0.0', '127.0.0.1');
    try {
      assert.match(proxy.stderr, /WARNING: no authentication.*anyone who can reach/);
      const evil = await post(local, INITIALIZE, {
        host: 'evil.example.com',
        origin: 'http://evil.example.com',
      });
      assert.equal(evil.status, 403);
      const allowed = await post(local, INITIALIZE, { origin: 'https://app.example.com' });
      assert.equal(allowed.status, 200);
      // A client that is no browser sends no Origin, whatever its Host.
      const plain = await post(local, INITIALIZE, { host: 'mcp.example.com' });
      assert.equal(plain.status, 200);
      assert.equal(plain.messages[0]!.result.serverInfo.name, 'team-upstream');
    } finally {
      await stopped(proxy);
    }
  });
});

describe('toonwire proxy --auth-tokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonwire-team-'));
  const alice = randomBytes(24).toString('hex');
  const bob = randomBytes(24).toString('hex');
  const file = join(dir, 'tokens');
  writeFileSync(file, `# the team\nalice:${alice}\n\n${bob}\n`);
  let proxy: LineProcess;
  let url: string;
  before(async () => {
    ({ proxy, url } = await startListening([
      '--auth-tokens',
      file,
      '--metrics',
      '127.0.0.1:0',
      '--',
      ...TEAM_UPSTREAM,
    ]));
  });
  after(async () => {
    await stopped(proxy);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a request without a token, or with a wrong one, with 401 and WWW-Authenticate', async () => {
    for (const headers of [
      {},
      bearer(`${alice}x`),
      bearer(alice.slice(1)),
      { authorization: alice },
    ]) {
      const answer = await post(url, INITIALIZE, headers);
      assert.equal(answer.status, 401, JSON.stringify(headers));
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer /);
      assert.equal(answer.messages[0]!.result, undefined);
    }
  });

  it('serves initialize to each token of the file, and a session only to the caller who opened it', async () => {
    const opened = await post(url, INITIALIZE, bearer(alice));
    assert.equal(opened.status, 200);
    assert.equal(opened.messages[0]!.result.serverInfo.name, 'team-upstream');
    const session = opened.headers.get('mcp-session-id')!;
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const own = await post(url, list, { ...headers, ...bearer(alice) });
    assert.equal(own.status, 200);
    assert.equal(own.messages[0]!.result.tools[0].name, 'echo');
    const other = await post(url, list, { ...headers, ...bearer(bob) });
    assert.equal(other.status, 404);
    const nameless = await post(url, INITIALIZE, bearer(bob));
    assert.equal(nameless.status, 200);
  });

  it('counts requests and tool calls per caller name in --metrics, never a token', async () => {
    const opened = await post(url, INITIALIZE, bearer(alice));
    const headers = {
      'mcp-session-id': opened.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-06-18',
      ...bearer(alice),
    };
    const call = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'echo', arguments: { label: 'x' } },
    };
    assert.equal((await post(url, call, headers)).status, 200);
    await post(url, INITIALIZE, bearer('not-a-token-of-the-file'));
    const metricsUrl = /metrics at (http:\/\/\S+)/.exec(proxy.stderr)![1]!;
    const text = await (await fetch(metricsUrl)).text();
    assert.match(text, /toonwire_proxy_http_requests_total\{caller="alice",outcome="ok"\} [1-9]/);
    assert.match(
      text,
      /toonwire_proxy_http_requests_total\{caller="anonymous",outcome="unauthorized"\} [1-9]/,
    );
    assert.match(text, /toonwire_proxy_caller_tool_calls_total\{caller="alice",strategy="\w+"\} 1/);
    assert.match(text, /toonwire_proxy_caller_bytes_out_total\{caller="alice"\} [1-9]/);
    assert.doesNotMatch(text, /toonwire_proxy_caller_tool_calls_total\{caller="bob"/);
    for (const token of [alice, bob, 'not-a-token-of-the-file']) assert.ok(!text.includes(token));
  });

  it('leaves /healthz and /readyz open to probes', async () => {
    const base = new URL(url);
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(new URL(path, base));
      assert.equal(response.status, 200, path);
    }
  });
});

describe('the tokens file', () => {
  const good = '0123456789abcdef0123';

  it('refuses a token an Authorization header cannot carry as written, naming its line', () => {
    const cases: Array<[string, RegExp]> = [
      [`alice:${good} # the laptop`, /line 1 holds a space \(a comment goes on a line of its own/],
      [`ops team:${good}`, /line 1 holds a space .*a name before the colon is letters/],
      [`# team\nbob:${good} ${good}`, /line 2 holds a space/],
      [
        'carol:пароль-пароль-пароль-пароль',
        /line 1 holds the character "п", which is not printable ASCII/,
      ],
      [`dave:${good}\u00e9`, /line 1 holds the character "é"/],
      [`erin:${good}\u0000`, /line 1 holds the character "\\u0000"/],
    ];
    for (const [text, message] of cases)
      assert.throws(() => parseTokens(text), { name: 'TypeError', message }, text);
  });

  it("refuses two callers it could not tell apart: one token under two names, a name that is a nameless line's", () => {
    assert.throws(() => parseTokens(`alice:${good}\nbob:${good}`), {
      message: /the token on line 2 \(bob\) is also on line 1 \(alice\)/,
    });
    assert.throws(() => parseTokens(`token-2:${good}1\n${good}2`), {
      message: /the name token-2 on line 1 is the name of the nameless token on line 2/,
    });
    // A caller may have two tokens (one being rotated); a line given twice is the same caller.
    assert.deepEqual(parseTokens(`alice:${good}1\nalice:${good}2\nalice:${good}2`), [
      { name: 'alice', token: `${good}1` },
      { name: 'alice', token: `${good}2` },
      { name: 'alice', token: `${good}2` },
    ]);
    assert.deepEqual(parseTokens(`token-1:${good}\n\t${good}x\t`), [
      { name: 'token-1', token: good },
      { name: 'token-2', token: `${good}x` },
    ]);
  });

  it('stops the proxy with exit 2 and the reason before it serves anyone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonwire-team-'));
    const file = join(dir, 'tokens');
    writeFileSync(file, `alice:${good}\nbob:ключ-ключ-ключ-ключ\n`);
    let proxy: LineProcess | undefined;
    try {
      proxy = new LineProcess(process.execPath, [
        proxyCli(),
        'proxy',
        '--listen',
        '127.0.0.1:0',
        '--auth-tokens',
        file,
        '--',
        ...TEAM_UPSTREAM,
      ]);
      const code = await withinHangGuard(proxy.exited, 20_000, 'the refusal');
      assert.equal(code, 2, proxy.stderr);
      assert.match(
        proxy.stderr,
        /--auth-tokens .*tokens: auth tokens: the token on line 2 holds the character "к"/,
      );
      assert.doesNotMatch(proxy.stderr, /serving MCP/);
    } finally {
      proxy?.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('token comparison', () => {
  it('compares the SHA-256 digests of the given token and of every token, in constant time, whichever matches', async () => {
    const entries = parseTokens(
      Array.from({ length: 5 }, (_, index) => `caller${index}:${'t'.repeat(20)}${index}`).join(
        '\n',
      ),
    );
    const auth = tokenAuthenticator(entries);
    const compare = mock.method(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    try {
      for (const token of [`${'t'.repeat(20)}0`, `${'t'.repeat(20)}4`, 'x', 'y'.repeat(500)]) {
        compare.mock.resetCalls();
        const request = { headers: { authorization: `Bearer ${token}` } } as IncomingMessage;
        const caller = await auth.check(request);
        assert.equal(compare.mock.callCount(), 5, token);
        for (const call of compare.mock.calls) {
          const [a, b] = call.arguments as [Buffer, Buffer];
          assert.equal(a.length, 32);
          assert.equal(b.length, 32);
        }
        assert.equal(
          'name' in caller ? caller.name : 'refused',
          token.startsWith('t') ? `caller${token.at(-1)}` : 'refused',
        );
      }
    } finally {
      compare.mock.restore();
      syncBuiltinESMExports();
    }
  });
});

describe('toonwire proxy --auth-issuer (OAuth 2.1 resource server)', () => {
  const AUDIENCE = 'https://mcp.example.com/mcp';
  let issuer: string;
  let jwks: Awaited<ReturnType<typeof keySetServer>>;
  let key: CryptoKey;
  let stranger: CryptoKey;
  let proxy: LineProcess;
  let url: string;

  const token = async (claims: JWTPayload, signWith = key) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt()
      .setIssuer((claims.iss as string | undefined) ?? issuer)
      .setAudience((claims.aud as string | undefined) ?? AUDIENCE)
      .setExpirationTime((claims.exp as number | undefined) ?? '10m')
      .sign(signWith);

  before(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey as CryptoKey;
    stranger = (await generateKeyPair('ES256')).privateKey as CryptoKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = await keySetServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/.well-known/oauth-authorization-server')
        response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      else if (request.url === '/jwks') response.end(JSON.stringify({ keys: [publicJwk] }));
      else response.writeHead(404).end('{}');
    });
    issuer = jwks.origin;
    ({ proxy, url } = await startListening([
      '--auth-issuer',
      issuer,
      '--auth-audience',
      AUDIENCE,
      '--auth-scope',
      'mcp:tools',
      '--',
      ...TEAM_UPSTREAM,
    ]));
  });
  after(async () => {
    await stopped(proxy);
    await jwks.stop();
  });

  it('serves the protected resource metadata (RFC 9728)', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(new URL(path, url));
      assert.equal(response.status, 200, path);
      assert.deepEqual(await response.json(), {
        resource: AUDIENCE,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp:tools'],
      });
    }
  });

  it('answers 401 with resource_metadata for no token, and an expired, wrong-audience, wrong-issuer or badly signed one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string | undefined]> = [
      ['none', undefined],
      ['expired', await token({ scope: 'mcp:tools', exp: now - 60 })],
      ['audience', await token({ scope: 'mcp:tools', aud: 'https://other.example.com/mcp' })],
      ['issuer', await token({ scope: 'mcp:tools', iss: 'https://evil.example.com' })],
      ['signature', await token({ scope: 'mcp:tools' }, stranger)],
      [
        'not yet',
        await new SignJWT({ scope: 'mcp:tools' })
          .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
          .setIssuer(issuer)
          .setAudience(AUDIENCE)
          .setNotBefore(now + 3600)
          .setExpirationTime(now + 7200)
          .sign(key),
      ],
      ['garbage', 'not.a.jwt'],
    ];
    for (const [why, given] of cases) {
      const answer = await post(url, INITIALIZE, given === undefined ? {} : bearer(given));
      assert.equal(answer.status, 401, why);
      assert.match(
        answer.headers.get('www-authenticate') ?? '',
        /^Bearer resource_metadata="https:\/\/mcp\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"/,
        why,
      );
    }
  });

  it('answers 403 for a valid token without the scope, and serves a valid one with it', async () => {
    const narrow = await post(
      url,
      INITIALIZE,
      bearer(await token({ sub: 'carol', scope: 'mcp:read' })),
    );
    assert.equal(narrow.status, 403);
    assert.match(narrow.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    const good = await post(
      url,
      INITIALIZE,
      bearer(await token({ sub: 'carol', scope: 'openid mcp:tools' })),
    );
    assert.equal(good.status, 200);
    assert.equal(good.messages[0]!.result.serverInfo.name, 'team-upstream');
  });

  it("refuses a token without sub: callers without one could not be kept apart, and one would use another's session", async () => {
    // Two tokens the issuer gave to two clients, neither naming a subject.
    const first = await token({ scope: 'mcp:tools', client_id: 'ci-runner' });
    const second = await token({ scope: 'mcp:tools', client_id: 'laptop' });
    const opened = await post(url, INITIALIZE, bearer(first));
    assert.equal(opened.status, 401, 'a token without sub opens no session');
    assert.match(
      opened.headers.get('www-authenticate') ?? '',
      /error="invalid_token", error_description="the token names no subject \(sub\)/,
    );
    assert.match(opened.messages[0]!.error.message, /no subject \(sub\)/);
    const other = await post(url, INITIALIZE, bearer(second));
    assert.equal(other.status, 401);
    // Whoever holds a token with a sub is served as that sub, and only they see their session.
    const carol = await post(
      url,
      INITIALIZE,
      bearer(await token({ sub: 'carol', scope: 'mcp:tools' })),
    );
    assert.equal(carol.status, 200);
    const session = carol.headers.get('mcp-session-id')!;
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const dave = await post(url, list, {
      ...headers,
      ...bearer(await token({ sub: 'dave', scope: 'mcp:tools' })),
    });
    assert.equal(dave.status, 404);
  });
});

describe('toonwire proxy --auth-issuer when the key set cannot be fetched', () => {
  const AUDIENCE = 'https://mcp.example.com/mcp';
  const ISSUER = 'https://auth.example.com';
  let mode: 'failing' | 'garbage' | 'serving' = 'failing';
  let jwks: Awaited<ReturnType<typeof keySetServer>>;
  let proxy: LineProcess;
  let url: string;
  let signed: string;

  before(async () => {
    const pair = await generateKeyPair('ES256');
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    signed = await new SignJWT({ sub: 'carol' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('10m')
      .sign(pair.privateKey);
    jwks = await keySetServer((_request, response) => {
      if (mode === 'failing') response.writeHead(500).end('down for maintenance');
      else if (mode === 'garbage') response.writeHead(200).end('<html>login</html>');
      else response.end(JSON.stringify({ keys: [publicJwk] }));
    });
    ({ proxy, url } = await startListening([
      '--auth-issuer',
      ISSUER,
      '--auth-audience',
      AUDIENCE,
      '--auth-jwks',
      `${jwks.origin}/jwks`,
      '--metrics',
      '127.0.0.1:0',
      '--',
      ...TEAM_UPSTREAM,
    ]));
  });
  after(async () => {
    await stopped(proxy);
    await jwks.stop();
  });

  it('answers a good token 503 "retry later", not invalid_token, says why on stderr once, and serves it once the keys come', async () => {
    for (const [given, why] of [
      ['failing', /Expected 200 OK from the JSON Web Key Set/],
      ['garbage', /not a JSON Web Key Set|parse the JSON Web Key Set/],
    ] as const) {
      mode = given;
      for (let attempt = 0; attempt < 2; attempt++) {
        const answer = await post(url, INITIALIZE, bearer(signed));
        assert.equal(answer.status, 503, `${given}: ${JSON.stringify(answer.messages)}`);
        assert.equal(
          answer.headers.get('www-authenticate'),
          null,
          'no challenge: the token is not at fault',
        );
        assert.match(
          answer.messages[0]!.error.message,
          /cannot fetch the issuer's key set .*retry later/,
        );
        assert.match(answer.messages[0]!.error.message, why);
      }
      const said = proxy.stderr
        .split('\n')
        .filter((line) => line.includes('cannot check access tokens'));
      assert.equal(said.filter((line) => why.test(line)).length, 1, proxy.stderr);
    }
    mode = 'serving';
    const served = await post(url, INITIALIZE, bearer(signed));
    assert.equal(served.status, 200, JSON.stringify(served.messages));
    assert.equal(served.messages[0]!.result.serverInfo.name, 'team-upstream');
    const metricsUrl = /metrics at (http:\/\/\S+)/.exec(proxy.stderr)![1]!;
    const text = await (await fetch(metricsUrl)).text();
    assert.doesNotMatch(text, /outcome="unauthorized"\} [1-9]/, 'no caller was counted as refused');
  });
});
