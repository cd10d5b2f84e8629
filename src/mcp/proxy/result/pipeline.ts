// The result pipeline: what happens to one tools/call result, in order. Each stage lives in its
// own module and takes the payload view the stage before returned:
//
//   read → choose → project → page → pick → ship → (written to the client) → record
//
// A `ResultPipeline` holds what the stages share across the proxy's sessions: the per-tool
// settings, the encoders, the page cache, the stats and the metrics.

import type { JsonValue } from '../../../codec/types.js';
import {
  byteLength,
  type CandidateName,
  DEFAULT_TOKENIZER,
  loadTokenizer,
  type PickOptions,
  type TokenizerName,
} from '../../../compact/index.js';
import {
  checkStructuredContentSetting,
  type StructuredContentMode,
  type StructuredContentSetting,
} from '../../clients.js';
import { checkMetaKey } from '../../compact-result.js';
import {
  DEFAULT_MAX_COMPACT_BYTES,
  DEFAULT_META_KEY,
  DEFAULT_PAGE_CACHE_BYTES,
  DEFAULT_PAGE_TTL_MS,
} from '../../defaults.js';
import { checkModelTextOptions, type FormatHint, modelText } from '../../model-text.js';
import {
  type ProxyConfig,
  type ResolvedToolSettings,
  resolveToolSettings,
  type ToolSettings,
} from '../config/config.js';
import { DEFAULT_SEPARATOR } from '../config/names.js';
import { type ToolFacts, type ToolRuleOptions, ToolRules } from '../config/tool-rules.js';
import {
  type Continuation,
  PAGE_META_KEY,
  type Page,
  PageCache,
  Pager,
  pageMeta,
  unknownCursorResult,
} from '../paging/pages.js';
import { RedisPageStore } from '../paging/redis-store.js';
import { type PageEncoder, type PageStore, PageStoreUnavailable } from '../paging/store.js';
import type { ProxyMetrics } from '../telemetry/metrics.js';
import type { Encoding } from '../telemetry/outcome.js';
import type { ProxyStats } from '../telemetry/stats.js';
import { choose, type Encoder } from './choose.js';
import { page } from './page.js';
import { pick } from './pick.js';
import { project } from './project.js';
import { read } from './read.js';
import { type RecordTargets, record } from './record.js';
import { type ShippedResult, ship } from './ship.js';

/** How the proxy treats tool results: the flags of `toonwire proxy`, as options. */
export interface PipelineOptions extends ToolRuleOptions {
  /**
   * Size measure the picker compares by (default `'auto'`: UTF-8 bytes, and TOON only where it
   * also costs clearly fewer tokens than JSON; see `pick`).
   */
  by?: 'auto' | 'bytes' | 'tokens';
  /** Tokenizer for `by: 'tokens'`, budgets and token stats (default `'o200k_base'`). */
  tokenizer?: TokenizerName;
  /** Candidates the picker tries (default `['json', 'toon', 'toon-flatten']`). */
  candidates?: PickOptions['candidates'];
  /** `_meta` key naming the strategy (default `'toonwire/encodingStrategy'`). */
  metaKey?: string;
  /** Label rewritten text with its format (see `FormatHint`). */
  hint?: FormatHint;
  /**
   * What happens to `structuredContent` (default `'auto'`):
   * - `'auto'`: `'strip'` for clients known to show the model `structuredContent` instead of the
   *   text (Claude Code, Codex, ...: see `STRUCTURED_CONTENT_CLIENTS`), `'keep'` for the others;
   * - `'keep'`: results keep exactly the `structuredContent` the upstream sent, and none is added;
   * - `'add'`: a rewritten object result without `structuredContent`, of a tool that declares no
   *   `outputSchema`, gets the parsed JSON as `structuredContent` (a JSON view for programs);
   * - `'strip'`: `structuredContent` is removed from every result and `outputSchema` from every
   *   tool in tools/list.
   * Tools with an MCP Apps UI keep both in every mode: their widget renders from them.
   */
  structuredContent?: StructuredContentSetting;
  /** Offer every tool an optional `fields` argument that projects its result's text. */
  fieldsParam?: boolean;
  /** Page results whose text is over this many tokens (`0` or unset: no budget). */
  maxTokens?: number;
  /** Per-tool settings from `--config`; the options above win over it. */
  config?: ProxyConfig;
  /** How long a page cursor stays valid after its last use (default 10 minutes). */
  pageTtlMs?: number;
  /** The most bytes of paged results kept for `toonwire_more` (default 64 MiB). */
  pageCacheBytes?: number;
  /**
   * Where page rests wait: `redis://HOST:PORT` keeps them in Redis (needs `redis`), for replicas
   * behind a load balancer; default this process's memory.
   */
  pageStore?: string;
  /** Receives per-tool savings, in bytes and tokens. */
  stats?: ProxyStats;
  /** Receives what the proxy does. */
  metrics?: ProxyMetrics;
  /**
   * Results with more text than this many UTF-8 bytes are forwarded as they came, unread (default
   * 16 MiB): reading and compacting one takes about 16 times its size in memory.
   */
  maxCompactBytes?: number;
  /**
   * Record what would have shipped, and ship nothing of it (the session forwards every message as
   * it came): no page is kept, and the stats say they are what compaction would have saved.
   */
  observe?: boolean;
}

/** What a {@link ResultPipeline} is made of; {@link createResultPipeline} builds it. */
export interface PipelineParts {
  config: ProxyConfig;
  flags: ToolSettings;
  rules: ToolRules;
  /** One encoder per distinct `by`/`candidates` of the settings. */
  encoders: ReadonlyMap<string, Encoder>;
  structuredContent: StructuredContentSetting;
  metaKey: string;
  stats: ProxyStats | undefined;
  metrics: ProxyMetrics | undefined;
  record: RecordTargets;
  cache: PageStore | undefined;
  /** Results with more text than this are forwarded unread. */
  maxCompactBytes: number;
  /** Observe mode: record, keep no pages (see {@link PipelineOptions.observe}). */
  observe: boolean;
  log: (message: string) => void;
}

/** A tools/call on its way to the upstream. */
export interface ToolCall {
  tool: string | undefined;
  /** The projection the model asked for. */
  fields: string | undefined;
  /** `performance.now()` when it was forwarded. */
  started: number;
}

/**
 * The stages of a result, and what they share. Build it with {@link createResultPipeline}.
 */
export class ResultPipeline {
  /** The pager, when any tool has a token budget. */
  readonly pager: Pager | undefined;
  /** Each tool's settings and encoder, worked out on its first call. */
  private readonly tools = new Map<string, ToolEntry>();
  private readonly defaults: ToolEntry;
  private failures = 0;

  /** Use {@link createResultPipeline}. */
  constructor(private readonly parts: PipelineParts) {
    this.defaults = this.entry(undefined);
    this.pager =
      parts.cache === undefined ? undefined : new Pager(parts.cache, { keep: !parts.observe });
    const cache = parts.cache;
    if (cache !== undefined) parts.metrics?.watchPageCache(() => cache.size);
  }

  /** What happens to `structuredContent` (a mode, or `'auto'` to settle per client). */
  get structuredContent(): StructuredContentSetting {
    return this.parts.structuredContent;
  }

  /** The `_meta` key naming each result's strategy. */
  get metaKey(): string {
    return this.parts.metaKey;
  }

  /** Where `--stats` counts go, if anywhere. */
  get stats(): ProxyStats | undefined {
    return this.parts.stats;
  }

  /** Where `--metrics` go, if anywhere. */
  get metrics(): ProxyMetrics | undefined {
    return this.parts.metrics;
  }

  /**
   * The result the client gets for an upstream's tools/call result: every stage but the last,
   * {@link record}, which the caller runs once the result has gone out (counting tokens for the
   * stats is no reason for the client to wait). Never throws: should a stage fail (it should
   * not), the result goes out as the upstream sent it.
   *
   * @example
   * const shipped = pipeline.ship(result, { tool: 'search', fields: undefined, started }, { name: 'search' }, 'keep');
   * shipped.strategy; // 'toon'
   */
  ship(
    result: unknown,
    call: ToolCall,
    tool: ToolFacts | undefined,
    mode: StructuredContentMode,
  ): PipelineResult {
    // Each text is counted once per result, whichever stage asks first.
    const countTokens = countOnce(this.parts.record.countTokens);
    let shipped: ShippedResult;
    try {
      shipped = this.stages(result, call, tool, mode, countTokens);
    } catch (error) {
      shipped = this.unchanged(result, error);
    }
    return { ...shipped, countTokens };
  }

  /**
   * The last stage: records what {@link ship} made of the result of `call` in the stats and the
   * metrics (a no-op without either).
   *
   * @example
   * pipeline.record(pipeline.ship(result, call, { name: 'search' }, 'keep'), call);
   */
  record(shipped: PipelineResult, call: ToolCall): void {
    if (call.tool === undefined) return;
    record(shipped, call.tool, (performance.now() - call.started) / 1000, {
      ...this.parts.record,
      countTokens: shipped.countTokens,
    });
  }

  /** The stages, in order. */
  private stages(
    result: unknown,
    call: ToolCall,
    tool: ToolFacts | undefined,
    mode: StructuredContentMode,
    countTokens: CountOnce | undefined,
  ): ShippedResult {
    const { settings, encoder } = this.entryFor(call.tool);
    let view = read(
      result,
      tool,
      this.parts.rules.leaveAlone(tool, settings),
      this.parts.maxCompactBytes,
      this.parts.rules.named(tool),
    );
    view = choose(view, settings, call.fields, this.counting(encoder, countTokens));
    view = project(view);
    view = page(view, this.pager, call.tool ?? '');
    view = pick(view);
    return ship(view, mode, this.metaKey);
  }

  /**
   * The answer to `toonwire_more`: the page at the call's cursor, or an `isError` result.
   * Asynchronous when the page store is (Redis); never rejects.
   */
  more(
    params: Record<string, unknown>,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const pager = this.pager!;
    const args = params.arguments as { cursor?: unknown } | undefined;
    const cursor = typeof args === 'object' && args !== null ? args.cursor : undefined;
    const next = typeof cursor === 'string' ? pager.next(cursor) : undefined;
    if (next instanceof Promise)
      return next.then(
        (found) => this.served(found, cursor),
        (error: unknown) => storeErrorResult(error),
      );
    return this.served(next, cursor);
  }

  /** The encoder of `tool`'s pages, as its settings have it (for a rest read from a store). */
  pageEncoderFor(tool: string): PageEncoder {
    const { encoder } = this.entryFor(tool === '' ? undefined : tool);
    return {
      encode: (value) => {
        const { text, encoding } = encoder.encode(value);
        return { text, strategy: encoding };
      },
      countTokens: encoder.countTokens!,
    };
  }

  /** Why the page store cannot be used now, or `undefined` (for `/readyz`). */
  unready(): Promise<string | undefined> {
    return this.parts.cache?.unready() ?? Promise.resolve(undefined);
  }

  /** Lets go of the page store (a Redis connection). */
  async close(): Promise<void> {
    await this.parts.cache?.close();
  }

  /** Writes of page rests still under way, or `undefined` (see `Pager.written`). */
  pagesWritten(): Promise<void> | undefined {
    return this.pager?.written();
  }

  private served(
    next: { page: Page; tool: string } | undefined,
    cursor: unknown,
  ): Record<string, unknown> {
    if (next === undefined) return unknownCursorResult(cursor, this.pager!.cache.ttlMs);
    const { page: served, tool } = next;
    this.parts.metrics?.recordPage(
      tool,
      byteLength(served.text) + byteLength(served.note),
      served.tokens,
    );
    return {
      content: [
        { type: 'text', text: served.text },
        { type: 'text', text: served.note },
      ],
      _meta: { [this.metaKey]: served.strategy, [PAGE_META_KEY]: pageMeta(served) },
    };
  }

  /** The settings of `tool` (flags, then its `--config` entry, then the config's top level). */
  settingsFor(tool: string | undefined): ResolvedToolSettings {
    return this.entryFor(tool).settings;
  }

  private entryFor(tool: string | undefined): ToolEntry {
    if (tool === undefined) return this.defaults;
    let entry = this.tools.get(tool);
    if (entry === undefined) {
      entry = this.entry(tool);
      this.tools.set(tool, entry);
    }
    return entry;
  }

  private entry(tool: string | undefined): ToolEntry {
    const settings = resolveToolSettings(this.parts.config, this.parts.flags, tool);
    return { settings, encoder: this.parts.encoders.get(encoderKey(settings))! };
  }

  /** Why results of `tool` are left alone without a look (see `ToolRules`), or `undefined`. */
  leaveAlone(tool: ToolFacts | undefined): 'config' | 'excluded' | 'content' | undefined {
    return this.parts.rules.leaveAlone(tool, this.settingsFor(tool?.name));
  }

  /** `encoder`, counting tokens with this result's `countTokens`. */
  private counting(encoder: Encoder, countTokens: CountOnce | undefined): Encoder {
    if (countTokens === undefined) return encoder;
    const byTokens = encoder.measure === encoder.countTokens;
    return {
      encode: byTokens
        ? (value) => {
            const text = encoder.encode(value);
            countTokens.seed(text.text, text.size);
            return text;
          }
        : encoder.encode,
      measure: byTokens ? countTokens : encoder.measure,
      countTokens,
    };
  }

  private unchanged(result: unknown, error: unknown): ShippedResult {
    this.failures += 1;
    if (this.failures === 1)
      this.parts.log(
        `toonwire proxy: a tool result could not be compacted and was forwarded as it came (${error instanceof Error ? error.message : String(error)}); please report this`,
      );
    return {
      result,
      changed: false,
      strategy: 'verbatim',
      verbatim: 'failed',
      bytesIn: undefined,
      texts: () => ({ in: [], out: [] }),
      tokensOut: undefined,
      paged: false,
    };
  }
}

/** A tool's settings, and the encoder they pick. */
interface ToolEntry {
  settings: ResolvedToolSettings;
  encoder: Encoder;
}

/** What {@link ResultPipeline.ship} made of a result, and how its record counts tokens. */
export interface PipelineResult extends ShippedResult {
  /** Counts each text of this result once (`undefined`: the proxy counts no tokens). */
  countTokens: CountOnce | undefined;
}

/** A token count that remembers each text's count (for one result), and can be told one. */
interface CountOnce {
  (text: string): number;
  /** Remembers that `text` is `tokens` tokens (the picker counted it already). */
  seed(text: string, tokens: number): void;
}

function countOnce(count: ((text: string) => number) | undefined): CountOnce | undefined {
  if (count === undefined) return undefined;
  const counted = new Map<string, number>();
  const once = ((text: string) => {
    let tokens = counted.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      counted.set(text, tokens);
    }
    return tokens;
  }) as CountOnce;
  once.seed = (text, tokens) => {
    counted.set(text, tokens);
  };
  return once;
}

/** The `isError` result for a page store that could not be reached. */
function storeErrorResult(error: unknown): Record<string, unknown> {
  const text =
    error instanceof PageStoreUnavailable
      ? error.message
      : `toonwire proxy: the next page could not be read (${error instanceof Error ? error.message : String(error)}).`;
  return { isError: true, content: [{ type: 'text', text }] };
}

function encoderKey(settings: Pick<ResolvedToolSettings, 'by' | 'candidates'>): string {
  return `${settings.by}|${settings.candidates?.join(',') ?? ''}`;
}

/**
 * Builds the pipeline for `options`: checks every option (so that no result can fail on one
 * later), loads the tokenizer when a budget, `by: 'tokens'` or stats need it, and builds one
 * encoder per distinct `by`/`candidates` of the config's tools.
 *
 * @throws {TypeError} for invalid options, before anything starts.
 * @example
 * const pipeline = await createResultPipeline({ maxTokens: 20000, fieldsParam: true });
 */
export async function createResultPipeline(
  options: PipelineOptions = {},
  log: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<ResultPipeline> {
  const { config = {}, maxTokens, stats, metrics } = options;
  const metaKey = options.metaKey ?? DEFAULT_META_KEY;
  checkMetaKey(metaKey, 'proxy');
  const structuredContent = options.structuredContent ?? 'auto';
  checkStructuredContentSetting(structuredContent, 'proxy');
  const by = options.by;
  if (by !== undefined && by !== 'auto' && by !== 'bytes' && by !== 'tokens')
    throw new TypeError(`proxy: by must be 'auto', 'bytes' or 'tokens', got ${JSON.stringify(by)}`);
  if (
    maxTokens !== undefined &&
    (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 0)
  ) {
    throw new TypeError(
      `proxy: maxTokens must be a whole number of tokens (0: no budget), got ${maxTokens}`,
    );
  }
  const maxCompactBytes = options.maxCompactBytes ?? DEFAULT_MAX_COMPACT_BYTES;
  if (typeof maxCompactBytes !== 'number' || !(maxCompactBytes > 0))
    throw new TypeError(
      `proxy: maxCompactBytes must be a number of bytes above 0, got ${maxCompactBytes}`,
    );
  const flags: ToolSettings = {
    by,
    candidates: options.candidates as CandidateName[] | undefined,
    maxTokens,
    fieldsParam: options.fieldsParam,
  };
  const tokenizer: TokenizerName = options.tokenizer ?? config.tokenizer ?? DEFAULT_TOKENIZER;
  const all = [undefined, ...Object.keys(config.tools ?? {})].map((tool) =>
    resolveToolSettings(config, flags, tool),
  );
  const budgeted = all.some((settings) => settings.maxTokens !== undefined);
  const byTokens = all.some((settings) => settings.by === 'tokens');
  const countTokens =
    budgeted || byTokens || stats !== undefined ? await loadTokenizer(tokenizer) : undefined;
  if (stats !== undefined) stats.countTokensWith(tokenizer, options.observe === true);
  const encoders = new Map<string, Encoder>();
  for (const settings of all) {
    const key = encoderKey(settings);
    if (encoders.has(key)) continue;
    const pickOptions = {
      by: settings.by,
      tokenizer,
      candidates: settings.candidates,
      hint: options.hint,
    };
    checkModelTextOptions(pickOptions, 'proxy');
    const measure = settings.by === 'tokens' ? countTokens! : byteLength;
    encoders.set(key, {
      encode: (value: JsonValue) => {
        const picked = modelText(value, pickOptions);
        return { text: picked.text, encoding: picked.strategy as Encoding, size: picked.size };
      },
      measure,
      countTokens,
    });
  }
  let pipeline: ResultPipeline | undefined;
  const cache = !budgeted
    ? undefined
    : options.pageStore !== undefined && options.pageStore !== 'memory'
      ? await RedisPageStore.connect({
          url: options.pageStore,
          ttlMs: options.pageTtlMs ?? DEFAULT_PAGE_TTL_MS,
          maxBytes: options.pageCacheBytes ?? DEFAULT_PAGE_CACHE_BYTES,
          encoderFor: (tool) => pipeline!.pageEncoderFor(tool),
          log,
        })
      : new PageCache<Continuation>({ ttlMs: options.pageTtlMs, maxBytes: options.pageCacheBytes });
  pipeline = new ResultPipeline({
    config,
    flags,
    rules: new ToolRules({
      ...options,
      separator: config.servers === undefined ? undefined : (config.separator ?? DEFAULT_SEPARATOR),
    }),
    encoders,
    structuredContent,
    metaKey,
    stats,
    metrics,
    record: { stats, metrics, countTokens, countTokensIn: stats !== undefined || byTokens },
    cache,
    maxCompactBytes,
    observe: options.observe === true,
    log,
  });
  return pipeline;
}
