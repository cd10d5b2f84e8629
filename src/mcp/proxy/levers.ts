// The proxy's levers around the compactor: per-tool settings (`--config`), projection for every
// tool (`--fields-param`), token budgets with lossless paging (`--max-tokens`, `toonwire_more`)
// and metrics (`--metrics`). A session asks its LeverSession three things: how tools/list looks
// to the client, what to do with a tools/call request, and what result to ship.

import { isPlainObject } from '../../codec/objects.js';
import type { JsonValue } from '../../codec/types.js';
import {
  byteLength,
  type CandidateName,
  DEFAULT_TOKENIZER,
  loadTokenizer,
  type TokenizerName,
} from '../../compact/index.js';
import { DEFAULT_META_KEY } from '../defaults.js';
import { modelText } from '../model-text.js';
import {
  type ProxyConfig,
  type ResolvedToolSettings,
  resolveToolSettings,
  type ToolSettings,
} from './config.js';
import { projectFields, takeFieldsArgument, withFieldsParam } from './fields-param.js';
import { losesPrecision } from './json-numbers.js';
import type { ProxyMetrics } from './metrics.js';
import {
  type Continuation,
  MORE_TOOL,
  MORE_TOOL_NAME,
  mainList,
  PAGE_META_KEY,
  type Page,
  PageCache,
  type PageEncoder,
  Pager,
  pageMeta,
  pageValue,
  unknownCursorResult,
} from './paging.js';
import {
  type CompactionOutcome,
  createToolResultCompactor,
  type OutputSchemaKnowledge,
  parseJsonContainer,
  type ToolResultCompactionOptions,
  type ToolResultCompactor,
} from './rewrite.js';

/** The levers' options: flags (which win over `config`), the config file, cache and metrics. */
export interface LeverOptions extends ToolResultCompactionOptions {
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
  /** Receives what the proxy does. */
  metrics?: ProxyMetrics;
}

/** A result's text is first counted on a prefix of this many characters per budgeted token. */
const PREFIX_CHARS_PER_TOKEN = 8;
/** Tokens a prefix may have beyond the whole text's count of the same characters, at most. */
const CUT_MARGIN = 16;

/** What a session should do with a tools/call request. */
export type CallPlan =
  | { kind: 'answer'; result: Record<string, unknown> }
  | {
      kind: 'forward';
      /** New params for the upstream (the `fields` argument removed), or `undefined`: as sent. */
      params: Record<string, unknown> | undefined;
      call: ToolCall;
    };

/** A tools/call on its way to the upstream. */
export interface ToolCall {
  tool: string | undefined;
  /** The projection the model asked for. */
  fields: string | undefined;
  /** `performance.now()` when it was forwarded. */
  started: number;
}

/**
 * The levers of one proxy, shared by its sessions (one page cache, one set of compactors).
 * Build it with {@link createToolLevers}; each session gets a {@link LeverSession}.
 */
export class ToolLevers {
  readonly pager: Pager | undefined;
  private readonly settings = new Map<string, ResolvedToolSettings>();
  private readonly defaults: ResolvedToolSettings;

  /** Use {@link createToolLevers}. */
  constructor(
    private readonly config: ProxyConfig,
    private readonly flags: ToolSettings,
    private readonly compactors: ReadonlyMap<string, ToolResultCompactor>,
    private readonly countTokens: ((text: string) => number) | undefined,
    private readonly pickOptions: Pick<ToolResultCompactionOptions, 'tokenizer' | 'hint'>,
    readonly metaKey: string,
    readonly metrics: ProxyMetrics | undefined,
    cache: PageCache<Continuation> | undefined,
  ) {
    this.defaults = resolveToolSettings(config, flags, undefined);
    this.pager = cache === undefined ? undefined : new Pager(cache);
    if (cache !== undefined) metrics?.watchPageCache(() => cache.size);
  }

  /** A new session's view of the levers. */
  session(): LeverSession {
    return new LeverSession(this);
  }

  /** The settings of `tool`. */
  settingsFor(tool: string | undefined): ResolvedToolSettings {
    if (tool === undefined) return this.defaults;
    let settings = this.settings.get(tool);
    if (settings === undefined) {
      settings = resolveToolSettings(this.config, this.flags, tool);
      this.settings.set(tool, settings);
    }
    return settings;
  }

  /** The compactor for a tool's settings. */
  compactorFor(settings: ResolvedToolSettings): ToolResultCompactor {
    return this.compactors.get(compactorKey(settings))!;
  }

  /** Exact tokens of `text`; only callable when a budget or `by: 'tokens'` is set somewhere. */
  tokens(text: string): number {
    return this.countTokens!(text);
  }

  /** Whether this proxy counts tokens at all. */
  get countsTokens(): boolean {
    return this.countTokens !== undefined;
  }

  /** How a tool's pages are encoded: the picker with the tool's options, counted exactly. */
  encoder(settings: ResolvedToolSettings): PageEncoder {
    const options = {
      by: settings.by,
      candidates: settings.candidates,
      tokenizer: this.pickOptions.tokenizer,
      hint: this.pickOptions.hint,
    };
    return {
      encode: (value) => modelText(value, options),
      countTokens: (text) => this.tokens(text),
    };
  }
}

function compactorKey(
  settings: Pick<ResolvedToolSettings, 'compact' | 'by' | 'candidates'>,
): string {
  return `${settings.compact}|${settings.by}|${settings.candidates?.join(',') ?? ''}`;
}

/**
 * Builds the levers for `options`, loading the tokenizer when a budget or `by: 'tokens'` needs
 * it, and one compactor per distinct `by`/`candidates` of the config's tools.
 *
 * @throws {TypeError} for invalid options, before anything starts.
 * @example
 * const levers = await createToolLevers({ maxTokens: 20000, fieldsParam: true });
 * const session = levers.session();
 */
export async function createToolLevers(options: LeverOptions = {}): Promise<ToolLevers> {
  const { config = {}, fieldsParam, maxTokens, metrics, ...compaction } = options;
  if (
    maxTokens !== undefined &&
    (!Number.isSafeInteger(maxTokens) || maxTokens < 0 || typeof maxTokens !== 'number')
  ) {
    throw new TypeError(
      `proxy: maxTokens must be a whole number of tokens (0: no budget), got ${maxTokens}`,
    );
  }
  const flags: ToolSettings = {
    by: compaction.by,
    candidates: compaction.candidates as CandidateName[] | undefined,
    maxTokens,
    fieldsParam,
  };
  const tokenizer: TokenizerName = compaction.tokenizer ?? config.tokenizer ?? DEFAULT_TOKENIZER;
  const tools = Object.keys(config.tools ?? {});
  const all = [undefined, ...tools].map((tool) => resolveToolSettings(config, flags, tool));
  const compactors = new Map<string, ToolResultCompactor>();
  for (const settings of all) {
    const key = compactorKey(settings);
    if (compactors.has(key)) continue;
    compactors.set(
      key,
      await createToolResultCompactor({
        ...compaction,
        tokenizer,
        by: settings.by,
        candidates: settings.candidates,
        // `compact: false`: a compactor that passes every result through untouched.
        ...(settings.compact ? {} : { tools: [] }),
      }),
    );
  }
  const budgeted = all.some((settings) => settings.maxTokens !== undefined);
  const needsTokens = budgeted || all.some((settings) => settings.by === 'tokens');
  const countTokens = needsTokens ? await loadTokenizer(tokenizer) : undefined;
  const cache = budgeted
    ? new PageCache<Continuation>({ ttlMs: options.pageTtlMs, maxBytes: options.pageCacheBytes })
    : undefined;
  return new ToolLevers(
    config,
    flags,
    compactors,
    countTokens,
    { tokenizer, hint: compaction.hint },
    compaction.metaKey ?? DEFAULT_META_KEY,
    metrics,
    cache,
  );
}

/** The levers as one session sees them: which tools got the `fields` argument. */
export class LeverSession {
  private readonly withFields = new Set<string>();

  constructor(readonly levers: ToolLevers) {}

  /**
   * The tools/list result the client sees, or `undefined` for the result as it is: tools get
   * the `fields` argument where settings ask for it, and the last page of the list gets
   * `toonwire_more` when there is a budget.
   */
  toolsList(result: unknown): Record<string, unknown> | undefined {
    if (!isPlainObject(result) || !Array.isArray(result.tools)) return undefined;
    let changed = false;
    const tools: unknown[] = [];
    for (const tool of result.tools as unknown[]) {
      const name = isPlainObject(tool) && typeof tool.name === 'string' ? tool.name : undefined;
      if (name === MORE_TOOL_NAME && this.levers.pager !== undefined) {
        changed = true; // the proxy's own tool of that name answers
        continue;
      }
      const settings = this.levers.settingsFor(name);
      const compacted =
        name !== undefined &&
        settings.compact &&
        this.levers.compactorFor(settings).passThroughReason({
          name,
          inputSchema: (tool as { inputSchema?: unknown }).inputSchema,
        }) === undefined;
      const augmented = compacted && settings.fieldsParam ? withFieldsParam(tool) : undefined;
      if (augmented !== undefined) {
        this.withFields.add(name!);
        changed = true;
        tools.push(augmented);
      } else tools.push(tool);
    }
    if (this.levers.pager !== undefined && result.nextCursor === undefined) {
      tools.push(MORE_TOOL);
      changed = true;
    }
    return changed ? { ...result, tools } : undefined;
  }

  /** What to do with a tools/call request's params. */
  call(params: unknown): CallPlan {
    const started = performance.now();
    const tool = isPlainObject(params) && typeof params.name === 'string' ? params.name : undefined;
    if (tool === MORE_TOOL_NAME && this.levers.pager !== undefined)
      return { kind: 'answer', result: this.more(params as Record<string, unknown>) };
    if (tool === undefined || !this.withFields.has(tool) || !isPlainObject(params))
      return { kind: 'forward', params: undefined, call: { tool, fields: undefined, started } };
    const { args, fields } = takeFieldsArgument(params.arguments);
    const forwarded = args === params.arguments ? undefined : { ...params, arguments: args };
    return { kind: 'forward', params: forwarded, call: { tool, fields, started } };
  }

  /**
   * The result to ship for an upstream's tools/call result: projected when the model (or the
   * config) asked for fields, compacted, and cut into pages when over the tool's budget.
   */
  result(
    result: unknown,
    call: ToolCall,
    outputSchema: OutputSchemaKnowledge,
    inputSchema?: unknown,
  ): CompactionOutcome {
    const { levers } = this;
    const tool = call.tool;
    if (tool !== undefined)
      levers.metrics?.observeUpstreamLatency(tool, (performance.now() - call.started) / 1000);
    const settings = levers.settingsFor(tool);
    const compactor = levers.compactorFor(settings);
    const eligible =
      settings.compact &&
      isPlainObject(result) &&
      result.isError !== true &&
      Array.isArray(result.content) &&
      compactor.passThroughReason(tool === undefined ? undefined : { name: tool, inputSchema }) ===
        undefined;
    const spec = eligible ? (call.fields ?? settings.fields) : undefined;
    const budget = eligible ? settings.maxTokens : undefined;

    // Parse the JSON texts once, for projection and paging.
    const original = result as Record<string, unknown>;
    const values = new Map<number, JsonValue>();
    let working = result;
    const notes: string[] = [];
    if (spec !== undefined || budget !== undefined) {
      const content = original.content as unknown[];
      content.forEach((block, index) => {
        const text = textOf(block);
        const value = text === undefined ? undefined : parseJsonContainer(text);
        if (value !== undefined) values.set(index, value as JsonValue);
      });
      if (spec !== undefined && values.size > 0) {
        const projectedContent = [...content];
        for (const [index, value] of values) {
          const projection = projectFields(value, spec);
          values.set(index, projection.value);
          if (projection.note !== undefined) notes.push(projection.note);
          projectedContent[index] = {
            ...(content[index] as object),
            text: JSON.stringify(projection.value),
          };
        }
        working = { ...original, content: projectedContent };
      }
    }

    if (budget !== undefined) {
      const compact = (standIn: unknown) =>
        compactor.compact(standIn, tool, outputSchema, inputSchema);
      const paged = this.pageFirst(
        original,
        working,
        values,
        notes,
        settings,
        budget,
        tool,
        compact,
      );
      if (paged !== undefined) {
        if (tool !== undefined) this.record(tool, result, paged.outcome, settings, paged.page);
        return paged.outcome;
      }
    }
    let outcome = compactor.compact(working, tool, outputSchema, inputSchema);
    if (working !== result) outcome = this.afterProjection(original, outcome);
    let shipped = outcome.result as Record<string, unknown>;
    let pageServed: Page | undefined;
    if (notes.length > 0) shipped = withNotes(shipped, notes);
    if (budget !== undefined) {
      const paged = this.overBudget(original, shipped, values, settings, budget, tool);
      if (paged !== undefined) {
        shipped = paged.result;
        pageServed = paged.page;
      }
    }
    if (shipped !== outcome.result) outcome = { ...outcome, result: shipped, changed: true };
    if (pageServed !== undefined) {
      const index = [...values.keys()][0]!;
      outcome = {
        ...outcome,
        blocks: outcome.blocks.map((block) =>
          block.before === textOf((original.content as unknown[])[index])
            ? {
                before: block.before,
                after: pageServed.text,
                strategy: pageServed.strategy,
              }
            : block,
        ),
      };
    }
    if (tool !== undefined) this.record(tool, result, outcome, settings, pageServed);
    return outcome;
  }

  /**
   * The fast way for the common large result, one JSON text holding a long list: cut the first
   * page before compacting anything, and ship it when it holds under half of the rows (the whole
   * result is then surely over budget, so compacting and counting it all would be wasted).
   * `undefined` when that does not apply; the general way (compact, count, then page) follows.
   */
  private pageFirst(
    original: Record<string, unknown>,
    working: unknown,
    values: ReadonlyMap<number, JsonValue>,
    notes: readonly string[],
    settings: ResolvedToolSettings,
    budget: number,
    tool: string | undefined,
    compact: (result: unknown) => CompactionOutcome,
  ): { outcome: CompactionOutcome; page: Page } | undefined {
    const { levers } = this;
    const pager = levers.pager;
    const content = (working as { content: unknown[] }).content;
    const texts = content.map(textOf).filter((text) => text !== undefined);
    const [only] = values;
    if (pager === undefined || only === undefined || values.size !== 1 || texts.length !== 1)
      return undefined;
    const [index, value] = only;
    const list = mainList(value);
    if (list === undefined || list.rows.length < 2 || byteLength(texts[0]!) <= budget)
      return undefined;
    const reserved = notes.reduce((sum, note) => sum + levers.tokens(note), 0);
    const page = pager.first(
      {
        tool: tool ?? '',
        value,
        list,
        budget,
        encoder: levers.encoder(settings),
        metaKey: levers.metaKey,
      },
      reserved,
    );
    if (page.to * 2 >= list.rows.length) {
      pager.drop(page);
      return undefined;
    }
    // The compactor still decides what becomes of structuredContent and _meta: give it the page.
    const standIn = [...content];
    standIn[index] = {
      ...(content[index] as object),
      text: JSON.stringify(pageValue(value, list, 0, page.to)),
    };
    const compacted = compact({ ...original, content: standIn }).result as Record<string, unknown>;
    const shipped = [...standIn];
    shipped[index] = { ...(content[index] as object), text: page.text };
    const meta = isPlainObject(compacted._meta) ? compacted._meta : {};
    const result: Record<string, unknown> = {
      ...compacted,
      content: [
        ...shipped,
        ...notes.map((text) => ({ type: 'text', text })),
        { type: 'text', text: page.note },
      ],
      _meta: { ...meta, [levers.metaKey]: page.strategy, [PAGE_META_KEY]: pageMeta(page) },
    };
    if (!Object.hasOwn(original, 'structuredContent')) delete result.structuredContent;
    const before = textOf((original.content as unknown[])[index]) ?? '';
    return {
      outcome: {
        result,
        changed: true,
        blocks: [{ before, after: page.text, strategy: page.strategy }],
      },
      page,
    };
  }

  /** Blocks name the upstream's texts again (not the projected ones), and JSON counts as a strategy. */
  private afterProjection(
    original: Record<string, unknown>,
    outcome: CompactionOutcome,
  ): CompactionOutcome {
    const shipped = outcome.result as Record<string, unknown>;
    const originalTexts = (original.content as unknown[])
      .map(textOf)
      .filter((t) => t !== undefined);
    const blocks = outcome.blocks.map((block, i) => {
      const before = originalTexts[i] ?? block.before;
      if (before === block.before) return block;
      return { before, after: block.after, strategy: block.strategy ?? 'json' };
    });
    const meta = isPlainObject(shipped._meta) ? shipped._meta : {};
    const strategy = meta[this.levers.metaKey] ?? 'json';
    return {
      ...outcome,
      result: { ...shipped, _meta: { ...meta, [this.levers.metaKey]: strategy } },
      changed: true,
      blocks,
    };
  }

  /** The first page of `shipped` when its text is over `budget` tokens; a warning when it cannot be paged. */
  private overBudget(
    original: Record<string, unknown>,
    shipped: Record<string, unknown>,
    values: ReadonlyMap<number, JsonValue>,
    settings: ResolvedToolSettings,
    budget: number,
    tool: string | undefined,
  ): { result: Record<string, unknown>; page: Page | undefined } | undefined {
    const { levers } = this;
    const content = shipped.content as unknown[];
    const texts = content.map(textOf);
    // A token is at least one byte, so text within the budget in bytes is within it in tokens.
    if (texts.reduce((sum, text) => sum + (text === undefined ? 0 : byteLength(text)), 0) <= budget)
      return undefined;
    if (!this.exceeds(texts, budget)) return undefined;
    const candidates = [...values].map(([index, value]) => ({
      index,
      list: mainList(value),
      value,
    }));
    const only = candidates.length === 1 ? candidates[0]! : undefined;
    if (
      only === undefined ||
      only.list === undefined ||
      only.list.rows.length < 2 ||
      levers.pager === undefined
    ) {
      const tokens = texts.reduce(
        (sum, text) => sum + (text === undefined ? 0 : levers.tokens(text)),
        0,
      );
      const why =
        candidates.length > 1
          ? 'has several JSON texts, so it is not split into pages'
          : 'has no list of rows to split into pages';
      return {
        result: withNotes(shipped, [
          `toonwire proxy: this result is ${tokens} tokens, over the budget of ${budget}, and ${why}: it is shipped whole, nothing cut.`,
        ]),
        page: undefined,
      };
    }
    const reserved = texts.reduce<number>(
      (sum, text, i) => sum + (text === undefined || i === only.index ? 0 : levers.tokens(text)),
      0,
    );
    const page = levers.pager.first(
      {
        tool: tool ?? '',
        value: only.value,
        list: only.list,
        budget,
        encoder: levers.encoder(settings),
        metaKey: levers.metaKey,
      },
      reserved,
    );
    const pagedContent = [...content];
    pagedContent[only.index] = { ...(content[only.index] as object), text: page.text };
    pagedContent.push({ type: 'text', text: page.note });
    const meta = isPlainObject(shipped._meta) ? shipped._meta : {};
    const paged: Record<string, unknown> = {
      ...shipped,
      content: pagedContent,
      _meta: { ...meta, [levers.metaKey]: page.strategy, [PAGE_META_KEY]: pageMeta(page) },
    };
    // A structuredContent the proxy added would carry every row past the budget.
    if (!Object.hasOwn(original, 'structuredContent')) delete paged.structuredContent;
    return { result: paged, page };
  }

  /**
   * Whether `texts` are over `budget` tokens. A long text is first counted on a prefix of about
   * `PREFIX_CHARS_PER_TOKEN * budget` characters cut at a line end: a text has at least the
   * tokens of its prefix, less the few that can merge differently at the cut (`CUT_MARGIN`),
   * so a prefix clearly over the budget settles it without counting megabytes.
   */
  private exceeds(texts: readonly (string | undefined)[], budget: number): boolean {
    let tokens = 0;
    for (const text of texts) {
      if (text === undefined) continue;
      const cut =
        text.length > budget * PREFIX_CHARS_PER_TOKEN
          ? text.lastIndexOf('\n', budget * PREFIX_CHARS_PER_TOKEN)
          : -1;
      if (cut > 0) {
        const prefix = this.levers.tokens(text.slice(0, cut + 1));
        if (tokens + prefix > budget + CUT_MARGIN) return true;
      }
      tokens += this.levers.tokens(text);
      if (tokens > budget) return true;
    }
    return false;
  }

  private more(params: Record<string, unknown>): Record<string, unknown> {
    const pager = this.levers.pager!;
    const cursor = isPlainObject(params.arguments) ? params.arguments.cursor : undefined;
    const next = typeof cursor === 'string' ? pager.next(cursor) : undefined;
    if (next === undefined) return unknownCursorResult(cursor, pager.cache.ttlMs);
    const { page, tool } = next;
    this.levers.metrics?.recordPage(
      tool,
      byteLength(page.text) + byteLength(page.note),
      page.tokens,
    );
    return {
      content: [
        { type: 'text', text: page.text },
        { type: 'text', text: page.note },
      ],
      _meta: { [this.levers.metaKey]: page.strategy, [PAGE_META_KEY]: pageMeta(page) },
    };
  }

  private record(
    tool: string,
    result: unknown,
    outcome: CompactionOutcome,
    settings: ResolvedToolSettings,
    page: Page | undefined,
  ): void {
    const metrics = this.levers.metrics;
    if (metrics === undefined) return;
    const textsIn = contentTexts(result);
    const textsOut = contentTexts(outcome.result);
    const shippedMeta = (outcome.result as { _meta?: Record<string, unknown> })._meta;
    const strategy = outcome.changed ? shippedMeta?.[this.levers.metaKey] : undefined;
    const counted =
      this.levers.countsTokens && (settings.by === 'tokens' || settings.maxTokens !== undefined);
    const sum = (texts: string[], measure: (text: string) => number): number =>
      texts.reduce((total, text) => total + measure(text), 0);
    metrics.recordCall({
      tool,
      strategy: typeof strategy === 'string' ? strategy : 'passthrough',
      passthrough:
        typeof strategy === 'string' ? undefined : passThroughReason(result, outcome, settings),
      bytesIn: sum(textsIn, byteLength),
      bytesOut: sum(textsOut, byteLength),
      tokensIn:
        counted && settings.by === 'tokens'
          ? sum(textsIn, (t) => this.levers.tokens(t))
          : undefined,
      tokensOut: counted ? sum(textsOut, (t) => this.levers.tokens(t)) : undefined,
      pages: page === undefined ? 0 : 1,
    });
  }
}

/** Why a result went out as it came. */
function passThroughReason(
  result: unknown,
  outcome: CompactionOutcome,
  settings: ResolvedToolSettings,
): string {
  if (!settings.compact) return 'config';
  const given = outcome.passedThrough;
  if (given !== undefined) return given;
  const texts = contentTexts(result);
  if (texts.length === 0) return 'no-text';
  const json = texts.filter((text) => /^\s*[[{]/.test(text));
  if (json.length === 0) return 'not-json';
  if (json.some((text) => losesPrecision(text))) return 'unsafe-numbers';
  return 'not-smaller';
}

function textOf(block: unknown): string | undefined {
  return isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
    ? block.text
    : undefined;
}

function contentTexts(result: unknown): string[] {
  if (!isPlainObject(result) || !Array.isArray(result.content)) return [];
  return (result.content as unknown[]).map(textOf).filter((text) => text !== undefined);
}

function withNotes(
  result: Record<string, unknown>,
  notes: readonly string[],
): Record<string, unknown> {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  return { ...result, content: [...content, ...notes.map((text) => ({ type: 'text', text }))] };
}
