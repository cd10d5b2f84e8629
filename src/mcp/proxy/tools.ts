// One session's view of the upstream's tools: what tools/list taught the proxy (schemas, MCP Apps
// UIs), how the list looks to the client (the `fields` argument, `toonwire_more`, no
// `outputSchema` where `structuredContent` is stripped), and what a tools/call request becomes.

import { isPlainObject } from '../../codec/objects.js';
import type { StructuredContentMode } from '../clients.js';
import { takeFieldsArgument, withFieldsParam } from './fields-param.js';
import { MORE_TOOL, MORE_TOOL_NAME } from './paging.js';
import type { ResultPipeline, ToolCall } from './result/pipeline.js';
import type { ToolFacts } from './result/view.js';

/** What a session does with a tools/call request. */
export type CallPlan =
  | { kind: 'answer'; result: Record<string, unknown> }
  | {
      kind: 'forward';
      /** New params for the upstream (the `fields` argument removed), or `undefined`: as sent. */
      params: Record<string, unknown> | undefined;
      call: ToolCall;
    };

/**
 * The tools of one session's upstream, as learned from the tools/list results it forwarded.
 *
 * @example
 * const catalog = new ToolCatalog(pipeline);
 * const shown = catalog.list(toolsListResult, 'keep') ?? toolsListResult;
 * const plan = catalog.plan({ name: 'search', arguments: { q: 'x', fields: 'id' } });
 */
export class ToolCatalog {
  private readonly known = new Map<string, ToolFacts>();
  private readonly withFields = new Set<string>();

  constructor(private readonly pipeline: ResultPipeline) {}

  /** What the proxy knows of the tool `name` (just its name when tools/list has not shown it). */
  facts(name: string | undefined): ToolFacts | undefined {
    if (name === undefined) return undefined;
    return this.known.get(name) ?? { name };
  }

  /**
   * Learns the tools of a tools/list result, and returns the result the client sees, or
   * `undefined` for the result as it is: tools get the `fields` argument where their settings
   * ask for it, lose their `outputSchema` when `mode` strips `structuredContent` (a client that
   * validated results against it would reject them; MCP Apps tools keep theirs), and the last
   * page of the list gets `toonwire_more` when there is a budget.
   */
  list(result: unknown, mode: StructuredContentMode): Record<string, unknown> | undefined {
    if (!isPlainObject(result) || !Array.isArray(result.tools)) return undefined;
    const pager = this.pipeline.pager;
    let changed = false;
    const tools: unknown[] = [];
    for (const tool of result.tools as unknown[]) {
      const facts = this.learn(tool);
      if (facts === undefined) {
        tools.push(tool);
        continue;
      }
      if (facts.name === MORE_TOOL_NAME && pager !== undefined) {
        changed = true; // the proxy's own tool of that name answers
        continue;
      }
      let shown = tool as Record<string, unknown>;
      if (mode === 'strip' && facts.declaresOutputSchema === true && facts.hasUi !== true) {
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
      if (shown !== tool) changed = true;
      tools.push(shown);
    }
    if (pager !== undefined && result.nextCursor === undefined) {
      tools.push(MORE_TOOL);
      changed = true;
    }
    return changed ? { ...result, tools } : undefined;
  }

  /** What to do with a tools/call request's params. */
  plan(params: unknown): CallPlan {
    const started = performance.now();
    const tool = isPlainObject(params) && typeof params.name === 'string' ? params.name : undefined;
    if (tool === MORE_TOOL_NAME && this.pipeline.pager !== undefined)
      return { kind: 'answer', result: this.pipeline.more(params as Record<string, unknown>) };
    if (tool === undefined || !this.withFields.has(tool) || !isPlainObject(params))
      return { kind: 'forward', params: undefined, call: { tool, fields: undefined, started } };
    const { args, fields } = takeFieldsArgument(params.arguments);
    const forwarded = args === params.arguments ? undefined : { ...params, arguments: args };
    return { kind: 'forward', params: forwarded, call: { tool, fields, started } };
  }

  private learn(tool: unknown): ToolFacts | undefined {
    if (!isPlainObject(tool) || typeof tool.name !== 'string') return undefined;
    const { outputSchema } = tool;
    const facts: ToolFacts = {
      name: tool.name,
      inputSchema: tool.inputSchema,
      outputSchema,
      declaresOutputSchema: outputSchema !== undefined && outputSchema !== null,
      hasUi: declaresUi(tool._meta),
    };
    this.known.set(tool.name, facts);
    return facts;
  }
}

/**
 * Whether a tool's `_meta` declares an MCP Apps UI resource (`ui.resourceUri`, the older flat key
 * `ui/resourceUri`, or the OpenAI Apps SDK's `openai/outputTemplate`): its host renders a widget
 * from the result's `structuredContent`.
 *
 * @example
 * declaresUi({ ui: { resourceUri: 'ui://weather/view.html' } }); // true
 * declaresUi({ 'ui/resourceUri': 'ui://weather/view.html' }); // true
 * declaresUi(undefined); // false
 */
export function declaresUi(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  const ui = meta.ui;
  return (
    (isPlainObject(ui) && typeof ui.resourceUri === 'string') ||
    typeof meta['ui/resourceUri'] === 'string' ||
    typeof meta['openai/outputTemplate'] === 'string'
  );
}
