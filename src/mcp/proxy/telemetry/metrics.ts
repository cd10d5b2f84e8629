// `--metrics HOST:PORT`: what the proxy does, as Prometheus metrics at http://HOST:PORT/metrics.
// prom-client is an optional peer dependency, loaded only when metrics are asked for.

import type { Server } from 'node:http';
import type * as PromClient from 'prom-client';
import type { ResultStrategy, VerbatimReason } from '../telemetry/outcome.js';
import { loadPeer } from '../transport/sdk.js';

/** What one answered tools/call did, for {@link ProxyMetrics.recordCall}. */
export interface ToolCallRecord {
  tool: string;
  /** What the shipped text is: `'verbatim'`, or the encoding of its rewritten text. */
  strategy: ResultStrategy;
  /** Why the result's text went out verbatim, when it did. */
  verbatim?: VerbatimReason;
  /** UTF-8 bytes of the result's text contents as the upstream sent them. */
  bytesIn: number;
  /** UTF-8 bytes of the text contents shipped to the client. */
  bytesOut: number;
  /** Tokens of the upstream's text, when the proxy counted them. */
  tokensIn?: number;
  /** Tokens of the shipped text, when the proxy counted them. */
  tokensOut?: number;
  /** Pages served by this answer (1 for a first page, else 0). */
  pages: number;
  /** Who called (`--listen`: the name from `--auth-tokens` or the token's subject), if known. */
  caller?: string;
}

/** The most caller names metrics tell apart; the others are counted as `other`. */
const MAX_CALLER_LABELS = 100;

/** Where the metrics endpoint listens. */
export interface MetricsAddress {
  host?: string;
  port: number;
}

/** A running metrics endpoint. */
export interface MetricsServer {
  /** `http://host:port/metrics`, with the actual port. */
  url: string;
  close(): Promise<void>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The proxy's Prometheus metrics, in a registry of their own (plus prom-client's default
 * process metrics). Create it with {@link ProxyMetrics.create}, hand it to the proxy, and serve
 * it with {@link ProxyMetrics.serve}.
 *
 * @example
 * const metrics = await ProxyMetrics.create();
 * const endpoint = await metrics.serve({ host: '127.0.0.1', port: 9464 });
 * await runStdioProxy({ upstream, metrics });
 * await endpoint.close();
 */
export class ProxyMetrics {
  /** The registry holding every metric, for embedding in your own endpoint. */
  readonly registry: PromClient.Registry;
  private readonly calls: PromClient.Counter<'tool' | 'strategy'>;
  private readonly bytesIn: PromClient.Counter<'tool'>;
  private readonly bytesOut: PromClient.Counter<'tool'>;
  private readonly tokensIn: PromClient.Counter<'tool'>;
  private readonly tokensOut: PromClient.Counter<'tool'>;
  private readonly pages: PromClient.Counter<'tool'>;
  private readonly passthrough: PromClient.Counter<'tool' | 'reason'>;
  private readonly latency: PromClient.Histogram<'tool'>;
  private readonly sessions: PromClient.Gauge;
  private readonly upstreamStarts: PromClient.Counter;
  private readonly upstreamFailures: PromClient.Counter;
  private readonly sessionsEnded: PromClient.Counter<'reason'>;
  private readonly requests: PromClient.Counter<'caller' | 'outcome'>;
  private readonly callerCalls: PromClient.Counter<'caller' | 'strategy'>;
  private readonly callerBytesIn: PromClient.Counter<'caller'>;
  private readonly callerBytesOut: PromClient.Counter<'caller'>;
  private readonly callerLabels = new Set<string>();
  private cacheSize: () => { entries: number; bytes: number } = () => ({ entries: 0, bytes: 0 });

  private constructor(prom: typeof PromClient, defaultMetrics: boolean) {
    const registry = new prom.Registry();
    this.registry = registry;
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new prom.Counter<L>({ name, help, labelNames, registers: [registry] });
    this.calls = counter(
      'toonwire_proxy_tool_calls_total',
      'Answered tools/call requests, by tool and by the strategy of the text shipped (verbatim: as the upstream sent it)',
      ['tool', 'strategy'],
    );
    this.bytesIn = counter(
      'toonwire_proxy_tool_bytes_in_total',
      'UTF-8 bytes of tool-result text received from the upstream',
      ['tool'],
    );
    this.bytesOut = counter(
      'toonwire_proxy_tool_bytes_out_total',
      'UTF-8 bytes of tool-result text shipped to the client (pages from toonwire_more included)',
      ['tool'],
    );
    this.tokensIn = counter(
      'toonwire_proxy_tool_tokens_in_total',
      'Tokens of tool-result text received from the upstream, for tools measured in tokens (--by tokens)',
      ['tool'],
    );
    this.tokensOut = counter(
      'toonwire_proxy_tool_tokens_out_total',
      'Tokens of tool-result text shipped, for tools measured in tokens (--by tokens) or under a budget (--max-tokens)',
      ['tool'],
    );
    this.pages = counter(
      'toonwire_proxy_pages_served_total',
      'Pages of budgeted results served: first pages and toonwire_more pages, by the original tool',
      ['tool'],
    );
    this.passthrough = counter(
      'toonwire_proxy_passthrough_total',
      'Results whose text went out as the upstream sent it, by tool and reason',
      ['tool', 'reason'],
    );
    this.latency = new prom.Histogram({
      name: 'toonwire_proxy_upstream_latency_seconds',
      help: 'Time from forwarding a tools/call to the upstream to its answer',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.sessions = new prom.Gauge({
      name: 'toonwire_proxy_sessions',
      help: 'Open client sessions (stdio: 0 or 1; --listen: one per MCP session)',
      registers: [registry],
    });
    this.upstreamStarts = counter(
      'toonwire_proxy_upstream_starts_total',
      'Upstream connections started (one per session; restarts = this minus the first)',
      [],
    );
    this.upstreamFailures = counter(
      'toonwire_proxy_upstream_failures_total',
      'Upstream connections that failed: exited, hung, unreachable, or broke the protocol',
      [],
    );
    this.sessionsEnded = counter(
      'toonwire_proxy_sessions_ended_total',
      '--listen sessions the proxy ended itself (idle: after --idle-timeout) or refused (busy: at --max-sessions, HTTP 503)',
      ['reason'],
    );
    this.requests = counter(
      'toonwire_proxy_http_requests_total',
      '--listen requests to the MCP endpoint, by caller (the name from --auth-tokens or the token subject; anonymous without auth) and outcome (ok, unauthorized: 401, forbidden: 403)',
      ['caller', 'outcome'],
    );
    this.callerCalls = counter(
      'toonwire_proxy_caller_tool_calls_total',
      '--listen: answered tools/call requests by caller and by the strategy of the text shipped',
      ['caller', 'strategy'],
    );
    this.callerBytesIn = counter(
      'toonwire_proxy_caller_bytes_in_total',
      '--listen: UTF-8 bytes of tool-result text received from the upstream, by caller',
      ['caller'],
    );
    this.callerBytesOut = counter(
      'toonwire_proxy_caller_bytes_out_total',
      '--listen: UTF-8 bytes of tool-result text shipped, by caller',
      ['caller'],
    );
    const size = () => this.cacheSize();
    new prom.Gauge({
      name: 'toonwire_proxy_page_cache_entries',
      help: 'Paged results waiting for toonwire_more',
      registers: [registry],
      collect() {
        this.set(size().entries);
      },
    });
    new prom.Gauge({
      name: 'toonwire_proxy_page_cache_bytes',
      help: 'Approximate size of the paged results held, in bytes of JSON',
      registers: [registry],
      collect() {
        this.set(size().bytes);
      },
    });
    if (defaultMetrics) prom.collectDefaultMetrics({ register: registry, prefix: 'toonwire_' });
  }

  /**
   * Loads prom-client and creates the metrics. `defaultMetrics` (default `true`) adds
   * prom-client's process metrics (memory, CPU, event loop) with the prefix `toonwire_`.
   *
   * @throws {Error} saying what to install when prom-client is missing.
   * @example
   * const metrics = await ProxyMetrics.create();
   */
  static async create(options: { defaultMetrics?: boolean } = {}): Promise<ProxyMetrics> {
    const module = (await loadPeer(
      () => import('prom-client'),
      'prom-client',
      'Metrics (--metrics)',
    )) as typeof PromClient & { default?: typeof PromClient };
    const prom = module.default ?? module;
    return new ProxyMetrics(prom, options.defaultMetrics ?? true);
  }

  /** Records one answered tools/call. */
  recordCall(record: ToolCallRecord): void {
    const tool = { tool: record.tool };
    this.calls.inc({ tool: record.tool, strategy: record.strategy });
    this.bytesIn.inc(tool, record.bytesIn);
    this.bytesOut.inc(tool, record.bytesOut);
    if (record.tokensIn !== undefined) this.tokensIn.inc(tool, record.tokensIn);
    if (record.tokensOut !== undefined) this.tokensOut.inc(tool, record.tokensOut);
    if (record.pages > 0) this.pages.inc(tool, record.pages);
    if (record.verbatim !== undefined)
      this.passthrough.inc({ tool: record.tool, reason: record.verbatim });
    if (record.caller === undefined) return;
    const caller = { caller: this.callerLabel(record.caller) };
    this.callerCalls.inc({ ...caller, strategy: record.strategy });
    this.callerBytesIn.inc(caller, record.bytesIn);
    this.callerBytesOut.inc(caller, record.bytesOut);
  }

  /** Records a page served by `toonwire_more` for a result of `tool`. */
  recordPage(tool: string, bytesOut: number, tokensOut: number): void {
    this.pages.inc({ tool });
    this.bytesOut.inc({ tool }, bytesOut);
    this.tokensOut.inc({ tool }, tokensOut);
  }

  /** Records the upstream's time to answer a tools/call of `tool`. */
  observeUpstreamLatency(tool: string, seconds: number): void {
    this.latency.observe({ tool }, seconds);
  }

  /** A client session opened (`+1`) or ended (`-1`). */
  sessionChanged(delta: 1 | -1): void {
    this.sessions.inc(delta);
  }

  /** A `--listen` session was ended for idleness (`'idle'`) or refused at the cap (`'busy'`). */
  sessionEnded(reason: 'idle' | 'busy'): void {
    this.sessionsEnded.inc({ reason });
  }

  /** A `--listen` request of `caller` (a name, never a token) was let in or refused. */
  recordRequest(caller: string, outcome: 'ok' | 'unauthorized' | 'forbidden'): void {
    this.requests.inc({ caller: this.callerLabel(caller), outcome });
  }

  /**
   * `name` as a label: the first {@link MAX_CALLER_LABELS} names as they are, then `other`, so
   * that callers named by tokens' subjects cannot grow the series without bound.
   */
  private callerLabel(name: string): string {
    if (this.callerLabels.has(name)) return name;
    if (this.callerLabels.size >= MAX_CALLER_LABELS) return 'other';
    this.callerLabels.add(name);
    return name;
  }

  /** An upstream connection was started. */
  upstreamStarted(): void {
    this.upstreamStarts.inc();
  }

  /** An upstream connection failed. */
  upstreamFailed(): void {
    this.upstreamFailures.inc();
  }

  /** Reports the page cache's size in the cache gauges. */
  watchPageCache(size: () => { entries: number; bytes: number }): void {
    this.cacheSize = size;
  }

  /** The metrics in Prometheus' text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Serves the metrics at `http://host:port/metrics` (host default `127.0.0.1`; port `0`
   * picks a free one).
   *
   * @throws {Error} when the address is taken.
   * @example
   * const { url, close } = await metrics.serve({ port: 9464 });
   */
  async serve(address: MetricsAddress): Promise<MetricsServer> {
    const { createServer } = await import('node:http');
    const host = address.host ?? '127.0.0.1';
    const server: Server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('Not found; the metrics are at /metrics\n');
        return;
      }
      this.registry.metrics().then(
        (body) => {
          response.writeHead(200, { 'content-type': this.registry.contentType });
          response.end(request.method === 'HEAD' ? undefined : body);
        },
        (error: unknown) => {
          response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          response.end(`${error instanceof Error ? error.message : String(error)}\n`);
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new Error(
            `--metrics: cannot listen on ${host}:${address.port}: ${error.code ?? error.message}`,
            { cause: error },
          ),
        ),
      );
      server.listen(address.port, host, () => resolve());
    });
    const bound = server.address();
    const port = typeof bound === 'object' && bound !== null ? bound.port : address.port;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    return {
      url: `http://${shownHost}:${port}/metrics`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }
}
