// `--fields-param`: model-driven projection for every upstream tool. The proxy offers an optional
// `fields` argument in tools/list and takes it out of the call before the upstream sees it; the
// result stage projects the result's data with `projectFields` (src/mcp/fields.ts), the same
// projection `compactResult` makes.

import { isPlainObject } from '../../../codec/objects.js';

/** The description of the `fields` argument the proxy adds: what the model reads. */
export const FIELDS_PARAM_DESCRIPTION =
  'Comma-separated fields to return for each item of the result, dotted paths allowed, e.g. "name,url,rating" or "name,location.lat". Omit for all fields. Applied by the toonwire proxy to the text of the result; structuredContent stays whole.';

/**
 * The tool with an optional `fields` string added to its `inputSchema`, or `undefined` when the
 * tool is left alone: its input schema is not an object schema, or it declares its own `fields`.
 *
 * @example
 * withFieldsParam({ name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
 * // { name: 'search', inputSchema: { type: 'object', properties: { q: ..., fields: { type: 'string', description: ... } } } }
 */
export function withFieldsParam(tool: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(tool)) return undefined;
  const schema = tool.inputSchema;
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties) || Object.hasOwn(properties, 'fields')) return undefined;
  return {
    ...tool,
    inputSchema: {
      ...schema,
      properties: {
        ...properties,
        fields: { type: 'string', description: FIELDS_PARAM_DESCRIPTION },
      },
    },
  };
}

/**
 * Splits the `fields` argument off a tools/call's arguments: `fields` is the trimmed spec
 * (`undefined` when absent or blank), `args` what the upstream gets (the same object when there
 * was no `fields`).
 *
 * @example
 * takeFieldsArgument({ q: 'x', fields: 'id,name' }); // { args: { q: 'x' }, fields: 'id,name' }
 */
export function takeFieldsArgument(args: unknown): { args: unknown; fields: string | undefined } {
  if (!isPlainObject(args) || !Object.hasOwn(args, 'fields')) return { args, fields: undefined };
  const { fields, ...rest } = args;
  const spec = typeof fields === 'string' && fields.trim() !== '' ? fields.trim() : undefined;
  return { args: rest, fields: spec };
}
