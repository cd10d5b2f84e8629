// The upstream MCP server as a child process speaking MCP over its stdin/stdout. Its stderr is
// passed straight through to ours, where MCP clients show server logs. On POSIX the child leads
// its own process group, and stopping it ends the whole group: with `npx <server>` the server is
// a grandchild (npm exec, sh, node), which signalling only the direct child would leave running.

import type { ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isBrokenPipe } from './endpoints.js';
import { JsonLineTransport } from './json-lines.js';
import { upstreamEnvironment } from './upstream-env.js';

/** How to start an upstream MCP server that speaks stdio. */
export interface StdioUpstream {
  /** The executable, e.g. `'npx'` or `'node'`. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Its environment (default: the proxy's own less what npm set for its run: upstream-env.ts). */
  env?: NodeJS.ProcessEnv;
  /** Its working directory (default: the proxy's). */
  cwd?: string;
}

/**
 * How long a closing child gets after end of input, then after SIGTERM, before the next step:
 * less than the 2 s an MCP client gives the proxy itself (the SDK's), so the proxy is done first.
 */
const EXIT_GRACE_MS = 1000;
/** How long what is left of a group gets after SIGTERM before SIGKILL. */
const GROUP_GRACE_MS = 500;

/** Process groups of running upstreams, killed if the proxy exits without stopping them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Whether upstreams get their own process group (POSIX only: Windows has no process groups). */
const USE_GROUPS = process.platform !== 'win32';

/** Sends `signal` to process group `pid`; false when no process of it is left. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // The last word: whatever way the proxy exits, no upstream process outlives it.
  process.once('exit', () => {
    for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  });
}

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
  private exit: Promise<void> | undefined;
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

  /** Whether the child has exited. */
  get exited(): boolean {
    return this.exitCode !== null || this.exitSignal !== null;
  }

  /** How the child ended: `'exited with code 1'`, `'was killed by SIGKILL'`. */
  get exitDescription(): string {
    if (this.exitSignal !== null) return `was killed by ${this.exitSignal}`;
    return `exited with code ${this.exitCode ?? 'unknown'}`;
  }

  async start(): Promise<void> {
    const { spawn } = await import('node:child_process');
    const child = spawn(this.upstream.command, [...(this.upstream.args ?? [])], {
      env: this.upstream.env ?? upstreamEnvironment(process.env),
      cwd: this.upstream.cwd,
      stdio: ['pipe', 'pipe', 'inherit'],
      windowsHide: true,
      detached: USE_GROUPS,
    });
    this.child = child;
    if (USE_GROUPS && child.pid !== undefined) {
      installExitHook();
      liveGroups.add(child.pid);
    }
    let spawned = false;
    this.exit = new Promise((resolve) => {
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
      skipNonJson: true,
    });
    lines.onmessage = (message) => this.onmessage?.(message);
    lines.onerror = (error) => {
      // Writing to a child that just died fails with EPIPE; its exit, reported by onclose, is the news.
      if (isBrokenPipe(error)) return;
      this.onerror?.(error);
    };
    this.lines = lines;
    await lines.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.lines === undefined)
      return Promise.reject(new Error('the upstream MCP server is not running'));
    return this.lines.send(message);
  }

  /**
   * Ends the child's input, then escalates to SIGTERM and SIGKILL if it does not exit, `graceMs`
   * apart (default one second; the proxy hurries when its client has gone); on POSIX the signals
   * go to its whole process group, and whatever of the group is left once the child has exited is
   * ended too. Every call returns the same promise, which settles once the child and its group
   * are gone.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    this.closing ??= this.stop(options.graceMs ?? EXIT_GRACE_MS);
    return this.closing;
  }

  private async stop(graceMs: number): Promise<void> {
    const child = this.child;
    if (child === undefined || this.exit === undefined) return;
    // End of input first, reading on: a server finishes what it was doing and its last answers
    // still arrive (MCP's stdio shutdown).
    child.stdin?.end();
    const pid = child.pid;
    const grouped = USE_GROUPS && pid !== undefined;
    for (const signal of [undefined, 'SIGTERM', 'SIGKILL'] as const) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      if (signal !== undefined) {
        if (!grouped || !signalGroup(pid, signal)) child.kill(signal);
      }
      const exited = await Promise.race([
        this.exit.then(() => true),
        delay(graceMs).then(() => false),
      ]);
      if (exited) break;
    }
    if (grouped) {
      await this.endGroup(pid);
      liveGroups.delete(pid);
    }
    await this.lines?.close();
  }

  /**
   * Ends what is left of the child's process group: SIGTERM, then SIGKILL after a short grace
   * period. (A process that died but is not yet reaped still counts as in the group; SIGKILL is
   * the last word either way.)
   */
  private async endGroup(pid: number): Promise<void> {
    if (!signalGroup(pid, 'SIGTERM')) return;
    const deadline = Date.now() + GROUP_GRACE_MS;
    while (Date.now() < deadline) {
      await delay(25);
      if (!signalGroup(pid, 0)) return;
    }
    signalGroup(pid, 'SIGKILL');
  }
}

/** A wait that keeps the process alive: stopping an upstream is bounded, and must finish. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
