// One proxied connection: every message between an MCP client (downstream) and an MCP server
// (upstream) is forwarded as it is, ids included, in both directions; only tools/call results
// are compacted. The session watches the upstream so that a crash, a hang or a broken protocol
// ends in JSON-RPC errors for the client's pending requests, never in silence.

import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  type ClientInfo,
  clientInfoOf,
  type StructuredContentMode,
  structuredContentModeFor,
} from '../../clients.js';
/** The defaults of {@link ProxySessionOptions.timeoutMs} and `initTimeoutMs`. */
import { DEFAULT_INIT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../../defaults.js';
import type { ResultPipeline, ToolCall } from '../result/pipeline.js';
import type { ProxyMetrics } from '../telemetry/metrics.js';
import { ProblemLog } from '../telemetry/problem-log.js';
import { type CallPlan, ToolCatalog, type ToolCatalogOptions } from '../tools/catalog.js';
import {
  type Downstream,
  EXIT_NEWS_MS,
  isBrokenPipe,
  type Upstream,
} from '../transport/endpoints.js';
import { JsonRpcProtocolError, SkippedLineNotice } from '../transport/json-lines.js';
import {
  describeRequest,
  errorResponse,
  messageKind,
  ProxyErrorCode,
} from '../transport/json-rpc.js';
import { LISTENING_METHODS } from '../transport/modern-wire.js';
import { type Clock, RequestClocks, STOPPED } from './clocks.js';

export { DEFAULT_INIT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS };

/** How long an upstream gets to stop once the client has gone, before it is signalled. */
const CLIENT_GONE_GRACE_MS = 400;
/** When, after a stdio client ends its input, the proxy looks whether it still reads. */
const READER_PROBES_MS = [0, 100, 1000];
/** The methods that negotiate a session: their answers may wait for a cold start. */
const NEGOTIATION_METHODS = new Set(['initialize', 'server/discover']);

/** How long a failed session keeps answering the client's requests with the failure. */
const FAILURE_GRACE_MS = 500;

/** Options of a {@link ProxySession}. */
export interface ProxySessionOptions {
  /** What happens to tools/call results (see `createResultPipeline`); shared by sessions. */
  pipeline: ResultPipeline;
  /**
   * How long a client request may wait for the upstream, restarted by each progress
   * notification for it, before the upstream counts as hung (default five minutes; `0`: no limit).
   */
  timeoutMs?: number;
  /**
   * How long the upstream may take to start and answer `initialize` (or `server/discover`), and
   * any request sent before it has said anything (default one minute; `0`: no limit). A cold
   * start (a Python server importing its libraries, `npx` fetching a package) is not a hang.
   */
  initTimeoutMs?: number;
  /** Log every occurrence of a problem in full, not each distinct one once with a count. */
  verbose?: boolean;
  /**
   * Forward every message as it came and only record what compaction would have shipped (in the
   * pipeline's stats and metrics): a team's measure of its own traffic before switching it on.
   */
  observe?: boolean;
  /** Receives session and upstream counts (the pipeline reports the per-tool ones). */
  metrics?: ProxyMetrics;
  /** Where the session's messages for humans go (default: stderr). */
  log?: (message: string) => void;
  /** How messages name the upstream, e.g. "the upstream MCP server `node server.js`". */
  upstreamName?: string;
  /** How the session lists the upstream's tools: all of them, or on demand (`lazy`). */
  tools?: ToolCatalogOptions;
}

/** How a session ended. */
export interface ProxySessionEnd {
  /** `'client-closed'`: the client went away (a normal end); `'upstream-failed'`: see `message`. */
  reason: 'client-closed' | 'upstream-failed' | 'closed';
  /** What went wrong, for `'upstream-failed'`. */
  message?: string;
}

/** A client request the upstream has not answered yet, with its clock (see `RequestClocks`). */
interface PendingRequest extends Clock {
  method: string;
  toolName: string | undefined;
  progressToken: unknown;
  /** A tools/call as the tool catalog planned it. */
  call?: ToolCall;
  /** Its timeout: `timeoutMs`, or `initTimeoutMs` while the upstream is starting. */
  limitMs: number;
}

/**
 * Bridges two SDK transports. Construct it with both transports (not yet started) and call
 * {@link start}; {@link ended} resolves once the session is over, and both transports are closed
 * by then.
 *
 * @example
 * const session = new ProxySession(clientSide, new ChildProcessTransport({ command: 'my-server' }), {
 *   pipeline: await createResultPipeline(),
 * });
 * await session.start();
 * const { reason } = await session.ended;
 */
export class ProxySession {
  /** Resolves when the session is over, with why. */
  readonly ended: Promise<ProxySessionEnd>;

  private readonly pending = new Map<RequestId, PendingRequest>();
  private readonly clocks = new RequestClocks(this.pending, (id) => this.timedOut(id));
  /** The request the latest progress notification was for (see relatedRequest). */
  private lastProgressed: RequestId | undefined;
  private readonly tools: ToolCatalog;
  /** What results' `structuredContent` does, once the client has said who it is. */
  private structuredContent: StructuredContentMode = 'keep';
  /** Whether the client has said who it is (`initialize`, or a 2026 request's `_meta`). */
  private clientMet = false;
  /**
   * Requests the upstream sent the client (sampling, elicitation, roots) not yet answered: while
   * there is one, the upstream waits on the client (often on a person), so no clock runs.
   */
  private readonly serverRequests = new Set<RequestId>();
  private readonly log: (message: string) => void;
  private readonly timeoutMs: number;
  private readonly initTimeoutMs: number;
  private readonly upstreamName: string;
  private readonly problems: ProblemLog;
  /** Whether the upstream has sent anything yet (until then, it may still be starting). */
  private upstreamSpoke = false;
  private finish!: (end: ProxySessionEnd) => void;
  /** Set once the upstream has failed: the reason every later request is answered with. */
  private failure: { reason: string; code: number } | undefined;
  private endGrace: (() => void) | undefined;
  private shuttingDown = false;
  /** Set once a stdio client has ended its input with requests still pending (see clientClosed). */
  private draining = false;
  /** Whether the sessions gauge counts this session (it was started with metrics). */
  private counted = false;

  constructor(
    private readonly downstream: Downstream,
    private readonly upstream: Upstream,
    private readonly options: ProxySessionOptions,
  ) {
    this.ended = new Promise((resolve) => (this.finish = resolve));
    this.log = options.log ?? ((message) => process.stderr.write(`${message}\n`));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.initTimeoutMs = options.initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS;
    this.upstreamName = options.upstreamName ?? 'the upstream MCP server';
    this.problems = new ProblemLog(this.log, options.verbose);
    this.tools = new ToolCatalog(options.pipeline, { log: this.log, ...options.tools });
    this.structuredContent = structuredContentModeFor(
      options.pipeline.structuredContent,
      undefined,
    ).mode;
    for (const [name, value] of [
      ['timeoutMs', this.timeoutMs],
      ['initTimeoutMs', this.initTimeoutMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0)
        throw new TypeError(
          `proxy: ${name} must be a number of milliseconds >= 0 (0: no limit), got ${value}`,
        );
    }
  }

  /**
   * Starts the upstream, then the downstream. A failure to start the upstream ends the session
   * with `'upstream-failed'` instead of rejecting.
   */
  async start(): Promise<void> {
    this.upstream.onmessage = (message) => this.fromUpstream(message);
    this.upstream.onerror = (error) => this.onUpstreamError(error);
    this.upstream.onclose = () =>
      this.fail(`${this.upstreamName} closed the connection${this.exitDetail()}`);
    this.downstream.onmessage = (message) => this.fromClient(message);
    this.downstream.onerror = (error) => this.onDownstreamError(error);
    this.downstream.onclose = () => this.clientClosed();
    this.counted = this.options.metrics !== undefined;
    this.options.metrics?.sessionChanged(1);
    this.options.metrics?.upstreamStarted();
    try {
      await this.upstream.start();
    } catch (error) {
      await this.downstream.start();
      this.fail(error instanceof Error ? error.message : String(error));
      return;
    }
    await this.downstream.start();
  }

  /**
   * Ends the session from outside (a signal, a server shutting down); resolves once it is over.
   * With `why`, every request still pending is first answered with a JSON-RPC error saying why,
   * so its client is not left waiting for its own timeout (an HTTP stream closed without an
   * answer tells it nothing).
   *
   * @example
   * await session.close('the proxy is shutting down');
   * // a pending tools/call gets: "toonwire proxy: the proxy is shutting down, so 'tools/call
   * // search' (id 7) got no answer" (code -32000)
   */
  async close(why?: string): Promise<void> {
    if (why !== undefined && !this.shuttingDown && this.failure === undefined) {
      const answered = [...this.pending].map(([id, entry]) =>
        this.answerWithError(id, ProxyErrorCode.UpstreamClosed, why, entry),
      );
      this.pending.clear();
      await Promise.all(answered);
    }
    await this.shutdown({ reason: 'closed' });
    await this.ended;
  }

  /**
   * The client is done. A stdio client that ends its input may still be reading (MCP's stdio
   * shutdown), so the requests it sent before get their answers first, each within its timeout,
   * and the session ends once none is pending; ending the upstream now would lose them. Other
   * transports cannot deliver anything any more: the session ends now.
   */
  private clientClosed(): void {
    const canSend = (this.downstream as { canSend?: unknown }).canSend === true;
    if (!canSend || this.pending.size === 0 || this.failure !== undefined) {
      void this.shutdown({ reason: 'client-closed' });
      return;
    }
    this.draining = true;
    // The client can no longer answer a server request, so none may hold the clocks.
    this.serverRequests.clear();
    for (const entry of this.pending.values())
      if (!this.clocks.started(entry)) this.clocks.start(entry);
    void this.watchReader();
  }

  /**
   * A stdio client that ended its input may still read, or may be dead (killed, crashed: both its
   * pipes closed at once). A probe that cannot be written says which: then the pending calls are
   * cancelled upstream and the session ends now, instead of when their answers arrive.
   */
  private async watchReader(): Promise<void> {
    if (this.downstream.probeReader === undefined) return;
    let waited = 0;
    for (const at of READER_PROBES_MS) {
      await new Promise((resolve) => setTimeout(resolve, at - waited));
      waited = at;
      if (this.shuttingDown || this.pending.size === 0) return;
      if (!(await this.downstream.probeReader())) {
        this.clientGone('the client went away (its input and output are closed)');
        return;
      }
    }
  }

  /**
   * The client has gone with requests pending: the upstream is told to stop working on them
   * (`notifications/cancelled`), and the session ends promptly.
   */
  private clientGone(why: string): void {
    const ids = [...this.pending.keys()];
    this.cancelUpstream(ids, why);
    void this.shutdown({ reason: 'client-closed' }, CLIENT_GONE_GRACE_MS);
  }

  /**
   * The client will not read the answers to `ids` (its HTTP request closed before them): the
   * upstream is told to stop working on them, and their answers are dropped if they still come.
   *
   * @example
   * session.abandon([7], 'the HTTP client disconnected');
   */
  abandon(ids: readonly RequestId[], why: string): void {
    const pending = ids.filter((id) => this.pending.has(id));
    if (pending.length === 0 || this.shuttingDown) return;
    this.cancelUpstream(pending, why);
  }

  private cancelUpstream(ids: readonly RequestId[], why: string): void {
    for (const id of ids) {
      // Untracked, its answer (should one still come) finds nothing waiting and is dropped.
      if (this.untrack(id) === undefined) continue;
      const cancel = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: `toonwire proxy: ${why}` },
      } as JSONRPCMessage;
      this.upstream.send(cancel).catch(() => {});
    }
  }

  private fromClient(message: JSONRPCMessage): void {
    if (this.shuttingDown) return;
    const kind = messageKind(message);
    if (this.failure !== undefined) {
      if (kind === 'request') {
        const { id, method } = message as { id: RequestId; method: string };
        void this.answerWithFailure(id, { method });
      }
      return;
    }
    if (kind === 'request') {
      const request = message as JSONRPCMessage & {
        id: RequestId;
        method: string;
        params?: Record<string, unknown>;
      };
      if (!this.clientMet) this.meetClient(clientInfoOf(request));
      const plan: CallPlan | undefined =
        request.method === 'tools/call' && !this.options.observe
          ? this.tools.plan(request.params)
          : undefined;
      if (plan?.kind === 'answer') {
        // The proxy's own tool (toonwire_more): answered here, never forwarded.
        const answer = (result: Record<string, unknown>) =>
          this.toClient({ jsonrpc: '2.0', id: request.id, result } as JSONRPCMessage, {
            relatedRequestId: request.id,
          });
        if (plan.result instanceof Promise) void plan.result.then(answer);
        else answer(plan.result);
        return;
      }
      if (plan?.params !== undefined)
        message = { ...request, params: plan.params } as JSONRPCMessage;
      this.track(request, plan?.call);
    } else if (kind === 'response') {
      this.serverRequestDone((message as { id: RequestId }).id);
    } else if (
      kind === 'notification' &&
      (message as { method: string }).method === 'notifications/cancelled'
    ) {
      const requestId = (message as { params?: { requestId?: RequestId } }).params?.requestId;
      if (requestId !== undefined) this.untrack(requestId);
    }
    this.upstream.send(message).catch((error: unknown) => this.sendFailed(error));
  }

  /**
   * Ends the session over a message the upstream could not be sent. A broken pipe (EPIPE) means
   * the server is gone or going: how it ended (`exited with code 3`), which its close reports
   * moments later, is the news, so the pipe's error stands only if no close comes first.
   */
  private sendFailed(error: unknown): void {
    const reason = `could not pass a message to ${this.upstreamName}: ${error instanceof Error ? error.message : String(error)}`;
    if (!isBrokenPipe(error)) {
      this.fail(reason);
      return;
    }
    // fail() ignores every call after the first, so whichever comes first is the session's end.
    setTimeout(() => this.fail(reason), EXIT_NEWS_MS).unref();
  }

  /** Settles what `structuredContent` does for this client (`'auto'`), and says so once. */
  private meetClient(clientInfo: ClientInfo | undefined): void {
    if (clientInfo === undefined) return;
    this.clientMet = true;
    const setting = this.options.pipeline.structuredContent;
    const { mode, client } = structuredContentModeFor(setting, clientInfo);
    this.structuredContent = mode;
    if (setting === 'auto' && client !== undefined)
      this.log(
        `toonwire proxy: the client is ${client}, which shows the model structuredContent instead of the text: results go without it, tools without outputSchema (--structured-content auto; keep or add to override)`,
      );
  }

  private track(
    request: {
      id: RequestId;
      method: string;
      params?: Record<string, unknown>;
    },
    call?: ToolCall,
  ): void {
    this.untrack(request.id);
    const params = request.params;
    // The tool the call reaches (through toonwire_call_tool, the one it names).
    const toolName =
      request.method !== 'tools/call'
        ? undefined
        : (call?.tool ?? (typeof params?.name === 'string' ? params.name : undefined));
    const meta = params?._meta as { progressToken?: unknown } | undefined;
    const limitMs = this.limitFor(request.method);
    const entry: PendingRequest = {
      method: request.method,
      toolName,
      progressToken: meta?.progressToken,
      call,
      limitMs,
      remainingMs: limitMs,
      deadline: STOPPED,
    };
    this.pending.set(request.id, entry);
    if (this.serverRequests.size === 0) this.clocks.start(entry);
  }

  /**
   * A request's timeout: `initTimeoutMs` for negotiation and while the upstream is starting, none
   * for a stream the client listens to, else `timeoutMs`.
   */
  private limitFor(method: string): number {
    if (LISTENING_METHODS.has(method)) return 0;
    return NEGOTIATION_METHODS.has(method) || !this.upstreamSpoke
      ? this.initTimeoutMs
      : this.timeoutMs;
  }

  /**
   * `id` ran out of time: a gateway stops just the server that hung, answers the request, and
   * goes on; a single upstream has failed.
   */
  private timedOut(id: RequestId): void {
    if (this.upstream.timedOut?.(id) === true) return;
    const entry = this.pending.get(id)!;
    const what = describeRequest(entry.method, id, entry.toolName);
    const flag = entry.limitMs === this.timeoutMs ? '--timeout' : '--init-timeout';
    this.fail(
      `${this.upstreamName} did not answer ${what} within ${entry.limitMs} ms (${flag})`,
      ProxyErrorCode.UpstreamTimeout,
      id,
    );
  }

  /** The client answered (or the upstream withdrew) server request `id`. */
  private serverRequestDone(id: RequestId): void {
    if (!this.serverRequests.delete(id) || this.serverRequests.size > 0) return;
    for (const entry of this.pending.values()) this.clocks.start(entry);
  }

  private untrack(id: RequestId): PendingRequest | undefined {
    const entry = this.pending.get(id);
    if (entry === undefined) return undefined;
    this.pending.delete(id);
    return entry;
  }

  private fromUpstream(message: JSONRPCMessage): void {
    // While shutting down the upstream may still answer what it was working on: forward that.
    if (this.failure !== undefined) return;
    this.upstreamSpoke = true;
    const kind = messageKind(message);
    if (kind === 'response') {
      const id = (message as { id: RequestId }).id;
      const request = this.untrack(id);
      // Nothing waits for it (cancelled, timed out, or an HTTP upstream's replay): dropped.
      if (request === undefined) return;
      const { answer, afterwards } = this.inspectResponse(message, request);
      // A first page ships once its rest is in a shared page store, for another replica to serve.
      const written =
        request.method === 'tools/call' ? this.options.pipeline.pagesWritten() : undefined;
      const deliver = (): void => {
        this.answerClient(id, answer, message, request);
        afterwards?.();
        if (this.draining && this.pending.size === 0)
          void this.shutdown({ reason: 'client-closed' });
      };
      if (written === undefined) deliver();
      else void written.then(deliver);
      return;
    }
    if (kind === 'request' && !this.draining) {
      if (this.serverRequests.size === 0)
        for (const entry of this.pending.values()) this.clocks.pause(entry);
      this.serverRequests.add((message as { id: RequestId }).id);
    } else if ((message as { method?: string }).method === 'notifications/cancelled') {
      const requestId = (message as { params?: { requestId?: RequestId } }).params?.requestId;
      if (requestId !== undefined) this.serverRequestDone(requestId);
    }
    // An HTTP downstream delivers a message on the stream of the request it is related to.
    this.toClient(message, { relatedRequestId: this.relatedRequest(message) });
  }

  /**
   * The pending request a server notification belongs to. Progress names its request by token.
   * Nothing else does over stdio (a log message carries no request id), so it goes to the request
   * whose progress came last while that one is pending (a tool reporting progress and logging
   * at each step logs for itself), else to the latest request. Exact for one client; with
   * several clients sharing one upstream (the 2026-07-28 route of --listen) it is a best guess.
   */
  private relatedRequest(message: JSONRPCMessage): RequestId | undefined {
    const progress = this.progressFor(message);
    if (progress !== undefined) {
      this.lastProgressed = progress;
      return progress;
    }
    if (this.lastProgressed !== undefined && this.pending.has(this.lastProgressed))
      return this.lastProgressed;
    return this.latestPending();
  }

  /**
   * Learns from responses the proxy needs later, and compacts tools/call results: the answer for
   * the client, and what to do once it has gone out (record the result).
   */
  private inspectResponse(
    message: JSONRPCMessage,
    request: PendingRequest,
  ): { answer: JSONRPCMessage; afterwards?: () => void } {
    const result = (message as { result?: unknown }).result;
    if (typeof result !== 'object' || result === null) return { answer: message };
    if (request.method === 'initialize') {
      const version = (result as { protocolVersion?: unknown }).protocolVersion;
      // An HTTP upstream must be told the version for its headers, as the SDK's Client does.
      if (typeof version === 'string') this.upstream.setProtocolVersion?.(version);
    } else if (request.method === 'tools/list') {
      const shown = this.tools.list(result, this.structuredContent);
      if (shown !== undefined && !this.options.observe)
        return { answer: { ...message, result: shown } as JSONRPCMessage };
    } else if (request.method === 'tools/call') {
      const call = request.call ?? {
        tool: request.toolName,
        fields: undefined,
        started: performance.now(),
      };
      const { pipeline } = this.options;
      const ship = () =>
        pipeline.ship(result, call, this.tools.facts(call.tool), this.structuredContent);
      if (this.options.observe) {
        // The result goes out first, as it came; what compaction would have done is recorded after.
        return {
          answer: message,
          afterwards: () => setImmediate(() => pipeline.record(ship(), call)),
        };
      }
      const shipped = ship();
      return {
        answer: shipped.changed
          ? ({ ...message, result: shipped.result } as JSONRPCMessage)
          : message,
        afterwards: () => pipeline.record(shipped, call),
      };
    }
    return { answer: message };
  }

  /**
   * The pending request a progress notification reports on, whose timeout it restarts: a tool
   * that reports progress is working, not hung.
   */
  private progressFor(message: JSONRPCMessage): RequestId | undefined {
    const { method, params } = message as { method?: string; params?: { progressToken?: unknown } };
    if (method !== 'notifications/progress' || params?.progressToken === undefined)
      return undefined;
    for (const [id, entry] of this.pending) {
      if (entry.progressToken !== params.progressToken) continue;
      entry.remainingMs = entry.limitMs;
      if (this.clocks.started(entry)) this.clocks.start(entry);
      return id;
    }
    return undefined;
  }

  /** The most recent pending client request, if any. */
  private latestPending(): RequestId | undefined {
    let latest: RequestId | undefined;
    for (const id of this.pending.keys()) latest = id;
    return latest;
  }

  /**
   * Sends the client `answer`, the answer to its request `id`. An answer that cannot be sent (a
   * result nested too deeply for `JSON.stringify`, say) is never dropped: when the proxy rewrote
   * it, the upstream's own answer (`original`) goes instead, on stdio as its very bytes; when that
   * cannot go either, an error saying why. Either way the request is answered, not left to the
   * client's timeout.
   */
  private answerClient(
    id: RequestId,
    answer: JSONRPCMessage,
    original: JSONRPCMessage,
    request: PendingRequest,
  ): void {
    // One handler on the send, as toClient has: the fallbacks cost nothing until a send fails.
    this.downstream
      .send(answer, { relatedRequestId: id })
      .catch((error: unknown) => this.answerAgain(id, answer, original, request, error));
  }

  /** {@link answerClient}'s fallbacks, once `answer` failed to go with `error`. */
  private async answerAgain(
    id: RequestId,
    answer: JSONRPCMessage,
    original: JSONRPCMessage,
    request: PendingRequest,
    error: unknown,
  ): Promise<void> {
    // A client that has left cannot be told anything; one that is still there should be.
    if (this.shuttingDown) return;
    const what = describeRequest(request.method, id, request.toolName);
    let failure = error;
    if (answer !== original) {
      this.problems.report(
        `toonwire proxy: could not pass the rewritten answer to ${what} to the client (${unsendable(error)}); sending it as the upstream did`,
      );
      try {
        await this.downstream.send(original, { relatedRequestId: id });
        return;
      } catch (again) {
        if (this.shuttingDown) return;
        failure = again;
      }
    }
    const reason = `could not pass the answer of ${this.upstreamName} to the client (${unsendable(failure)})`;
    this.problems.report(`toonwire proxy: ${reason}`);
    void this.answerWithError(id, ProxyErrorCode.Unsendable, reason, request);
  }

  private toClient(message: JSONRPCMessage, options: TransportSendOptions): void {
    this.downstream.send(message, options).catch((error: unknown) => {
      // A client that has left cannot be told anything; one that is still there should be.
      if (this.shuttingDown) return;
      this.problems.report(
        `toonwire proxy: could not pass a message to the client: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  private onUpstreamError(error: Error): void {
    if (error instanceof SkippedLineNotice) {
      // A banner, a stray console.log, a logger's JSON record: the SDK's own client skips those too.
      this.options.pipeline.stats?.recordSkippedLine();
      this.problems.report(`toonwire proxy: skipped ${error.message} from ${this.upstreamName}`);
      return;
    }
    if (error instanceof JsonRpcProtocolError) {
      this.fail(`${this.upstreamName} broke the MCP protocol: it sent ${error.message}`);
      return;
    }
    this.problems.report(`toonwire proxy: ${this.upstreamName} reported: ${error.message}`);
  }

  private onDownstreamError(error: Error): void {
    const what =
      error instanceof JsonRpcProtocolError
        ? `ignored ${error.message} from the client`
        : `client connection error: ${error.message}`;
    // A client that has gone cannot be written to: its absence is handled, not reported.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    this.problems.report(`toonwire proxy: ${what}`);
  }

  private exitDetail(): string {
    const description = (this.upstream as { exitDescription?: unknown }).exitDescription;
    return typeof description === 'string' ? ` (it ${description})` : '';
  }

  /**
   * Ends the session because the upstream cannot go on: every pending client request gets a
   * JSON-RPC error saying why, and so does any request the client sends during a short grace
   * period (a client that has just started the proxy is usually about to send `initialize`, and
   * deserves an answer, not an end of file). The reason goes to the log; then both sides close.
   */
  private fail(
    reason: string,
    code: number = ProxyErrorCode.UpstreamClosed,
    culprit?: RequestId,
  ): void {
    if (this.failure !== undefined || this.shuttingDown) return;
    this.failure = { reason, code };
    this.options.metrics?.upstreamFailed();
    this.clocks.stop();
    const answered = [...this.pending].map(([id, entry]) =>
      this.answerWithFailure(
        id,
        id === culprit ? undefined : { method: entry.method, toolName: entry.toolName },
      ),
    );
    this.pending.clear();
    this.log(`toonwire proxy: ${reason}`);
    void this.upstream.close().catch(() => {});
    const grace = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FAILURE_GRACE_MS);
      this.endGrace = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    void Promise.all([...answered, grace]).then(() =>
      this.shutdown({ reason: 'upstream-failed', message: reason }),
    );
  }

  /** Answers `id` with the failure; `request` names it in the message unless the reason already does. */
  private answerWithFailure(
    id: RequestId,
    request: { method: string; toolName?: string } | undefined,
  ): Promise<void> {
    const { reason, code } = this.failure!;
    return this.answerWithError(id, code, reason, request);
  }

  /** Answers `id` with an error giving `reason` and, when `request` is given, naming it. */
  private answerWithError(
    id: RequestId,
    code: number,
    reason: string,
    request: { method: string; toolName?: string } | undefined,
  ): Promise<void> {
    const consequence =
      request === undefined
        ? ''
        : `, so ${describeRequest(request.method, id, request.toolName)} got no answer`;
    const message = `toonwire proxy: ${reason}${consequence}`;
    return this.downstream
      .send(errorResponse(id, code, message), { relatedRequestId: id })
      .catch(() => {});
  }

  /**
   * Closes the upstream, then the downstream. A stdio upstream gets end of input and time to
   * finish (its last answers are still forwarded), as MCP's stdio shutdown asks of a client.
   */
  private async shutdown(end: ProxySessionEnd, upstreamGraceMs?: number): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    if (this.counted) this.options.metrics?.sessionChanged(-1);
    this.endGrace?.();
    this.clocks.stop();
    await this.upstream.close({ graceMs: upstreamGraceMs }).catch(() => {});
    this.problems.flush();
    this.pending.clear();
    await this.downstream.close().catch(() => {});
    this.finish(
      this.failure === undefined
        ? end
        : { reason: 'upstream-failed', message: this.failure.reason },
    );
  }
}

/** Why a message could not be sent; a stack overflow (a value nested too deeply) says so. */
function unsendable(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof RangeError
    ? `${message}: the result is nested too deeply to be encoded again`
    : message;
}
