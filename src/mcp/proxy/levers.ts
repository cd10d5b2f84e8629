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
import type { ProxyMetrics } from './metrics.js';
import {
  type Continuation,
  type MainList,
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
  type JsonRead,
  type OutputSchemaKnowledge,
  readJsonContainer,
  type TextBlockOutcome,
  type ToolResultCompactionOptions,
  type ToolResultCompactor,
  textOf,
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

    // Read the texts once, for projection, paging and the compactor.
    const original = result as Record<string, unknown>;
    const reads = new Map<number, JsonRead>();
    if (spec !== undefined || budget !== undefined) {
      (original.content as unknown[]).forEach((block, index) => {
        const text = textOf(block);
        if (text !== undefined) reads.set(index, readJsonContainer(text));
      });
    }
    const notes: string[] = [];
    const projecting =
      spec !== undefined && [...reads.values()].some((read) => read.failed === undefined);
    const values = new Map<number, JsonValue>();
    for (const [index, read] of reads) {
      if (read.failed !== undefined) continue;
      let value = read.value as JsonValue;
      if (projecting) {
        const projection = projectFields(value, spec);
        value = projection.value;
        if (projection.note !== undefined) notes.push(projection.note);
        reads.set(index, { value });
      }
      values.set(index, value);
    }

    if (budget !== undefined) {
      const paged = this.pageFirst(
        original,
        values,
        projecting,
        notes,
        settings,
        budget,
        outputSchema,
        tool,
      );
      if (paged !== undefined) {
        if (tool !== undefined) this.record(tool, paged.outcome, settings, paged.shipping);
        return paged.outcome;
      }
    }
    const read = reads.size === 0 ? undefined : { reads, replace: projecting };
    let outcome = compactor.compact(result, tool, outputSchema, inputSchema, read);
    if (projecting) outcome = this.afterProjection(outcome);
    let shipped = outcome.result as Record<string, unknown>;
    if (notes.length > 0) shipped = withNotes(shipped, notes);
    let shipping: Shipping = { extra: notes, page: undefined, tokens: undefined };
    if (budget !== undefined) {
      const paged = this.overBudget(original, shipped, values, settings, budget, tool);
      shipped = paged.result;
      shipping = { extra: [...notes, ...paged.added], page: paged.page, tokens: paged.tokens };
    }
    if (shipped !== outcome.result) outcome = { ...outcome, result: shipped, changed: true };
    const pageServed = shipping.page;
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
    if (tool !== undefined) this.record(tool, outcome, settings, shipping);
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
    values: ReadonlyMap<number, JsonValue>,
    projected: boolean,
    notes: readonly string[],
    settings: ResolvedToolSettings,
    budget: number,
    outputSchema: OutputSchemaKnowledge,
    tool: string | undefined,
  ): { outcome: CompactionOutcome; shipping: Shipping } | undefined {
    const { levers } = this;
    const pager = levers.pager;
    const content = original.content as unknown[];
    const texts = content.map(textOf).filter((text) => text !== undefined);
    const [only] = values;
    if (pager === undefined || only === undefined || values.size !== 1 || texts.length !== 1)
      return undefined;
    const [index, value] = only;
    const list = mainList(value);
    if (list === undefined || list.rows.length < 2) return undefined;
    // A token is at least one byte, so a text within the budget in bytes is within it in tokens.
    const over = projected ? jsonLongerThan(value, list, budget) : byteLength(texts[0]!) > budget;
    if (!over) return undefined;
    const reserved = notes.reduce((sum, note) => sum + levers.tokens(note), 0);
    // Shipped only when it holds under half of the rows; else the general way pages, if need be.
    const quick = (page: Page) => page.to * 2 < list.rows.length;
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
      quick,
    );
    if (!quick(page)) return undefined;
    const pagedContent = [...content];
    pagedContent[index] = { ...(content[index] as object), text: page.text };
    // structuredContent and _meta as the compactor ships any rewritten result.
    const result = levers
      .compactorFor(settings)
      .shipped(
        original,
        [
          ...pagedContent,
          ...notes.map((text) => ({ type: 'text', text })),
          { type: 'text', text: page.note },
        ],
        page.strategy,
        outputSchema,
      );
    result._meta = { ...(result._meta as object), [PAGE_META_KEY]: pageMeta(page) };
    return {
      outcome: {
        result,
        changed: true,
        blocks: [{ before: texts[0]!, after: page.text, strategy: page.strategy }],
      },
      shipping: { extra: [...notes, page.note], page, tokens: reserved + page.tokens },
    };
  }

  /**
   * A projected text ships as rewritten even where JSON won: blocks and `_meta` name JSON. Its
   * sizes are left to be measured, as for a text the proxy wrote itself.
   */
  private afterProjection(outcome: CompactionOutcome): CompactionOutcome {
    const shipped = outcome.result as Record<string, unknown>;
    const blocks = outcome.blocks.map(({ before, after, strategy, ...sizes }) =>
      after === before
        ? { before, after, strategy, ...sizes }
        : { before, after, strategy: strategy ?? 'json' },
    );
    const meta = isPlainObject(shipped._meta) ? shipped._meta : {};
    const strategy = meta[this.levers.metaKey] ?? 'json';
    return {
      ...outcome,
      result: { ...shipped, _meta: { ...meta, [this.levers.metaKey]: strategy } },
      changed: true,
      blocks,
    };
  }

  /**
   * `shipped` as it goes out under `budget` tokens: its first page when its text is over the
   * budget, with a warning when it cannot be paged, else as it is. `added` are the texts added
   * to it, `tokens` the tokens of all its texts when they were counted.
   */
  private overBudget(
    original: Record<string, unknown>,
    shipped: Record<string, unknown>,
    values: ReadonlyMap<number, JsonValue>,
    settings: ResolvedToolSettings,
    budget: number,
    tool: string | undefined,
  ): { result: Record<string, unknown>; added: string[]; page?: Page; tokens?: number } {
    const { levers } = this;
    const content = shipped.content as unknown[];
    const texts = content.map(textOf);
    // A token is at least one byte, so text within the budget in bytes is within it in tokens.
    if (texts.reduce((sum, text) => sum + (text === undefined ? 0 : byteLength(text)), 0) <= budget)
      return { result: shipped, added: [] };
    const counts = new TokenCounts(texts, (text) => levers.tokens(text));
    if (!this.exceeds(counts, budget))
      return { result: shipped, added: [], tokens: counts.total() };
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
      const tokens = counts.total();
      const why =
        candidates.length > 1
          ? 'has several JSON texts, so it is not split into pages'
          : 'has no list of rows to split into pages';
      const warning = `toonwire proxy: this result is ${tokens} tokens, over the budget of ${budget}, and ${why}: it is shipped whole, nothing cut.`;
      return {
        result: withNotes(shipped, [warning]),
        added: [warning],
        tokens: tokens + levers.tokens(warning),
      };
    }
    const reserved = counts.total(only.index);
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
    return { result: paged, added: [page.note], page, tokens: reserved + page.tokens };
  }

  /**
   * Whether the texts are over `budget` tokens. A long text is first counted on a prefix of
   * about `PREFIX_CHARS_PER_TOKEN * budget` characters cut at a line end: a text has at least
   * the tokens of its prefix, less the few that can merge differently at the cut (`CUT_MARGIN`),
   * so a prefix clearly over the budget settles it without counting megabytes. When the answer
   * is no, every text has been counted.
   */
  private exceeds(counts: TokenCounts, budget: number): boolean {
    let tokens = 0;
    for (let index = 0; index < counts.texts.length; index++) {
      const text = counts.texts[index];
      if (text === undefined) continue;
      const cut =
        text.length > budget * PREFIX_CHARS_PER_TOKEN
          ? text.lastIndexOf('\n', budget * PREFIX_CHARS_PER_TOKEN)
          : -1;
      if (cut > 0) {
        const prefix = this.levers.tokens(text.slice(0, cut + 1));
        if (tokens + prefix > budget + CUT_MARGIN) return true;
      }
      tokens += counts.of(index);
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

  /** Reports one answered call to the metrics, from the sizes measured on the way. */
  private record(
    tool: string,
    outcome: CompactionOutcome,
    settings: ResolvedToolSettings,
    shipping: Shipping,
  ): void {
    const { levers } = this;
    const metrics = levers.metrics;
    if (metrics === undefined) return;
    const shippedMeta = (outcome.result as { _meta?: Record<string, unknown> })._meta;
    const strategy = outcome.changed ? shippedMeta?.[levers.metaKey] : undefined;
    const counted =
      levers.countsTokens && (settings.by === 'tokens' || settings.maxTokens !== undefined);
    const countedIn = counted && settings.by === 'tokens';
    const unit = levers.compactorFor(settings).unit;
    const bytes = sizesOf(outcome.blocks, byteLength, unit === 'bytes', true);
    const countTokens = (text: string) => levers.tokens(text);
    const tokens =
      countedIn || (counted && shipping.tokens === undefined)
        ? sizesOf(outcome.blocks, countTokens, unit === 'tokens', countedIn)
        : undefined;
    metrics.recordCall({
      tool,
      strategy: typeof strategy === 'string' ? strategy : 'passthrough',
      passthrough:
        typeof strategy === 'string'
          ? undefined
          : settings.compact
            ? (outcome.passedThrough ?? outcome.kept ?? 'no-text')
            : 'config',
      bytesIn: bytes.before!,
      bytesOut: bytes.after + sum(shipping.extra.map(byteLength)),
      tokensIn: tokens?.before,
      tokensOut: counted
        ? (shipping.tokens ?? tokens!.after + sum(shipping.extra.map(countTokens)))
        : undefined,
      pages: shipping.page === undefined ? 0 : 1,
    });
  }
}

/** What the levers shipped besides the compactor's texts, and what they counted on the way. */
interface Shipping {
  /** Texts shipped after the result's own (notes, a warning, the page note). */
  extra: string[];
  /** The first page served, if any. */
  page: Page | undefined;
  /** Tokens of every text shipped, when the levers counted them. */
  tokens: number | undefined;
}

/** Exact tokens of a result's texts (`undefined`: not a text), each counted at most once. */
class TokenCounts {
  private readonly counts: (number | undefined)[] = [];

  constructor(
    readonly texts: readonly (string | undefined)[],
    private readonly count: (text: string) => number,
  ) {}

  /** The tokens of the text at `index` (0 for no text). */
  of(index: number): number {
    const text = this.texts[index];
    if (text === undefined) return 0;
    this.counts[index] ??= this.count(text);
    return this.counts[index];
  }

  /** The tokens of every text but the one at `except`. */
  total(except?: number): number {
    let tokens = 0;
    for (let index = 0; index < this.texts.length; index++)
      if (index !== except) tokens += this.of(index);
    return tokens;
  }
}

/**
 * Whether `value`'s JSON text is over `limit` bytes, stringifying prefixes of its main list
 * (each page's JSON is no longer than the whole's), so that about `limit` bytes are written
 * however long the list is.
 */
function jsonLongerThan(value: JsonValue, list: MainList, limit: number): boolean {
  for (let rows = 64; ; rows *= 2) {
    const end = Math.min(rows, list.rows.length);
    if (byteLength(JSON.stringify(pageValue(value, list, 0, end))) > limit) return true;
    if (end === list.rows.length) return false;
  }
}

/**
 * The sizes of the blocks' texts before (only when `before` is asked) and after, summed, in
 * `measure`'s unit; `known`: the blocks' own sizes are in that unit, so they are used. A text
 * kept as it was is measured once.
 */
function sizesOf(
  blocks: readonly TextBlockOutcome[],
  measure: (text: string) => number,
  known: boolean,
  before: boolean,
): { before: number | undefined; after: number } {
  let sumBefore = 0;
  let sumAfter = 0;
  for (const block of blocks) {
    const kept = block.after === block.before;
    const sizeBefore =
      before || kept
        ? known && block.beforeSize !== undefined
          ? block.beforeSize
          : measure(block.before)
        : 0;
    sumBefore += sizeBefore;
    if (kept) sumAfter += sizeBefore;
    else
      sumAfter += known && block.afterSize !== undefined ? block.afterSize : measure(block.after);
  }
  return { before: before ? sumBefore : undefined, after: sumAfter };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function withNotes(
  result: Record<string, unknown>,
  notes: readonly string[],
): Record<string, unknown> {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  return { ...result, content: [...content, ...notes.map((text) => ({ type: 'text', text }))] };
}
