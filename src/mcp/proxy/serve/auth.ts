// Who may use `--listen`: bearer tokens from a file (`--auth-tokens`), or OAuth 2.1 access tokens
// as the MCP authorization spec has an HTTP server check them (`--auth-issuer`): the proxy is then
// a resource server, serving its protected resource metadata (RFC 9728) and answering a request
// without a good token with 401 and a `WWW-Authenticate` header that points at it.

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { loadPeer } from '../transport/sdk.js';

/** An authenticated caller. `name` labels logs and metrics; it is never a token. */
export interface Caller {
  name: string;
}

/**
 * Why a request is refused: its HTTP status, the `WWW-Authenticate` header (none for 503, when
 * the proxy could not check the token), a message.
 */
export interface Refusal {
  status: 401 | 403 | 503;
  challenge: string;
  message: string;
}

/** Checks the callers of `--listen`. */
export interface Authenticator {
  /** What the proxy says on stderr at start. */
  readonly description: string;
  /** The caller of `request`, or why it is refused. */
  check(request: IncomingMessage): Promise<Caller | Refusal>;
  /** The protected resource metadata document (RFC 9728), for OAuth only. */
  readonly resourceMetadata?: Record<string, unknown>;
}

/** The path of the protected resource metadata document (RFC 9728). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * Whether `value` is a {@link Refusal} rather than a {@link Caller}.
 *
 * @example
 * isRefusal({ status: 401, challenge: 'Bearer', message: 'no token' }); // true
 * isRefusal({ name: 'alice' }); // false
 */
export function isRefusal(value: Caller | Refusal): value is Refusal {
  return 'status' in value;
}

/** The bearer token of `request`'s `Authorization` header. */
function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The callers of a tokens file's text: one token per line, or `name:token` so that logs and
 * metrics can name the caller (a line without a name is named `token-N`, N its line number).
 * Blank lines and lines starting with `#` are skipped. Two lines may name the same caller (a
 * token being rotated); they are then one caller, who sees the sessions and pages of both.
 *
 * @throws {TypeError} when no line holds a token, a token is shorter than 16 characters or holds
 * a character an `Authorization` header does not carry as written (a space, a non-ASCII letter),
 * one token is on two lines under different names, or a name is that of a nameless line.
 * @example
 * parseTokens('alice:s3cret-s3cret-s3cret\n# ops\ns3cret-for-bob-and-ci\n');
 * // [{ name: 'alice', token: 's3cret-s3cret-s3cret' }, { name: 'token-3', token: 's3cret-for-bob-and-ci' }]
 */
export function parseTokens(text: string): { name: string; token: string }[] {
  const entries: TokenLine[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    const named = colon > 0 && /^[A-Za-z0-9._@-]+$/.test(line.slice(0, colon));
    const name = named ? line.slice(0, colon) : `token-${index + 1}`;
    const token = named ? line.slice(colon + 1).trim() : line;
    const problem = tokenProblemOf(token);
    if (problem !== undefined)
      throw new TypeError(`auth tokens: the token on line ${index + 1} ${problem}`);
    entries.push({ name, token, line: index + 1, named });
  }
  if (entries.length === 0)
    throw new TypeError('auth tokens: the file holds no token (one per line, or name:token)');
  checkCallersApart(entries);
  return entries.map(({ name, token }) => ({ name, token }));
}

/** A token of the file, where it is, and whether its line names its caller. */
interface TokenLine {
  name: string;
  token: string;
  line: number;
  named: boolean;
}

/** What makes `token` unusable as a bearer token, or `undefined` when it is fine. */
function tokenProblemOf(token: string): string | undefined {
  if (token.length < 16)
    return 'is shorter than 16 characters; use long random tokens (e.g. `openssl rand -hex 32`)';
  // A header carries what follows "Bearer " up to the first space; its bytes arrive as Latin-1
  // (and `fetch` refuses to send anything else), so a token beyond printable ASCII never matches.
  const bad = /[^\x21-\x7e]/.exec(token);
  if (bad === null) return undefined;
  const what = /\s/.test(bad[0])
    ? 'a space (a comment goes on a line of its own, starting with #; a name before the colon is letters, digits and . _ @ -)'
    : `the character ${JSON.stringify(bad[0])}, which is not printable ASCII`;
  return `holds ${what}; an Authorization header cannot carry it as written. Use printable ASCII without spaces (e.g. \`openssl rand -hex 32\`)`;
}

/** Refuses a file in which two callers could not be told apart. */
function checkCallersApart(entries: TokenLine[]): void {
  const byToken = new Map<string, { name: string; line: number }>();
  const nameless = new Set(entries.filter(({ named }) => !named).map(({ name }) => name));
  for (const { name, token, line, named } of entries) {
    const earlier = byToken.get(token);
    if (earlier !== undefined && earlier.name !== name)
      throw new TypeError(
        `auth tokens: the token on line ${line} (${name}) is also on line ${earlier.line} (${earlier.name}); give each caller a token of its own`,
      );
    byToken.set(token, { name, line });
    if (named && nameless.has(name))
      throw new TypeError(
        `auth tokens: the name ${name} on line ${line} is the name of the nameless token on line ${name.slice(6)}, so the two callers would be one; choose another name`,
      );
  }
}

/**
 * Bearer tokens from a list: every token's SHA-256 digest is compared with the request's in
 * constant time (`crypto.timingSafeEqual`), and every entry is compared whatever matched, so
 * the time taken says nothing about which token or how much of it was right.
 *
 * @example
 * const auth = tokenAuthenticator(parseTokens('alice:0123456789abcdef0123'));
 * await auth.check(request); // { name: 'alice' } for "Authorization: Bearer 0123456789abcdef0123"
 */
export function tokenAuthenticator(entries: { name: string; token: string }[]): Authenticator {
  const known = entries.map(({ name, token }) => ({ name, digest: digest(token) }));
  const challenge = 'Bearer realm="toonwire"';
  return {
    description: `bearer tokens of ${known.length} caller${known.length === 1 ? '' : 's'}`,
    check: async (request) => {
      const token = bearerOf(request);
      if (token === undefined)
        return { status: 401, challenge, message: 'Unauthorized: send Authorization: Bearer …' };
      const given = digest(token);
      let caller: string | undefined;
      for (const entry of known)
        if (timingSafeEqual(entry.digest, given) && caller === undefined) caller = entry.name;
      if (caller === undefined)
        return {
          status: 401,
          challenge: `${challenge}, error="invalid_token"`,
          message: 'Unauthorized: unknown token',
        };
      return { name: caller };
    },
  };
}

/**
 * Reads a tokens file (see {@link parseTokens}) into a {@link tokenAuthenticator}.
 *
 * @example
 * const auth = await loadTokenFile('/etc/toonwire/tokens');
 */
export async function loadTokenFile(path: string): Promise<Authenticator> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TypeError(`--auth-tokens ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return tokenAuthenticator(parseTokens(text));
  } catch (error) {
    throw new TypeError(`--auth-tokens ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The most verified tokens remembered (the oldest are forgotten first). */
const MAX_CHECKED_TOKENS = 10_000;

/** Options of {@link oauthAuthenticator}. */
export interface OAuthOptions {
  /** The authorization server whose tokens are accepted (the JWT's `iss`). */
  issuer: string;
  /** This proxy as a resource: tokens must name it in `aud` (RFC 8707). */
  audience: string;
  /** Scopes a token must hold (space-separated in its `scope` claim, or an `scp` list). */
  scopes?: string[];
  /** The issuer's JWKS; default: from its authorization server or OpenID metadata. */
  jwksUrl?: string;
  /** Fetch (for tests). */
  fetch?: typeof fetch;
  /** Where messages for the operator go (default: stderr): the key set cannot be fetched. */
  log?: (message: string) => void;
}

/**
 * OAuth 2.1 access tokens, as the MCP authorization spec has a resource server check them: a
 * JWT signed by a key of the issuer's JWKS (with `jose`), whose `iss` is the issuer, whose `aud`
 * names the audience, not expired and not before its `nbf`. A missing or bad token gets 401 with
 * `WWW-Authenticate: Bearer resource_metadata="…"`; a good one without the scopes, 403.
 *
 * @throws {Error} when `jose` is missing or the issuer's metadata names no JWKS.
 * @example
 * const auth = await oauthAuthenticator({ issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp' });
 */
export async function oauthAuthenticator(options: OAuthOptions): Promise<Authenticator> {
  const jose = await loadPeer(
    () => import('jose'),
    'jose',
    'Checking OAuth access tokens (--auth-issuer)',
  );
  const { issuer, audience, scopes = [] } = options;
  checkUrl(issuer, '--auth-issuer');
  checkUrl(audience, '--auth-audience');
  const jwksUrl = options.jwksUrl ?? (await discoverJwks(issuer, options.fetch ?? fetch));
  checkUrl(jwksUrl, '--auth-jwks');
  const keys = jose.createRemoteJWKSet(new URL(jwksUrl));
  // RFC 9728: the well-known path goes between the resource's host and its path.
  const resource = new URL(audience);
  const metadataUrl = `${resource.origin}${RESOURCE_METADATA_PATH}${resource.pathname === '/' ? '' : resource.pathname}`;
  const base = `Bearer resource_metadata="${metadataUrl}"`;
  const scopeText = scopes.join(' ');
  const refuse = (error: string, description: string): Refusal => ({
    status: 401,
    challenge: `${base}, error="${error}", error_description="${description}"`,
    message: `Unauthorized: ${description}`,
  });
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  let lastKeySetProblem = '';
  /** Tokens already checked, by digest: their answer, until the token expires. */
  const checked = new Map<string, { answer: Caller | Refusal; until: number }>();
  const verify = async (token: string): Promise<Caller | Refusal> => {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jose.jwtVerify(token, keys, { issuer, audience }));
    } catch (error) {
      const unavailable = keySetProblem(error);
      if (unavailable === undefined) return refuse('invalid_token', tokenProblem(error));
      // The proxy's problem, not the token's: a client told "invalid_token" would throw a good
      // token away and sign in again, and the operator would hear nothing.
      if (unavailable !== lastKeySetProblem)
        log(
          `toonwire proxy: cannot check access tokens: the issuer's key set ${jwksUrl}: ${unavailable}`,
        );
      lastKeySetProblem = unavailable;
      return {
        status: 503,
        challenge: '',
        message: `Service unavailable: the proxy cannot fetch the issuer's key set to check the token (${unavailable}); retry later`,
      };
    }
    lastKeySetProblem = '';
    // The subject is who the caller is: sessions and page cursors are bound to it. Tokens without
    // one (RFC 9068 requires it) could not be told apart, so one would reach another's session.
    if (typeof payload.sub !== 'string' || payload.sub === '')
      return refuse(
        'invalid_token',
        'the token names no subject (sub), so its caller cannot be told apart from others',
      );
    const subject = payload.sub;
    const held = new Set(
      typeof payload.scope === 'string'
        ? payload.scope.split(' ')
        : Array.isArray(payload.scp)
          ? payload.scp.map(String)
          : [],
    );
    const missing = scopes.filter((scope) => !held.has(scope));
    const answer: Caller | Refusal =
      missing.length > 0
        ? {
            status: 403,
            challenge: `${base}, error="insufficient_scope", scope="${scopeText}"`,
            message: `Forbidden: the token lacks the scope ${missing.join(' ')}`,
          }
        : { name: subject };
    // A good token's answer holds until it expires; without an exp, for a minute.
    const until = typeof payload.exp === 'number' ? payload.exp * 1000 : Date.now() + 60_000;
    if (checked.size >= MAX_CHECKED_TOKENS) checked.delete(checked.keys().next().value!);
    checked.set(digest(token).toString('base64'), { answer, until });
    return answer;
  };
  return {
    description: `OAuth access tokens of ${issuer} for ${audience}${scopes.length > 0 ? ` with scope ${scopeText}` : ''}`,
    resourceMetadata: {
      resource: audience,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    },
    check: async (request) => {
      const token = bearerOf(request);
      if (token === undefined)
        return {
          status: 401,
          challenge: base,
          message: 'Unauthorized: send an OAuth access token as Authorization: Bearer …',
        };
      const known = checked.get(digest(token).toString('base64'));
      if (known !== undefined && Date.now() < known.until) return known.answer;
      return verify(token);
    },
  };
}

/**
 * Why the issuer's key set could not be had (unreachable, not 200, not JSON, too slow), or
 * `undefined` when `error` is about the token itself.
 */
function keySetProblem(error: unknown): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  if (code === 'ERR_JWKS_TIMEOUT') return 'no answer in time';
  if (code === 'ERR_JWKS_INVALID') return 'the answer is not a JSON Web Key Set';
  if (code === 'ERR_JOSE_GENERIC' && /JSON Web Key Set/.test(text)) return text;
  // Not jose's own error: the fetch failed (refused, reset, unknown host).
  if (code === undefined) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = cause?.code ?? cause?.message;
    return detail === undefined ? text : `${text} (${String(detail)})`;
  }
  return undefined;
}

/** Why jose refused a token, in words safe to send back (no token content). */
function tokenProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as { claim?: unknown }).claim;
      return claim === 'nbf'
        ? 'the token is not valid yet'
        : `the token's ${String(claim)} is not accepted`;
    }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'the token is not signed by a key of the issuer';
    default:
      return 'the token is not a valid access token';
  }
}

/** The issuer's JWKS URL from its authorization server metadata, or else its OpenID metadata. */
async function discoverJwks(issuer: string, fetchImpl: typeof fetch): Promise<string> {
  const root = issuer.replace(/\/+$/, '');
  const tried: string[] = [];
  for (const suffix of [
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  ]) {
    const url = `${root}${suffix}`;
    tried.push(url);
    try {
      const response = await fetchImpl(url, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok) continue;
      const metadata = (await response.json()) as { jwks_uri?: unknown };
      if (typeof metadata.jwks_uri === 'string') return metadata.jwks_uri;
    } catch {
      // the next one
    }
  }
  throw new Error(
    `--auth-issuer ${issuer}: no jwks_uri found at ${tried.join(' or ')}; give the issuer's key set with --auth-jwks URL`,
  );
}

function checkUrl(value: string, flag: string): void {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return;
  } catch {
    // below
  }
  throw new TypeError(`${flag}: expected an http(s) URL, got ${JSON.stringify(value)}`);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * Whether `host` is a loopback address, the only kind `--listen` may bind without
 * authentication.
 *
 * @example
 * isLoopback('127.0.0.1'); // true
 * isLoopback('0.0.0.0'); // false
 */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The refusal to bind `host` without authentication, or `undefined` when that is fine (loopback,
 * an authenticator, or `--allow-unauthenticated`).
 *
 * @example
 * unauthenticatedRefusal('0.0.0.0', false, false); // 'refusing to listen on 0.0.0.0 without authentication: ...'
 * unauthenticatedRefusal('127.0.0.1', false, false); // undefined
 */
export function unauthenticatedRefusal(
  host: string,
  authenticated: boolean,
  allowed: boolean,
): string | undefined {
  if (authenticated || allowed || isLoopback(host)) return undefined;
  return `refusing to listen on ${host} without authentication: anyone who can reach it would use the upstream's credentials. Give --auth-tokens FILE or --auth-issuer URL --auth-audience URL, or --allow-unauthenticated if a reverse proxy in front authenticates`;
}
