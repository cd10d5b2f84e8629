// `"shared": true` on a gateway server: the `--listen` sessions share one upstream connection (for
// a command, one process) instead of starting one each. Each session holds a lease, a Transport
// that looks like an upstream of its own; the upstream behind it is started by the first lease,
// initialized once by the proxy, and closed when the last lease is.
//
// What one session sends must come back to that session only, so the upstream sees ids of the
// pool's own (`toonwire-shared-N`) and progress tokens likewise, each mapped back to the lease
// and the id it gave. What cannot be routed is not forwarded: the proxy initializes the server
// with no client capabilities (no sampling, elicitation or roots to ask for; a request it sends
// anyway is refused, a ping answered), log messages name no request over stdio and are dropped,
// `logging/setLevel` is answered without reaching the server (its level would be every
// session's), and `server/discover` is refused so clients use the handshake, the one era a
// shared connection speaks. List-changed notifications concern every session and reach all;
// `notifications/resources/updated` reaches the sessions that subscribed to the URI.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../../../codec/objects.js';
import { asCaller, currentCaller } from '../paging/store.js';
import { errorResponse, messageKind } from '../transport/json-rpc.js';

/** The prefix of the ids and progress tokens the pool sends a shared upstream. */
const POOL_ID_PREFIX = 'toonwire-shared-';

type Message = {
  jsonrpc: '2.0';
  id?: RequestId;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
};

/** A request out at the upstream: a lease's, or the pool's own initialize (`resolve`). */
interface Out {
  lease?: SharedLease;
  id: RequestId;
  resolve?: (answer: Message) => void;
  /** The pool's progress token in place of the lease's, if the request carried one. */
  progress?: string;
}

/**
 * The shared upstreams of one `--listen` proxy, by server name: {@link lease} gives each session
 * its transport to a server, the first lease starts it, the last one's close stops it.
 *
 * @example
 * const pool = new SharedUpstreams();
 * const lease = pool.lease('memory', () => new ChildProcessTransport({ command: 'mcp-memory' }));
 * await lease.start(); // the first lease starts the process; later ones join it
 */
export class SharedUpstreams {
  private readonly upstreams = new Map<string, SharedUpstream>();
  private closed = false;

  /** A transport to the server `name` shared with the other sessions' leases. */
  lease(name: string, create: () => Transport): SharedLease {
    let upstream = this.upstreams.get(name);
    if (upstream === undefined || upstream.ended) {
      upstream = new SharedUpstream(create, () => {
        if (this.upstreams.get(name) === upstream) this.upstreams.delete(name);
      });
      this.upstreams.set(name, upstream);
    }
    return new SharedLease(upstream, this.closed);
  }

  /** How many sessions hold a lease on `name` (0 when it is not running). */
  holders(name: string): number {
    return this.upstreams.get(name)?.holders ?? 0;
  }

  /** Closes every shared upstream. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.upstreams.values()].map((upstream) => upstream.stop()));
    this.upstreams.clear();
  }
}

/** One upstream connection and the leases on it. */
class SharedUpstream {
  /** Closed, or failed to start: a new session gets a new upstream. */
  ended = false;
  private transport: Transport | undefined;
  private starting: Promise<void> | undefined;
  private initializing: Promise<Message> | undefined;
  private readonly leases = new Set<SharedLease>();
  private readonly out = new Map<string, Out>();
  private readonly progress = new Map<string, { lease: SharedLease; id: RequestId }>();
  private next = 0;
  private finished = false;

  constructor(
    private readonly create: () => Transport,
    private readonly onEnd: () => void,
  ) {}

  get holders(): number {
    return this.leases.size;
  }

  /** The transport's exit facts, which the gateway's "down" message quotes. */
  get child(): { exited?: boolean; exitDescription?: unknown } {
    return (this.transport ?? {}) as { exited?: boolean; exitDescription?: unknown };
  }

  async attach(lease: SharedLease): Promise<void> {
    if (this.ended) throw new Error('the shared server has stopped');
    this.leases.add(lease);
    if (this.starting === undefined) {
      const transport = this.create();
      this.transport = transport;
      transport.onmessage = (message) => this.fromServer(message as Message);
      transport.onerror = (error) => {
        for (const holder of this.leases) holder.onerror?.(error);
      };
      transport.onclose = () => this.end();
      this.starting = transport.start();
      this.starting.catch(() => this.end());
    }
    try {
      await this.starting;
    } catch (error) {
      this.leases.delete(lease);
      throw error;
    }
  }

  /** The upstream's answer to the one initialize the pool sends, for `lease`'s request `id`. */
  async initialize(lease: SharedLease, id: RequestId, params: unknown): Promise<void> {
    if (this.initializing === undefined) {
      const own: Record<string, unknown> = isPlainObject(params) ? { ...params } : {};
      // The server must not count on any one client: it is offered no client capability.
      own.capabilities = {};
      this.initializing = new Promise<Message>((resolve) => {
        const poolId = this.newId();
        this.out.set(poolId, { id: poolId, resolve });
        void this.send({ jsonrpc: '2.0', id: poolId, method: 'initialize', params: own });
      }).then(async (answer) => {
        if (answer.result !== undefined) {
          const version = answer.result.protocolVersion;
          const transport = this.transport as { setProtocolVersion?: (version: string) => void };
          if (typeof version === 'string') transport.setProtocolVersion?.(version);
          await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        }
        return answer;
      });
    }
    const answer = await this.initializing;
    lease.deliver({ ...answer, id, ...answeredVersion(answer, params) } as JSONRPCMessage);
  }

  /** Sends `lease`'s request under an id (and progress token) of the pool's. */
  async request(lease: SharedLease, message: Message): Promise<void> {
    const poolId = this.newId();
    const entry: Out = { lease, id: message.id! };
    const meta = message.params?._meta;
    let params = message.params;
    if (isPlainObject(meta) && meta.progressToken !== undefined) {
      entry.progress = poolId;
      this.progress.set(poolId, { lease, id: meta.progressToken as RequestId });
      params = { ...params, _meta: { ...meta, progressToken: poolId } };
    }
    this.out.set(poolId, entry);
    lease.out.set(message.id!, poolId);
    await this.send({ ...message, id: poolId, ...(params === undefined ? {} : { params }) });
  }

  /** `lease` withdraws its request `id`. */
  async cancel(lease: SharedLease, message: Message): Promise<void> {
    const poolId = lease.out.get(message.params?.requestId as RequestId);
    if (poolId === undefined) return;
    this.settle(poolId);
    await this.send({ ...message, params: { ...message.params, requestId: poolId } });
  }

  /** Whether a lease other than `lease` subscribes to `uri`. */
  subscribedElsewhere(lease: SharedLease, uri: unknown): boolean {
    for (const holder of this.leases)
      if (holder !== lease && holder.subscriptions.has(uri as string)) return true;
    return false;
  }

  /** `lease`'s session ended: its requests are withdrawn; the last lease stops the upstream. */
  async detach(lease: SharedLease): Promise<void> {
    if (!this.leases.delete(lease)) return;
    for (const poolId of lease.out.values()) {
      this.settle(poolId);
      void this.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: poolId, reason: 'the session ended' },
      });
    }
    for (const uri of lease.subscriptions)
      if (!this.subscribedElsewhere(lease, uri))
        void this.send({
          jsonrpc: '2.0',
          id: this.newId(),
          method: 'resources/unsubscribe',
          params: { uri },
        });
    if (this.leases.size === 0) await this.stop();
  }

  async stop(): Promise<void> {
    this.ended = true;
    this.onEnd();
    const transport = this.transport;
    if (transport !== undefined) {
      transport.onclose = undefined;
      await transport.close().catch(() => {});
    }
    this.end();
  }

  send(message: Message): Promise<void> {
    return this.transport!.send(message as JSONRPCMessage);
  }

  private newId(): string {
    this.next += 1;
    return `${POOL_ID_PREFIX}${this.next}`;
  }

  /** Forgets a request: answered or withdrawn. */
  private settle(poolId: string): Out | undefined {
    const entry = this.out.get(poolId);
    if (entry === undefined) return undefined;
    this.out.delete(poolId);
    if (entry.progress !== undefined) this.progress.delete(entry.progress);
    entry.lease?.out.delete(entry.id);
    return entry;
  }

  private fromServer(message: Message): void {
    const kind = messageKind(message);
    if (kind === 'response') {
      const entry = this.settle(String(message.id));
      if (entry?.resolve !== undefined) entry.resolve(message);
      else entry?.lease?.deliver({ ...message, id: entry.id } as JSONRPCMessage);
      return;
    }
    if (kind === 'request') {
      void this.send(
        message.method === 'ping'
          ? ({ jsonrpc: '2.0', id: message.id!, result: {} } as Message)
          : (errorResponse(
              message.id!,
              -32601,
              `toonwire proxy: this server is shared by several sessions ("shared": true), so it cannot ask a client for ${message.method}`,
            ) as Message),
      );
      return;
    }
    const method = message.method ?? '';
    if (method === 'notifications/progress') {
      const entry = this.progress.get(String(message.params?.progressToken));
      entry?.lease.deliver({
        ...message,
        params: { ...message.params, progressToken: entry.id },
      } as JSONRPCMessage);
      return;
    }
    if (method.endsWith('/list_changed')) {
      for (const lease of this.leases) lease.deliver(message as JSONRPCMessage);
      return;
    }
    if (method === 'notifications/resources/updated') {
      const uri = message.params?.uri;
      for (const lease of this.leases)
        if (lease.subscriptions.has(uri as string)) lease.deliver(message as JSONRPCMessage);
    }
    // Anything else (log messages, the server cancelling a request it was refused) names no
    // session it belongs to.
  }

  /** The upstream closed, failed or was stopped: every session still using it loses it. */
  private end(): void {
    if (this.finished) return;
    this.finished = true;
    this.ended = true;
    this.onEnd();
    const leases = [...this.leases];
    this.leases.clear();
    this.out.clear();
    this.progress.clear();
    // A lease still starting hears of it from its start().
    for (const lease of leases) if (lease.attached) lease.onclose?.();
  }
}

/**
 * The pool's initialize answer as one session's: the server settled on a version with the first
 * session's client, but a later client may speak only an older one, which a server asked alone
 * would have answered with (a client that hears a version it does not know disconnects). An
 * older version the client asked for is answered; the server's own is kept otherwise.
 *
 * @example
 * answeredVersion({ jsonrpc: '2.0', result: { protocolVersion: '2025-06-18' } }, { protocolVersion: '2024-11-05' });
 * // { result: { protocolVersion: '2024-11-05' } }
 */
export function answeredVersion(
  answer: { result?: Record<string, unknown> },
  params: unknown,
): { result?: Record<string, unknown> } {
  const asked = isPlainObject(params) ? params.protocolVersion : undefined;
  const settled = answer.result?.protocolVersion;
  // Handshake versions are dates, which sort as text.
  const older =
    typeof asked === 'string' &&
    typeof settled === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(asked) &&
    asked < settled;
  return older ? { result: { ...answer.result, protocolVersion: asked } } : {};
}

/**
 * One session's transport to a shared upstream (made by {@link SharedUpstreams.lease}).
 *
 * @example
 * const lease = new SharedUpstreams().lease('time', () => new ChildProcessTransport({ command: 'mcp-server-time' }));
 * lease.onmessage = (message) => console.log(message);
 * await lease.start();
 */
export class SharedLease implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** The lease's requests out at the upstream: its id → the pool's. */
  readonly out = new Map<RequestId, string>();
  /** The resource URIs this session subscribed to. */
  readonly subscriptions = new Set<string>();
  /** Started: the upstream runs and this session uses it. */
  attached = false;
  private closed = false;
  /**
   * The caller of the session that took the lease. The upstream's messages arrive in the
   * context of whoever started its process; this session's results must be paged and counted
   * as its own caller's.
   */
  private readonly caller = currentCaller();

  constructor(
    private readonly upstream: SharedUpstream,
    refused: boolean,
  ) {
    this.closed = refused;
  }

  /** Whether the shared upstream exited, and how (for the gateway's "down" message). */
  get exited(): boolean | undefined {
    return this.upstream.child.exited;
  }
  get exitDescription(): unknown {
    return this.upstream.child.exitDescription;
  }

  async start(): Promise<void> {
    if (this.closed) throw new Error('the proxy is shutting down');
    await this.upstream.attach(this);
    this.attached = true;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !this.attached) throw new Error('the shared server is not connected');
    const typed = message as Message;
    const kind = messageKind(message);
    if (kind === 'response') return; // no server request is ever forwarded to a session
    if (kind === 'notification') {
      if (typed.method === 'notifications/cancelled') return this.upstream.cancel(this, typed);
      // `notifications/initialized` was sent by the pool; roots changes are no session's to tell.
      return;
    }
    const id = typed.id!;
    const uri = typed.params?.uri;
    switch (typed.method) {
      case 'initialize':
        return this.upstream.initialize(this, id, typed.params);
      case 'server/discover':
        return this.deliver(
          errorResponse(
            id,
            -32601,
            'Method not found: a shared server ("shared": true) speaks the handshake protocol; send initialize',
          ),
        );
      case 'logging/setLevel':
      case 'ping':
        return this.deliver({ jsonrpc: '2.0', id, result: {} } as JSONRPCMessage);
      case 'resources/subscribe':
        if (typeof uri === 'string') this.subscriptions.add(uri);
        break;
      case 'resources/unsubscribe':
        if (typeof uri === 'string') {
          this.subscriptions.delete(uri);
          if (this.upstream.subscribedElsewhere(this, uri))
            return this.deliver({ jsonrpc: '2.0', id, result: {} } as JSONRPCMessage);
        }
        break;
    }
    return this.upstream.request(this, typed);
  }

  /** Ends this session's use of the upstream; the last lease's close stops it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.attached) await this.upstream.detach(this);
  }

  /** Hands an upstream message to the session. */
  deliver(message: JSONRPCMessage): void {
    if (this.closed) return;
    if (this.caller === undefined) this.onmessage?.(message);
    else asCaller(this.caller, () => this.onmessage?.(message));
  }
}
