// The few facts of MCP's 2026-07-28 wire the proxy needs. That protocol has no initialize and no
// session: every request names its protocol version, client and capabilities in a `_meta`
// envelope, and over Streamable HTTP it also says its version, method and name in headers, so
// that servers and gateways can route a POST without reading its body. Versions negotiated by
// `initialize` ("handshake" versions) keep the older wire.

/** The `_meta` envelope keys of a 2026-07-28 request. */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** The `_meta` key naming the `subscriptions/listen` request a notification belongs to. */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/**
 * Requests that stay open as long as their client listens (the 2026 protocol's event streams): a
 * client listening, not calling. They have no timeout and do not keep a session from idling.
 */
export const LISTENING_METHODS: ReadonlySet<string> = new Set(['subscriptions/listen']);

/** The HTTP headers of the Streamable HTTP transport the proxy reads or writes. */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
export const SESSION_ID_HEADER = 'mcp-session-id';
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';

/** Methods whose `Mcp-Name` header repeats one of their params, and which. */
const NAME_BEARING_METHODS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * The HTTP status a 2026-07-28 server sends with a JSON-RPC error, by error code (the Python SDK's
 * table; any other code goes with 200): parse error, invalid request, invalid params, header
 * mismatch (-32020), missing client capability (-32021), unsupported version (-32022) are 400,
 * method not found is 404.
 */
const ERROR_HTTP_STATUS: ReadonlyMap<number, number> = new Map([
  [-32700, 400],
  [-32600, 400],
  [-32602, 400],
  [-32020, 400],
  [-32021, 400],
  [-32022, 400],
  [-32601, 404],
]);

/**
 * The HTTP status that goes with a JSON-RPC answer on the 2026-07-28 wire.
 *
 * @example
 * httpStatusOf({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }); // 404
 * httpStatusOf({ jsonrpc: '2.0', id: 1, result: {} }); // 200
 */
export function httpStatusOf(answer: unknown): number {
  const code = (answer as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'number' ? (ERROR_HTTP_STATUS.get(code) ?? 200) : 200;
}

/**
 * The protocol version a request's `_meta` envelope names, or `undefined` for a message without
 * one (every handshake-era message).
 *
 * @example
 * envelopeVersion({ method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }); // '2026-07-28'
 * envelopeVersion({ method: 'tools/list' }); // undefined
 */
export function envelopeVersion(message: unknown): string | undefined {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  const version =
    typeof meta === 'object' && meta !== null ? meta[PROTOCOL_VERSION_META_KEY] : null;
  return typeof version === 'string' ? version : undefined;
}

/**
 * The routing headers a 2026-07-28 request carries over HTTP (`Mcp-Protocol-Version`,
 * `Mcp-Method`, and `Mcp-Name` for the methods that name something), or `undefined` for a
 * message without the envelope.
 *
 * @example
 * modernHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
 * // { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search' }
 */
export function modernHeaders(message: unknown): Record<string, string> | undefined {
  const version = envelopeVersion(message);
  if (version === undefined) return undefined;
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  if (typeof method !== 'string') return undefined;
  const headers: Record<string, string> = {
    [PROTOCOL_VERSION_HEADER]: version,
    [METHOD_HEADER]: method,
  };
  const nameKey = NAME_BEARING_METHODS[method];
  const name = nameKey === undefined ? undefined : params?.[nameKey];
  if (typeof name === 'string') headers[NAME_HEADER] = encodeHeaderValue(name);
  return headers;
}

const HEADER_SAFE = /^[\x20-\x7e]*$/;
const BASE64_SENTINEL = /^=\?base64\?.*\?=$/;

/**
 * A header value as MCP writes it: printable ASCII without edge spaces as it is, anything else
 * as `=?base64?<UTF-8 in base64>?=`, so that the receiver gets the exact string back.
 *
 * @example
 * encodeHeaderValue('search'); // 'search'
 * encodeHeaderValue('café'); // '=?base64?Y2Fmw6k=?='
 */
export function encodeHeaderValue(value: string): string {
  if (HEADER_SAFE.test(value) && value === value.trim() && !BASE64_SENTINEL.test(value))
    return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
