// Runs the built CLI (dist/cli/main.js) as a real child process, the way users and `npm start`
// run it. Build first: `npx tsc -p tsconfig.json` (npm test does it in pretest).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hangGuardMs } from '../support/patience.js';

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
 * A CLI run's hang guard before scaling: far above any command here on an idle machine (the
 * longest, a report over the whole corpus, takes about 10 s), multiplied by the measured
 * slowdown (test/support/patience.ts), so a busy machine slows the tests without failing them.
 */
const CLI_HANG_GUARD_MS = 120_000;

/**
 * Spawns `node dist/cli/main.js ...args`, feeds `input` to stdin (or closes it at once), and
 * resolves with the exit code and both outputs. The child is killed only if it hangs: it
 * outlives a generous guard scaled by the machine's measured slowdown.
 *
 * @example
 * const { code, stdout } = await runCli(['encode'], { input: '{"a":1}' }); // 0, 'a: 1\n'
 */
export function runCli(
  args: readonly string[],
  options: { input?: string | Uint8Array; cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const guardMs = hangGuardMs(CLI_HANG_GUARD_MS);
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
          `toonwire ${args.join(' ')} still running after ${guardMs} ms: a hang (raise TOONWIRE_TEST_PATIENCE on a slower machine)\nstderr: ${stderr}`,
        ),
      );
    }, guardMs);
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
