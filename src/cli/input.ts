// Reading a command's input from a file or from stdin, and writing its output.
import { readFile } from 'node:fs/promises';
import { CliError, EXIT_DATA, EXIT_USAGE } from './errors.js';

/** A command's input text and the name its error messages use for it. */
export interface InputText {
  /** The path as the user typed it, or `<stdin>`. */
  source: string;
  text: string;
}

/** The name error messages give standard input. */
export const STDIN_NAME = '<stdin>';

/**
 * Reads `file`, or standard input when `file` is undefined or `-`.
 *
 * @throws {CliError} exit 1 when the file cannot be read; exit 2 when no file is given and
 *   stdin is an interactive terminal (the command would otherwise wait forever).
 * @example
 * const { source, text } = await readInput(process.argv[2]);
 */
export async function readInput(file: string | undefined): Promise<InputText> {
  if (file === undefined || file === '-') {
    if (process.stdin.isTTY) {
      throw new CliError(
        'toonwire: no input: pass a file name, or pipe the data in (for example `cat data.json | toonwire encode`)',
        EXIT_USAGE,
      );
    }
    return { source: STDIN_NAME, text: await readStdin() };
  }
  return { source: file, text: await readTextFile(file) };
}

/**
 * Reads a UTF-8 file, turning the system error into a message that names the file.
 *
 * @throws {CliError} exit 1 for a missing, unreadable or directory path.
 */
export async function readTextFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new CliError(`${path}: cannot read: ${reason}`, EXIT_DATA);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Writes `text` to stdout, adding a final newline if it lacks one, and resolves once the data
 * is handed to the OS, so a large output is not cut off when the process exits.
 */
export function writeOutput(text: string): Promise<void> {
  const out = text.endsWith('\n') ? text : `${text}\n`;
  return new Promise((resolve, reject) => {
    process.stdout.write(out, (error) => (error ? reject(error) : resolve()));
  });
}
