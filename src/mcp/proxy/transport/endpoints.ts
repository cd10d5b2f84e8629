// The two ends a session joins, as the session drives them: SDK `Transport`s, with the few
// things the proxy's own transports add. Typed here so that a session asks for them by name,
// never through a cast.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The server side of a session: a stdio child, an HTTP upstream or a gateway of several.
 *
 * @example
 * const upstream: Upstream = new StdioUpstream({ command: 'node', args: ['server.js'] });
 * await upstream.close({ graceMs: 500 });
 */
export interface Upstream extends Transport {
  /** Closes it; a child process gets `graceMs` to exit once its input has ended. */
  close(options?: { graceMs?: number }): Promise<void>;
  /**
   * A gateway's answer to a request of its that timed out: `true` when it stopped just the server
   * that hung and answered the request itself (the session then goes on).
   */
  timedOut?(id: RequestId): boolean;
}

/**
 * The client side of a session: stdio (which can tell whether the client still reads) or an HTTP
 * server's session transport.
 *
 * @example
 * const alive = (await downstream.probeReader?.()) ?? true;
 */
export interface Downstream extends Transport {
  /** Whether the client still reads its output (a stdio client may have died with input ended). */
  probeReader?(): Promise<boolean>;
}

/**
 * How long a failed write to an upstream's stdin waits for the child's close before it is
 * reported: a server that dies as a message goes out breaks the pipe a moment before its exit
 * is known, and how it ended (`exited with code 3`) is the news, not EPIPE.
 */
export const EXIT_NEWS_MS = 1000;

/**
 * Whether `error` is a write to a pipe whose reader has gone (EPIPE).
 *
 * @example
 * isBrokenPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })); // true
 */
export function isBrokenPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';
}
