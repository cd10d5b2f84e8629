// The `fetch` the SDK's Streamable HTTP client transport uses to reach an HTTP upstream. It is
// the least intrusive place to change three things the SDK 1.32.2 transport does on its own:
//
// 1. A 2026-07-28 request (its `_meta` envelope names the protocol version) goes out with the
//    headers that wire requires (`Mcp-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and without
//    a session id: that wire has no sessions.
// 2. An HTTP error answer to a request (a 400 to a `server/discover` sent before any session, a
//    404 for an unknown method) is an answer from a live server: it becomes a JSON-RPC error
//    response to that request, as the Python SDK's transport reads it, instead of an exception
//    the proxy would take for a dead upstream. Only failures to get an answer at all (refused,
//    reset, DNS, abort) still throw.
// 3. Server-sent events reach the SDK once. After a JSON-RPC *error* answer on a POST's event
//    stream the SDK resumes that stream with Last-Event-ID (it counts only results as answers),
//    and servers such as server-everything then replay every later event of every stream:
//    notifications arrive twice, answers to requests long answered come back, and stored
//    priming events come back as `{}`. Here a resumption of a stream whose request is answered
//    is declined the way a server without resumable streams declines it (405: the SDK then stops
//    quietly), and any event whose id was already passed on is dropped.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { lineExcerpt } from '../../../codec/excerpt.js';
import { errorResponse, messageKind } from './json-rpc.js';
import { modernHeaders, PROTOCOL_VERSION_META_KEY, SESSION_ID_HEADER } from './modern-wire.js';
import { dropSeenEvents, SeenEventIds } from './sse-events.js';

/** The `fetch` signature the SDK's client transport takes. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** One event stream from the upstream: a POST's (until its request is answered) or a GET's. */
interface StreamRecord {
  answered: boolean;
  /** The id of the last event it carried: the Last-Event-ID that would resume it. */
  lastEventId: string | undefined;
}

/** How many streams' last event ids are remembered for declining their resumption. */
const REMEMBERED_STREAMS = 1000;

/**
 * Wraps `base` (default: the global `fetch`) for one upstream connection. Give {@link fetch} to
 * the SDK transport and call {@link answered} with the id of every response the transport
 * delivers.
 *
 * @example
 * const upstreamFetch = new UpstreamFetch((error) => console.error(error.message));
 * const transport = new StreamableHTTPClientTransport(new URL('https://example.com/mcp'), { fetch: upstreamFetch.fetch });
 * transport.onmessage = (message) => {
 *   if ('id' in message && !('method' in message)) upstreamFetch.answered(message.id);
 * };
 */
export class UpstreamFetch {
  private readonly seen = new SeenEventIds();
  /** POST streams by the id of their request, until it is answered. */
  private readonly awaiting = new Map<RequestId, StreamRecord>();
  /** Streams by the id of the last event each carried. */
  private readonly byLastEvent = new Map<string, StreamRecord>();

  /**
   * @param report receives what the proxy should log: an HTTP error answer to a notification
   *   (nobody waits for its answer, so it cannot go anywhere else).
   * @param base the `fetch` underneath.
   */
  constructor(
    private readonly report: (error: Error) => void,
    private readonly base: FetchLike = (url, init) => fetch(url, init),
  ) {}

  /** The wrapped `fetch`, for the SDK transport's `fetch` option. */
  readonly fetch: FetchLike = async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method === 'POST' && typeof init.body === 'string') return this.post(url, init, init.body);
    if (method !== 'GET') return this.base(url, init);
    const resuming = new Headers(init.headers).get('last-event-id');
    const resumed = resuming === null ? undefined : this.byLastEvent.get(resuming);
    // Nothing is left to resume on a stream whose request has its answer.
    if (resumed?.answered) return new Response(null, { status: 405 });
    const response = await this.base(url, init);
    return this.watch(response, resumed ?? { answered: false, lastEventId: undefined });
  };

  /** The transport delivered the response to request `id`: its stream needs no resumption. */
  answered(id: RequestId): void {
    const stream = this.awaiting.get(id);
    if (stream === undefined) return;
    stream.answered = true;
    this.awaiting.delete(id);
  }

  /**
   * Runs `send` (the SDK transport's send of `message`) so that the POST it makes knows its
   * message without parsing the body the SDK has just serialized.
   *
   * @example
   * await upstreamFetch.sending(message, () => transport.send(message));
   */
  sending<T>(message: JSONRPCMessage, send: () => Promise<T>): Promise<T> {
    return this.outgoing.run(message, send);
  }

  private readonly outgoing = new AsyncLocalStorage<JSONRPCMessage>();

  private async post(url: string | URL, init: RequestInit, body: string): Promise<Response> {
    // The message being sent; parsed from the body only for a POST made outside `sending`.
    let message: unknown = this.outgoing.getStore();
    const parsed = (): unknown => {
      message ??= parseJson(body);
      return message;
    };
    // A cheap test first: only a request with the envelope can need the 2026 headers.
    const extra = body.includes(PROTOCOL_VERSION_META_KEY) ? modernHeaders(parsed()) : undefined;
    if (extra !== undefined) {
      const headers = new Headers(init.headers);
      headers.delete(SESSION_ID_HEADER);
      for (const [name, value] of Object.entries(extra)) headers.set(name, value);
      init = { ...init, headers };
    }
    const response = await this.base(url, init);
    if (response.status >= 400) return this.refused(response, parsed(), init);
    if (response.status === 202 && messageKind(parsed()) === 'request') {
      // No answer will follow: the SDK would leave the request waiting until --timeout.
      await response.body?.cancel();
      const id = (parsed() as { id: RequestId }).id;
      return jsonAnswer(id, {
        code: -32600,
        message: 'The upstream MCP server answered a request with 202 Accepted',
      });
    }
    if (!isEventStream(response)) return response;
    const stream: StreamRecord = { answered: false, lastEventId: undefined };
    const sent = parsed();
    if (messageKind(sent) === 'request') this.awaiting.set((sent as { id: RequestId }).id, stream);
    return this.watch(response, stream);
  }

  /** An event stream's body with events already seen dropped, each event id noted. */
  private watch(response: Response, stream: StreamRecord): Response {
    if (response.body === null || !isEventStream(response)) return response;
    const body = dropSeenEvents(response.body, this.seen, (id) => {
      if (stream.lastEventId !== undefined) this.byLastEvent.delete(stream.lastEventId);
      stream.lastEventId = id;
      this.byLastEvent.set(id, stream);
      if (this.byLastEvent.size > REMEMBERED_STREAMS)
        this.byLastEvent.delete(this.byLastEvent.keys().next().value!);
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /**
   * An HTTP error status: for a request, a JSON-RPC error response to it (the one in the body
   * when there is one, else one made from the status); for anything else, a report and a 202.
   */
  private async refused(response: Response, sent: unknown, init: RequestInit): Promise<Response> {
    const text = await response.text().catch(() => '');
    const kind = messageKind(sent);
    const what = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (kind !== 'request') {
      const method = (sent as { method?: unknown } | undefined)?.method;
      const name = typeof method === 'string' ? `'${method}'` : 'a message';
      this.report(
        new Error(`answered ${name} with ${what}${text ? `: ${lineExcerpt(text, 200)}` : ''}`),
      );
      return new Response(null, { status: 202 });
    }
    const id = (sent as { id: RequestId }).id;
    const hadSession = new Headers(init.headers).has(SESSION_ID_HEADER);
    return jsonAnswer(id, jsonRpcErrorIn(text) ?? statusError(response.status, what, hadSession));
  }
}

/** A JSON response carrying a JSON-RPC error answer to request `id`, as the SDK reads one. */
function jsonAnswer(id: RequestId, error: { code: number; message: string }): Response {
  return new Response(JSON.stringify(errorResponse(id, error.code, error.message)), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * The error a status stands for when the body holds no JSON-RPC error (the Python SDK's
 * reading): 404 before any session is the HTTP spelling of "method not found", 404 in a session
 * means the session is gone, anything else is an internal error. The message keeps the status.
 */
function statusError(
  status: number,
  what: string,
  hadSession: boolean,
): { code: number; message: string } {
  if (status === 404 && !hadSession) return { code: -32601, message: `Not Found (${what})` };
  if (status === 404) return { code: -32600, message: `Session terminated (${what})` };
  return { code: -32603, message: `The upstream MCP server answered ${what}` };
}

/** The `error` of a JSON-RPC error response in `text`, if that is what it holds. */
function jsonRpcErrorIn(text: string): { code: number; message: string } | undefined {
  const value = parseJson(text) as { error?: { code?: unknown; message?: unknown } } | undefined;
  if (messageKind(value) !== 'response' || value?.error === undefined) return undefined;
  const { code, message } = value.error;
  return typeof code === 'number' && typeof message === 'string'
    ? (value.error as { code: number; message: string })
    : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isEventStream(response: Response): boolean {
  return /^\s*text\/event-stream\s*(;|$)/i.test(response.headers.get('content-type') ?? '');
}
