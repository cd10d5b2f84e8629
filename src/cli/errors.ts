// Exit codes and the one error type the CLI's commands throw. main.ts turns a CliError into its
// message on stderr and its exit code; anything else is a bug and exits 1 with a stack trace.

/** Success. */
export const EXIT_OK = 0;
/** The input could not be read, parsed, encoded or round-tripped. */
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

/** The message of any thrown value, for wrapping third-party errors into a CliError. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
