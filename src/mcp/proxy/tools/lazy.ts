// Tool definitions on demand (`--lazy-tools`): the client's tools/list holds the proxy's
// `toonwire_find_tools` and `toonwire_call_tool` (and the tools the user pinned) instead of every
// upstream tool, so the definitions the model reads on every turn shrink to a few hundred tokens.
// The model finds a tool's exact definition when it needs it, and calls it through
// `toonwire_call_tool`, which checks the arguments against the real inputSchema first.
//
// The list stays the same all session: found tools are not added to it (no
// `notifications/tools/list_changed`), because tool definitions sit at the start of the prompt
// and changing them costs the client its prompt cache; the definitions go into the conversation
// as a tool result instead (docs/mcp.md, "Tool definitions on demand").

import { isPlainObject } from '../../../codec/objects.js';
import { appOnly } from './apps.js';
import type { ArgumentsCheck } from './arguments.js';
import { ToolSearch } from './search.js';

export const FIND_TOOLS_NAME = 'toonwire_find_tools';
export const CALL_TOOL_NAME = 'toonwire_call_tool';

/**
 * How many definitions `toonwire_find_tools` returns unless asked: where
 * a further result finds the right tool for less than 2% more needs
 * (test/mcp/tool-search-quality.test.ts measures it: 3, with 90% found).
 */
export const DEFAULT_FIND_LIMIT = 3;
/** The most a call may ask for. */
const MOST_FOUND = 20;
/** How many tool names a "nothing matched" answer lists. */
const NAMES_SHOWN = 20;

/** The parts of a definition `toonwire_find_tools` returns: what the model needs to call it. */
const MODEL_KEYS = new Set([
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
]);

/** The proxy's search tool, as tools/list shows it. Short: it is read on every turn. */
export const FIND_TOOLS_TOOL = {
  name: FIND_TOOLS_NAME,
  description: `Search the tools of the connected MCP server(s), which are not listed here; returns the best matches' definitions (JSON). Call one with ${CALL_TOOL_NAME}.`,
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What you want to do, or a tool name' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MOST_FOUND,
        description: `Default ${DEFAULT_FIND_LIMIT}`,
      },
    },
    required: ['query'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
} as const;

/** The proxy's call tool, as tools/list shows it. */
export const CALL_TOOL_TOOL = {
  name: CALL_TOOL_NAME,
  description: `Call a tool found with ${FIND_TOOLS_NAME}, with arguments matching its inputSchema.`,
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      arguments: { type: 'object' },
    },
    required: ['name'],
  },
} as const;

/** A tool result the proxy answers with. */
export interface ProxyToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: true;
}

/** What `toonwire_call_tool`'s arguments ask for: a tool and its arguments, or why not. */
export type CallRequest =
  | { ok: true; name: string; arguments: Record<string, unknown> }
  | { ok: false; result: ProxyToolResult };

/**
 * The tools learned for lazy mode: their definitions as the full list would have shown them,
 * searchable, and the answers of the proxy's two tools.
 *
 * @example
 * const lazy = new LazyTools();
 * lazy.learn([{ name: 'read_text_file', description: 'Read a file', inputSchema: { type: 'object' } }], true);
 * lazy.find({ query: 'read a file' }).content[0].text; // '[{"name":"read_text_file","description":"Read a file","inputSchema":{"type":"object"}}]'
 */
export class LazyTools {
  /** The definitions of the listing being learned, or of the last complete one. */
  private definitions = new Map<string, Record<string, unknown>>();
  /** Set when a page without `nextCursor` ended a listing: the next page starts a new one. */
  private listingComplete = false;
  private search: ToolSearch | undefined;

  /**
   * Learns a page of tools/list, each tool as the full list would show it to the client. A page
   * after the end of a listing (the client listing again, after the upstream's
   * `notifications/tools/list_changed`) starts the catalog afresh, so removed tools go.
   */
  learn(definitions: readonly Record<string, unknown>[], complete: boolean): void {
    if (this.listingComplete) this.definitions = new Map();
    for (const definition of definitions)
      if (typeof definition.name === 'string') this.definitions.set(definition.name, definition);
    this.listingComplete = complete;
    this.search = undefined;
  }

  /** Whether a tool of that name was listed. */
  knows(name: string): boolean {
    return this.definitions.has(name);
  }

  /** The answer to a `toonwire_find_tools` call: the best matches' definitions, as JSON text. */
  find(args: unknown): ProxyToolResult {
    const query = isPlainObject(args) && typeof args.query === 'string' ? args.query.trim() : '';
    if (query === '')
      return toolError(
        `${FIND_TOOLS_NAME} needs a "query": words for what you want to do, or a tool name. ${this.someNames()}`,
      );
    const asked = isPlainObject(args) ? Number(args.limit ?? DEFAULT_FIND_LIMIT) : NaN;
    const limit = Number.isFinite(asked)
      ? Math.min(MOST_FOUND, Math.max(1, Math.floor(asked)))
      : DEFAULT_FIND_LIMIT;
    const names = this.index().search(query, limit);
    if (names.length === 0)
      return toolText(`No tool matches ${JSON.stringify(query)}. ${this.someNames()}`);
    return toolText(
      JSON.stringify(names.map((name) => modelDefinition(this.definitions.get(name)!))),
    );
  }

  /** Reads a `toonwire_call_tool` call's arguments: which tool, with which arguments. */
  readCall(args: unknown): CallRequest {
    const name = isPlainObject(args) ? args.name : undefined;
    if (typeof name !== 'string' || name === '')
      return {
        ok: false,
        result: toolError(
          `${CALL_TOOL_NAME} needs the "name" of a tool (find it with ${FIND_TOOLS_NAME}) and its "arguments" object.`,
        ),
      };
    let toolArgs = (args as Record<string, unknown>).arguments ?? {};
    // Models sometimes send the arguments as JSON text; the intent is clear.
    if (typeof toolArgs === 'string') {
      try {
        toolArgs = JSON.parse(toolArgs);
      } catch {}
    }
    if (!isPlainObject(toolArgs))
      return {
        ok: false,
        result: toolError(
          `${CALL_TOOL_NAME}'s "arguments" must be an object holding ${name}'s arguments, got ${JSON.stringify(toolArgs)}.`,
        ),
      };
    if (name === FIND_TOOLS_NAME || name === CALL_TOOL_NAME)
      return {
        ok: false,
        result: toolError(`call ${name} directly, not through ${CALL_TOOL_NAME}.`),
      };
    return { ok: true, name, arguments: toolArgs };
  }

  /** The answer to a call of a tool the upstream did not list: the names closest to it. */
  unknownTool(name: string): ProxyToolResult {
    const close = this.index().closeNames(name);
    const suggestion =
      close.length > 0
        ? `Did you mean ${close.map((n) => JSON.stringify(n)).join(' or ')}? `
        : `${this.someNames()} `;
    return toolError(
      `there is no tool named ${JSON.stringify(name)}. ${suggestion}Find tools and their exact names with ${FIND_TOOLS_NAME}.`,
    );
  }

  /**
   * The answer to a call, through `toonwire_call_tool`, of a tool that is in the client's list:
   * calling it directly keeps the client's approval of that tool, and its UI, in play.
   */
  listedTool(name: string): ProxyToolResult {
    return toolError(
      `${JSON.stringify(name)} is in your tool list: call it directly, not through ${CALL_TOOL_NAME}.`,
    );
  }

  /** The answer to a call whose arguments the tool's inputSchema refuses; nothing was sent. */
  invalidArguments(name: string, check: ArgumentsCheck & { verdict: 'invalid' }): ProxyToolResult {
    const parts = check.schemaParts.map(
      ({ pointer, schema }) => `inputSchema at ${pointer}: ${JSON.stringify(schema)}`,
    );
    return toolError(
      [
        `the arguments for ${JSON.stringify(name)} do not match its inputSchema, so the call was not sent:`,
        ...check.problems.map((problem) => `- ${problem}`),
        ...parts,
        'Correct the arguments and call again.',
      ].join('\n'),
    );
  }

  /** The search over the tools a model may call: a widget's app-only tools are left out. */
  private index(): ToolSearch {
    this.search ??= new ToolSearch(
      [...this.definitions.values()].filter((tool) => !appOnly(tool._meta)) as Array<{
        name: string;
      }>,
    );
    return this.search;
  }

  /** A sentence naming some of the tools there are, for answers that found none. */
  private someNames(): string {
    const names = [...this.definitions.keys()];
    if (names.length === 0)
      return 'No tools are known yet: the client has not listed the tools of this session (tools/list).';
    const shown = names.slice(0, NAMES_SHOWN).join(', ');
    const more = names.length > NAMES_SHOWN ? `, and ${names.length - NAMES_SHOWN} more` : '';
    return `There are ${names.length} tools, among them: ${shown}${more}.`;
  }
}

/**
 * A tool's definition as `toonwire_find_tools` returns it: the keys a model needs, in the order and
 * form listed (`_meta`, `icons` and `execution` are for the client, not the model).
 *
 * @example
 * modelDefinition({ name: 't', inputSchema: { type: 'object' }, _meta: { ui: {} } }); // { name: 't', inputSchema: { type: 'object' } }
 */
export function modelDefinition(tool: Record<string, unknown>): Record<string, unknown> {
  const definition: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tool))
    if (MODEL_KEYS.has(key) && value !== undefined) definition[key] = value;
  return definition;
}

function toolText(text: string): ProxyToolResult {
  return { content: [{ type: 'text', text }] };
}

function toolError(text: string): ProxyToolResult {
  return { content: [{ type: 'text', text: `toonwire proxy: ${text}` }], isError: true };
}
