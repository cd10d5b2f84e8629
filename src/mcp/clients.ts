// Which MCP clients show the model `structuredContent` instead of the text of a tool result. In
// those clients a compacted text is never read, so the saving only arrives when results carry no
// `structuredContent`: `'auto'` strips it for them and keeps it for every other client. The
// evidence for each entry is in docs/mcp.md ("Which text the model reads").

/**
 * The `_meta` key of a 2026-07-28 request that names its client (that protocol has no
 * `initialize`, so the client says who it is on every request).
 */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

/** What `structuredContent` does in a result: kept as sent, added where safe, or removed. */
export type StructuredContentMode = 'keep' | 'add' | 'strip';

/** A mode, or `'auto'`: `'strip'` for clients known to show the model `structuredContent`, else `'keep'`. */
export type StructuredContentSetting = StructuredContentMode | 'auto';

/** Every {@link StructuredContentSetting}, for option parsers. */
export const STRUCTURED_CONTENT_SETTINGS: readonly StructuredContentSetting[] = [
  'auto',
  'keep',
  'add',
  'strip',
];

/** The `clientInfo` a client sends in `initialize`. */
export interface ClientInfo {
  name?: unknown;
  version?: unknown;
}

/**
 * Clients known to show the model `JSON.stringify(structuredContent)` (dropping the text) when a
 * result has it, by the `clientInfo.name` they send in `initialize`. A name matches without case,
 * exactly or followed by a space (`Visual Studio Code - Insiders`), after any
 * ` (via mcp-remote …)` suffix is dropped.
 */
export const STRUCTURED_CONTENT_CLIENTS: readonly { name: string; client: string }[] = [
  { name: 'claude-code', client: 'Claude Code' }, // the Claude Agent SDK sends it too
  { name: 'codex-mcp-client', client: 'Codex' },
  { name: 'github-copilot-developer', client: 'GitHub Copilot CLI' },
  { name: 'visual studio code', client: 'VS Code' },
];

/**
 * The mode `setting` comes to for a client: `'auto'` gives `'strip'` for the clients of
 * {@link STRUCTURED_CONTENT_CLIENTS} and `'keep'` for all others (an unknown or missing
 * `clientInfo` included); any other setting is itself. `client` names the matched client.
 *
 * @example
 * structuredContentModeFor('auto', { name: 'claude-code', version: '2.1.3' });
 * // { mode: 'strip', client: 'Claude Code' }
 * structuredContentModeFor('auto', { name: 'Visual Studio Code - Insiders' }); // { mode: 'strip', client: 'VS Code' }
 * structuredContentModeFor('auto', { name: 'cursor-vscode' }); // { mode: 'keep', client: undefined }
 * structuredContentModeFor('add', { name: 'claude-code' }); // { mode: 'add', client: undefined }
 */
export function structuredContentModeFor(
  setting: StructuredContentSetting,
  clientInfo: ClientInfo | undefined,
): { mode: StructuredContentMode; client: string | undefined } {
  if (setting !== 'auto') return { mode: setting, client: undefined };
  const name =
    typeof clientInfo?.name === 'string'
      ? clientInfo.name
          .replace(/\s*\(via mcp-remote[^)]*\)\s*$/i, '')
          .trim()
          .toLowerCase()
      : undefined;
  const known =
    name === undefined
      ? undefined
      : STRUCTURED_CONTENT_CLIENTS.find(
          (entry) => name === entry.name || name.startsWith(`${entry.name} `),
        );
  return known === undefined
    ? { mode: 'keep', client: undefined }
    : { mode: 'strip', client: known.client };
}

/**
 * Throws a TypeError naming `caller` unless `setting` is one of `allowed` (default: every
 * {@link StructuredContentSetting}; a single result has no use for `'add'`).
 *
 * @example
 * checkStructuredContentSetting('auto', 'proxy'); // passes
 * checkStructuredContentSetting('add', 'compactResult', ['auto', 'keep', 'strip']); // throws
 */
export function checkStructuredContentSetting<S extends StructuredContentSetting>(
  setting: unknown,
  caller: string,
  allowed: readonly S[] = STRUCTURED_CONTENT_SETTINGS as readonly S[],
): asserts setting is S {
  if (!(allowed as readonly unknown[]).includes(setting)) {
    const names = allowed.map((name) => `'${name}'`);
    throw new TypeError(
      `${caller}: structuredContent must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got ${JSON.stringify(setting)}`,
    );
  }
}

/**
 * The `clientInfo` a request carries: `initialize`'s `params.clientInfo`, or the
 * `_meta["io.modelcontextprotocol/clientInfo"]` of a request of the 2026 protocol, where every
 * request says who sends it and there is no `initialize`. `undefined` when it names no client.
 *
 * @example
 * clientInfoOf({ method: 'initialize', params: { clientInfo: { name: 'claude-code', version: '2.1.3' } } });
 * // { name: 'claude-code', version: '2.1.3' }
 * clientInfoOf({ method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'mcp' } } } });
 * // { name: 'mcp' }
 */
export function clientInfoOf(request: {
  method: string;
  params?: unknown;
}): ClientInfo | undefined {
  const params = request.params;
  if (typeof params !== 'object' || params === null) return undefined;
  const candidate =
    request.method === 'initialize'
      ? (params as { clientInfo?: unknown }).clientInfo
      : ((params as { _meta?: Record<string, unknown> })._meta?.[CLIENT_INFO_META_KEY] ??
        undefined);
  return typeof candidate === 'object' && candidate !== null
    ? (candidate as ClientInfo)
    : undefined;
}
