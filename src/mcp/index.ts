// toonwire/mcp: compact MCP tool results for server authors (compactResult, registerCompactTool,
// fieldsParameter) and the compacting proxy for everyone else. The text a model reads shrinks;
// structuredContent, what programs and outputSchema validation read, stays exactly as it was.
// Needs the official @modelcontextprotocol/sdk (a peer dependency) and the zod it depends on.

export { type CompactResultOptions, compactResult, DEFAULT_META_KEY } from './compact-result.js';
export { type FormatHint, formatHint, type ModelTextOptions } from './model-text.js';
export * from './proxy.js';
export {
  type CompactToolConfig,
  type CompactToolHandler,
  DEFAULT_FIELDS_DESCRIPTION,
  type FieldsArgument,
  type FieldsParameterOptions,
  fieldsParameter,
  registerCompactTool,
  type ToolArguments,
  type ToolExtra,
} from './register.js';
