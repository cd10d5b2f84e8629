// `toonwire proxy` as a library: an MCP server that fronts one upstream MCP server, forwards
// every message unchanged, and compacts the JSON text of tool results.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { GatewayTransport } from './proxy/gateway/gateway.js';
import { SharedUpstreams } from './proxy/gateway/shared.js';
import {
  createResultPipeline,
  type PipelineOptions,
  type ResultPipeline,
} from './proxy/result/pipeline.js';
import {
  type ListenAddress,
  listenHttp,
  type ProxyHttpServer,
  type SessionLimits,
} from './proxy/serve/listen.js';
import { ProxySession, type ProxySessionEnd } from './proxy/session/session.js';
import { type HttpUpstream, HttpUpstreamTransport } from './proxy/transport/http-upstream.js';
import { JsonLineTransport } from './proxy/transport/json-lines.js';
import { ChildProcessTransport, type StdioUpstream } from './proxy/transport/stdio-upstream.js';

export {
  type ClientInfo,
  STRUCTURED_CONTENT_CLIENTS,
  STRUCTURED_CONTENT_SETTINGS,
  type StructuredContentMode,
  type StructuredContentSetting,
  structuredContentModeFor,
} from './clients.js';
export {
  checkServerNames,
  loadProxyConfig,
  type ProxyConfig,
  parseProxyConfig,
  type ResolvedToolSettings,
  resolveToolSettings,
  type ServerConfig,
  type ToolSettings,
} from './proxy/config/config.js';
export {
  CONTENT_TOOL_NAMES,
  contentToolReason,
  type ToolDescription,
} from './proxy/config/content-policy.js';
export { FIELDS_PARAM_DESCRIPTION } from './proxy/config/fields-param.js';
export { DEFAULT_SEPARATOR, qualify, unqualify } from './proxy/config/names.js';
export { type ToolFacts, type ToolRuleOptions, ToolRules } from './proxy/config/tool-rules.js';
export { type GatewayMember, GatewayTransport } from './proxy/gateway/gateway.js';
export { SharedLease, SharedUpstreams } from './proxy/gateway/shared.js';
export {
  DEFAULT_PAGE_CACHE_BYTES,
  DEFAULT_PAGE_TTL_MS,
  MORE_TOOL,
  MORE_TOOL_NAME,
  PAGE_META_KEY,
  PageCache,
} from './proxy/paging/pages.js';
export {
  createResultPipeline,
  type PipelineOptions,
  ResultPipeline,
  type ToolCall,
} from './proxy/result/pipeline.js';
export { type JsonRead, readJsonContainer } from './proxy/result/read.js';
export { MERGED_META_KEY, type ShippedResult } from './proxy/result/ship.js';
export {
  type Authenticator,
  type Caller,
  loadTokenFile,
  type OAuthOptions,
  oauthAuthenticator,
  parseTokens,
  type Refusal,
  tokenAuthenticator,
  unauthenticatedRefusal,
} from './proxy/serve/auth.js';
export type {
  ListenAccess,
  ListenAddress,
  ProxyHttpServer,
  SessionLimits,
} from './proxy/serve/listen.js';
export {
  DEFAULT_TIMEOUT_MS,
  ProxySession,
  type ProxySessionEnd,
  type ProxySessionOptions,
} from './proxy/session/session.js';
export {
  type MetricsAddress,
  type MetricsServer,
  ProxyMetrics,
  type ToolCallRecord,
} from './proxy/telemetry/metrics.js';
export {
  RESULT_STRATEGIES,
  type ResultStrategy,
  VERBATIM_REASONS,
  type VerbatimReason,
} from './proxy/telemetry/outcome.js';
export { type CallSizes, ProxyStats, type ToolStats } from './proxy/telemetry/stats.js';
export { appOnly, declaresUi } from './proxy/tools/apps.js';
export {
  type CallPlan,
  ToolCatalog,
  type ToolCatalogOptions,
} from './proxy/tools/catalog.js';
export { type HttpUpstream, HttpUpstreamTransport } from './proxy/transport/http-upstream.js';
export {
  type JsonLineStreams,
  JsonLineTransport,
  JsonRpcProtocolError,
  SkippedLineNotice,
} from './proxy/transport/json-lines.js';
export { ProxyErrorCode } from './proxy/transport/json-rpc.js';
export { ChildProcessTransport, type StdioUpstream } from './proxy/transport/stdio-upstream.js';

/**
 * A command server of a gateway that `--listen` sessions may share (`shared: true`): one process
 * for all of them, for servers that keep no per-client state (see docs/mcp.md).
 */
export type SharableStdioUpstream = StdioUpstream & { shared?: boolean };

/** Several servers behind one proxy (a gateway), by the name that prefixes their tools. */
export interface GatewayUpstream {
  servers: Record<string, SharableStdioUpstream | HttpUpstream>;
  /** Between a server's name and its tools' names (default `__`). */
  separator?: string;
}

/**
 * The upstream: a command to run (stdio), a Streamable HTTP endpoint, or several of them behind
 * one proxy (a gateway).
 */
export type Upstream = StdioUpstream | HttpUpstream | GatewayUpstream;

/** Options of {@link runStdioProxy} and {@link listenProxy}. */
export interface ProxyOptions extends PipelineOptions {
  /** The server to front. */
  upstream: Upstream;
  /**
   * How long a client request may wait for the upstream (restarted by each progress
   * notification for it) before the upstream counts as hung: default 300000 (five minutes),
   * `0` for no limit.
   */
  timeoutMs?: number;
  /**
   * How long the upstream may take to start and answer `initialize` (default 60000; `0`: no
   * limit): a cold start is not a hang, so `timeoutMs` times calls only.
   */
  initTimeoutMs?: number;
  /** Log every occurrence of a problem in full, not each distinct one once with a count. */
  verbose?: boolean;
  /** Where messages for humans go (default: stderr; stdout carries only MCP). */
  log?: (message: string) => void;
  /**
   * Tool definitions on demand: tools/list shows `toonwire_find_tools` and `toonwire_call_tool`
   * (and the pinned tools) instead of every tool (see docs/mcp.md).
   */
  lazyTools?: boolean;
  /** With `lazyTools`, the tools that stay listed (their own approval and UI apply). */
  pinTools?: string[];
}

/**
 * The process exit code for how a proxy ended: 0 for a normal end, 1 when the upstream failed.
 *
 * @example
 * process.exitCode = exitCodeFor(await runStdioProxy({ upstream: { command: 'my-server' } }));
 */
export function exitCodeFor(end: ProxySessionEnd): 0 | 1 {
  return end.reason === 'upstream-failed' ? 1 : 0;
}

/**
 * A transport to the upstream, not yet started.
 *
 * @example
 * createUpstreamTransport({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
 * createUpstreamTransport({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
 * // With `shared` (the `--listen` sessions' pool), servers marked `shared: true` are leased from it.
 */
export function createUpstreamTransport(
  upstream: Upstream,
  log?: (message: string) => void,
  shared?: SharedUpstreams,
): Transport {
  if ('servers' in upstream) {
    const members = Object.entries(upstream.servers).map(([name, server]) => ({
      name,
      transport:
        shared !== undefined && 'command' in server && server.shared === true
          ? shared.lease(name, () => createUpstreamTransport(server))
          : createUpstreamTransport(server),
      description: describeUpstream(server).replace(/^the upstream MCP server /, ''),
    }));
    return new GatewayTransport(members, { separator: upstream.separator, log });
  }
  return 'url' in upstream
    ? new HttpUpstreamTransport(upstream)
    : new ChildProcessTransport(upstream);
}

/**
 * How log lines and errors name the upstream.
 *
 * @example
 * describeUpstream({ command: 'node', args: ['server.js'] }); // 'the upstream MCP server `node server.js`'
 * describeUpstream({ servers: { memory: { command: 'mcp-memory' }, db: { url: 'http://127.0.0.1:9/mcp' } } }); // 'the gateway of memory, db'
 */
export function describeUpstream(upstream: Upstream): string {
  if ('servers' in upstream) return `the gateway of ${Object.keys(upstream.servers).join(', ')}`;
  if ('url' in upstream) return `the upstream MCP server at ${String(upstream.url)}`;
  return `the upstream MCP server \`${[upstream.command, ...(upstream.args ?? [])].join(' ')}\``;
}

/**
 * Runs the proxy on stdio: MCP from `input` (default `process.stdin`) goes to the upstream, the
 * upstream's answers go to `output` (default `process.stdout`), tool results compacted on the
 * way. Resolves when the client disconnects (`'client-closed'`) or the upstream fails
 * (`'upstream-failed'`: it exited, hung past `timeoutMs`, or sent something that is not
 * JSON-RPC; the client's pending requests were answered with JSON-RPC errors saying so).
 *
 * @throws {TypeError} for invalid options, before anything starts.
 * @example
 * const end = await runStdioProxy({ upstream: { command: 'node', args: ['server.js'] }, by: 'tokens' });
 * process.exitCode = exitCodeFor(end);
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<ProxySessionEnd> {
  // The transport first: it starts reading (and buffering) the client's input right away.
  const downstream = new JsonLineTransport({
    input: options.input ?? process.stdin,
    output: options.output ?? process.stdout,
  });
  const pipeline = await createResultPipeline(options, logFor(options));
  const session = createSession(downstream, options, pipeline);
  const { signal } = options;
  const stop = (): void => void session.close('the proxy was stopped');
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (signal?.aborted) await session.close();
    else await session.start();
    return await session.ended;
  } finally {
    signal?.removeEventListener('abort', stop);
    await pipeline.close();
  }
}

/** Options of {@link runStdioProxy}. */
export interface StdioProxyOptions extends ProxyOptions {
  /** Where client messages come from (default `process.stdin`). */
  input?: NodeJS.ReadableStream;
  /** Where answers go (default `process.stdout`). */
  output?: NodeJS.WritableStream;
  /** Ends the session (`'closed'`) when aborted, e.g. on SIGTERM. */
  signal?: AbortSignal;
}

/**
 * Runs the proxy as a Streamable HTTP server: every MCP session a client opens gets its own
 * upstream connection (for a command, its own process). A failing upstream ends only its session;
 * an idle one (`idleTimeoutMs`) is ended and its upstream stopped; at most `maxSessions` are open.
 *
 * @throws {TypeError} for invalid options; an Error when the address is taken or the SDK is missing.
 * @example
 * const server = await listenProxy({ upstream: { command: 'my-server' }, listen: { port: 8931 } });
 * console.error(`MCP endpoint: ${server.url}`);
 */
export async function listenProxy(
  options: ProxyOptions & { listen: ListenAddress } & Omit<SessionLimits, 'log'>,
): Promise<ProxyHttpServer> {
  // Invalid options fail now, not on the first connection; the sessions share one page cache,
  // and the processes of the gateway servers marked `shared`.
  const pipeline = await createResultPipeline(options, logFor(options));
  const shared = new SharedUpstreams();
  const server = await listenHttp(
    options.listen,
    async (downstream) => createSession(downstream, options, pipeline, shared),
    {
      idleTimeoutMs: options.idleTimeoutMs,
      maxSessions: options.maxSessions,
      log: options.log,
      stats: options.stats,
      metrics: options.metrics,
      access: {
        ...options.access,
        notReady: async () => (await options.access?.notReady?.()) ?? (await pipeline.unready()),
      },
    },
    'command' in options.upstream,
  ).catch(async (error: unknown) => {
    await pipeline.close();
    throw error;
  });
  return {
    ...server,
    close: async () => {
      await server.close();
      await shared.close();
      await pipeline.close();
    },
  };
}

function createSession(
  downstream: Transport,
  options: ProxyOptions,
  pipeline: ResultPipeline,
  shared?: SharedUpstreams,
): ProxySession {
  const upstream = createUpstreamTransport(options.upstream, logFor(options), shared);
  return new ProxySession(downstream, upstream, {
    pipeline,
    timeoutMs: options.timeoutMs,
    initTimeoutMs: options.initTimeoutMs,
    verbose: options.verbose,
    observe: options.observe,
    metrics: options.metrics,
    log: options.log,
    upstreamName: describeUpstream(options.upstream),
    tools: { lazy: options.lazyTools, pinned: options.pinTools },
  });
}

function logFor(options: ProxyOptions): (message: string) => void {
  return options.log ?? ((message) => process.stderr.write(`${message}\n`));
}
