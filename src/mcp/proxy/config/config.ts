// `toonwire proxy --config FILE`: per-tool settings in a JSON file. Global defaults at the top
// level, per-tool settings under `tools`; a flag given on the command line wins over both. With
// `servers`, the file also lists the servers of a gateway, each with settings of its own.
// Validation names the bad key, so a typo never silently changes nothing.

import { readFile } from 'node:fs/promises';
import { isPlainObject } from '../../../codec/objects.js';
import { CANDIDATE_NAMES, type CandidateName, type TokenizerName } from '../../../compact/index.js';
import { DEFAULT_SEPARATOR, unqualify } from './names.js';

/** What can be set for every tool (top level) or for one tool (under `tools.<name>`). */
export interface ToolSettings {
  /** `false` leaves the tool's results byte-identical: no compaction, projection or paging. */
  compact?: boolean;
  /** Candidates that compete with JSON (names, or `'all'`). */
  candidates?: CandidateName[];
  /** What the picker compares: `'auto'` (the default), `'bytes'` or `'tokens'`. */
  by?: 'auto' | 'bytes' | 'tokens';
  /** A default projection, used when the model passes no `fields` (comma-separated). */
  fields?: string;
  /** The token budget of one result's text; `0` means none. */
  maxTokens?: number;
  /** Offer the `fields` parameter on the tool (see `--fields-param`). */
  fieldsParam?: boolean;
}

/** One server of a gateway: how to reach it, and settings for its tools. */
export interface ServerConfig extends ToolSettings {
  /** A command that speaks MCP over stdio... */
  command?: string;
  args?: string[];
  /** ...with these environment variables added to the proxy's own. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * With `--listen`, one process of this command for every session instead of one each: for
   * servers that keep no per-client state (see docs/mcp.md). A command server's only.
   */
  shared?: boolean;
  /** ...or a Streamable HTTP endpoint. */
  url?: string;
  headers?: Record<string, string>;
  /** Per-tool settings, by the tool's own name (without the server prefix). */
  tools?: Record<string, ToolSettings>;
}

/** A parsed `--config` file. */
export interface ProxyConfig extends ToolSettings {
  /** The tokenizer budgets and `by: 'tokens'` count with. */
  tokenizer?: TokenizerName;
  /** Per-tool settings, by the tool's name in tools/list. */
  tools?: Record<string, ToolSettings>;
  /** The servers of a gateway, by the name that prefixes their tools. */
  servers?: Record<string, ServerConfig>;
  /** Between a server's name and its tools' names (default `__`). */
  separator?: string;
}

const TOOL_KEYS = ['compact', 'candidates', 'by', 'fields', 'maxTokens', 'fieldsParam'] as const;
const SERVER_KEYS = [
  ...TOOL_KEYS,
  'command',
  'args',
  'env',
  'cwd',
  'shared',
  'url',
  'headers',
  'tools',
] as const;
const GLOBAL_KEYS = [...TOOL_KEYS, 'tokenizer', 'tools', 'servers', 'separator'] as const;

/**
 * Parses and validates the text of a config file. `source` names the file in errors.
 *
 * @throws {TypeError} for text that is not JSON, a key that is not known (named with its path,
 *   e.g. `tools.search.maxToken`), or a value of the wrong kind.
 * @example
 * parseProxyConfig('{ "maxTokens": 20000, "tools": { "read_file": { "compact": false } } }', 'proxy.json');
 * // { maxTokens: 20000, tools: { read_file: { compact: false } } }
 */
export function parseProxyConfig(text: string, source = 'config'): ProxyConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`${source}: not JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(value))
    throw new TypeError(`${source}: expected a JSON object such as { "tools": { ... } }`);
  const config: ProxyConfig = {};
  for (const key of Object.keys(value)) {
    if (!(GLOBAL_KEYS as readonly string[]).includes(key)) {
      throw new TypeError(
        `${source}: unknown key "${key}"; the keys are ${GLOBAL_KEYS.join(', ')}${key === 'upstreams' || key === 'mcpServers' ? ' (the servers of a gateway go under "servers")' : ''}`,
      );
    }
  }
  Object.assign(config, readToolSettings(value, source, ''));
  if (value.tokenizer !== undefined) {
    if (value.tokenizer !== 'o200k_base' && value.tokenizer !== 'cl100k_base') {
      throw new TypeError(
        `${source}: "tokenizer" must be "o200k_base" or "cl100k_base", got ${JSON.stringify(value.tokenizer)}`,
      );
    }
    config.tokenizer = value.tokenizer;
  }
  if (value.tools !== undefined) config.tools = readTools(value.tools, source, 'tools');
  if (value.separator !== undefined) {
    if (typeof value.separator !== 'string' || value.separator === '' || /\s/.test(value.separator))
      throw new TypeError(
        `${source}: "separator" must be a non-empty string without spaces, such as "__", got ${JSON.stringify(value.separator)}`,
      );
    config.separator = value.separator;
  }
  if (value.servers !== undefined) {
    config.servers = readServers(value.servers, source);
    try {
      checkServerNames(Object.keys(config.servers), config.separator ?? DEFAULT_SEPARATOR);
    } catch (error) {
      throw new TypeError(`${source}: ${(error as Error).message}`);
    }
  }
  return config;
}

function readTools(value: unknown, source: string, path: string): Record<string, ToolSettings> {
  if (!isPlainObject(value))
    throw new TypeError(`${source}: "${path}" must be an object of tool names to settings`);
  const tools: Record<string, ToolSettings> = Object.create(null);
  for (const [name, settings] of Object.entries(value)) {
    const at = `${path}.${name}`;
    if (!isPlainObject(settings))
      throw new TypeError(`${source}: "${at}" must be an object such as { "compact": false }`);
    for (const key of Object.keys(settings)) {
      if (!(TOOL_KEYS as readonly string[]).includes(key)) {
        throw new TypeError(
          `${source}: unknown key "${at}.${key}"; a tool's keys are ${TOOL_KEYS.join(', ')}`,
        );
      }
    }
    tools[name] = readToolSettings(settings, source, `${at}.`);
  }
  return tools;
}

function readServers(value: unknown, source: string): Record<string, ServerConfig> {
  if (!isPlainObject(value) || Object.keys(value).length === 0)
    throw new TypeError(
      `${source}: "servers" must be an object of server names to servers, such as { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] } }`,
    );
  const servers: Record<string, ServerConfig> = Object.create(null);
  for (const [name, server] of Object.entries(value)) {
    const path = `servers.${name}`;
    if (!isPlainObject(server))
      throw new TypeError(`${source}: "${path}" must be an object with a "command" or a "url"`);
    for (const key of Object.keys(server)) {
      if (!(SERVER_KEYS as readonly string[]).includes(key))
        throw new TypeError(
          `${source}: unknown key "${path}.${key}"; a server's keys are ${SERVER_KEYS.join(', ')}`,
        );
    }
    const bad = (key: string, expected: string) =>
      new TypeError(
        `${source}: "${path}.${key}" must be ${expected}, got ${JSON.stringify(server[key])}`,
      );
    const entry: ServerConfig = readToolSettings(server, source, `${path}.`);
    const { command, args, env, cwd, url, headers, tools, shared } = server;
    if ((command === undefined) === (url === undefined))
      throw new TypeError(
        `${source}: "${path}" needs either a "command" (stdio) or a "url" (Streamable HTTP), not ${command === undefined ? 'neither' : 'both'}`,
      );
    if (command !== undefined) {
      if (typeof command !== 'string' || command === '')
        throw bad('command', 'a command such as "npx"');
      entry.command = command;
    }
    if (args !== undefined) {
      if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string'))
        throw bad('args', 'a list of strings');
      entry.args = args;
    }
    if (cwd !== undefined) {
      if (typeof cwd !== 'string') throw bad('cwd', 'a directory');
      entry.cwd = cwd;
    }
    if (shared !== undefined) {
      if (typeof shared !== 'boolean') throw bad('shared', 'true or false');
      if (command === undefined)
        throw new TypeError(
          `${source}: "${path}.shared" applies to a "command" server (its process is what sessions share); a "url" server is not started by the proxy`,
        );
      entry.shared = shared;
    }
    for (const [key, map] of [
      ['env', env],
      ['headers', headers],
    ] as const) {
      if (map === undefined) continue;
      if (!isPlainObject(map) || !Object.values(map).every((v) => typeof v === 'string'))
        throw bad(key, 'an object of names to strings');
      entry[key] = map as Record<string, string>;
    }
    if (url !== undefined) {
      let valid = false;
      try {
        valid = typeof url === 'string' && /^https?:$/.test(new URL(url).protocol);
      } catch {
        // reported below
      }
      if (!valid) throw bad('url', 'an http(s) URL of an MCP endpoint');
      entry.url = url as string;
    }
    if (tools !== undefined) entry.tools = readTools(tools, source, `${path}.tools`);
    servers[name] = entry;
  }
  return servers;
}

function readToolSettings(
  value: Record<string, unknown>,
  source: string,
  prefix: string,
): ToolSettings {
  const settings: ToolSettings = {};
  const bad = (key: string, expected: string): TypeError =>
    new TypeError(
      `${source}: "${prefix}${key}" must be ${expected}, got ${JSON.stringify(value[key])}`,
    );
  const { compact, candidates, by, fields, maxTokens, fieldsParam } = value;
  if (compact !== undefined) {
    if (typeof compact !== 'boolean') throw bad('compact', 'true or false');
    settings.compact = compact;
  }
  if (fieldsParam !== undefined) {
    if (typeof fieldsParam !== 'boolean') throw bad('fieldsParam', 'true or false');
    settings.fieldsParam = fieldsParam;
  }
  if (by !== undefined) {
    if (by !== 'auto' && by !== 'bytes' && by !== 'tokens')
      throw bad('by', '"auto", "bytes" or "tokens"');
    settings.by = by;
  }
  if (maxTokens !== undefined) {
    if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 0)
      throw bad('maxTokens', 'a whole number of tokens (0: no budget)');
    settings.maxTokens = maxTokens;
  }
  if (fields !== undefined) {
    const list = typeof fields === 'string' ? fields.split(',').map((f) => f.trim()) : fields;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.some((f) => typeof f !== 'string' || f.split('.').some((part) => part === ''))
    )
      throw bad('fields', 'a comma-separated list of fields or dotted paths, e.g. "id,name"');
    settings.fields = list.join(',');
  }
  if (candidates !== undefined) {
    const names =
      candidates === 'all'
        ? [...CANDIDATE_NAMES]
        : typeof candidates === 'string'
          ? candidates.split(',').map((name) => name.trim())
          : candidates;
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      names.some((name) => !(CANDIDATE_NAMES as readonly unknown[]).includes(name))
    )
      throw bad('candidates', `"all" or a list of ${CANDIDATE_NAMES.join(', ')}`);
    settings.candidates = names as CandidateName[];
  }
  return settings;
}

/**
 * Reads and validates a config file.
 *
 * @throws {TypeError} as {@link parseProxyConfig}; an Error when the file cannot be read.
 * @example
 * const config = await loadProxyConfig('proxy.json');
 */
export async function loadProxyConfig(path: string): Promise<ProxyConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`--config ${path}: cannot read it (${(error as Error).message})`);
  }
  return parseProxyConfig(text, `--config ${path}`);
}

/** A tool's settings with every lever resolved. */
export interface ResolvedToolSettings {
  compact: boolean;
  candidates: CandidateName[] | undefined;
  /** `undefined`: the compactor's default. */
  by: 'auto' | 'bytes' | 'tokens' | undefined;
  fields: string | undefined;
  /** `undefined`: no budget. */
  maxTokens: number | undefined;
  fieldsParam: boolean;
}

/**
 * One tool's settings: a flag given on the command line (`flags`) wins, then the tool's entry in
 * the file, then (in a gateway) its server's entry for it and the server's own settings, then the
 * file's top level, then the built-in default (compact, no projection, no budget, no `fields`
 * parameter, the compactor's own measure).
 *
 * @example
 * resolveToolSettings({ maxTokens: 5000, tools: { big: { maxTokens: 20000 } } }, {}, 'big').maxTokens; // 20000
 * resolveToolSettings({ tools: { big: { maxTokens: 20000 } } }, { maxTokens: 100 }, 'big').maxTokens; // 100
 * resolveToolSettings({ servers: { db: { url: 'http://127.0.0.1:9/mcp', maxTokens: 3000 } } }, {}, 'db__query').maxTokens; // 3000
 */
export function resolveToolSettings(
  config: ProxyConfig,
  flags: ToolSettings,
  toolName: string | undefined,
): ResolvedToolSettings {
  const entry = (tools: Record<string, ToolSettings> | undefined, name: string | undefined) =>
    name !== undefined && tools !== undefined && Object.hasOwn(tools, name) ? tools[name]! : {};
  const own = entry(config.tools, toolName);
  const parts =
    toolName === undefined || config.servers === undefined
      ? undefined
      : unqualify(toolName, config.separator ?? DEFAULT_SEPARATOR);
  const serverName = parts?.server;
  const server: ServerConfig =
    serverName !== undefined &&
    config.servers !== undefined &&
    Object.hasOwn(config.servers, serverName)
      ? config.servers[serverName]!
      : {};
  const serverTool = parts === undefined ? {} : entry(server.tools, parts.name);
  const get = <K extends keyof ToolSettings>(key: K): ToolSettings[K] =>
    flags[key] ?? own[key] ?? serverTool[key] ?? server[key] ?? config[key];
  const maxTokens = get('maxTokens');
  return {
    compact: get('compact') ?? true,
    candidates: get('candidates'),
    by: get('by'),
    fields: get('fields'),
    maxTokens: maxTokens === undefined || maxTokens === 0 ? undefined : maxTokens,
    fieldsParam: get('fieldsParam') ?? false,
  };
}

/**
 * Checks the servers' names: each a non-empty run of letters, digits, `_` and `-`, none holding
 * the separator, so that every `server__tool` names one tool of one server.
 *
 * @throws {TypeError} naming the bad server, and what would collide.
 * @example
 * checkServerNames(['memory', 'files'], '__'); // passes
 * checkServerNames(['my__files'], '__'); // throws: holds the separator
 */
export function checkServerNames(names: readonly string[], separator: string): void {
  if (separator === '' || /\s/.test(separator))
    throw new TypeError(
      `gateway: the separator must be non-empty and without spaces, got ${JSON.stringify(separator)}`,
    );
  if (names.length === 0) throw new TypeError('gateway: no servers; list them under "servers"');
  for (const name of names) {
    if (!/^[A-Za-z0-9_-]+$/.test(name))
      throw new TypeError(
        `gateway: the server name ${JSON.stringify(name)} may hold only letters, digits, "_" and "-" (it prefixes its tools' names)`,
      );
    if (name.includes(separator))
      throw new TypeError(
        `gateway: the server name ${JSON.stringify(name)} holds the separator ${JSON.stringify(separator)}, so "${name}${separator}x" could name two tools; rename it or choose another "separator"`,
      );
  }
}
