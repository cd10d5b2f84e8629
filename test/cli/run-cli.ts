// Runs the built CLI (dist/cli/main.js) as a real child process, the way users and `npm start`
// run it. Build first: `npx tsc -p tsconfig.json` (npm test does it in pretest).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Fails early, with the fix, when the CLI has not been built. */
export function assertBuilt(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} does not exist: build first with \`npx tsc -p tsconfig.json\``);
}

/**
 * Spawns `node dist/cli/main.js ...args`, feeds `input` to stdin (or closes it at once), and
 * resolves with the exit code and both outputs. The child is killed if it outlives `timeoutMs`.
 */
export function runCli(
  args: readonly string[],
  options: { input?: string; cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `toonwire ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {
      // The CLI may exit (e.g. on a usage error) before reading stdin; that is not a test failure.
    });
    child.stdin.end(options.input ?? '');
  });
}
