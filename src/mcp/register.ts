// Registering a tool whose handler returns its plain payload: the helper turns the payload into
// a compactResult, keeps the outputSchema, and can give the tool a `fields` input parameter (the
// dominant size lever in the TOON adoption proposal for Apify's MCP server) that projects the
// text view.

import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type {
  AnySchema,
  SchemaOutput,
  ShapeOutput,
  ZodRawShapeCompat,
} from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import * as z3 from 'zod/v3';
import * as z4 from 'zod/v4';
import { isPlainObject } from '../codec/objects.js';
import { structuredContentModeFor } from './clients.js';
import {
  type CompactResultOptions,
  checkMetaKey,
  compactResult,
  DEFAULT_META_KEY,
} from './compact-result.js';

/** What the `fields` input parameter tells the model unless told otherwise. */
export const DEFAULT_FIELDS_DESCRIPTION =
  'Comma-separated fields to keep in each item of the result, e.g. "name,url,rating"; a dotted path such as "location.lat" selects a nested field. Omit for all fields.';

/** Options of {@link fieldsParameter} and of `fields` in {@link registerCompactTool}. */
export interface FieldsParameterOptions {
  /** The parameter's description, which is what the model reads (default {@link DEFAULT_FIELDS_DESCRIPTION}). */
  description?: string;
}

/**
 * The Zod schema of the `fields` input parameter: an optional comma-separated string, described
 * for the model. Pass `zodVersion: 3` when the rest of the tool's input schema uses Zod 3 (the
 * SDK refuses shapes that mix versions). {@link registerCompactTool} adds it for you with
 * `fields: true`; use this directly with `server.registerTool` and {@link compactResult}.
 *
 * @example
 * server.registerTool('search', { inputSchema: { query: z.string(), fields: fieldsParameter() } },
 *   async ({ query, fields }) => compactResult({ items: await search(query) }, { fields }));
 */
export function fieldsParameter(
  options?: FieldsParameterOptions & { zodVersion?: 4 },
): z4.ZodOptional<z4.ZodString>;
export function fieldsParameter(
  options: FieldsParameterOptions & { zodVersion: 3 },
): z3.ZodOptional<z3.ZodString>;
export function fieldsParameter(
  options?: FieldsParameterOptions & { zodVersion?: 3 | 4 },
): z4.ZodOptional<z4.ZodString> | z3.ZodOptional<z3.ZodString>;
export function fieldsParameter(
  options: FieldsParameterOptions & { zodVersion?: 3 | 4 } = {},
): z4.ZodOptional<z4.ZodString> | z3.ZodOptional<z3.ZodString> {
  // Typed as the Zod schema it is, so that a handler's `fields` is `string | undefined`, not `any`.
  const description = options.description ?? DEFAULT_FIELDS_DESCRIPTION;
  return options.zodVersion === 3
    ? z3.string().optional().describe(description)
    : z4.string().optional().describe(description);
}

/** The arguments a tool's input schema validates to. */
export type ToolArguments<InputArgs> = InputArgs extends ZodRawShapeCompat
  ? ShapeOutput<InputArgs>
  : InputArgs extends AnySchema
    ? SchemaOutput<InputArgs>
    : Record<string, never>;

/** The request context the SDK hands a tool handler. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The `fields` argument a handler gets for the `fields` option `Fields`: `{ fields?: string }`
 * when the option may add the parameter, nothing when it is `false` or absent (so that a tool's
 * own `fields` input keeps its own type).
 */
export type FieldsArgument<Fields> = [Fields] extends [false | undefined]
  ? unknown
  : { fields?: string };

/**
 * A tool handler for {@link registerCompactTool}: returns the plain payload (or a promise of it).
 * With the `fields` option, `args.fields` is present when the caller used the parameter.
 */
export type CompactToolHandler<InputArgs, Fields = boolean | FieldsParameterOptions> = (
  args: ToolArguments<InputArgs> & FieldsArgument<Fields>,
  extra: ToolExtra,
) => unknown;

/** `McpServer.registerTool`'s config, plus the compaction options. */
export interface CompactToolConfig<
  InputArgs,
  OutputArgs,
  Fields extends boolean | FieldsParameterOptions | undefined = boolean | FieldsParameterOptions,
> {
  title?: string;
  description?: string;
  /** As for `registerTool`: a Zod raw shape or a Zod object schema (Zod 3 or 4). */
  inputSchema?: InputArgs;
  /** As for `registerTool`; `structuredContent` (the payload) is validated against it. */
  outputSchema?: OutputArgs;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  /** Give the tool a `fields` input parameter that projects the text view (default `false`). */
  fields?: Fields;
  /** Options of every {@link compactResult} this tool returns. */
  compact?: CompactResultOptions;
}

/**
 * Registers a tool on an `McpServer` whose handler returns its plain payload; each call's payload
 * becomes {@link compactResult}: the picker's text for the model, the payload itself as
 * `structuredContent` (validated by the SDK against `outputSchema`, which is kept), and the
 * strategy in `_meta`. For a client that shows the model `structuredContent` instead of the text
 * (Claude Code, Codex, VS Code, Copilot CLI: `compact.structuredContent` `'auto'`, the default),
 * results carry no `structuredContent` and the tool is listed without its `outputSchema`, so the
 * model reads the compacted text; `'keep'` keeps both for every client.
 * With `fields: true` the tool gets an optional `fields` input parameter;
 * a call that passes it gets only those fields of each item in its text (the handler sees
 * `args.fields` too and may use it to fetch less). A handler that throws becomes an `isError`
 * result, as with `registerTool`; a handler may also return a finished `CallToolResult` (only
 * `content`, `isError`, `structuredContent` and `_meta`, with `content` MCP content blocks): an
 * `isError` answer, an image, a resource link or an embedded resource, which goes out as it is.
 * A string payload (a file's text) is the text itself, not quoted (see {@link compactResult}).
 *
 * @throws {TypeError} when `fields` cannot be added (the input already has a `fields` member, or
 *   its schema is not an object) or the compaction options are invalid.
 * @example
 * registerCompactTool(server, 'list-places', {
 *   description: 'Places near a point',
 *   inputSchema: { near: z.string(), limit: z.number().int().max(100).default(20) },
 *   outputSchema: { items: z.array(placeSchema) },
 *   fields: true,
 * }, async ({ near, limit }) => ({ items: await findPlaces(near, limit) }));
 */
export function registerCompactTool<
  OutputArgs extends ZodRawShapeCompat | AnySchema,
  InputArgs extends undefined | ZodRawShapeCompat | AnySchema = undefined,
  Fields extends boolean | FieldsParameterOptions | undefined = undefined,
>(
  server: McpServer,
  name: string,
  config: CompactToolConfig<InputArgs, OutputArgs, Fields>,
  handler: CompactToolHandler<InputArgs, Fields>,
): RegisteredTool {
  const { fields, compact = {}, inputSchema, ...toolConfig } = config;
  checkMetaKey(compact.metaKey ?? DEFAULT_META_KEY, 'registerCompactTool');
  const schema = fields
    ? withFieldsParameter(inputSchema, fields === true ? {} : fields, name)
    : inputSchema;

  const setting = compact.structuredContent ?? 'auto';
  /** Whether the connected client gets results without structuredContent (and the tool no outputSchema). */
  const strips = (): boolean =>
    structuredContentModeFor(setting, server.server.getClientVersion()).mode === 'strip';
  const run = async (args: Record<string, unknown>, extra: ToolExtra): Promise<CallToolResult> => {
    const payload = await handler(args as ToolArguments<InputArgs> & FieldsArgument<Fields>, extra);
    // A finished result (an error, an image, a resource) is the handler's answer, not data.
    if (isToolResult(payload)) return payload;
    const requested = fields ? args.fields : undefined;
    const project = typeof requested === 'string' && requested.trim() !== '';
    return compactResult(payload, {
      ...compact,
      ...(project ? { fields: requested } : {}),
      structuredContent: strips() ? 'strip' : 'keep',
    });
  };
  // The SDK calls a tool without an input schema with the request context alone.
  const callback =
    schema === undefined
      ? (extra: ToolExtra) => run({}, extra)
      : (args: Record<string, unknown>, extra: ToolExtra) => run(args, extra);
  const registered = server.registerTool(
    name,
    { ...toolConfig, inputSchema: schema },
    callback as never,
  );
  if (config.outputSchema !== undefined) hideOutputSchemaWhen(registered, strips);
  return registered;
}

/**
 * Makes `tool` declare no `outputSchema` while `hidden()` says so. The SDK's McpServer reads a
 * registered tool's `outputSchema` on every tools/list (to list it) and every call (to require and
 * validate `structuredContent`), and one McpServer serves one client, so a tool listed without it
 * to a client that shows the model `structuredContent` may answer that client without it.
 * `RegisteredTool.update({ outputSchema })` still works.
 */
function hideOutputSchemaWhen(tool: RegisteredTool, hidden: () => boolean): void {
  let schema = tool.outputSchema;
  Object.defineProperty(tool, 'outputSchema', {
    configurable: true,
    enumerable: true,
    get: () => (hidden() ? undefined : schema),
    set: (value: typeof schema) => {
      schema = value;
    },
  });
}

/** The members a `CallToolResult` may have. */
const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/** What each kind of content block must carry, as strings (MCP 2025-06-18). */
const CONTENT_BLOCK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource_link: ['uri', 'name'],
  resource: [],
};

/**
 * Is `value` a finished `CallToolResult` rather than a payload: an object with only a result's
 * members, whose `content` is an array of MCP content blocks (text, image, audio, resource link,
 * embedded resource), non-empty unless `isError` or `structuredContent` says it is a result?
 * A handler returns one for an `isError` answer, an image or a resource, which compacting as
 * data would turn into JSON text that no client shows as an error or an image.
 */
function isToolResult(value: unknown): value is CallToolResult {
  if (!isPlainObject(value) || !Array.isArray(value.content)) return false;
  if (!Object.keys(value).every((key) => RESULT_KEYS.has(key))) return false;
  if (value.content.length === 0 && value.isError === undefined) {
    return value.structuredContent !== undefined;
  }
  return value.content.every(isContentBlock);
}

function isContentBlock(block: unknown): boolean {
  if (!isPlainObject(block) || typeof block.type !== 'string') return false;
  if (!Object.hasOwn(CONTENT_BLOCK_FIELDS, block.type)) return false;
  if (block.type === 'resource') {
    return isPlainObject(block.resource) && typeof block.resource.uri === 'string';
  }
  return CONTENT_BLOCK_FIELDS[block.type]!.every((field) => typeof block[field] === 'string');
}

type ZodInternals = {
  _zod?: { def?: { type?: string; shape?: Record<string, unknown> } };
  _def?: { typeName?: string };
  extend?: (shape: Record<string, AnySchema>) => AnySchema;
};

function withFieldsParameter(
  inputSchema: ZodRawShapeCompat | AnySchema | undefined,
  options: FieldsParameterOptions,
  toolName: string,
): ZodRawShapeCompat | AnySchema {
  if (inputSchema === undefined) return { fields: fieldsParameter(options) };
  const schema = inputSchema as ZodInternals;
  const isV4Schema = schema._zod !== undefined;
  const isV3Schema = !isV4Schema && schema._def !== undefined;
  if (!isV4Schema && !isV3Schema) {
    const shape = inputSchema as ZodRawShapeCompat;
    refuseTakenName(Object.keys(shape), toolName);
    const usesV3 = Object.values(shape).some(
      (member) => (member as ZodInternals)._zod === undefined,
    );
    return { ...shape, fields: fieldsParameter({ ...options, zodVersion: usesV3 ? 3 : 4 }) };
  }
  const isObject = isV4Schema
    ? schema._zod?.def?.type === 'object'
    : schema._def?.typeName === 'ZodObject';
  if (!isObject || typeof schema.extend !== 'function') {
    throw new TypeError(
      `registerCompactTool: cannot add the fields parameter to the tool '${toolName}': its input schema is not a Zod object (or is a Zod Mini one); use a raw shape such as { query: z.string() }, or add fieldsParameter() to it yourself`,
    );
  }
  const shape = isV4Schema
    ? schema._zod?.def?.shape
    : (inputSchema as unknown as { shape?: Record<string, unknown> }).shape;
  refuseTakenName(Object.keys(shape ?? {}), toolName);
  return schema.extend({ fields: fieldsParameter({ ...options, zodVersion: isV4Schema ? 4 : 3 }) });
}

function refuseTakenName(names: readonly string[], toolName: string): void {
  if (names.includes('fields')) {
    throw new TypeError(
      `registerCompactTool: the tool '${toolName}' already has an input named 'fields'; drop the fields option and pass your own fields to compactResult`,
    );
  }
}
