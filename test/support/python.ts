// The Python MCP test kit: a virtual environment with the Python `mcp` package that the tests own,
// the Python fixture server (test/mcp/fixtures/python/server.py) and the Python SDK's client
// (client.py) run as real processes.
//
//   const python = await pythonWithMcp();            // once per process, shared by processes
//   it('...', { skip: python.skip }, async () => {
//     const run = await runPythonClient(python.python!, { command: pythonServerCommand(python.python!) },
//       { calls: [{ name: 'list_orders', arguments: { count: 200 } }] });
//     run.report.results[0].structuredContent ...
//   });
//
// The venv lives in .tmp/python-venv (gitignored). The first test process that needs it creates
// it under a lock; the others wait for the lock, then use it. A marker file is written only after
// `mcp` imports, so a venv left half-made by a killed process is rebuilt.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');
const FIXTURES = join(ROOT, 'test', 'mcp', 'fixtures', 'python');

/** The Python fixture server: FastMCP-style tools (see its module docstring). */
export const PYTHON_SERVER = join(FIXTURES, 'server.py');
/** The Python SDK client in its default mode, printing one JSON report. */
export const PYTHON_CLIENT = join(FIXTURES, 'client.py');
/** `npx @modelcontextprotocol/server-everything` (stdio), run from node_modules without npx. */
export const EVERYTHING_SERVER = [
  process.execPath,
  join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
  'stdio',
] as const;

/**
 * Where the kit keeps its venv: .tmp/python-venv, or $TOONWIRE_PYTHON_VENV (the kit's own test
 * sets up a scratch one there).
 */
export const VENV_DIR = process.env['TOONWIRE_PYTHON_VENV'] ?? join(ROOT, '.tmp', 'python-venv');
const LOCK_DIR = `${VENV_DIR}.lock`;
const READY_MARKER = join(VENV_DIR, '.toonwire-ready.json');
/** The fixtures use the `mcp` 2.x API (`MCPServer`, `Client(mode=...)`). */
const MCP_REQUIREMENT = 'mcp>=2.3,<3';
/** How often a process that waits for another one's install looks again (no time limit). */
const LOCK_POLL_MS = 250;

/** A Python with `mcp` installed, or why the Python tests skip. */
export type PythonSetup =
  | { python: string; skip?: undefined }
  | { python?: undefined; skip: string };

/** A finished process: its exit code and everything it wrote. */
interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` to its end; never rejects for a non-zero exit (the caller reads `code`). */
export function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => resolve({ code: null, stdout, stderr: String(error) }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last few non-empty lines of a process's output: enough to say why it failed. */
function tail(text: string, lines = 4): string {
  return text.trim().split('\n').filter(Boolean).slice(-lines).join(' | ');
}

/** A `python3` (or `python`, or $TOONWIRE_PYTHON) on PATH that is at least 3.10, or null. */
async function findSystemPython(): Promise<string | null> {
  const candidates = [process.env['TOONWIRE_PYTHON'], 'python3', 'python'].filter(
    (candidate): candidate is string => Boolean(candidate),
  );
  for (const candidate of candidates) {
    const probe = await run(candidate, ['-c', 'import sys; print(sys.version_info >= (3, 10))']);
    if (probe.code === 0 && probe.stdout.trim() === 'True') return candidate;
  }
  return null;
}

function venvPython(): string {
  return process.platform === 'win32'
    ? join(VENV_DIR, 'Scripts', 'python.exe')
    : join(VENV_DIR, 'bin', 'python');
}

function isReady(): boolean {
  return existsSync(READY_MARKER) && existsSync(venvPython());
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the install lock. The lock is a directory that appears whole (made aside with the owner's
 * pid inside, then renamed into place), so a waiter never sees a lock without its owner. A lock
 * whose owner died is removed. Resolves once this process holds the lock or the venv is ready.
 */
async function lockOrReady(): Promise<'locked' | 'ready'> {
  await mkdir(dirname(LOCK_DIR), { recursive: true });
  for (;;) {
    if (isReady()) return 'ready';
    const mine = `${LOCK_DIR}.${process.pid}`;
    await rm(mine, { recursive: true, force: true });
    await mkdir(mine);
    await writeFile(join(mine, 'owner'), String(process.pid));
    try {
      await rename(mine, LOCK_DIR);
      return 'locked';
    } catch {
      await rm(mine, { recursive: true, force: true });
    }
    const owner = Number(await readFile(join(LOCK_DIR, 'owner'), 'utf8').catch(() => 'NaN'));
    if (Number.isInteger(owner) && !isAlive(owner)) {
      await rm(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    await sleep(LOCK_POLL_MS); // wait-ok: the poll interval of a lock
  }
}

/**
 * `python -m pip install requirement`. pip here reaches only a local mirror: no retries and a
 * short timeout skip the unreachable default index in seconds instead of minutes.
 */
function pipInstall(python: string, requirement: string): Promise<Finished> {
  return run(python, [
    '-m',
    'pip',
    'install',
    '--disable-pip-version-check',
    '--retries',
    '0',
    '--timeout',
    '3',
    requirement,
  ]);
}

/** Creates the venv and installs `mcp`; returns a skip reason on failure. Holds the lock. */
async function install(systemPython: string): Promise<PythonSetup> {
  // No marker: whatever is there was left half-made (or by another Python); start over.
  await rm(VENV_DIR, { recursive: true, force: true });
  process.stderr.write(`python test kit: creating ${VENV_DIR} and installing ${MCP_REQUIREMENT}\n`);
  const venv = await run(systemPython, ['-m', 'venv', VENV_DIR]);
  if (venv.code !== 0) {
    return { skip: `${systemPython} -m venv failed: ${tail(venv.stderr || venv.stdout)}` };
  }
  const pip = await pipInstall(venvPython(), MCP_REQUIREMENT);
  if (pip.code !== 0) {
    return { skip: `pip could not install mcp: ${tail(pip.stderr || pip.stdout)}` };
  }
  const check = await run(venvPython(), [
    '-c',
    'import importlib.metadata, mcp; print(importlib.metadata.version("mcp"))',
  ]);
  if (check.code !== 0) {
    return { skip: `pip could not install mcp: import failed: ${tail(check.stderr)}` };
  }
  await writeFile(READY_MARKER, JSON.stringify({ mcp: check.stdout.trim() }));
  return { python: venvPython() };
}

async function setUp(): Promise<PythonSetup> {
  const systemPython = await findSystemPython();
  if (systemPython === null) {
    return { skip: 'Python 3.10+ not found (python3 on PATH, or set TOONWIRE_PYTHON)' };
  }
  if ((await lockOrReady()) === 'ready') return { python: venvPython() };
  try {
    if (isReady()) return { python: venvPython() };
    return await install(systemPython);
  } finally {
    await rm(LOCK_DIR, { recursive: true, force: true });
  }
}

let setup: Promise<PythonSetup> | undefined;

/**
 * The venv's Python with `mcp` installed (made on first use), or a reason to skip:
 * `it('...', { skip: (await pythonWithMcp()).skip }, ...)`. Safe to call from several test
 * processes at once; one installs, the others wait for it.
 */
export function pythonWithMcp(): Promise<PythonSetup> {
  setup ??= setUp();
  return setup;
}

let fastmcpSetup: Promise<PythonSetup> | undefined;

/**
 * The venv's Python with the `fastmcp` package too (installed on first use from the local
 * mirror, beside `mcp`), or a reason to skip.
 */
export function pythonWithFastmcp(): Promise<PythonSetup> {
  fastmcpSetup ??= (async () => {
    const base = await pythonWithMcp();
    if (base.skip !== undefined) return base;
    const python = base.python;
    if ((await run(python, ['-c', 'import fastmcp'])).code === 0) return base;
    const pip = await pipInstall(python, 'fastmcp');
    return pip.code === 0 ? base : { skip: `pip could not install fastmcp: ${tail(pip.stderr)}` };
  })();
  return fastmcpSetup;
}

/** The `fastmcp`-package fixture server (test/mcp/fixtures/python/fastmcp_server.py) over stdio. */
export function fastmcpServerCommand(python: string): string[] {
  return [python, join(FIXTURES, 'fastmcp_server.py')];
}

/** The command that starts the Python fixture server over stdio. */
export function pythonServerCommand(python: string): string[] {
  return [python, PYTHON_SERVER];
}

/** The Python fixture server over Streamable HTTP on 127.0.0.1. */
export interface PythonHttpServer {
  url: string;
  process: ChildProcess;
  stderr: () => string;
  /** Kills the server and waits for it to exit. */
  close: () => Promise<void>;
}

/**
 * Starts `server.py --http` and resolves with its URL once it accepts connections (the server
 * prints the URL after its socket listens). `env` is added to this process's environment (for
 * example `TOONWIRE_PY_START_DELAY`).
 */
export function startPythonHttpServer(
  python: string,
  env: Record<string, string> = {},
): Promise<PythonHttpServer> {
  const child = spawn(python, [PYTHON_SERVER, '--http'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{"url"'));
      if (line !== undefined) {
        const { url } = JSON.parse(line) as { url: string };
        resolve({ url, process: child, stderr: () => stderr, close });
      }
    });
    void exited.then(() =>
      reject(new Error(`the Python HTTP server exited before serving: ${tail(stderr)}`)),
    );
  });
}

/** One tools/call in the Python client's report. */
export interface PythonToolResult {
  name: string;
  arguments: Record<string, unknown>;
  /** As the wire carried it; absent when the SDK raised (`error`). */
  content?: Array<{
    type: string;
    text?: string;
    /** With `digestTexts`: the text's length in characters and the SHA-256 of its UTF-8. */
    length?: number;
    sha256?: string;
    [key: string]: unknown;
  }>;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  error?: string;
}

/** What client.py prints: see its module docstring. */
export interface PythonClientReport {
  ok: boolean;
  protocolVersion: string | null;
  /** 'modern': server/discover was adopted (2026-07-28 and later); 'handshake': initialize. */
  era: 'modern' | 'handshake' | null;
  serverInfo: { name: string; version: string; [key: string]: unknown } | null;
  tools: Array<{ name: string; inputSchema: unknown; outputSchema?: unknown }>;
  results: PythonToolResult[];
  /** Every method the client sent, in order (`server/discover`, `initialize`, ...). */
  sent: string[];
  /** Notifications received, counted by method. */
  notifications: Record<string, number>;
  /** Every notification received, in order (only with `recordNotifications`). */
  notificationLog?: Array<{ method: string; params?: Record<string, unknown> }>;
  /** JSON-RPC errors received, with the method of the request they answered. */
  rpcErrors: Array<{ method: string | null; code: number; message: string }>;
  /** Exceptions the SDK raised, one line each. */
  errors: string[];
}

/** A finished client.py run. */
export interface PythonClientRun {
  report: PythonClientReport;
  /** client.py's stderr, which includes a stdio server's stderr. */
  stderr: string;
  exitCode: number | null;
}

/** What the Python client connects to: a Streamable HTTP URL or a stdio command. */
export type PythonClientTarget = { url: string } | { command: readonly string[] };

export interface PythonClientOptions {
  calls?: ReadonlyArray<{ name: string; arguments?: Record<string, unknown> }>;
  /** The SDK's `mode`; leave it out for the default ('auto': server/discover, then initialize). */
  mode?: string;
  /** clientInfo.name and version the client sends. */
  clientName?: string;
  clientVersion?: string;
  /** Added to the environment of the client (and so of a stdio server it starts). */
  env?: Record<string, string>;
  /** resources/subscribe to these URIs before the calls. */
  subscribe?: readonly string[];
  /** Report every notification in order (`report.notificationLog`), not only counts. */
  recordNotifications?: boolean;
  /** Report text blocks as `{ type, length, sha256 }` instead of their text (large results). */
  digestTexts?: boolean;
}

/**
 * Runs the Python SDK client against `target`: connect, tools/list, then each call in order.
 * Resolves with its parsed report whatever the outcome (`report.ok`, `report.errors`); rejects
 * only when the client printed no report.
 */
export async function runPythonClient(
  python: string,
  target: PythonClientTarget,
  options: PythonClientOptions = {},
): Promise<PythonClientRun> {
  const args = [PYTHON_CLIENT];
  for (const call of options.calls ?? []) {
    args.push('--call', call.name, JSON.stringify(call.arguments ?? {}));
  }
  if (options.mode !== undefined) args.push('--mode', options.mode);
  if (options.clientName !== undefined) args.push('--client-name', options.clientName);
  if (options.clientVersion !== undefined) args.push('--client-version', options.clientVersion);
  for (const uri of options.subscribe ?? []) args.push('--subscribe', uri);
  if (options.recordNotifications) args.push('--record-notifications');
  if (options.digestTexts) args.push('--digest-texts');
  if ('url' in target) args.push('--url', target.url);
  else args.push('--', ...target.command);
  const finished = await run(python, args, { ...process.env, ...options.env });
  const line = finished.stdout.trim().split('\n').pop() ?? '';
  let report: PythonClientReport;
  try {
    report = JSON.parse(line) as PythonClientReport;
  } catch {
    throw new Error(
      `the Python client printed no report (exit ${finished.code}): ${tail(finished.stderr, 8)}`,
    );
  }
  return { report, stderr: finished.stderr, exitCode: finished.code };
}
