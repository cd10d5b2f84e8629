// toonwire/mcp: compact MCP tool results for server authors (compactResult, registerCompactTool,
// fieldsParameter) and the compacting proxy for everyone else. The text a model reads shrinks;
// structuredContent, what programs and outputSchema validation read, stays exactly as it was.
// Needs the official @modelcontextprotocol/sdk (a peer dependency) and the zod it depends on.

export { compactResult, type CompactResultOptions, DEFAULT_META_KEY } from './compact-result.js';
export { formatHint, type FormatHint, type ModelTextOptions } from './model-text.js';
export {
  type CompactToolConfig,
  type CompactToolHandler,
  DEFAULT_FIELDS_DESCRIPTION,
  fieldsParameter,
  type FieldsParameterOptions,
  registerCompactTool,
  type ToolArguments,
  type ToolExtra,
} from './register.js';
export * from './proxy.js';
