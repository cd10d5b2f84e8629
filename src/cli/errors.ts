// Exit codes and the one error type the CLI's commands throw. runCli (program.ts) turns a
// CliError into its message on stderr, each line starting "toonwire: ", and its exit code;
// anything else is a bug and exits 1 with a stack trace. Every exit code is defined here.

/** Success. */
export const EXIT_OK = 0;
/** The input could not be read, parsed, encoded or round-tripped, or the output not written. */
export const EXIT_DATA = 1;
/** The command line itself is wrong (unknown option, bad option value, missing input). */
export const EXIT_USAGE = 2;

/**
 * An expected failure with a message written for the user, already formatted (for input errors
 * `file:line:column: message`) and the exit code to leave with.
 *
 * @example
 * throw new CliError('data.json:3:7: expected a comma or a closing brace', EXIT_DATA);
 */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly exitCode: typeof EXIT_DATA | typeof EXIT_USAGE,
  ) {
    super(message);
  }
}

/** What starts every error line the CLI writes, its own and commander's. */
export const ERROR_PREFIX = 'toonwire: ';

/**
 * An error message as the CLI writes it to stderr: every line starts with {@link ERROR_PREFIX}.
 *
 * @example
 * formatError('data.json:3:7: expected a comma'); // 'toonwire: data.json:3:7: expected a comma\n'
 */
export function formatError(message: string): string {
  return message
    .split('\n')
    .map((line) => `${ERROR_PREFIX}${line}\n`)
    .join('');
}

/** The message of any thrown value, for wrapping third-party errors into a CliError. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Ends a command with `exitCode` once it has written everything it had to say itself (a
 * long-running command such as `proxy` that reports on stderr as it goes): runCli returns the
 * code without printing anything.
 *
 * @example
 * throw new CliExit(1); // the proxy's upstream failed; the reason is already on stderr
 */
export class CliExit extends Error {
  override readonly name = 'CliExit';

  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/**
 * A failed write's reason in words, with its code for searching, for stdout and for the files
 * the CLI writes (`--html`).
 *
 * @example
 * writeErrorReason(Object.assign(new Error('...'), { code: 'ENOSPC' })); // 'no space left on device (ENOSPC)'
 */
export function writeErrorReason(error: NodeJS.ErrnoException): string {
  const reasons: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'file too large',
    EIO: 'input/output error',
    EBADF: 'standard output is closed',
    ENOENT: 'no such directory',
    ENOTDIR: 'a parent in the path is not a directory',
    EISDIR: 'is a directory',
    EACCES: 'permission denied',
    EROFS: 'read-only file system',
  };
  const reason = error.code === undefined ? undefined : reasons[error.code];
  return reason === undefined ? error.message : `${reason} (${error.code})`;
}
