// The front door of `--listen`, before any MCP: health and readiness for orchestrators, the
// protected resource metadata, the Host/Origin check, authentication, and the count of requests
// in flight that a drain waits for.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyMetrics } from '../telemetry/metrics.js';
import {
  type Authenticator,
  type Caller,
  isLoopback,
  isRefusal,
  RESOURCE_METADATA_PATH,
} from './auth.js';

/** The caller of a proxy without authentication. */
export const ANONYMOUS = 'anonymous';

/** Options of a {@link Front}. */
export interface FrontOptions {
  /** The interface the proxy binds: on loopback, only local Hosts and Origins are served. */
  host: string;
  /** The MCP endpoint's path. */
  path: string;
  /** Who may call; `undefined`: anyone who can reach the port. */
  auth?: Authenticator;
  /** Off loopback: the Origins a browser's request may come from (others get 403). */
  allowedOrigins?: string[];
  /** Why the proxy is not ready, or `undefined` when it is (for `/readyz`). */
  notReady?: () => Promise<string | undefined>;
  metrics?: ProxyMetrics;
}

/**
 * Answers what is not MCP and lets in the MCP requests of authenticated callers.
 *
 * @example
 * const front = new Front({ host: '0.0.0.0', path: '/mcp', auth: tokenAuthenticator(entries) });
 * const caller = await front.admit(request, response, '/mcp');
 * if (caller !== undefined) serveMcp(request, response, caller);
 */
export class Front {
  /** Set by {@link drain}: new requests get 503. */
  draining = false;
  private inFlight = 0;
  private settled: (() => void) | undefined;
  private readonly localOnly: boolean;

  constructor(private readonly options: FrontOptions) {
    this.localOnly = isLoopback(options.host);
  }

  /**
   * Answers `/healthz`, `/readyz`, the resource metadata, a wrong path, a refused Host, Origin
   * or token, or a request during a drain, and then resolves `undefined`; else resolves the
   * caller of an MCP request, counted in flight until its response closes.
   */
  async admit(
    request: IncomingMessage,
    response: ServerResponse,
    pathname: string,
  ): Promise<Caller | undefined> {
    const { path, auth } = this.options;
    if (pathname === '/healthz') return text(response, 200, 'ok');
    if (pathname === '/readyz') {
      const why = this.draining ? 'draining' : await this.options.notReady?.();
      return text(response, why === undefined ? 200 : 503, why ?? 'ready');
    }
    if (pathname === RESOURCE_METADATA_PATH || pathname === `${RESOURCE_METADATA_PATH}${path}`) {
      if (auth?.resourceMetadata === undefined) return fail(response, 404, 'Not found');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(auth.resourceMetadata));
      return undefined;
    }
    if (pathname !== path) return fail(response, 404, `Not found; the MCP endpoint is ${path}`);
    if (this.localOnly && !isLocalRequest(request))
      return fail(
        response,
        403,
        'Forbidden: this proxy listens on a loopback address and only serves local pages and clients',
      );
    if (!this.localOnly && !this.originAllowed(request))
      return fail(
        response,
        403,
        'Forbidden: this Origin is not in --allowed-origins (browsers only; other clients send no Origin)',
      );
    if (this.draining)
      return fail(response, 503, 'toonwire proxy: shutting down; retry on another replica');
    let caller: Caller = { name: ANONYMOUS };
    if (auth !== undefined) {
      const checked = await auth.check(request);
      if (isRefusal(checked)) {
        // A 503 refuses no one: the proxy could not check the token (the caller should retry).
        if (checked.status !== 503)
          this.options.metrics?.recordRequest(
            ANONYMOUS,
            checked.status === 401 ? 'unauthorized' : 'forbidden',
          );
        if (checked.challenge !== '') response.setHeader('www-authenticate', checked.challenge);
        return fail(response, checked.status, checked.message);
      }
      caller = checked;
    }
    this.options.metrics?.recordRequest(caller.name, 'ok');
    this.count(request, response);
    return caller;
  }

  /**
   * Stops admitting MCP requests and resolves once those in flight (event streams opened with
   * GET aside) have ended, or after `timeoutMs`: `true` when all ended.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    if (this.inFlight === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      new Promise<boolean>((resolve) => {
        this.settled = () => resolve(true);
      }),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return done;
  }

  /** Counts a request in flight until its response closes (a GET stream waits for nothing). */
  private count(request: IncomingMessage, response: ServerResponse): void {
    if (request.method === 'GET') return;
    this.inFlight += 1;
    response.once('close', () => {
      this.inFlight -= 1;
      if (this.inFlight === 0) this.settled?.();
    });
  }

  private originAllowed(request: IncomingMessage): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    return (this.options.allowedOrigins ?? []).some(
      (allowed) => allowed === '*' || allowed === origin,
    );
  }
}

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLocalRequest(request: IncomingMessage): boolean {
  const hostHeader = request.headers.host;
  if (hostHeader !== undefined && !LOCAL_NAMES.has(hostnameOf(`http://${hostHeader}`)))
    return false;
  const origin = request.headers.origin;
  return origin === undefined || origin === 'null'
    ? origin === undefined
    : LOCAL_NAMES.has(hostnameOf(origin));
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

function text(response: ServerResponse, status: number, body: string): undefined {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${body}\n`);
  return undefined;
}

function fail(response: ServerResponse, status: number, message: string): undefined {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  return undefined;
}
