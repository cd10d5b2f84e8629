// MCP's stdio framing (one JSON-RPC message per line) over any pair of Node streams, keeping the
// exact text of every line it read: a message that is forwarded unmodified is written out byte
// for byte as it came in, never re-serialized.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { excerpt } from '../../../codec/excerpt.js';
import { messageKind } from './json-rpc.js';

/**
 * The bytes of the line each parsed message came from, its newline included (one is added to a
 * last line that had none), so an unmodified message is written out as it was read (and a large
 * one is not encoded again).
 */
const originalLines = new WeakMap<object, Buffer>();

const NEWLINE = 0x0a;
const NEWLINE_BYTES = Buffer.from('\n');
/**
 * Serialized messages up to this many UTF-8 bytes or so are written with their newline appended,
 * in one write; longer ones are corked and written in two, so that a result of megabytes is not
 * copied again to append one byte.
 */
const APPEND_NEWLINE_BELOW = 64 * 1024;
/** How much of a bad line an error message quotes. */
const QUOTE_LIMIT = 200;

/** A line that is not a JSON-RPC 2.0 message. `line` is the offending text, shortened. */
export class JsonRpcProtocolError extends Error {
  override readonly name = 'JsonRpcProtocolError';

  constructor(
    readonly reason: string,
    readonly line: string,
  ) {
    super(`${reason}: ${quote(line)}`);
  }
}

/**
 * Not an error: a line that is no message at all, skipped as the SDK's own stdio client skips
 * it: not JSON (a banner, a stray `console.log`), or JSON without a `jsonrpc` member (a log
 * record of a logger writing JSON to stdout, a printed number). Reported through `onerror` so
 * that it is logged and counted.
 */
export class SkippedLineNotice extends Error {
  override readonly name = 'SkippedLineNotice';

  constructor(
    readonly line: string,
    readonly reason = 'a line that is not JSON',
  ) {
    super(`${reason}: ${quote(line)}`);
  }
}

function quote(line: string): string {
  return JSON.stringify(excerpt(line, QUOTE_LIMIT, '…'));
}

/** What {@link JsonLineTransport} reads from and writes to. */
export interface JsonLineStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream & { cork?(): void; uncork?(): void };
  /** End `output` when the transport closes (a child's stdin: the child sees end of input). */
  endOutputOnClose?: boolean;
  /**
   * Skip lines that are no message, reporting each as a {@link SkippedLineNotice} (an upstream's
   * stdout, where servers print banners and loggers write JSON records), instead of as a
   * {@link JsonRpcProtocolError}: lines that are not JSON, and JSON without a `jsonrpc` member.
   * A line that claims to be JSON-RPC (has `jsonrpc`) but is no valid message stays a protocol
   * error either way: its sender speaks the protocol wrongly, and waiting would only hang.
   */
  skipNonJson?: boolean;
}

/**
 * An SDK `Transport` speaking newline-delimited JSON-RPC over two streams: the proxy's own
 * stdin/stdout, or a child process's stdout/stdin. Lines that are not JSON-RPC messages are
 * reported through `onerror` as {@link JsonRpcProtocolError} (or, with `skipNonJson`, lines that
 * are not JSON as {@link SkippedLineNotice}), never dropped silently. Blank lines
 * are skipped. A JSON array (a JSON-RPC batch, which MCP dropped in 2025-06-18) is delivered as
 * its separate messages.
 *
 * @example
 * const clientSide = new JsonLineTransport({ input: process.stdin, output: process.stdout });
 */
export class JsonLineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private pendingChunks: Buffer[] = [];
  private reading = false;
  private closed = false;
  private closeReported = false;
  private readonly streams: JsonLineStreams;

  constructor(streams: JsonLineStreams) {
    this.streams = streams;
  }

  async start(): Promise<void> {
    const { input, output } = this.streams;
    this.reading = true;
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('error', this.onStreamError);
    output.on('error', this.onStreamError);
  }

  // Not `async`: the write's own promise is the answer, without a second one wrapped around it on
  // every message (what throws still rejects).
  send(message: JSONRPCMessage): Promise<void> {
    try {
      return this.writeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private writeMessage(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the connection is closed');
    const original = originalLines.get(message);
    if (original !== undefined) return this.write(original);
    const line = JSON.stringify(message);
    if (line.length < APPEND_NEWLINE_BELOW) return this.write(`${line}\n`);
    // Corked, the line and its newline leave in one system call, and the line is not copied.
    const { output } = this.streams;
    output.cork?.();
    output.write(line);
    const written = this.write('\n');
    output.uncork?.();
    return written;
  }

  private write(chunk: string | Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.streams.output.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Whether the peer still reads what is sent: writes one space, which a JSON reader skips (white
   * space before the next message), and resolves `false` when that cannot be written (the pipe
   * or socket has no reader any more: the peer has gone).
   */
  probeReader(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      try {
        this.streams.output.write(' ', (error) => resolve(error === undefined || error === null));
      } catch {
        resolve(false);
      }
    });
  }

  /**
   * Whether {@link send} still works: after end of input it does (the peer may still be
   * reading), until {@link close}.
   */
  get canSend(): boolean {
    return !this.closed;
  }

  /** Stops reading and sending; ends `output` when told to at construction. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReading();
    if (this.streams.endOutputOnClose) this.streams.output.end();
    this.reportClose();
  }

  private stopReading(): void {
    if (!this.reading) return;
    this.reading = false;
    const { input } = this.streams;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('error', this.onStreamError);
    input.pause();
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let newline = bytes.indexOf(NEWLINE);
    while (newline !== -1) {
      const head = bytes.subarray(0, newline + 1);
      const lineBytes =
        this.pendingChunks.length === 0 ? head : Buffer.concat([...this.pendingChunks, head]);
      this.pendingChunks = [];
      this.deliver(lineBytes);
      if (!this.reading) return;
      bytes = bytes.subarray(newline + 1);
      newline = bytes.indexOf(NEWLINE);
    }
    if (bytes.length > 0) this.pendingChunks.push(bytes);
  };

  /**
   * End of input is how an MCP stdio peer says it is done (the spec's shutdown), but it may still
   * be reading: `onclose` fires, and sending goes on working until {@link close}.
   */
  private readonly onEnd = (): void => {
    if (this.pendingChunks.length > 0) {
      // A last message without its newline is still a message (kept with one, as every line is).
      const rest = Buffer.concat([...this.pendingChunks, NEWLINE_BYTES]);
      this.pendingChunks = [];
      this.deliver(rest);
    }
    this.stopReading();
    this.reportClose();
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  /** Delivers the message(s) on one line: `bytes`, its newline included. */
  private deliver(bytes: Buffer): void {
    const rawLine = bytes.toString('utf8', 0, bytes.length - 1);
    // MCP's stdio framing tolerates CRLF; the \r stays in the forwarded text.
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.onerror?.(
        this.streams.skipNonJson
          ? new SkippedLineNotice(line)
          : new JsonRpcProtocolError('a line that is not JSON', line),
      );
      return;
    }
    if (!Array.isArray(value)) {
      if (!isMessage(value)) {
        this.notAMessage(value, line);
        return;
      }
      originalLines.set(value as object, bytes);
      this.onmessage?.(value as JSONRPCMessage);
      return;
    }
    // A batch: its messages one by one.
    if (value.length === 0 || !value.every(isMessage)) {
      this.notAMessage(value, line);
      return;
    }
    for (const message of value as JSONRPCMessage[]) {
      this.onmessage?.(message);
      if (!this.reading) return;
    }
  }

  /** Reports `line`, whose JSON `value` is no JSON-RPC message (nor a batch of them). */
  private notAMessage(value: unknown, line: string): void {
    this.onerror?.(
      this.streams.skipNonJson && !claimsJsonRpc(value)
        ? new SkippedLineNotice(line, 'a JSON line that is no JSON-RPC message')
        : new JsonRpcProtocolError('a line that is not a JSON-RPC 2.0 message', line),
    );
  }
}

function isMessage(value: unknown): boolean {
  return messageKind(value) !== undefined;
}

/** Whether a JSON value says it is JSON-RPC: an object, or a batch holding one, with `jsonrpc`. */
function claimsJsonRpc(value: unknown): boolean {
  const items = Array.isArray(value) ? value : [value];
  return items.some((item) => typeof item === 'object' && item !== null && 'jsonrpc' in item);
}
