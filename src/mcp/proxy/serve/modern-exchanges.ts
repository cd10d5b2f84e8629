// The client side of a proxy session on MCP's 2026-07-28 HTTP wire: no session, one POST per
// request, its answer in the POST's response. Many such exchanges, from any number of clients,
// share one ProxySession (and so one upstream connection): each request gets an id of the
// session's own, and so does its progress token, so that answers and progress find their way
// back to the right HTTP response whatever ids the clients chose.

import type { ServerResponse } from 'node:http';
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, messageKind } from '../transport/json-rpc.js';
import {
  httpStatusOf,
  LISTENING_METHODS,
  SUBSCRIPTION_ID_META_KEY,
} from '../transport/modern-wire.js';

/** A client request on the 2026-07-28 wire, as read from its POST body. */
export interface ModernRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** One POST: the client's request, and the response its answer (or its event stream) goes to. */
class Exchange {
  /** Set once the response is an event stream (a notification came before the answer). */
  private streaming = false;
  done = false;

  constructor(
    readonly request: ModernRequest,
    private readonly response: ServerResponse,
  ) {}

  /** A notification about the request: it turns the response into an event stream. */
  notify(message: JSONRPCMessage): void {
    if (this.done) return;
    if (!this.streaming) {
      this.streaming = true;
      this.response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
      });
    }
    this.response.write(sseEvent(message));
  }

  /**
   * The answer: the last event of the stream, or the whole JSON response. A message that cannot
   * be encoded (nested too deeply for `JSON.stringify`) throws and leaves the exchange open, so
   * the session can answer it otherwise.
   */
  answer(message: JSONRPCMessage): void {
    if (this.done) return;
    if (this.response.destroyed) {
      this.done = true; // the client is gone
      return;
    }
    if (this.streaming) {
      const event = sseEvent(message);
      this.done = true;
      this.response.end(event);
      return;
    }
    const body = JSON.stringify(message);
    this.done = true;
    writeJson(this.response, message, body);
  }
}

/**
 * Writes `message`, a JSON-RPC answer, as a whole JSON response with the status the 2026-07-28
 * wire gives it.
 *
 * @example
 * answerJson(response, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }); // HTTP 404
 */
export function answerJson(response: ServerResponse, message: JSONRPCMessage): void {
  writeJson(response, message, JSON.stringify(message));
}

/** {@link answerJson} with `message`'s JSON text already made. */
function writeJson(response: ServerResponse, message: JSONRPCMessage, body: string): void {
  response.writeHead(httpStatusOf(message), {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** The `_meta` of a message's `params` or `result`. */
function metaOf(message: JSONRPCMessage, member: 'params' | 'result') {
  const meta = (message as unknown as Record<string, { _meta?: unknown } | undefined>)[member]
    ?._meta;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/** `message` with the subscription id `id` in its `_meta` given back as the client's `clientId`. */
function withClientSubscription(
  message: JSONRPCMessage,
  member: 'params' | 'result',
  id: number,
  clientId: RequestId,
): JSONRPCMessage {
  const meta = metaOf(message, member);
  if (meta?.[SUBSCRIPTION_ID_META_KEY] !== id) return message;
  const body = (message as unknown as Record<string, Record<string, unknown>>)[member]!;
  return {
    ...message,
    [member]: { ...body, _meta: { ...meta, [SUBSCRIPTION_ID_META_KEY]: clientId } },
  } as JSONRPCMessage;
}

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * An SDK `Transport` whose far side is many HTTP exchanges: {@link accept} hands a request to
 * the session, and what the session sends comes back to that request's response.
 *
 * @example
 * const exchanges = new ModernExchanges();
 * const session = new ProxySession(exchanges, upstream, { pipeline });
 * await session.start();
 * exchanges.accept({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }, response);
 */
export class ModernExchanges implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Called with every answer sent, after it went out. */
  onanswer?: (request: ModernRequest, answer: JSONRPCMessage) => void;
  /**
   * Called when the last call in flight ends (a call: any request but a listening one, see
   * {@link LISTENING_METHODS}), open listening exchanges or not.
   */
  onidle?: () => void;

  private nextId = 1;
  /** Open exchanges by the id the session knows them by. */
  private readonly open = new Map<number, Exchange>();
  /** Progress tokens the session knows, to the clients' own. */
  private readonly tokens = new Map<number, unknown>();
  private closed = false;

  async start(): Promise<void> {}

  /** How many open exchanges are calls, not listening ones. */
  private calls = 0;

  /** Whether an exchange is open (its answer not yet sent), a listening one included. */
  get busy(): boolean {
    return this.open.size > 0;
  }

  /** Whether a call is in flight: an open exchange that is not a client listening. */
  get calling(): boolean {
    return this.calls > 0;
  }

  /** Whether `request` is a client listening (an event stream), not a call. */
  static listens(request: ModernRequest): boolean {
    return LISTENING_METHODS.has(request.method);
  }

  /**
   * Passes `request` to the session under an id of its own; its answer goes to `response`. A
   * client that closes the response first has cancelled the request (the 2026 HTTP wire's way).
   */
  accept(request: ModernRequest, response: ServerResponse): void {
    if (this.closed) {
      new Exchange(request, response).answer(
        errorResponse(request.id, -32000, 'toonwire proxy: shutting down'),
      );
      return;
    }
    const id = this.nextId++;
    const exchange = new Exchange(request, response);
    this.open.set(id, exchange);
    if (!ModernExchanges.listens(request)) this.calls += 1;
    let params = request.params;
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (meta?.progressToken !== undefined) {
      this.tokens.set(id, meta.progressToken);
      params = { ...params, _meta: { ...meta, progressToken: id } };
    }
    response.once('close', () => {
      if (exchange.done || !this.open.has(id)) return;
      // A probe is not withdrawn: a client that gave up waiting falls back to initialize, which
      // its answer settles (ModernRoute.fallbackAnswer).
      if (request.method === 'server/discover') return;
      this.end(id);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: 'the HTTP client closed the request' },
      });
    });
    this.onmessage?.({ ...request, id, ...(params === undefined ? {} : { params }) });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const kind = messageKind(message);
    if (kind === 'response') {
      const id = (message as { id: RequestId }).id;
      const exchange = typeof id === 'number' ? this.open.get(id) : undefined;
      if (exchange === undefined) return;
      const answer = withClientSubscription(
        { ...message, id: exchange.request.id } as JSONRPCMessage,
        'result',
        id as number,
        exchange.request.id,
      );
      exchange.answer(answer);
      this.onanswer?.(exchange.request, answer);
      this.end(id as number);
      return;
    }
    if (kind === 'request') {
      // The 2026 HTTP wire gives a server no way to ask the client anything.
      const { id, method } = message as { id: RequestId; method: string };
      this.onmessage?.(
        errorResponse(
          id,
          -32601,
          `toonwire proxy: the client speaks MCP 2026-07-28 over HTTP, which carries no server requests ('${method}')`,
        ),
      );
      return;
    }
    // A subscriptions/listen stream's notifications name it in their _meta; the session relates
    // the others (progress by token, the rest to the latest request).
    const subscription = metaOf(message, 'params')?.[SUBSCRIPTION_ID_META_KEY];
    const related =
      typeof subscription === 'number' && this.open.has(subscription)
        ? subscription
        : options?.relatedRequestId;
    const exchange = typeof related === 'number' ? this.open.get(related) : undefined;
    if (exchange === undefined) return; // about nothing open: no client can receive it
    const id = related as number;
    exchange.notify(
      withClientSubscription(this.withClientToken(message, id), 'params', id, exchange.request.id),
    );
  }

  /** Ends every open exchange with an error (the session is over), then reports the close. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, exchange] of [...this.open]) {
      this.end(id);
      exchange.answer(
        errorResponse(exchange.request.id, -32000, 'toonwire proxy: the upstream session ended'),
      );
    }
    this.onclose?.();
  }

  private end(id: number): void {
    const exchange = this.open.get(id);
    if (exchange === undefined) return;
    this.open.delete(id);
    this.tokens.delete(id);
    // A listening exchange that ends is no call ending: reopening one keeps no session alive.
    if (ModernExchanges.listens(exchange.request)) return;
    this.calls -= 1;
    if (this.calls === 0) this.onidle?.();
  }

  /** A progress notification with the token its client chose. */
  private withClientToken(message: JSONRPCMessage, id: number): JSONRPCMessage {
    const params = (message as { params?: Record<string, unknown> }).params;
    if (params?.progressToken !== id || !this.tokens.has(id)) return message;
    return {
      ...message,
      params: { ...params, progressToken: this.tokens.get(id) },
    } as JSONRPCMessage;
  }
}
