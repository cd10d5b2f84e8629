// `toonwire proxy --config FILE`: per-tool settings in a JSON file. Global defaults at the top
// level, per-tool settings under `tools`; a flag given on the command line wins over both.
// Validation names the bad key, so a typo never silently changes nothing.

import { readFile } from 'node:fs/promises';
import { isPlainObject } from '../../codec/objects.js';
import { CANDIDATE_NAMES, type CandidateName, type TokenizerName } from '../../compact/index.js';

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

/** A parsed `--config` file. */
export interface ProxyConfig extends ToolSettings {
  /** The tokenizer budgets and `by: 'tokens'` count with. */
  tokenizer?: TokenizerName;
  /** Per-tool settings, by the tool's name in tools/list. */
  tools?: Record<string, ToolSettings>;
}

const TOOL_KEYS = ['compact', 'candidates', 'by', 'fields', 'maxTokens', 'fieldsParam'] as const;
const GLOBAL_KEYS = [...TOOL_KEYS, 'tokenizer', 'tools'] as const;

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
        `${source}: unknown key "${key}"; the keys are ${GLOBAL_KEYS.join(', ')}${key === 'upstreams' ? ' (one proxy fronts one upstream)' : ''}`,
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
  if (value.tools !== undefined) {
    if (!isPlainObject(value.tools))
      throw new TypeError(`${source}: "tools" must be an object of tool names to settings`);
    const tools: Record<string, ToolSettings> = Object.create(null);
    for (const [name, settings] of Object.entries(value.tools)) {
      const path = `tools.${name}`;
      if (!isPlainObject(settings))
        throw new TypeError(`${source}: "${path}" must be an object such as { "compact": false }`);
      for (const key of Object.keys(settings)) {
        if (!(TOOL_KEYS as readonly string[]).includes(key)) {
          throw new TypeError(
            `${source}: unknown key "${path}.${key}"; a tool's keys are ${TOOL_KEYS.join(', ')}`,
          );
        }
      }
      tools[name] = readToolSettings(settings, source, `${path}.`);
    }
    config.tools = tools;
  }
  return config;
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
 * the file, then the file's top level, then the built-in default (compact, no projection, no
 * budget, no `fields` parameter, the compactor's own measure).
 *
 * @example
 * resolveToolSettings({ maxTokens: 5000, tools: { big: { maxTokens: 20000 } } }, {}, 'big').maxTokens; // 20000
 * resolveToolSettings({ tools: { big: { maxTokens: 20000 } } }, { maxTokens: 100 }, 'big').maxTokens; // 100
 */
export function resolveToolSettings(
  config: ProxyConfig,
  flags: ToolSettings,
  toolName: string | undefined,
): ResolvedToolSettings {
  const own =
    toolName !== undefined && config.tools !== undefined && Object.hasOwn(config.tools, toolName)
      ? config.tools[toolName]!
      : {};
  const get = <K extends keyof ToolSettings>(key: K): ToolSettings[K] =>
    flags[key] ?? own[key] ?? config[key];
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
