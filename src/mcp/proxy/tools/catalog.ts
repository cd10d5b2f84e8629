// One session's view of the upstream's tools: what tools/list taught the proxy (schemas, MCP Apps
// UIs), how the list looks to the client (the `fields` argument, `toonwire_more`, no
// `outputSchema` where `structuredContent` is stripped; in lazy mode, the proxy's find and call
// tools instead of the upstream's), and what a tools/call request becomes.

import { isPlainObject } from '../../../codec/objects.js';
import type { StructuredContentMode } from '../../clients.js';
import { takeFieldsArgument, withFieldsParam } from '../config/fields-param.js';
import type { ToolFacts } from '../config/tool-rules.js';
import { MORE_TOOL, MORE_TOOL_NAME } from '../paging/pages.js';
import type { ResultPipeline, ToolCall } from '../result/pipeline.js';
import { envelopeVersion } from '../transport/modern-wire.js';
import { declaresUi } from './apps.js';
import { ArgumentChecker } from './arguments.js';
import {
  CALL_TOOL_NAME,
  CALL_TOOL_TOOL,
  FIND_TOOLS_NAME,
  FIND_TOOLS_TOOL,
  LazyTools,
} from './lazy.js';

/** How many never-listed tools' facts a catalog keeps (see `ToolCatalog.facts`). */
const MAX_UNLISTED_TOOLS = 256;

/** What a session does with a tools/call request. */
export type CallPlan =
  /** Answered by the proxy; a promise when the answer is read from a shared page store. */
  | { kind: 'answer'; result: Record<string, unknown> | Promise<Record<string, unknown>> }
  | {
      kind: 'forward';
      /** New params for the upstream (the `fields` argument removed), or `undefined`: as sent. */
      params: Record<string, unknown> | undefined;
      call: ToolCall;
    };

/** Options of a {@link ToolCatalog}. */
export interface ToolCatalogOptions {
  /**
   * Tool definitions on demand (`--lazy-tools`): tools/list shows `toonwire_find_tools`,
   * `toonwire_call_tool` and the pinned tools instead of every tool.
   */
  lazy?: boolean;
  /**
   * In lazy mode, the tools still listed in full, by the names the client sees (`--pin-tools`).
   * Tools with an MCP Apps UI are always listed: their host renders the UI only for tools it
   * knows.
   */
  pinned?: readonly string[];
  /** Where a note for humans goes (a pinned tool the upstream does not list); default: stderr. */
  log?: (message: string) => void;
}

/** What lazy mode needs: the learned definitions, the argument checker, the pins. */
interface LazyState {
  tools: LazyTools;
  checker: ArgumentChecker;
  pinned: ReadonlySet<string>;
  /** Pinned names already reported missing, so each is reported once. */
  reported: Set<string>;
}

/**
 * The tools of one session's upstream, as learned from the tools/list results it forwarded.
 *
 * @example
 * const catalog = new ToolCatalog(pipeline);
 * const shown = catalog.list(toolsListResult, 'keep') ?? toolsListResult;
 * const plan = catalog.plan({ name: 'search', arguments: { q: 'x', fields: 'id' } });
 *
 * // Tool definitions on demand, with two tools always listed:
 * const lazy = new ToolCatalog(pipeline, { lazy: true, pinned: ['read_text_file', 'search_files'] });
 */
export class ToolCatalog {
  private readonly known = new Map<string, ToolFacts>();
  /** The facts of tools called but not (yet) listed: their names alone. */
  private readonly unlisted = new Map<string, ToolFacts>();
  private readonly withFields = new Set<string>();
  private readonly lazy: LazyState | undefined;
  private readonly log: (message: string) => void;

  constructor(
    private readonly pipeline: ResultPipeline,
    options: ToolCatalogOptions = {},
  ) {
    this.log = options.log ?? ((message) => process.stderr.write(`${message}\n`));
    if (options.lazy === true)
      this.lazy = {
        tools: new LazyTools(),
        checker: new ArgumentChecker(),
        pinned: new Set(options.pinned ?? []),
        reported: new Set(),
      };
  }

  /** What the proxy knows of the tool `name` (just its name when tools/list has not shown it). */
  facts(name: string | undefined): ToolFacts | undefined {
    if (name === undefined) return undefined;
    const known = this.known.get(name);
    if (known !== undefined) return known;
    // The same object for each call of a tool never listed (a client that cached the list), so
    // that what is worked out once per tool (the content policy's verdict) is, and a bounded
    // number of them: the names come from the client.
    let unlisted = this.unlisted.get(name);
    if (unlisted === undefined) {
      if (this.unlisted.size >= MAX_UNLISTED_TOOLS) this.unlisted.clear();
      unlisted = { name };
      this.unlisted.set(name, unlisted);
    }
    return unlisted;
  }

  /**
   * Learns the tools of a tools/list result, and returns the result the client sees, or
   * `undefined` for the result as it is: tools get the `fields` argument where their settings
   * ask for it, lose their `outputSchema` when `mode` strips `structuredContent` (a client that
   * validated results against it would reject them; MCP Apps tools keep theirs), and the last
   * page of the list gets `toonwire_more` when there is a budget. In lazy mode only the pinned
   * tools are shown, and the last page gets `toonwire_find_tools` and `toonwire_call_tool`;
   * every tool is learned, as it would have been shown.
   */
  list(result: unknown, mode: StructuredContentMode): Record<string, unknown> | undefined {
    if (!isPlainObject(result) || !Array.isArray(result.tools)) return undefined;
    const pager = this.pipeline.pager;
    const lazy = this.lazy;
    const last = result.nextCursor === undefined;
    let changed = lazy !== undefined;
    const tools: unknown[] = [];
    const learned: Record<string, unknown>[] = [];
    for (const tool of result.tools as unknown[]) {
      const facts = this.learn(tool);
      if (facts === undefined) {
        tools.push(tool);
        continue;
      }
      if (this.isProxyTool(facts.name)) {
        changed = true; // the proxy's own tool of that name answers
        continue;
      }
      const shown = this.shown(tool as Record<string, unknown>, facts, mode);
      if (shown !== tool) changed = true;
      learned.push(shown);
      if (lazy === undefined || this.listedInLazyMode(lazy, facts.name)) tools.push(shown);
    }
    if (lazy !== undefined) {
      lazy.tools.learn(learned, last);
      if (last) {
        tools.push(FIND_TOOLS_TOOL, CALL_TOOL_TOOL);
        this.reportMissingPins(lazy);
      }
    }
    if (pager !== undefined && last) {
      tools.push(MORE_TOOL);
      changed = true;
    }
    return changed ? { ...result, tools } : undefined;
  }

  /** A tool as the client sees it in the full list (see {@link list}). */
  private shown(
    tool: Record<string, unknown>,
    facts: ToolFacts,
    mode: StructuredContentMode,
  ): Record<string, unknown> {
    let shown = tool;
    if (mode === 'strip' && facts.outputSchema !== undefined && facts.hasUi !== true) {
      const { outputSchema: _, ...rest } = shown;
      shown = rest;
    }
    const offersFields =
      this.pipeline.settingsFor(facts.name).fieldsParam &&
      this.pipeline.leaveAlone(facts) === undefined;
    const augmented = offersFields ? withFieldsParam(shown) : undefined;
    if (augmented !== undefined) {
      this.withFields.add(facts.name);
      shown = augmented;
    }
    return shown;
  }

  /**
   * Whether lazy mode lists the tool `name` in full: pinned, or part of an MCP Apps UI (app-only
   * tools included: the host keeps those from the model, and its widget calls them directly).
   * Such tools are called directly, so that the client's per-tool permissions and UIs apply.
   */
  private listedInLazyMode(lazy: LazyState, name: string): boolean {
    return lazy.pinned.has(name) || this.known.get(name)?.hasUi === true;
  }

  /** Whether `name` is one of the proxy's own tools in this session (it answers them itself). */
  private isProxyTool(name: string): boolean {
    if (name === MORE_TOOL_NAME) return this.pipeline.pager !== undefined;
    return this.lazy !== undefined && (name === FIND_TOOLS_NAME || name === CALL_TOOL_NAME);
  }

  /** Says, once per name, which pinned tools a complete listing did not have. */
  private reportMissingPins(lazy: LazyState): void {
    const missing = [...lazy.pinned].filter(
      (name) => !lazy.tools.knows(name) && !lazy.reported.has(name),
    );
    if (missing.length === 0) return;
    for (const name of missing) lazy.reported.add(name);
    this.log(
      `toonwire proxy: --pin-tools names ${missing.map((name) => JSON.stringify(name)).join(', ')}, which the upstream does not list: check the spelling (a gateway's tools are pinned by their namespaced names)`,
    );
  }

  /**
   * What to do with a tools/call request's params. A result the proxy answers with itself is
   * valid in the protocol version the request names: a 2026-07-28 request (its `_meta` envelope
   * names the version) gets `resultType: "complete"`, which that version's schema requires.
   */
  plan(params: unknown): CallPlan {
    const plan = this.planFor(params);
    if (plan.kind !== 'answer' || envelopeVersion({ params }) === undefined) return plan;
    const complete = (result: Record<string, unknown>) => ({ ...result, resultType: 'complete' });
    // A page read from a shared store is answered later: mark the answer once it is there.
    const { result } = plan;
    return {
      kind: 'answer',
      result: result instanceof Promise ? result.then(complete) : complete(result),
    };
  }

  private planFor(params: unknown): CallPlan {
    const started = performance.now();
    const tool = isPlainObject(params) && typeof params.name === 'string' ? params.name : undefined;
    if (tool === MORE_TOOL_NAME && this.pipeline.pager !== undefined)
      return { kind: 'answer', result: this.pipeline.more(params as Record<string, unknown>) };
    if (this.lazy !== undefined && isPlainObject(params)) {
      if (tool === FIND_TOOLS_NAME)
        return { kind: 'answer', result: this.lazy.tools.find(params.arguments) };
      if (tool === CALL_TOOL_NAME) return this.planLazyCall(this.lazy, params, started);
    }
    if (tool === undefined || !this.withFields.has(tool) || !isPlainObject(params))
      return { kind: 'forward', params: undefined, call: { tool, fields: undefined, started } };
    const { args, fields } = takeFieldsArgument(params.arguments);
    const forwarded = args === params.arguments ? undefined : { ...params, arguments: args };
    return { kind: 'forward', params: forwarded, call: { tool, fields, started } };
  }

  /**
   * A `toonwire_call_tool` call: a plain tools/call of the tool it names (its other params,
   * `_meta` included, kept), once its arguments pass the tool's inputSchema; else an `isError`
   * answer, and nothing reaches the upstream.
   */
  private planLazyCall(
    lazy: LazyState,
    params: Record<string, unknown>,
    started: number,
  ): CallPlan {
    const request = lazy.tools.readCall(params.arguments);
    if (!request.ok) return { kind: 'answer', result: request.result };
    const { name } = request;
    if (name === MORE_TOOL_NAME && this.pipeline.pager !== undefined)
      return {
        kind: 'answer',
        result: this.pipeline.more({ ...params, name, arguments: request.arguments }),
      };
    if (!lazy.tools.knows(name)) return { kind: 'answer', result: lazy.tools.unknownTool(name) };
    if (this.listedInLazyMode(lazy, name))
      return { kind: 'answer', result: lazy.tools.listedTool(name) };
    const { args, fields } = this.withFields.has(name)
      ? takeFieldsArgument(request.arguments)
      : { args: request.arguments, fields: undefined };
    const check = lazy.checker.check(this.known.get(name)?.inputSchema, args);
    if (check.verdict === 'invalid')
      return { kind: 'answer', result: lazy.tools.invalidArguments(name, check) };
    return {
      kind: 'forward',
      params: { ...params, name, arguments: args },
      call: { tool: name, fields, started },
    };
  }

  private learn(tool: unknown): ToolFacts | undefined {
    if (!isPlainObject(tool) || typeof tool.name !== 'string') return undefined;
    const facts: ToolFacts = {
      name: tool.name,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? undefined,
      listed: true,
      hasUi: declaresUi(tool._meta),
    };
    this.known.set(tool.name, facts);
    return facts;
  }
}
