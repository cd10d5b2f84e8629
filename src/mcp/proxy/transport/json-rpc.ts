// The few JSON-RPC 2.0 facts the proxy needs: what kind of message a value is, and the error
// responses the proxy writes itself when the upstream cannot answer.

import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The kinds of JSON-RPC message, as the proxy tells them apart. */
export type MessageKind = 'request' | 'notification' | 'response';

/**
 * The kind of a JSON-RPC 2.0 message, or `undefined` for anything else. Deliberately looser than
 * the SDK's schemas (extra members are allowed) so the proxy never rejects what an endpoint would
 * accept: it only has to know which messages are requests and which answer them.
 */
export function messageKind(value: unknown): MessageKind | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return undefined;
  if (typeof message.method === 'string') {
    if (!('id' in message)) return 'notification';
    return isRequestId(message.id) ? 'request' : undefined;
  }
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult === hasError) return undefined;
  if (hasError && (typeof message.error !== 'object' || message.error === null)) return undefined;
  // An error answering an unparsable request carries `id: null`.
  return isRequestId(message.id) || (hasError && message.id === null) ? 'response' : undefined;
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

/** The JSON-RPC error codes the proxy answers with (the SDK's own numbering). */
export const ProxyErrorCode = {
  /** The upstream exited, closed the connection or broke the protocol. */
  UpstreamClosed: -32000,
  /** The upstream did not answer within the proxy's timeout. */
  UpstreamTimeout: -32001,
  /** The upstream's answer could not be passed on (JSON-RPC's internal error). */
  Unsendable: -32603,
} as const;

/**
 * A JSON-RPC error response to `id` (`null` answers a message that could not be read far enough
 * to know its id), the one shape of every error body the proxy writes.
 *
 * @example
 * errorResponse(3, ProxyErrorCode.UpstreamTimeout, 'no answer');
 * // { jsonrpc: '2.0', id: 3, error: { code: -32001, message: 'no answer' } }
 */
export function errorResponse(id: RequestId | null, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}

/** `'tools/call' (id 3)` or `'tools/call search' (id 3)`: how log lines name a request. */
export function describeRequest(method: string, id: RequestId, toolName?: string): string {
  const what = toolName === undefined ? method : `${method} ${toolName}`;
  return `'${what}' (id ${JSON.stringify(id)})`;
}
