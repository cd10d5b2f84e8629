// `--listen` for MCP's 2026-07-28 wire. A client on that wire sends no initialize and holds no
// session: every POST is one self-contained request whose `Mcp-Protocol-Version` header names a
// version no initialize negotiates. The SDK 1.32.2 server transport cannot serve such a request
// (it answers "Server not initialized"), so these POSTs take a route of their own, chosen the way
// the Python SDK's server chooses (by that header), and each is answered in its own response:
// JSON, or an event stream when notifications for it come first.
//
// Behind the route, requests share ProxySessions (one upstream connection each, never a
// handshake session's: a stdio server speaks one era per connection), one per caller (so that
// nothing one caller's requests cause reaches another's responses) and kind of client (clients
// whose results keep `structuredContent` and clients whose results drop it), with ids remapped
// (ModernExchanges). Results still go through the session's result pipeline, tools/list
// through its ToolCatalog. A client's first request is usually `server/discover`: an upstream
// that does not speak 2026-07-28 answers it with an error, which reaches the client, which then
// falls back to initialize exactly as it would directly.
//
// An upstream slower to start than the client waits for that probe (the Python SDK waits 10 s)
// would make the client fall back to initialize, which starts a second upstream on the
// handshake route, and settle for the older protocol. So an initialize from a client whose probe
// has been out for 5 s or more (same caller, same clientInfo) waits for the probe's answer instead; when the
// upstream speaks 2026-07-28, it is answered -32022 with the versions the upstream named, the
// SDK's signal that the connection settled on the new protocol, and the client probes again, now
// answered by the upstream already running (`fallbackAnswer`).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { clientInfoOf, structuredContentModeFor } from '../../clients.js';
import type { ProxySession } from '../session/session.js';
import { errorResponse, messageKind } from '../transport/json-rpc.js';
import { PROTOCOL_VERSION_HEADER, SESSION_ID_HEADER } from '../transport/modern-wire.js';
import { answerJson, ModernExchanges, type ModernRequest } from './modern-exchanges.js';
import { type Admission, idleEnd, refusalOf, type Seat, type SessionCap } from './session-cap.js';

/** The largest request body read (the SDK's server transport has the same limit). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Options of a {@link ModernRoute}. */
export interface ModernRouteOptions {
  /** The protocol versions the SDK's handshake transport serves: any other one comes here. */
  handshakeVersions: readonly string[];
  /** How long a session with no open request lives on (0: until the proxy stops). */
  idleTimeoutMs: number;
  /**
   * Whether an upstream that answered `server/discover` with "method not found" is taken at its
   * word for later probes, answered without starting it again (for a command: its process).
   */
  rememberRefusals: boolean;
  /**
   * The proxy's session cap, shared with the handshake route (default: no bound): each session
   * this route starts takes a seat of it, and at the bound room is made by the cap's one rule.
   */
  cap?: SessionCap;
  /** Where messages for humans go (default: nowhere). */
  log?: (message: string) => void;
}

/**
 * A probe this long in coming may have outlasted its client's patience (the Python SDK waits
 * 10 s), whose fallback initialize can then arrive just after the answer: for as long again, an
 * initialize from that client is still answered from the probe. An initialize that comes sooner
 * after the probe was sent is no fallback.
 */
const SLOW_PROBE_MS = 5_000;

/** A client's `server/discover` on this route: out, or answered. */
interface Probe {
  request: ModernRequest;
  started: number;
  answer: Promise<JSONRPCMessage>;
  settle: (answer: JSONRPCMessage) => void;
  /** When it was answered, once it is. */
  answeredAt?: number;
}

/** One shared session behind the route, and its exchanges. */
interface Shared {
  session: ProxySession;
  exchanges: ModernExchanges;
  idleTimer?: ReturnType<typeof setTimeout>;
  /** When its last exchange ended (or it started), for the cap's weighing. */
  idleSince: number;
  /** Its place under the session cap, which logs and counts its end as a handshake session's. */
  seat: Seat | undefined;
}

/**
 * The 2026-07-28 route of `--listen`: {@link claims} says whether a request is for it,
 * {@link serve} answers it.
 *
 * @example
 * const route = new ModernRoute((downstream) => makeSession(downstream), {
 *   handshakeVersions: ['2025-11-25', '2025-06-18'],
 *   idleTimeoutMs: 120_000,
 *   rememberRefusals: true,
 * });
 * if (route.claims(request)) await route.serve(request, response);
 */
export class ModernRoute {
  private readonly shared = new Map<string, Promise<Shared>>();
  /** The upstream's answer to server/discover, when it does not know the method. */
  private refusal: JSONRPCMessage | undefined;
  /** The latest probe of each client (caller and clientInfo): see {@link fallbackAnswer}. */
  private readonly probes = new Map<string, Probe>();
  private closed = false;

  constructor(
    private readonly createSession: (downstream: Transport) => Promise<ProxySession>,
    private readonly options: ModernRouteOptions,
  ) {}

  /**
   * Whether `request` is on the 2026-07-28 wire: no session id, and a protocol version header
   * that no initialize negotiates here.
   */
  claims(request: IncomingMessage): boolean {
    if (request.headers[SESSION_ID_HEADER] !== undefined) return false;
    const version = request.headers[PROTOCOL_VERSION_HEADER];
    return typeof version === 'string' && !this.options.handshakeVersions.includes(version);
  }

  /**
   * Removes a protocol version header the SDK's transport does not know from a request of a
   * handshake session. A version newer than the SDK's was negotiated between the client and the
   * upstream (the proxy forwards initialize as it is); the transport would refuse every later
   * request for it. It reads the header for nothing else the proxy uses.
   */
  forgetUnknownVersion(request: IncomingMessage): void {
    const version = request.headers[PROTOCOL_VERSION_HEADER];
    if (typeof version !== 'string' || this.options.handshakeVersions.includes(version)) return;
    delete request.headers[PROTOCOL_VERSION_HEADER];
    // The SDK's transport reads the raw headers.
    const raw = request.rawHeaders;
    for (let index = raw.length - 2; index >= 0; index -= 2)
      if (raw[index]!.toLowerCase() === PROTOCOL_VERSION_HEADER) raw.splice(index, 2);
  }

  /**
   * Serves one request of the route. Resolves with the parsed body of an `initialize` request
   * (the handshake wire, whatever its header says) for the caller's handshake route, else with
   * `undefined` once the request is handed on (its answer comes later).
   */
  async serve(
    request: IncomingMessage,
    response: ServerResponse,
    caller = '',
  ): Promise<{ initialize: unknown } | undefined> {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return undefined;
    }
    const accept = request.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      fail(
        response,
        406,
        -32000,
        'Not Acceptable: accept both application/json and text/event-stream',
      );
      return undefined;
    }
    const text = await readBody(request, MAX_BODY_BYTES);
    if (text === undefined) {
      fail(response, 413, -32000, `Request body larger than ${MAX_BODY_BYTES} bytes`);
      return undefined;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      fail(response, 400, -32700, 'Parse error');
      return undefined;
    }
    const kind = messageKind(body);
    if (kind === 'notification') {
      // The 2026 wire defines no client notifications over HTTP: acknowledged and dropped.
      response.writeHead(202).end();
      return undefined;
    }
    if (kind !== 'request') {
      fail(response, 400, -32600, 'Body must be a single JSON-RPC request or notification object');
      return undefined;
    }
    const message = body as ModernRequest;
    if (message.method === 'initialize') return { initialize: body };
    if (message.method === 'server/discover' && this.refusal !== undefined) {
      answerJson(response, { ...this.refusal, id: message.id } as JSONRPCMessage);
      return undefined;
    }
    const shared = await this.sharedFor(message, caller);
    if (typeof shared === 'object' && 'kind' in shared) {
      const refused = refusalOf(shared, caller, this.options.cap?.maxSessions ?? 0);
      fail(response, refused.status, -32000, refused.message, refused.headers);
      return undefined;
    }
    if (shared === undefined) {
      fail(response, 503, -32000, 'toonwire proxy: shutting down');
      return undefined;
    }
    // A call stops the idle clock; a client listening does not (docs/mcp.md, --idle-timeout).
    const listening = ModernExchanges.listens(message);
    if (!listening) clearTimeout(shared.idleTimer);
    if (message.method === 'server/discover') this.probed(message, caller);
    shared.exchanges.accept(message, response);
    // A session whose first request only listens starts its idle clock now.
    if (listening && !shared.exchanges.calling && shared.idleTimer === undefined) this.idle(shared);
    return undefined;
  }

  /**
   * Whether an initialize of `caller` may be the fallback of a probe (so {@link fallbackAnswer}
   * should see it): cheap, so that other initializes are handled as ever.
   */
  awaitsFallback(caller: string): boolean {
    for (const key of this.probes.keys()) if (key.startsWith(`${caller}\n`)) return true;
    return false;
  }

  /**
   * The answer to `initialize`, the fallback of a client whose `server/discover` is still out
   * (or was answered late, see {@link SLOW_PROBE_MS}), or `undefined` to serve it as any
   * initialize. Waits for the probe's answer: when the upstream answered it with the 2026-07-28
   * versions it speaks, the initialize is refused with -32022 naming them, so that the client
   * probes again, and the one upstream already started answers; when it refused the probe, the
   * initialize goes on as ever.
   */
  async fallbackAnswer(body: unknown, caller = ''): Promise<JSONRPCMessage | undefined> {
    const initialize = body as ModernRequest;
    if (messageKind(body) !== 'request' || initialize.method !== 'initialize') return undefined;
    const key = probeKey(caller, initialize);
    const probe = this.probes.get(key);
    if (probe === undefined) return undefined;
    // A client falls back only once its patience ran out (the Python SDK's is 10 s): an earlier
    // initialize comes from another client of the same name, version and caller, one that does
    // not probe (the Python SDK's and fastmcp's clients in mode="legacy"), which -32022 would fail.
    if (Date.now() - probe.started < SLOW_PROBE_MS) return undefined;
    if (probe.answeredAt !== undefined && !this.lateAnswer(probe, Date.now())) {
      this.probes.delete(key);
      return undefined;
    }
    if (probe.answeredAt === undefined) {
      const info = clientInfoOf(initialize);
      this.options.log?.(
        `toonwire proxy: ${info?.name ?? 'a client'} ${info?.version ?? ''} sent initialize while its server/discover is still out (the upstream is slower to start than it waits); the initialize waits for the probe's answer`,
      );
    }
    const answer = (await probe.answer) as { result?: { supportedVersions?: unknown } };
    if (this.probes.get(key) === probe) this.probes.delete(key);
    const offered = answer.result?.supportedVersions;
    const supported = Array.isArray(offered)
      ? offered.filter(
          (version): version is string =>
            typeof version === 'string' && !this.options.handshakeVersions.includes(version),
        )
      : [];
    if (supported.length === 0) return undefined;
    const requested = (initialize.params as { protocolVersion?: unknown } | undefined)
      ?.protocolVersion;
    return {
      jsonrpc: '2.0',
      id: initialize.id,
      error: {
        code: -32022,
        message: `Unsupported protocol version: this server already answered your server/discover (it took longer than you waited); it speaks ${supported.join(', ')}`,
        data: { supported, requested: typeof requested === 'string' ? requested : '' },
      },
    } as JSONRPCMessage;
  }

  /** Ends every shared session (and its upstream); `why` answers their requests still pending. */
  async close(why?: string): Promise<void> {
    this.closed = true;
    const all = await Promise.allSettled(this.shared.values());
    await Promise.allSettled(
      all.map((entry) =>
        entry.status === 'fulfilled' ? entry.value.session.close(why) : undefined,
      ),
    );
  }

  /** The session for `caller`'s `request`'s kind of client, started on first use. */
  private sharedFor(
    request: ModernRequest,
    caller: string,
  ): Promise<Shared | undefined | Exclude<Admission, { kind: 'seated' }>> {
    if (this.closed) return Promise.resolve(undefined);
    // Clients that show the model structuredContent get results without it: they never share a
    // session with the others, whose settled mode would be theirs.
    const key = `${caller}\n${structuredContentModeFor('auto', clientInfoOf(request)).mode}`;
    let entry = this.shared.get(key);
    if (entry === undefined) {
      const admission = this.options.cap?.admit(caller);
      if (admission !== undefined && admission.kind !== 'seated') return Promise.resolve(admission);
      const seat = admission?.seat;
      const starting = this.start(key, seat);
      // A session that could not be made is tried again by the next request.
      starting.catch(() => {
        seat?.release();
        if (this.shared.get(key) === starting) this.shared.delete(key);
      });
      this.shared.set(key, starting);
      entry = starting;
    }
    return entry;
  }

  /** Starts the session of `key` in `seat` (the cap's, when there is one). */
  private async start(key: string, seat: Seat | undefined): Promise<Shared> {
    const exchanges = new ModernExchanges();
    const session = await this.createSession(exchanges);
    const shared: Shared = { session, exchanges, idleSince: Date.now(), seat };
    const entry = this.shared.get(key);
    seat?.fill(
      session,
      // As a handshake session: a client listening is not idle, nor busy (another caller's
      // newcomer may end it once no session is fully idle).
      () => ({
        idleMs: exchanges.busy ? -1 : Date.now() - shared.idleSince,
        working: exchanges.calling,
      }),
      // Ended by the cap: the caller's next request starts a new one.
      () => {
        clearTimeout(shared.idleTimer);
        if (this.shared.get(key) === entry) this.shared.delete(key);
      },
    );
    void session.ended.then(() => {
      seat?.release();
      clearTimeout(shared.idleTimer);
      // Probes it never answered: their fallbacks go on as any initialize.
      for (const probe of this.probes.values())
        if (probe.answeredAt === undefined)
          probe.settle(errorResponse(probe.request.id, -32000, 'the upstream session ended'));
      if (this.shared.get(key) === entry) this.shared.delete(key);
    });
    exchanges.onanswer = (request, answer) => this.learn(request, answer);
    exchanges.onidle = () => this.idle(shared);
    await session.start();
    return shared;
  }

  /** Notes a client's probe, so that its fallback initialize can be told how it went. */
  private probed(request: ModernRequest, caller: string): void {
    const now = Date.now();
    for (const [key, probe] of this.probes)
      if (probe.answeredAt !== undefined && !this.lateAnswer(probe, now)) this.probes.delete(key);
    let settle: (answer: JSONRPCMessage) => void = () => {};
    const answer = new Promise<JSONRPCMessage>((resolve) => {
      settle = resolve;
    });
    this.probes.set(probeKey(caller, request), { request, started: now, answer, settle });
  }

  /** Whether `probe`, answered, came so late that its client's fallback may still come. */
  private lateAnswer(probe: Probe, now: number): boolean {
    const took = probe.answeredAt! - probe.started;
    return took >= SLOW_PROBE_MS && now - probe.answeredAt! < took;
  }

  /** Remembers an upstream's refusal of server/discover, when asked to. */
  private learn(request: ModernRequest, answer: JSONRPCMessage): void {
    if (request.method === 'server/discover')
      for (const [key, probe] of this.probes)
        if (probe.request === request) {
          probe.answeredAt = Date.now();
          probe.settle(answer);
          // A prompt answer reached a client still waiting: no fallback will come.
          if (probe.answeredAt - probe.started < SLOW_PROBE_MS) this.probes.delete(key);
        }
    if (!this.options.rememberRefusals || request.method !== 'server/discover') return;
    const code = (answer as { error?: { code?: unknown } }).error?.code;
    if (code === -32601) this.refusal = answer;
  }

  /**
   * No call in flight (a client may still listen): the session ends after the idle timeout, its
   * listening exchanges answered with an error, or now if it cannot be used.
   */
  private idle(shared: Shared): void {
    clearTimeout(shared.idleTimer);
    shared.idleSince = Date.now();
    // An upstream that does not speak 2026-07-28 gets no more requests on this route.
    if (this.refusal !== undefined) {
      void shared.session.close();
      return;
    }
    if (this.options.idleTimeoutMs <= 0) return;
    shared.idleTimer = setTimeout(() => {
      // Logged and counted (--stats, --metrics) as a handshake session ended for idleness.
      if (shared.seat === undefined) void shared.session.close();
      else shared.seat.end(idleEnd(Date.now() - shared.idleSince));
    }, this.options.idleTimeoutMs);
    shared.idleTimer.unref();
  }
}

/** Who sent a probe or an initialize: the caller, and the client by its `clientInfo`. */
function probeKey(caller: string, request: ModernRequest): string {
  const info = clientInfoOf(request);
  return `${caller}\n${info?.name ?? ''}\n${info?.version ?? ''}`;
}

/**
 * The request's body as text, or `undefined` when it is longer than `limit` bytes.
 *
 * @example
 * const text = await readBody(request, MAX_BODY_BYTES);
 */
export async function readBody(
  request: IncomingMessage,
  limit: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function fail(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(errorResponse(null, code, message)));
}
