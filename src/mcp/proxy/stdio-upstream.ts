// The upstream MCP server as a child process speaking MCP over its stdin/stdout. Its stderr is
// passed straight through to ours, where MCP clients show server logs.

import type { ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineTransport } from './json-lines.js';

/** How to start an upstream MCP server that speaks stdio. */
export interface StdioUpstream {
  /** The executable, e.g. `'npx'` or `'node'`. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Its environment (default: the proxy's own, unchanged: the client chose it for both). */
  env?: NodeJS.ProcessEnv;
  /** Its working directory (default: the proxy's). */
  cwd?: string;
}

/** How long a closing child gets after end of input, then after SIGTERM, before the next step. */
const EXIT_GRACE_MS = 2000;

/**
 * An SDK `Transport` to a child process. `start()` rejects when the command cannot be started;
 * `onclose` fires when the child exits, after which {@link exitDescription} says how.
 *
 * @example
 * const upstream = new ChildProcessTransport({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
 * const client = new Client({ name: 'me', version: '1.0.0' });
 * await client.connect(upstream);
 */
export class ChildProcessTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private child: ChildProcess | undefined;
  private lines: JsonLineTransport | undefined;
  private exited: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;
  private readonly upstream: StdioUpstream;

  constructor(upstream: StdioUpstream) {
    this.upstream = upstream;
  }

  /** The command line, for messages: `node server.js --flag`. */
  get commandLine(): string {
    return [this.upstream.command, ...(this.upstream.args ?? [])].join(' ');
  }

  /** How the child ended: `'exited with code 1'`, `'was killed by SIGKILL'`. */
  get exitDescription(): string {
    if (this.exitSignal !== null) return `was killed by ${this.exitSignal}`;
    return `exited with code ${this.exitCode ?? 'unknown'}`;
  }

  async start(): Promise<void> {
    const { spawn } = await import('node:child_process');
    const child = spawn(this.upstream.command, [...(this.upstream.args ?? [])], {
      env: this.upstream.env ?? process.env,
      cwd: this.upstream.cwd,
      stdio: ['pipe', 'pipe', 'inherit'],
      windowsHide: true,
    });
    this.child = child;
    let spawned = false;
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve();
        void this.lines?.close();
        // A command that never started is reported by start() rejecting, not as a closed connection.
        if (spawned) this.onclose?.();
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.on('error', (error) => {
        if (spawned) {
          this.onerror?.(error);
          return;
        }
        reject(
          new Error(
            `could not start the upstream MCP server \`${this.commandLine}\`: ${error.message}; check that the command is installed and on PATH`,
            { cause: error },
          ),
        );
      });
    });
    const lines = new JsonLineTransport({
      input: child.stdout!,
      output: child.stdin!,
      endOutputOnClose: true,
    });
    lines.onmessage = (message) => this.onmessage?.(message);
    lines.onerror = (error) => {
      // Writing to a child that just died fails with EPIPE; its exit, reported by onclose, is the news.
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
      this.onerror?.(error);
    };
    this.lines = lines;
    await lines.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.lines === undefined) throw new Error('the upstream MCP server is not running');
    await this.lines.send(message);
  }

  /**
   * Ends the child's input, then escalates to SIGTERM and SIGKILL if it does not exit. Every
   * call returns the same promise, which settles once the child is gone.
   */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || this.exited === undefined) return;
    // End of input first, reading on: a server finishes what it was doing and its last answers
    // still arrive (MCP's stdio shutdown).
    child.stdin?.end();
    for (const signal of [undefined, 'SIGTERM', 'SIGKILL'] as const) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      if (signal !== undefined) child.kill(signal);
      const exited = await Promise.race([
        this.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), EXIT_GRACE_MS).unref()),
      ]);
      if (exited) break;
    }
    await this.lines?.close();
  }
}
