// The `toonwire` command line: commander wiring, and the mapping from failures to exit codes.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerDecodeCommand } from './commands/decode.js';
import { registerEncodeCommand } from './commands/encode.js';
import { registerPickCommand } from './commands/pick.js';
import { registerProxyCommand } from './commands/proxy.js';
import { registerReportCommand } from './commands/report.js';
import {
  CliError,
  CliExit,
  ERROR_PREFIX,
  EXIT_DATA,
  EXIT_OK,
  EXIT_USAGE,
  formatError,
  writeErrorReason,
} from './errors.js';

/** The package version, read from the package.json two levels above dist/cli (or src/cli). */
export function packageVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

/**
 * The program with every subcommand. Commander errors (unknown option, bad value, missing
 * command) are thrown as CommanderError after commander has printed them, instead of exiting.
 *
 * @example
 * await createProgram().parseAsync(['node', 'toonwire', 'encode', 'data.json']);
 */
export function createProgram(): Command {
  const program = new Command('toonwire')
    .description(
      'Make structured data cheaper for language models: encode JSON as TOON where that is smaller.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    // Commander's own errors ("error: unknown option ...") in the CLI's one style.
    .configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, ERROR_PREFIX)),
    })
    // Set before the subcommands are added, so they inherit it.
    .exitOverride()
    .addHelpText(
      'after',
      `
Exit codes: 0 success, 1 bad input data (unreadable, malformed, or failed round trip), 2 bad usage.

Start with:
  toonwire report your.json    what the picker saves on your data (files, folders, globs)
  toonwire report              ... on the sample corpus, which lives in a clone of toonwire
                               (npm start there); the installed package does not ship it
`,
    );
  registerReportCommand(program);
  registerEncodeCommand(program);
  registerDecodeCommand(program);
  registerPickCommand(program);
  registerProxyCommand(program);
  return program;
}

/**
 * Runs the CLI on `argv` (as in `process.argv`) and returns the exit code, having written every
 * message: 0 on success, 1 for bad data, 2 for bad usage.
 *
 * @example
 * process.exitCode = await runCli(process.argv);
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    await createProgram().parseAsync([...argv]);
    return EXIT_OK;
  } catch (error) {
    return exitCodeOf(error);
  }
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed the message (or the help or version).
    return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (error instanceof CliExit) return error.exitCode; // its command has said everything
  if (error instanceof CliError) {
    process.stderr.write(formatError(error.message));
    return error.exitCode;
  }
  const errno = error as NodeJS.ErrnoException | undefined;
  if (errno?.code === 'EPIPE') {
    // The reader went away (`toonwire report | head`): nothing left to say to it.
    return EXIT_OK;
  }
  if (errno?.syscall === 'write' && typeof errno.code === 'string') {
    // Stdout refused the output (a full disk, `> /dev/full`, an I/O error): what reached it is
    // incomplete, so the command failed.
    process.stderr.write(formatError(`cannot write the output: ${writeErrorReason(errno)}`));
    return EXIT_DATA;
  }
  process.stderr.write(
    formatError(
      `unexpected error, please report it: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    ),
  );
  return EXIT_DATA;
}
