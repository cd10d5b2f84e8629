// `toonwire proxy`: put the compacting MCP proxy between an MCP client and any MCP server.
// The proxy's code loads only when the command runs, so the rest of the CLI never pays for it.

import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CandidateName, TokenizerName } from '../../compact/index.js';
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_INIT_TIMEOUT_MS,
  DEFAULT_MAX_COMPACT_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_META_KEY,
  DEFAULT_PAGE_CACHE_BYTES,
  DEFAULT_PAGE_TTL_MS,
  DEFAULT_TIMEOUT_MS,
} from '../../mcp/defaults.js';
import type { ProxyConfig } from '../../mcp/proxy/config/config.js';
import type { Authenticator } from '../../mcp/proxy/serve/auth.js';
import type { ListenAccess } from '../../mcp/proxy/serve/listen.js';
import type { MetricsServer, ProxyMetrics } from '../../mcp/proxy/telemetry/metrics.js';
import { upstreamEnvironment } from '../../mcp/proxy/transport/upstream-env.js';
import type { GatewayUpstream } from '../../mcp/proxy.js';
import { CliExit } from '../errors.js';
import { candidatesOption, measureOption, numberParser, tokenizerOption } from '../options.js';

/** Exit codes of `toonwire proxy`. */
export const ProxyExitCode = {
  /** The client disconnected, or the proxy was stopped by SIGINT/SIGTERM. */
  Ok: 0,
  /** The upstream failed: it could not start, exited, hung, or broke the protocol. */
  UpstreamFailed: 1,
  /** Bad command line. */
  Usage: 2,
} as const;

const EXAMPLES = `
Examples:
  # In an MCP client's config, instead of running the server directly:
  toonwire proxy -- npx -y @modelcontextprotocol/server-memory

  # Only some tools, sizes in tokens, savings printed to stderr on exit:
  toonwire proxy --by tokens --tools search,list_items --stats -- node server.js

  # A remote server over Streamable HTTP, served locally over stdio:
  toonwire proxy --upstream-url https://example.com/mcp -H "Authorization: Bearer $TOKEN"

  # Serve over Streamable HTTP instead of stdio (endpoint http://127.0.0.1:8931/mcp):
  toonwire proxy --listen 127.0.0.1:8931 -- node server.js

  # A team's proxy: callers need a token from the file (name:token per line):
  toonwire proxy --listen 0.0.0.0:8931 --auth-tokens tokens.txt -- node server.js

  # Several servers behind one proxy (a gateway), listed under "servers" in a config file:
  toonwire proxy --config gateway.json

  # Measure first: change nothing, and print what compaction would have saved on exit:
  toonwire proxy --observe --stats -- node server.js

Everything passes through unchanged except tools/call results: a text content holding a JSON
object or array becomes the smaller of JSON and TOON. Never rewritten: the results of tools that
return file, resource or document contents (read_text_file, get_file_contents, fetch, names with
a read verb and a content noun, or a read verb and a path/uri/url argument; --include-tools
overrides), --exclude-tools, errors, a text that structuredContent shows to be a string, and
everything that is not JSON text. Several JSON texts that are the items of one list (a Python
FastMCP list result) ship as one text. structuredContent: removed for clients that show the
model structuredContent instead of the text (Claude Code, Codex, Copilot CLI), kept as it came
for the others (--structured-content auto).
Exit codes: 0 client disconnected or stopped by a signal, 1 the upstream failed (could not
start, exited, hung past --timeout, or sent something that is not JSON-RPC), 2 bad usage.`;

const LEVER_EXAMPLES = `
Levers (see docs/mcp.md):
  # Let the model ask for fewer fields, and keep every result under 20,000 tokens:
  toonwire proxy --fields-param --max-tokens 20000 -- node server.js

  # Per-tool settings from a file, Prometheus metrics at http://127.0.0.1:9464/metrics:
  toonwire proxy --config proxy.json --metrics 127.0.0.1:9464 -- node server.js`;

interface ProxyCliOptions {
  upstreamUrl?: string;
  fieldsParam?: boolean;
  maxTokens?: number;
  pageTtl: number;
  pageCacheMb: number;
  pageStore?: string;
  metrics?: ListenTarget;
  config?: string;
  header: string[];
  listen?: ListenTarget;
  by?: 'auto' | 'bytes' | 'tokens';
  tokenizer?: TokenizerName;
  candidates?: CandidateName[];
  tools?: string[];
  lazyTools?: boolean;
  pinTools?: string[];
  excludeTools?: string[];
  includeTools?: string[];
  stats?: boolean;
  timeout: number;
  initTimeout: number;
  verbose?: boolean;
  observe?: boolean;
  maxCompactMb: number;
  idleTimeout: number;
  maxSessions: number;
  metaKey: string;
  hint?: boolean;
  structuredContent: 'auto' | 'keep' | 'add' | 'strip';
  authTokens?: string;
  authIssuer?: string;
  authAudience?: string;
  authScope?: string[];
  authJwks?: string;
  allowUnauthenticated?: boolean;
  allowedOrigins?: string[];
  drainTimeout: number;
}

interface ListenTarget {
  host: string;
  port: number;
}

/**
 * Adds the `proxy` subcommand to the toonwire CLI.
 *
 * @example
 * const program = new Command('toonwire');
 * registerProxyCommand(program);
 * await program.parseAsync(process.argv);
 */
export function registerProxyCommand(program: Command): void {
  program
    .command('proxy')
    .summary('compact the JSON tool results of any MCP server')
    .description(
      'Run an MCP server that fronts one upstream MCP server and forwards every message unchanged, except that JSON text in tool results becomes the smaller of JSON and TOON. Give the upstream as a command after --, or with --upstream-url.',
    )
    .argument('[command...]', 'the upstream MCP server command and its arguments, after --')
    .option(
      '--upstream-url <url>',
      'reach the upstream over Streamable HTTP instead of running a command',
      parseUrl,
    )
    .addOption(
      new Option(
        '-H, --header <header>',
        'an HTTP header for --upstream-url, "Name: value" (repeatable)',
      )
        .argParser(collectHeader)
        .default([], 'none'),
    )
    .option(
      '--listen <host:port>',
      'serve MCP over Streamable HTTP (path /mcp) instead of stdio',
      parseListen,
    )
    .option(
      '--auth-tokens <file>',
      'with --listen: callers must send "Authorization: Bearer TOKEN" with a token of this file (one per line, or name:token)',
    )
    .option(
      '--auth-issuer <url>',
      'with --listen: callers must send an OAuth access token (a JWT) of this authorization server; needs --auth-audience and jose',
      parseUrl,
    )
    .option(
      '--auth-audience <url>',
      "with --auth-issuer: this proxy's URL as the tokens' audience (resource)",
      parseUrl,
    )
    .option(
      '--auth-scope <scopes>',
      'with --auth-issuer: scopes a token must hold (comma-separated); else 403',
      parseList,
    )
    .option(
      '--auth-jwks <url>',
      "with --auth-issuer: the issuer's key set, when its metadata does not name it",
      parseUrl,
    )
    .option(
      '--allow-unauthenticated',
      'with --listen off loopback: start without --auth-tokens or --auth-issuer (a reverse proxy in front authenticates)',
    )
    .option(
      '--allowed-origins <list>',
      'with --listen off loopback: the Origins browsers may call from (comma-separated; others get 403)',
      parseList,
    )
    .option(
      '--drain-timeout <seconds>',
      'with --listen: on SIGTERM, how long calls in flight may take to finish before the upstreams are stopped',
      parseSeconds,
      30,
    )
    .addOption(measureOption())
    .addOption(tokenizerOption())
    .addOption(candidatesOption())
    .option(
      '--tools <list>',
      'compact only these tools (comma-separated names); default all',
      parseList,
    )
    .option(
      '--lazy-tools',
      'list toonwire_find_tools and toonwire_call_tool instead of every tool: definitions on demand',
    )
    .option(
      '--pin-tools <list>',
      'with --lazy-tools: these tools stay listed (comma-separated names)',
      parseList,
    )
    .option(
      '--exclude-tools <list>',
      "never rewrite these tools' results (comma-separated names)",
      parseList,
    )
    .option(
      '--include-tools <list>',
      'compact these tools even if the content policy takes them for file/document readers',
      parseList,
    )
    .option(
      '--stats',
      'log per-tool bytes and tokens saved (tokens counted with --tokenizer) and what shipped, to stderr on exit',
    )
    .option(
      '--timeout <ms>',
      'end with an error when the upstream leaves a call unanswered this long; 0 disables',
      parseTimeout,
      DEFAULT_TIMEOUT_MS,
    )
    .option(
      '--init-timeout <ms>',
      'how long the upstream may take to start and answer initialize (a cold start is not a hang); 0 disables',
      parseTimeout,
      DEFAULT_INIT_TIMEOUT_MS,
    )
    .option('--verbose', 'log every upstream or client problem in full, not each distinct one once')
    .option(
      '--observe',
      'change nothing: forward every message as it came, and record in --stats and --metrics what compaction would have saved',
    )
    .option(
      '--max-compact-mb <n>',
      'forward results with more text than this as they came, unread (reading one takes about 16x its size in memory)',
      parsePositive,
      DEFAULT_MAX_COMPACT_BYTES / 2 ** 20,
    )
    .option(
      '--idle-timeout <seconds>',
      'with --listen: end a session (and stop its upstream) after this long with no open request (an open GET stream keeps it while its connection lives); 0 never',
      parseSeconds,
      DEFAULT_IDLE_TIMEOUT_MS / 1000,
    )
    .option(
      '--max-sessions <n>',
      'with --listen: at most this many sessions (each an upstream process for a command) at once; beyond it the longest idle is ended, or the new one refused with 503',
      parseCount,
      DEFAULT_MAX_SESSIONS,
    )
    .option(
      '--meta-key <key>',
      "the _meta key naming each compacted result's strategy",
      DEFAULT_META_KEY,
    )
    .option('--hint', 'start compacted text with a one-line label naming its format')
    .addOption(
      new Option(
        '--structured-content <mode>',
        'auto: strip for clients known to show the model structuredContent instead of the text, keep for the others; keep: pass structuredContent through as sent; add: also give rewritten results without it the parsed JSON; strip: remove it from results and outputSchema from tools/list (MCP Apps tools keep both)',
      )
        .choices(['auto', 'keep', 'add', 'strip'])
        .default('auto'),
    )
    .option(
      '--fields-param',
      'give every tool an optional `fields` argument (comma-separated fields per item) that projects its result',
    )
    .option(
      '--max-tokens <n>',
      'ship results over n tokens (counted with --tokenizer) as pages of whole rows; the tool toonwire_more returns the next; 0 disables',
      parseTokenBudget,
    )
    .option(
      '--page-ttl <seconds>',
      'how long a page cursor stays valid after its last use',
      parsePositive,
      DEFAULT_PAGE_TTL_MS / 1000,
    )
    .option(
      '--page-cache-mb <n>',
      'the most paged results kept for toonwire_more, in MiB of JSON (the oldest go first)',
      parsePositive,
      DEFAULT_PAGE_CACHE_BYTES / 2 ** 20,
    )
    .option(
      '--page-store <url>',
      'keep page rests for toonwire_more in Redis (redis://HOST:PORT; needs the redis package), so any replica serves any cursor; default memory',
    )
    .option(
      '--metrics <host:port>',
      'serve Prometheus metrics at http://host:port/metrics (needs prom-client)',
      parseListen,
    )
    .option(
      '--config <file>',
      'per-tool settings from a JSON file (compact, candidates, by, fields, maxTokens, fieldsParam); flags win',
    )
    .addHelpText('after', EXAMPLES)
    .addHelpText('after', LEVER_EXAMPLES)
    .action(async (upstreamCommand: string[], options: ProxyCliOptions, command: Command) => {
      if (options.upstreamUrl !== undefined && upstreamCommand.length > 0) {
        command.error(
          'error: give the upstream either as a command after -- or with --upstream-url, not both',
          {
            exitCode: ProxyExitCode.Usage,
          },
        );
      }
      // Flags given on the command line win over --config; their defaults do not.
      if (command.getOptionValueSource('by') === 'default') delete options.by;
      if (command.getOptionValueSource('tokenizer') === 'default') delete options.tokenizer;
      let config: ProxyConfig | undefined;
      if (options.config !== undefined) {
        const { loadProxyConfig } = await import('../../mcp/proxy/config/config.js');
        try {
          config = await loadProxyConfig(options.config);
        } catch (error) {
          command.error(`error: ${(error as Error).message}`, { exitCode: ProxyExitCode.Usage });
        }
      }
      const gateway = config?.servers !== undefined;
      if (gateway && (options.upstreamUrl !== undefined || upstreamCommand.length > 0)) {
        command.error(
          `error: --config ${options.config} lists servers (a gateway); give no command after -- and no --upstream-url`,
          { exitCode: ProxyExitCode.Usage },
        );
      }
      if (!gateway && options.upstreamUrl === undefined && upstreamCommand.length === 0) {
        command.error(
          'error: no upstream MCP server; give its command after --, e.g. `toonwire proxy -- node server.js`, use --upstream-url URL, or list servers under "servers" in a --config file',
          {
            exitCode: ProxyExitCode.Usage,
          },
        );
      }
      if (options.header.length > 0 && options.upstreamUrl === undefined) {
        command.error('error: --header only applies to --upstream-url', {
          exitCode: ProxyExitCode.Usage,
        });
      }
      const access = await accessFor(options, command);
      const exitCode = await runProxyCommand(upstreamCommand, options, config, access);
      await flush(process.stdout);
      await flush(process.stderr);
      // Nothing may keep the process alive once the proxy is done (runCli sets the exit code).
      process.stdin.destroy();
      if (exitCode !== ProxyExitCode.Ok) throw new CliExit(exitCode);
    });
}

/** Who may call `--listen`, from the auth flags; usage errors exit with code 2. */
async function accessFor(
  options: ProxyCliOptions,
  command: Command,
): Promise<ListenAccess | undefined> {
  const usage = (message: string): never =>
    command.error(`error: ${message}`, { exitCode: ProxyExitCode.Usage });
  const oauth = options.authIssuer !== undefined || options.authAudience !== undefined;
  const given = options.authTokens !== undefined || oauth;
  if (options.listen === undefined) {
    if (given || options.allowUnauthenticated || options.allowedOrigins !== undefined)
      usage('--auth-*, --allow-unauthenticated and --allowed-origins only apply to --listen');
    return undefined;
  }
  if (options.authTokens !== undefined && oauth)
    usage('give --auth-tokens or --auth-issuer, not both');
  if (oauth && (options.authIssuer === undefined || options.authAudience === undefined))
    usage('--auth-issuer and --auth-audience go together');
  if (!oauth && (options.authScope !== undefined || options.authJwks !== undefined))
    usage('--auth-scope and --auth-jwks only apply to --auth-issuer');
  const { unauthenticatedRefusal, loadTokenFile, oauthAuthenticator } = await import(
    '../../mcp/proxy/serve/auth.js'
  );
  const refusal = unauthenticatedRefusal(
    options.listen.host,
    given,
    options.allowUnauthenticated === true,
  );
  if (refusal !== undefined) usage(refusal);
  let auth: Authenticator | undefined;
  try {
    if (options.authTokens !== undefined) auth = await loadTokenFile(options.authTokens);
    else if (oauth)
      auth = await oauthAuthenticator({
        issuer: options.authIssuer!,
        audience: options.authAudience!,
        scopes: options.authScope,
        jwksUrl: options.authJwks,
      });
  } catch (error) {
    usage((error as Error).message);
  }
  return {
    auth,
    allowUnauthenticated: options.allowUnauthenticated === true,
    allowedOrigins: options.allowedOrigins,
  };
}

async function runProxyCommand(
  upstreamCommand: string[],
  options: ProxyCliOptions,
  config: ProxyConfig | undefined,
  access: ListenAccess | undefined,
): Promise<number> {
  const proxy = await import('../../mcp/proxy.js');
  const stats = options.stats ? new proxy.ProxyStats() : undefined;
  const [command, ...args] = upstreamCommand;
  const settings = {
    upstream:
      config?.servers !== undefined
        ? gatewayUpstream(config)
        : options.upstreamUrl !== undefined
          ? {
              url: options.upstreamUrl,
              headers: Object.fromEntries(options.header.map(splitHeader)),
            }
          : { command: command!, args },
    by: options.by,
    tokenizer: options.tokenizer,
    candidates: options.candidates,
    tools: options.tools,
    lazyTools: options.lazyTools === true,
    pinTools: options.pinTools,
    excludeTools: options.excludeTools,
    includeTools: options.includeTools,
    metaKey: options.metaKey,
    hint: options.hint === true,
    structuredContent: options.structuredContent,
    timeoutMs: options.timeout,
    initTimeoutMs: options.initTimeout,
    verbose: options.verbose === true,
    observe: options.observe === true,
    maxCompactBytes: options.maxCompactMb * 2 ** 20,
    stats,
    config,
    fieldsParam: options.fieldsParam,
    maxTokens: options.maxTokens,
    pageTtlMs: options.pageTtl * 1000,
    pageCacheBytes: options.pageCacheMb * 2 ** 20,
    pageStore: options.pageStore,
    metrics: undefined as ProxyMetrics | undefined,
  };
  let metricsServer: MetricsServer | undefined;
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    if (options.metrics !== undefined) {
      settings.metrics = await proxy.ProxyMetrics.create();
      metricsServer = await settings.metrics.serve(options.metrics);
      process.stderr.write(`toonwire proxy: metrics at ${metricsServer.url}\n`);
    }
    if (options.listen !== undefined) {
      const server = await proxy.listenProxy({
        ...settings,
        listen: options.listen,
        idleTimeoutMs: options.idleTimeout * 1000,
        maxSessions: options.maxSessions,
        access,
      });
      if (access?.auth === undefined && access?.allowUnauthenticated)
        process.stderr.write(
          `toonwire proxy: WARNING: no authentication (--allow-unauthenticated): anyone who can reach ${server.url} uses ${proxy.describeUpstream(settings.upstream)} and the credentials it is given\n`,
        );
      process.stderr.write(
        `toonwire proxy: serving MCP at ${server.url} for ${proxy.describeUpstream(settings.upstream)}${access?.auth === undefined ? '' : `, to callers with ${access.auth.description}`}\n`,
      );
      await new Promise((resolve) =>
        stopped.signal.addEventListener('abort', resolve, { once: true }),
      );
      process.stderr.write(
        `toonwire proxy: stopping: no new requests; calls in flight get up to ${options.drainTimeout} s (--drain-timeout)\n`,
      );
      const drained = await server.drain(options.drainTimeout * 1000);
      if (!drained)
        process.stderr.write(
          `toonwire proxy: calls still in flight after --drain-timeout ${options.drainTimeout} s are ended\n`,
        );
      await server.close();
      return ProxyExitCode.Ok;
    }
    const end = await proxy.runStdioProxy({ ...settings, signal: stopped.signal });
    return proxy.exitCodeFor(end);
  } catch (error) {
    process.stderr.write(
      `toonwire proxy: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return ProxyExitCode.UpstreamFailed;
  } finally {
    if (stats !== undefined) process.stderr.write(stats.format());
    await metricsServer?.close();
  }
}

/** The gateway of a config's servers: each a command (its env added to ours) or a URL. */
function gatewayUpstream(config: ProxyConfig): GatewayUpstream {
  const servers: GatewayUpstream['servers'] = {};
  for (const [name, server] of Object.entries(config.servers!)) {
    servers[name] =
      server.url !== undefined
        ? { url: server.url, headers: server.headers }
        : {
            command: server.command!,
            args: server.args,
            cwd: server.cwd,
            shared: server.shared,
            env:
              server.env === undefined
                ? undefined
                : { ...upstreamEnvironment(process.env), ...server.env },
          };
  }
  return { servers, separator: config.separator };
}

function flush(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

function parseUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // reported below
  }
  throw new InvalidArgumentError(
    'expected an http(s) URL of an MCP endpoint, e.g. https://example.com/mcp',
  );
}

function collectHeader(value: string, previous: string[]): string[] {
  splitHeader(value);
  return [...previous, value];
}

function splitHeader(header: string): [string, string] {
  const colon = header.indexOf(':');
  const name = colon === -1 ? '' : header.slice(0, colon).trim();
  if (name === '' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new InvalidArgumentError('expected "Name: value", e.g. "Authorization: Bearer abc"');
  }
  return [name, header.slice(colon + 1).trim()];
}

function parseListen(value: string): ListenTarget {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(value);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new InvalidArgumentError(
      'expected host:port or a port, e.g. 127.0.0.1:8931 (port 0 picks a free one)',
    );
  }
  const host = match[1] === undefined ? '127.0.0.1' : match[1].replace(/^\[|\]$/g, '');
  return { host, port };
}

function parseList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new InvalidArgumentError('expected comma-separated names');
  return names;
}

const parseTimeout = numberParser({
  whole: true,
  least: 0,
  message: 'expected a whole number of milliseconds (0 disables the timeout)',
});

const parseSeconds = numberParser({
  whole: false,
  least: 0,
  message: 'expected a number of seconds, e.g. 120 (0 never ends idle sessions)',
});

const parseCount = numberParser({
  whole: true,
  least: 1,
  message: 'expected a whole number of sessions >= 1, e.g. 32',
});

const parseTokenBudget = numberParser({
  whole: true,
  least: 0,
  message: 'expected a whole number of tokens, e.g. 20000 (0: no budget)',
});

const parsePositive = numberParser({
  whole: false,
  least: 'above 0',
  message: 'expected a number greater than 0',
});
