// Reading input of any size: bytes decoded as fatal UTF-8 (an ill-formed byte is an error naming
// its offset, never a silent U+FFFD), JSON Lines one line at a time, and JSON arrays one element
// at a time through a streaming JSON parser, so memory does not grow with the file.
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { JSONParser } from '@streamparser/json';
import type { JsonValue } from '../../codec/types.js';
import { firstIllFormed } from '../../codec/utf8.js';
import { binaryInputError, binaryOffset } from '../binary-input.js';
import { CliError, EXIT_DATA, EXIT_USAGE } from '../errors.js';

/** The name error messages give standard input. */
export const STDIN_NAME = '<stdin>';

/** Files above this size are read as a stream of rows rather than as one string. */
export const STREAM_BYTES = 64 * 1024 * 1024;

/** Reports bytes read so far (for progress on stderr). */
export type OnBytes = (bytesRead: number) => void;

/** The size of a regular file, or undefined for stdin and special files. */
export async function fileSize(path: string | undefined): Promise<number | undefined> {
  if (path === undefined || path === '-') return undefined;
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw readError(path, error);
  });
  if (info.isDirectory()) throw new CliError(`${path}: cannot read: is a directory`, EXIT_DATA);
  return info.isFile() ? info.size : undefined;
}

/**
 * The size of `path` when it should be read as a stream of rows: a regular file of JSON Lines,
 * or of JSON whose root is an array, larger than {@link STREAM_BYTES} (any size with `force`).
 * `undefined` means: read it whole.
 *
 * @example
 * const size = await streamableSize('big.jsonl', 'jsonl', false); // 1_000_000_000
 */
export async function streamableSize(
  path: string | undefined,
  format: 'json' | 'jsonl',
  force: boolean,
): Promise<number | undefined> {
  const size = await fileSize(path);
  if (path === undefined || size === undefined || (!force && size <= STREAM_BYTES))
    return undefined;
  return format === 'jsonl' || (await startsWithArray(path)) ? size : undefined;
}

/** The CliError for a failed read of `path`, in words. */
export function readError(path: string, error: NodeJS.ErrnoException): CliError {
  const reason =
    error.code === 'ENOENT'
      ? 'no such file'
      : error.code === 'EISDIR'
        ? 'is a directory'
        : error.code === 'EACCES'
          ? 'permission denied'
          : error.message;
  return new CliError(`${path}: cannot read: ${reason}`, EXIT_DATA);
}

/**
 * The chunks of a file (or of stdin for `undefined`/`-`) decoded as fatal UTF-8, a leading byte
 * order mark removed.
 *
 * @throws {CliError} exit 1 naming the byte offset of ill-formed UTF-8, or a read error.
 * @example
 * for await (const text of readTextChunks('data.jsonl')) process.stdout.write(text);
 */
export async function* readTextChunks(
  path: string | undefined,
  onBytes?: OnBytes,
): AsyncGenerator<string> {
  const source = path === undefined || path === '-' ? STDIN_NAME : path;
  if (source === STDIN_NAME && process.stdin.isTTY) {
    throw new CliError(
      'no input: pass a file name, or pipe the data in (for example `cat data.json | toonwire encode`)',
      EXIT_USAGE,
    );
  }
  const stream =
    source === STDIN_NAME ? process.stdin : createReadStream(source, { highWaterMark: 1 << 20 });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  let head: Uint8Array | undefined;
  try {
    for await (const chunk of stream) {
      const data = chunk as Uint8Array;
      head ??= data;
      let text: string;
      try {
        text = decoder.decode(data, { stream: true });
      } catch {
        throw await illFormedError(source, path, head);
      }
      bytes += data.length;
      onBytes?.(bytes);
      if (text !== '') yield text;
    }
    let rest: string;
    try {
      rest = decoder.decode();
    } catch {
      throw await illFormedError(source, path, head);
    }
    if (rest !== '') yield rest;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw readError(source, error as NodeJS.ErrnoException);
  }
}

/**
 * A whole input as bytes (for decoders that take UTF-8 bytes themselves).
 *
 * @throws {CliError} exit 1 for a read error; exit 2 for an interactive stdin.
 * @example
 * const { source, bytes } = await readBytes('runs.toon');
 */
export async function readBytes(
  path: string | undefined,
): Promise<{ source: string; bytes: Uint8Array }> {
  const source = path === undefined || path === '-' ? STDIN_NAME : path;
  if (source === STDIN_NAME && process.stdin.isTTY) {
    throw new CliError(
      'no input: pass a file name, or pipe the data in (for example `cat data.toon | toonwire decode`)',
      EXIT_USAGE,
    );
  }
  if (source !== STDIN_NAME) {
    try {
      return { source, bytes: await readFile(source) };
    } catch (error) {
      throw readError(source, error as NodeJS.ErrnoException);
    }
  }
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
  return { source, bytes: Buffer.concat(chunks) };
}

/**
 * A whole input as text, for the commands that need all of it (fatal UTF-8, BOM removed).
 *
 * @throws {CliError} like {@link readTextChunks}.
 */
export async function readAllText(path: string | undefined, onBytes?: OnBytes): Promise<string> {
  const parts: string[] = [];
  for await (const text of readTextChunks(path, onBytes)) parts.push(text);
  return parts.join('');
}

/**
 * The error for ill-formed UTF-8, found by scanning the file again (only on this error path);
 * a binary file (a NUL byte in its first chunk, `head`) is named as one instead.
 */
async function illFormedError(
  source: string,
  path: string | undefined,
  head: Uint8Array | undefined,
): Promise<CliError> {
  const nul = head === undefined ? -1 : binaryOffset(head);
  if (nul >= 0) return binaryInputError(source, nul, 'JSON and TOON');
  let offset: number | undefined;
  if (source !== STDIN_NAME && path !== undefined) {
    const handle = await open(path, 'r');
    try {
      const buffer = new Uint8Array(1 << 20);
      let position = 0;
      let carry = new Uint8Array(0);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        const bytes = concat(carry, buffer.subarray(0, bytesRead));
        const tail = bytesRead === 0 ? 0 : incompleteTail(bytes);
        const found = firstIllFormed(bytes.subarray(0, bytes.length - tail));
        if (found >= 0 && found < bytes.length - tail) {
          offset = position - carry.length + found;
          break;
        }
        if (bytesRead === 0) {
          offset = position - carry.length;
          break;
        }
        carry = bytes.slice(bytes.length - tail);
        position += bytesRead;
      }
    } finally {
      await handle.close();
    }
  }
  const where = offset === undefined ? '' : ` at byte offset ${offset}`;
  return new CliError(
    `${source}: ill-formed UTF-8${where}; JSON and TOON input must be UTF-8: convert the file from its encoding (for Latin-1, \`iconv -f latin1 -t utf-8\`)`,
    EXIT_DATA,
  );
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Bytes at the end of `bytes` that start a UTF-8 sequence the next chunk may complete. */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return needed > back ? back : 0;
    }
  }
  return 0;
}

/** One row of a streamed input and where it starts (1-based line of JSONL, or element index). */
export interface Row {
  value: JsonValue;
  line: number;
}

/**
 * The values of a JSON Lines input, one per non-blank line, without holding the file.
 *
 * @throws {CliError} `source:line:column: message` for a malformed line.
 * @example
 * for await (const { value } of readJsonLines('items.jsonl')) count++;
 */
export async function* readJsonLines(path: string, onBytes?: OnBytes): AsyncGenerator<Row> {
  const { parseJsonLine } = await import('../json-input.js');
  let pending = '';
  let line = 0;
  for await (const text of readTextChunks(path, onBytes)) {
    let start = 0;
    const chunk = pending + text;
    for (;;) {
      const end = chunk.indexOf('\n', start);
      if (end < 0) break;
      line++;
      const value = parseJsonLine(chunk.slice(start, end), path, line);
      if (value !== undefined) yield { value, line };
      start = end + 1;
    }
    pending = chunk.slice(start);
  }
  if (pending !== '') {
    line++;
    const value = parseJsonLine(pending, path, line);
    if (value !== undefined) yield { value, line };
  }
}

/** True when the first non-space character of a JSON file is `[`: a root array to stream. */
export async function startsWithArray(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = new Uint8Array(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    let i =
      bytesRead >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
    while (
      i < bytesRead &&
      (buffer[i] === 0x20 || buffer[i] === 0x0a || buffer[i] === 0x0d || buffer[i] === 0x09)
    )
      i++;
    return buffer[i] === 0x5b;
  } finally {
    await handle.close();
  }
}

/**
 * The elements of a JSON file whose root is an array, one at a time, through @streamparser/json
 * (so a file beyond V8's 512 MB string limit can be read).
 *
 * @throws {CliError} exit 1 for malformed JSON or a root that is not an array.
 */
export async function* readJsonArray(path: string, onBytes?: OnBytes): AsyncGenerator<Row> {
  const parser = new JSONParser({ paths: ['$.*'], keepStack: false });
  let ready: Row[] = [];
  let index = 0;
  parser.onValue = ({ value }) => {
    ready.push({ value: value as JsonValue, line: index++ });
  };
  try {
    for await (const text of readTextChunks(path, onBytes)) {
      parser.write(text);
      if (ready.length > 0) {
        const batch = ready;
        ready = [];
        yield* batch;
      }
    }
    if (!parser.isEnded) parser.end();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${path}: malformed JSON: ${(error as Error).message}`, EXIT_DATA);
  }
  yield* ready;
}

/** The rows of a large input: JSONL lines, or the elements of a root array. */
export function readRows(
  path: string,
  format: 'json' | 'jsonl',
  onBytes?: OnBytes,
): AsyncGenerator<Row> {
  return format === 'jsonl' ? readJsonLines(path, onBytes) : readJsonArray(path, onBytes);
}
