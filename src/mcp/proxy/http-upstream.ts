// The upstream MCP server over Streamable HTTP, through the SDK's client transport.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { loadSdkModule } from './sdk.js';

/** An upstream MCP server reached over Streamable HTTP. */
export interface HttpUpstream {
  /** Its MCP endpoint, e.g. `'https://example.com/mcp'`. */
  url: string | URL;
  /** Headers sent with every request, e.g. `{ Authorization: 'Bearer ...' }`. */
  headers?: Record<string, string>;
}

/**
 * An SDK `Transport` to an HTTP upstream that ends its MCP session (HTTP DELETE) when closed.
 * The SDK's client transport does the protocol work: sessions, SSE streams, protocol headers.
 *
 * @example
 * const upstream = new HttpUpstreamTransport({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
 */
export class HttpUpstreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private inner: (Transport & { terminateSession(): Promise<void> }) | undefined;
  private readonly upstream: HttpUpstream;

  constructor(upstream: HttpUpstream) {
    this.upstream = upstream;
  }

  async start(): Promise<void> {
    const { StreamableHTTPClientTransport } = await loadSdkModule(
      () => import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      'An HTTP upstream (--upstream-url)',
    );
    const url = new URL(this.upstream.url);
    const inner = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: this.upstream.headers ?? {} },
    });
    inner.onmessage = (message) => this.onmessage?.(message);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
    this.inner = inner;
    await inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.inner === undefined) throw new Error('the HTTP upstream is not connected');
    await this.inner.send(message);
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
