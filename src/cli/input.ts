// Reading a command's input from a file or from stdin, and writing its output.
import { fstatSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { readAllText, STDIN_NAME } from './stream/read.js';

/** A command's input text and the name its error messages use for it. */
export interface InputText {
  /** The path as the user typed it, or `<stdin>`. */
  source: string;
  text: string;
}

export { STDIN_NAME };

/**
 * Reads `file`, or standard input when `file` is undefined or `-`, as fatal UTF-8 (a leading
 * byte order mark removed).
 *
 * @throws {CliError} exit 1 when the file cannot be read or is not UTF-8 (naming the byte
 *   offset); exit 2 when no file is given and stdin is an interactive terminal (the command
 *   would otherwise wait forever).
 * @example
 * const { source, text } = await readInput(process.argv[2]);
 */
export async function readInput(file: string | undefined): Promise<InputText> {
  const source = file === undefined || file === '-' ? STDIN_NAME : file;
  return { source, text: await readAllText(file) };
}

/**
 * Reads a UTF-8 file, turning the system error into a message that names the file.
 *
 * @throws {CliError} exit 1 for a missing, unreadable or directory path, or ill-formed UTF-8.
 */
export function readTextFile(path: string): Promise<string> {
  return readAllText(path);
}

/**
 * Whether standard input brings data, for a command that does something else without any
 * (`report` measures the sample corpus): a file redirected to it (`< data.json`, even empty), or
 * a pipe or socket that delivers at least one byte (the byte is put back for the reader). A
 * terminal, `/dev/null` and a pipe closed at once (`spawn` with nothing written) do not.
 *
 * @example
 * const files = args.length > 0 ? args : (await stdinHasInput()) ? ['-'] : [];
 */
export async function stdinHasInput(): Promise<boolean> {
  if (process.stdin.isTTY) return false;
  let info: ReturnType<typeof fstatSync>;
  try {
    info = fstatSync(0);
  } catch {
    return false; // no standard input at all
  }
  if (info.isFile()) return true;
  if (!info.isFIFO() && !info.isSocket()) return false;
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    const settle = () => {
      stdin.off('readable', onReadable);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
    };
    const onReadable = () => {
      const chunk = stdin.read() as Buffer | null;
      if (chunk === null) return; // 'end' follows
      stdin.unshift(chunk);
      settle();
      resolve(true);
    };
    const onEnd = () => {
      settle();
      resolve(false);
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    stdin.on('readable', onReadable);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
  });
}

/** The stream {@link output} returns when stdout is a file; made on first use. */
let fileOutput: NodeJS.WritableStream | undefined;

/**
 * Where a command's output goes: `process.stdout`, except when stdout is a file or a device
 * (`> out.toon`, `> /dev/full`). Node writes those with one `writeSync` a chunk and drops what a
 * short write leaves over (a disk that fills up mid-write: a truncated file and exit 0); this
 * stream writes until every byte is out or the system refuses with an error (ENOSPC), which
 * fails the command.
 *
 * @example
 * await written(output(), 'a: 1\n');
 */
export function output(): NodeJS.WritableStream {
  if (fileOutput !== undefined) return fileOutput;
  if (process.stdout.isTTY) return process.stdout;
  let info: ReturnType<typeof fstatSync>;
  try {
    info = fstatSync(1);
  } catch {
    return process.stdout;
  }
  if (info.isFIFO() || info.isSocket()) return process.stdout;
  fileOutput = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        for (let at = 0; at < chunk.length; ) at += writeSync(1, chunk, at);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  // A failed write also emits 'error': the write's callback reports it (see main.ts).
  fileOutput.on('error', () => {});
  return fileOutput;
}

/**
 * Writes text pieces to stdout as they come, waiting whenever stdout's buffer is full, so an
 * output of any size streams in bounded memory. A final newline is added if the last piece
 * lacks one.
 *
 * @example
 * await writeChunks(['[1]:', '\n  - a']);
 */
export async function writeChunks(pieces: Iterable<string> | AsyncIterable<string>): Promise<void> {
  let last = '';
  let buffered: string[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    const text = buffered.join('');
    buffered = [];
    size = 0;
    const out = output();
    if (!out.write(text)) {
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          out.off('error', fail);
          resolve();
        };
        const fail = (error: Error) => {
          out.off('drain', done);
          reject(error);
        };
        out.once('drain', done);
        out.once('error', fail);
      });
    }
  };
  for await (const piece of pieces) {
    if (piece === '') continue;
    buffered.push(piece);
    size += piece.length;
    last = piece;
    if (size >= 1 << 16) await flush();
  }
  if (!last.endsWith('\n')) {
    buffered.push('\n');
    size += 1;
  }
  await flush();
  // Resolves once everything written so far is handed to the OS.
  await written(output(), '');
}

/**
 * Writes `text` to stdout, adding a final newline if it lacks one, and resolves once the data
 * is handed to the OS, so a large output is not cut off when the process exits.
 */
export function writeOutput(text: string): Promise<void> {
  return written(output(), text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Writes `data` to `out` and resolves once `out` is done with it (handed to the OS, for stdout;
 * a buffer can then be reused), or rejects with the write's error.
 *
 * @example
 * await written(process.stdout, '\n');
 */
export function written(out: NodeJS.WritableStream, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(data, (error) => (error ? reject(error) : resolve()));
  });
}
