// The proxy as a Streamable HTTP server: each MCP session a client opens gets its own upstream
// connection (its own child process for a stdio upstream) and its own ProxySession.

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_SESSIONS } from '../../defaults.js';
import { asCaller } from '../paging/store.js';
import type { ProxySession } from '../session/session.js';
import type { ProxyMetrics } from '../telemetry/metrics.js';
import type { ProxyStats } from '../telemetry/stats.js';
import { loadSdkModule } from '../transport/sdk.js';
import { type Authenticator, type Caller, unauthenticatedRefusal } from './auth.js';
import { Front } from './front.js';
import { MAX_BODY_BYTES, ModernRoute, readBody } from './listen-modern.js';
import { answerJson } from './modern-exchanges.js';
import { idleEnd, refusalOf, type Seat, SessionCap } from './session-cap.js';

// The session cap's rule lives in session-cap.ts; these were exported from here first.
export { type OpenSession, type Room, roomFor } from './session-cap.js';

/** Where the HTTP proxy listens. */
export interface ListenAddress {
  /** Interface to bind (default `'127.0.0.1'`: only this machine can connect). */
  host?: string;
  /** TCP port; `0` picks a free one (see {@link ProxyHttpServer.url}). */
  port: number;
  /** The MCP endpoint's path (default `'/mcp'`). */
  path?: string;
}

/** Limits on the sessions of the HTTP proxy. */
export interface SessionLimits {
  /**
   * A session with no open HTTP request for this long is ended and its upstream stopped (default
   * {@link DEFAULT_IDLE_TIMEOUT_MS}; `0`: never). Clients that go away without an HTTP DELETE
   * (the SDK's `Client.close()` sends none) leave such sessions behind. An open GET stream keeps
   * its session while its connection lives (TCP keepalive finds a peer gone without closing it).
   */
  idleTimeoutMs?: number;
  /**
   * How many sessions may be open at once (default {@link DEFAULT_MAX_SESSIONS}), on both routes
   * together (handshake sessions and the 2026-07-28 route's). A new session beyond it ends the
   * session idle the longest, or, when none is idle, is refused with HTTP 503; shared fairly
   * between callers (see `roomFor` in `serve/session-cap.ts`).
   */
  maxSessions?: number;
  /** Where messages about ended sessions go (default: stderr). */
  log?: (message: string) => void;
  /** Counts sessions ended for idleness and refused at the cap. */
  stats?: ProxyStats;
  /** Counts them too, as `toonwire_proxy_sessions_ended_total`. */
  metrics?: ProxyMetrics;
  /** Who may call, and from where (see {@link ListenAccess}). */
  access?: ListenAccess;
}

/** Who may use the proxy, for a team's proxy off loopback (see docs/mcp.md). */
export interface ListenAccess {
  /** Checks every MCP request's bearer token (see `serve/auth.ts`). */
  auth?: Authenticator;
  /** Bind off loopback without `auth` (a reverse proxy in front authenticates). */
  allowUnauthenticated?: boolean;
  /** Off loopback: the Origins browsers' requests may come from. */
  allowedOrigins?: string[];
  /** Why the proxy is not ready, or `undefined` (for `/readyz`). */
  notReady?: () => Promise<string | undefined>;
}

/** A running HTTP proxy. */
export interface ProxyHttpServer {
  /** The MCP endpoint clients connect to, with the actual port. */
  url: string;
  /** Ends every session (and its upstream), then stops listening. */
  close(): Promise<void>;
  /**
   * Stops accepting connections and requests, and resolves once the requests in flight are
   * answered or `timeoutMs` has passed (`true`: all answered). Call {@link close} after it.
   */
  drain(timeoutMs: number): Promise<boolean>;
}

/** Makes the session for one new client connection around its downstream transport. */
export type SessionFactory = (downstream: Transport) => Promise<ProxySession>;

/**
 * Serves MCP over Streamable HTTP at `address`, one {@link ProxySession} per MCP session.
 * Bound to a loopback address, it refuses requests whose Host or Origin is not local, which
 * stops DNS-rebinding attacks from web pages.
 */
export async function listenHttp(
  address: ListenAddress,
  createSession: SessionFactory,
  limits: SessionLimits = {},
  upstreamIsCommand = false,
): Promise<ProxyHttpServer> {
  const idleTimeoutMs = limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const maxSessions = limits.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const log = limits.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  if (!Number.isFinite(idleTimeoutMs) || idleTimeoutMs < 0)
    throw new TypeError(
      `proxy: idleTimeoutMs must be a number of milliseconds >= 0 (0: never), got ${idleTimeoutMs}`,
    );
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1)
    throw new TypeError(`proxy: maxSessions must be a whole number >= 1, got ${maxSessions}`);
  const { StreamableHTTPServerTransport } = await loadSdkModule(
    () => import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    'Serving the proxy over HTTP (--listen)',
  );
  const { SUPPORTED_PROTOCOL_VERSIONS } = await loadSdkModule(
    () => import('@modelcontextprotocol/sdk/types.js'),
    'Serving the proxy over HTTP (--listen)',
  );
  // One count of sessions for both routes, and one rule to make room between callers.
  const cap = new SessionCap({
    maxSessions,
    log,
    stats: limits.stats,
    metrics: limits.metrics,
  });
  // MCP 2026-07-28 requests (no session, no initialize) take a route of their own.
  const modern = new ModernRoute(createSession, {
    handshakeVersions: SUPPORTED_PROTOCOL_VERSIONS,
    idleTimeoutMs,
    rememberRefusals: upstreamIsCommand,
    cap,
    log,
  });
  const { createServer } = await import('node:http');
  const host = address.host ?? '127.0.0.1';
  const path = address.path ?? '/mcp';
  const access = limits.access ?? {};
  const refusal = unauthenticatedRefusal(
    host,
    access.auth !== undefined,
    access.allowUnauthenticated === true,
  );
  if (refusal !== undefined) throw new TypeError(`proxy: ${refusal}`);
  const front = new Front({ host, path, ...access, metrics: limits.metrics });
  const sessions = new Map<
    string,
    {
      transport: InstanceType<typeof StreamableHTTPServerTransport>;
      session: ProxySession;
      caller: string;
    }
  >();
  const live = new Set<ProxySession>();
  /** The ids of the requests of the POST being handled (the SDK delivers them in its context). */
  const posting = new AsyncLocalStorage<RequestId[]>();
  /**
   * Per session: open HTTP requests (streams included), how many of them are POSTs (calls in
   * flight, where a GET is a client listening), when the last one began or ended, when the last
   * one other than a GET did (a call), and its seat under the cap.
   */
  const activity = new Map<
    ProxySession,
    { open: number; posts: number; since: number; seat: Seat }
  >();

  /** Counts `response` as activity of `session` until it is finished. */
  const touch = (
    session: ProxySession,
    request: IncomingMessage,
    response: ServerResponse,
  ): void => {
    const entry = activity.get(session);
    if (entry === undefined) return;
    const post = request.method === 'POST' ? 1 : 0;
    // A GET is the client listening: it keeps its session while its connection lives, and a
    // peer that vanished without closing it (a host gone, a network cut) is found by TCP
    // keepalive probes, which close the stream; the session then idles out.
    if (request.method === 'GET') request.socket.setKeepAlive(true, LISTENER_KEEPALIVE_MS);
    entry.open += 1;
    entry.posts += post;
    entry.since = Date.now();
    response.once('close', () => {
      entry.open -= 1;
      entry.posts -= post;
      entry.since = Date.now();
    });
  };
  /** How long `session` has had no open request at all (-1: it has one), for the cap. */
  const idleFor = (session: ProxySession, now: number): number => {
    const entry = activity.get(session);
    return entry === undefined || entry.open > 0 ? -1 : now - entry.since;
  };
  /**
   * Ends the sessions with no open request for `--idle-timeout`. A client that keeps its GET
   * stream open is there, listening (the SDK's client keeps one, and does not start a new
   * session when a call is answered 404): its session stays while the stream's connection
   * lives, which keepalive probes check (see touch).
   */
  const sweep = (): void => {
    const now = Date.now();
    for (const [session, entry] of [...activity]) {
      const idle = idleFor(session, now);
      if (idle >= idleTimeoutMs) entry.seat.end(idleEnd(idle));
    }
  };
  const sweeper =
    idleTimeoutMs > 0
      ? setInterval(sweep, Math.max(50, Math.min(idleTimeoutMs / 4, 30_000)))
      : undefined;
  sweeper?.unref();
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const requestUrl = new URL(request.url ?? '/', 'http://localhost');
    const caller = await front.admit(request, response, requestUrl.pathname);
    if (caller === undefined) return;
    // The sessions this request starts, and the pages they cut, are this caller's.
    return asCaller(caller.name, () => serve(request, response, caller));
  };

  const serve = async (
    request: IncomingMessage,
    response: ServerResponse,
    caller: Caller,
  ): Promise<void> => {
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const existing = sessions.get(sessionId);
      // Another caller's session is no session of this one.
      if (existing === undefined || existing.caller !== caller.name)
        return reply(response, 404, 'Session not found; start a new one with initialize', -32001);
      touch(existing.session, request, response);
      modern.forgetUnknownVersion(request);
      // The ids of the requests this POST carries, so that a client that disconnects before
      // their answers has them cancelled upstream.
      const ids: RequestId[] = [];
      response.once('close', () => {
        if (!response.writableFinished && ids.length > 0)
          existing.session.abandon(ids, 'the HTTP client disconnected before the answer');
      });
      return posting.run(ids, () => existing.transport.handleRequest(request, response));
    }
    let body: unknown;
    if (modern.claims(request)) {
      const handshake = await modern.serve(request, response, caller.name);
      if (handshake === undefined) return;
      body = handshake.initialize;
      modern.forgetUnknownVersion(request);
    }
    if (request.method !== 'POST')
      return reply(
        response,
        400,
        'Bad request: no Mcp-Session-Id header; start a session with initialize',
      );
    // The initialize of a client whose server/discover is still out is answered from that probe.
    if (modern.awaitsFallback(caller.name)) {
      if (body === undefined) {
        const text = await readBody(request, MAX_BODY_BYTES);
        if (text === undefined)
          return reply(response, 413, `Request body larger than ${MAX_BODY_BYTES} bytes`);
        try {
          body = JSON.parse(text);
        } catch {
          return reply(response, 400, 'Parse error', -32700);
        }
      }
      const answer = await modern.fallbackAnswer(body, caller.name);
      if (answer !== undefined) return answerJson(response, answer);
    }

    const admission = cap.admit(caller.name);
    if (admission.kind !== 'seated') {
      const refused = refusalOf(admission, caller.name, maxSessions);
      return reply(response, refused.status, refused.message, -32000, refused.headers);
    }
    const { seat } = admission;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, session, caller: caller.name });
      },
    });
    surfaceUnencodable(transport);
    let session: ProxySession;
    try {
      session = await createSession(transport);
    } catch (error) {
      seat.release();
      throw error;
    }
    live.add(session);
    const now = Date.now();
    activity.set(session, { open: 0, posts: 0, since: now, seat });
    seat.fill(
      session,
      () => ({
        idleMs: idleFor(session, Date.now()),
        working: (activity.get(session)?.posts ?? 0) > 0,
      }),
      () => activity.delete(session),
    );
    touch(session, request, response);
    void session.ended.then(() => {
      seat.release();
      live.delete(session);
      activity.delete(session);
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    });
    await session.start();
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = (message as { id?: RequestId; method?: unknown }).id;
      if (id !== undefined && 'method' in message) posting.getStore()?.push(id);
      deliver?.(message, extra);
    };
    await transport.handleRequest(request, response, body);
    // A first request that was not a valid initialize opened no session: drop its upstream.
    if (transport.sessionId === undefined) await session.close();
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        reply(
          response,
          500,
          `Internal error: ${error instanceof Error ? error.message : String(error)}`,
          -32603,
        );
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      reject(
        new Error(
          `${host}:${address.port} is already in use; choose another port, or port 0 for a free one`,
          { cause: error },
        ),
      );
    });
    server.listen(address.port, host, () => {
      server.removeAllListeners('error');
      server.on('error', (error) =>
        process.stderr.write(`toonwire proxy: HTTP server error: ${error.message}\n`),
      );
      resolve();
    });
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : address.port;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    drain: async (timeoutMs) => {
      server.close();
      return front.drain(timeoutMs);
    },
    close: async () => {
      clearInterval(sweeper);
      // Calls still in flight (a drain that ran out) are answered with an error, not a closed stream.
      await Promise.allSettled([
        modern.close(STOPPING),
        ...[...live].map((session) => session.close(STOPPING)),
      ]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Makes the SDK's server transport fail the `send` of a message it cannot encode (nested too
 * deeply for `JSON.stringify`: a RangeError), so that the session answers the request otherwise.
 * The SDK 1.32.2 transport catches that error where it writes an event, reports it to `onerror`
 * and goes on as if the message had gone: an answer's stream then closed with no answer in it.
 * Thrown from the write, the error rejects `send` before the transport marks the request
 * answered, so its stream stays open for the error answer that follows. Every message is still
 * encoded once, by the SDK. (It reaches the transport's internal `writeSSEEvent`; an SDK without
 * it keeps its own behaviour.)
 */
function surfaceUnencodable(transport: object): void {
  type Writer = {
    onerror?: (error: Error) => void;
    writeSSEEvent?: (...args: unknown[]) => boolean;
  };
  const inner = (transport as { _webStandardTransport?: Writer })._webStandardTransport;
  const write = inner?.writeSSEEvent;
  if (inner === undefined || typeof write !== 'function') return;
  inner.writeSSEEvent = function (this: Writer, ...args: unknown[]): boolean {
    const report = this.onerror;
    let unencodable: RangeError | undefined;
    this.onerror = (error) => {
      if (error instanceof RangeError) unencodable = error;
      else report?.(error);
    };
    let written: boolean;
    try {
      written = write.apply(this, args);
    } finally {
      this.onerror = report;
    }
    if (unencodable !== undefined) throw unencodable;
    return written;
  };
}

/** Why the calls still in flight when the server closes get no answer from their server. */
const STOPPING = 'the proxy is shutting down';
/**
 * How long a listening client's connection may be silent before TCP keepalive probes ask whether
 * its peer is still there (Node then probes every second, ten times): a peer gone without closing
 * the connection ends its GET stream about 40 s later, and its session idles out from there.
 */
const LISTENER_KEEPALIVE_MS = 30_000;

function reply(
  response: ServerResponse,
  status: number,
  message: string,
  code = -32000,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
