// The upstream MCP server over Streamable HTTP, through the SDK's client transport.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { messageKind } from './json-rpc.js';
import { envelopeVersion } from './modern-wire.js';
import { loadSdkModule } from './sdk.js';
import { UpstreamFetch } from './upstream-fetch.js';

/** An upstream MCP server reached over Streamable HTTP. */
export interface HttpUpstream {
  /** Its MCP endpoint, e.g. `'https://example.com/mcp'`. */
  url: string | URL;
  /** Headers sent with every request, e.g. `{ Authorization: 'Bearer ...' }`. */
  headers?: Record<string, string>;
}

/** How long `notifications/initialized` waits for the standalone stream to open. */
const STREAM_WAIT_MS = 2000;

/** The SDK client transport's way to open the standalone GET stream (not public API). */
type StartStandaloneStream = (options: { resumptionToken: undefined }) => Promise<void>;

/**
 * An SDK `Transport` to an HTTP upstream that ends its MCP session (HTTP DELETE) when closed.
 * The SDK's client transport does the protocol work: sessions, SSE streams, protocol headers;
 * its `fetch` ({@link UpstreamFetch}) adds the 2026-07-28 wire's headers, turns HTTP error
 * answers to requests into JSON-RPC errors, and passes each server-sent event once.
 *
 * One more thing it does differently: the SDK opens the standalone GET stream (where a server sends
 * requests and notifications of its own) only after the server has accepted
 * `notifications/initialized`, so a server that speaks right after that loses its message. This
 * transport opens the stream first, then forwards `notifications/initialized`, and holds every
 * later message until that is done, so the client's order is kept.
 *
 * @example
 * const upstream = new HttpUpstreamTransport({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
 */
export class HttpUpstreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private inner:
    | (Transport & { terminateSession(): Promise<void>; sessionId?: string | undefined })
    | undefined;
  /** Settles once `notifications/initialized` has been forwarded; later sends wait for it. */
  private initializing: Promise<void> | undefined;
  private readonly upstream: HttpUpstream;
  private upstreamFetch: UpstreamFetch | undefined;
  /** A 2026-07-28 request went out since the last initialize: no sessions, no notifications. */
  private modern = false;

  constructor(upstream: HttpUpstream) {
    this.upstream = upstream;
  }

  async start(): Promise<void> {
    const { StreamableHTTPClientTransport } = await loadSdkModule(
      () => import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      'An HTTP upstream (--upstream-url)',
    );
    const url = new URL(this.upstream.url);
    const upstreamFetch = new UpstreamFetch((error) => this.onerror?.(error));
    this.upstreamFetch = upstreamFetch;
    const inner = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: this.upstream.headers ?? {} },
      fetch: upstreamFetch.fetch,
    });
    inner.onmessage = (message) => {
      if (messageKind(message) === 'response')
        upstreamFetch.answered((message as { id: RequestId }).id);
      this.onmessage?.(message);
    };
    // Once closing, the SDK reports its own aborted streams ("SSE stream disconnected:
    // AbortError"): nothing the upstream did.
    inner.onerror = (error) => {
      if (this.inner === inner) this.onerror?.(error);
    };
    inner.onclose = () => this.onclose?.();
    this.inner = inner;
    await inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const upstreamFetch = this.upstreamFetch;
    if (upstreamFetch === undefined) throw new Error('the HTTP upstream is not connected');
    await upstreamFetch.sending(message, () => this.forward(message));
  }

  private async forward(message: JSONRPCMessage): Promise<void> {
    if (this.initializing !== undefined) await this.initializing.catch(() => {});
    const inner = this.inner;
    if (inner === undefined) throw new Error('the HTTP upstream is not connected');
    const kind = messageKind(message);
    // A client that probed with server/discover and fell back to initialize speaks the old wire.
    if (kind === 'request')
      this.modern =
        envelopeVersion(message) !== undefined ||
        (this.modern && (message as { method: string }).method !== 'initialize');
    // The 2026-07-28 HTTP wire has no client-to-server notifications (a server acknowledges and
    // drops them; cancelling is closing the request's stream): without a session, none is sent.
    if (kind === 'notification' && this.modern && inner.sessionId === undefined) return;
    if ((message as { method?: unknown }).method !== 'notifications/initialized') {
      await inner.send(message);
      return;
    }
    const initializing = this.sendInitialized(inner, message);
    this.initializing = initializing;
    try {
      await initializing;
    } finally {
      if (this.initializing === initializing) this.initializing = undefined;
    }
  }

  /** Opens the standalone stream (when the server offers one), then sends `initialized`. */
  private async sendInitialized(
    inner: Transport & { terminateSession(): Promise<void> },
    message: JSONRPCMessage,
  ): Promise<void> {
    const sdk = inner as unknown as { _startOrAuthSse?: StartStandaloneStream };
    const open = sdk._startOrAuthSse;
    if (typeof open !== 'function') {
      await inner.send(message); // an SDK without it: its own (later) stream opening
      return;
    }
    // Settles once the server has answered the GET: the stream is open, or it offers none (405).
    // A server that holds back the GET's headers must not hold back the session: after
    // STREAM_WAIT_MS `initialized` goes out anyway (the GET goes on, and the SDK's second one
    // is still skipped).
    const opened = await Promise.race([
      open.call(inner, { resumptionToken: undefined }).then(
        () => true,
        () => false, // reported through onerror by the SDK; the session goes on without it
      ),
      new Promise<true>((resolve) => setTimeout(() => resolve(true), STREAM_WAIT_MS).unref()),
    ]);
    if (!opened) {
      await inner.send(message);
      return;
    }
    // The SDK would open a second stream once `initialized` is accepted: the server refuses it
    // (409), so that one call is skipped.
    sdk._startOrAuthSse = async () => {};
    try {
      await inner.send(message);
    } finally {
      sdk._startOrAuthSse = open;
    }
  }

  setProtocolVersion(version: string): void {
    this.inner?.setProtocolVersion?.(version);
  }

  async close(): Promise<void> {
    const inner = this.inner;
    if (inner === undefined) return;
    this.inner = undefined;
    // Its onclose would report the close we asked for as the upstream going away.
    inner.onclose = undefined;
    await inner.terminateSession().catch(() => {});
    await inner.close();
  }
}
