// Reading input of any size: bytes decoded as fatal UTF-8 (an ill-formed byte is an error naming
// its offset, never a silent U+FFFD), JSON Lines one line at a time, and JSON arrays one element
// at a time (many elements parsed by one JSON.parse where the file allows it, array-batches.ts),
// so memory does not grow with the file.
import { isAscii, isUtf8 } from 'node:buffer';
import { open, readFile, stat } from 'node:fs/promises';
import type { JsonValue } from '../../codec/types.js';
import { firstIllFormed } from '../../codec/utf8.js';
import {
  binaryInputError,
  binaryOffset,
  bomlessUtf16,
  bomlessUtf16Error,
} from '../binary-input.js';
import { CliError, EXIT_DATA, EXIT_USAGE } from '../errors.js';
import { ArrayBatches, ArraySyntaxError } from './array-batches.js';

/** The name error messages give standard input. */
export const STDIN_NAME = '<stdin>';

/** Files above this size are read as a stream of rows rather than as one string. */
export const STREAM_BYTES = 64 * 1024 * 1024;

/** Bytes read at a time by {@link readAllText}, which keeps every chunk. */
const WHOLE_CHUNK_BYTES = 1 << 20;

/**
 * Bytes read at a time by the row readers, which drop each chunk once its rows are parsed.
 * Small enough that the chunk's buffer is reused by malloc and that its text (two bytes a
 * character once one is outside Latin-1), the text it is joined to and the rows parsed from it
 * stay below V8's large-object size, young objects freed by the next scavenge. With a megabyte,
 * each chunk was several megabytes of fresh memory faulted in page by page (measured on a 200 MB
 * array, bench/cli-encode.bench.ts: 380,000 page faults against 22,000 with this size, and a
 * fifth less CPU time).
 */
const ROW_CHUNK_BYTES = 1 << 15;

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
 * order mark removed; a file is read `chunkBytes` at a time (stdin as it comes).
 *
 * @throws {CliError} exit 1 naming the byte offset of ill-formed UTF-8, or a read error.
 * @example
 * for await (const text of readTextChunks('data.jsonl')) process.stdout.write(text);
 */
export async function* readTextChunks(
  path: string | undefined,
  onBytes?: OnBytes,
  chunkBytes = WHOLE_CHUNK_BYTES,
): AsyncGenerator<string> {
  const source = path === undefined || path === '-' ? STDIN_NAME : path;
  if (source === STDIN_NAME && process.stdin.isTTY) {
    throw new CliError(
      'no input: pass a file name, or pipe the data in (for example `cat data.json | toonwire encode`)',
      EXIT_USAGE,
    );
  }
  let decoder: ChunkDecoder | undefined;
  /** The first byte, held until a second tells a UTF-16 byte order mark from UTF-8. */
  let first: Uint8Array | undefined;
  let bytes = 0;
  let head: Uint8Array | undefined;
  try {
    const stream = source === STDIN_NAME ? process.stdin : fileChunks(source, chunkBytes);
    for await (const chunk of stream) {
      let data = chunk as Uint8Array;
      bytes += data.length;
      if (decoder === undefined) {
        if (first !== undefined) data = Buffer.concat([first, data]);
        // Copied: a file's chunks share one buffer.
        head = Uint8Array.prototype.slice.call(data);
        if (data.length < 2) {
          first = head;
          continue;
        }
        decoder = decoderFor(data);
      }
      const text = decoder.decode(data);
      if (text === undefined) throw illFormedError(source, decoder, head);
      onBytes?.(bytes);
      if (text !== '') yield text;
    }
    if (decoder === undefined) {
      // Empty, or a single byte.
      decoder = new Utf8Chunks();
      const text = first === undefined ? '' : decoder.decode(first);
      if (text === undefined) throw illFormedError(source, decoder, head);
      if (text !== '') yield text;
    }
    if (!decoder.end()) throw illFormedError(source, decoder, head);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw readError(source, error as NodeJS.ErrnoException);
  }
}

/** Bytes of a file read at a time, into each of two buffers taken in turn. */
const READ_BLOCK_BYTES = 1 << 20;

/**
 * A file's bytes, `chunkBytes` at a time, each chunk a view of one of two buffers read into in
 * turn (so a chunk is valid only until the next one is asked for; the decoder copies what it
 * keeps): the next megabyte is read in the thread pool while the chunks of the one before are
 * handled. A stream's reads of `chunkBytes` (a thread-pool job, a fresh buffer and stream and
 * promise machinery per chunk: 6,100 for a 200 MB array) cost about a twentieth of the CPU time
 * of `toonwire encode`; reading synchronously saved as much, but lost the overlap of reading
 * and parsing (slower by the clock on a busy machine).
 */
async function* fileChunks(path: string, chunkBytes: number): AsyncGenerator<Uint8Array> {
  const handle = await open(path, 'r');
  const size = Math.max(READ_BLOCK_BYTES, chunkBytes);
  const blocks = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
  // From the current position (no offsets: a named pipe, such as `<(curl ...)`, has none); one
  // read is in flight at a time, so they come in order.
  let next = handle.read(blocks[0]!, 0, size, null);
  try {
    for (let turn = 0; ; turn++) {
      const { bytesRead } = await next;
      if (bytesRead === 0) return;
      const block = blocks[turn & 1]!;
      next = handle.read(blocks[(turn + 1) & 1]!, 0, size, null);
      for (let at = 0; at < bytesRead; at += chunkBytes)
        yield block.subarray(at, Math.min(at + chunkBytes, bytesRead));
    }
  } finally {
    // The read ahead may still be running (the reader stopped early): it ends before the close.
    await next.catch(() => undefined);
    await handle.close();
  }
}

/** Fatal decoding of a stream of chunks cut anywhere. */
interface ChunkDecoder {
  /** The encoding's name in messages. */
  readonly encoding: 'UTF-8' | 'UTF-16';
  /** The text of `data`, or undefined when the bytes so far are ill-formed. */
  decode(data: Uint8Array): string | undefined;
  /** False when the input ended inside a character. */
  end(): boolean;
  /** The byte offset of the first ill-formed byte, once {@link decode} or {@link end} failed. */
  readonly failedAt: number | undefined;
}

/**
 * The decoder for an input whose first bytes (two at least) are `start`: UTF-16 when they are
 * its byte order mark (PowerShell's `>` and Windows tools write UTF-16LE with one), else UTF-8.
 */
function decoderFor(start: Uint8Array): ChunkDecoder {
  const encoding = utf16Encoding(start);
  return encoding === undefined ? new Utf8Chunks() : new Utf16Chunks(encoding);
}

/**
 * `utf-16le` or `utf-16be` when `bytes` start with that byte order mark, else undefined.
 *
 * @example
 * utf16Encoding(new Uint8Array([0xff, 0xfe, 0x7b, 0x00])); // 'utf-16le'
 */
export function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Fatal UTF-16 decoding (after a byte order mark, which it drops) of a stream of chunks: each
 * chunk decoded up to its last whole code unit that is not a high surrogate, the rest carried
 * over, so an unpaired surrogate is found at its byte offset.
 */
class Utf16Chunks implements ChunkDecoder {
  readonly encoding = 'UTF-16';
  private readonly text: TextDecoder;
  private readonly littleEndian: boolean;
  private carry: Uint8Array | undefined;
  private first = true;
  /** The input's byte offset of the next byte to decode (the carry's first, if any). */
  private position = 0;
  failedAt: number | undefined;

  constructor(encoding: 'utf-16le' | 'utf-16be') {
    this.text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    this.littleEndian = encoding === 'utf-16le';
  }

  decode(data: Uint8Array): string | undefined {
    let bytes = this.carry === undefined ? data : Buffer.concat([this.carry, data]);
    this.carry = undefined;
    if (this.first) {
      this.first = false;
      bytes = bytes.subarray(2);
      this.position = 2;
    }
    let end = bytes.length & ~1;
    if (end >= 2 && isHighSurrogate(this.unit(bytes, end - 2))) end -= 2;
    if (end < bytes.length) this.carry = Uint8Array.prototype.slice.call(bytes, end);
    const whole = bytes.subarray(0, end);
    let text: string;
    try {
      text = this.text.decode(whole);
    } catch {
      this.failedAt = this.position + this.unpairedAt(whole);
      return undefined;
    }
    this.position += end;
    return text;
  }

  end(): boolean {
    if (this.carry === undefined) return true;
    this.failedAt = this.position;
    return false;
  }

  private unit(bytes: Uint8Array, at: number): number {
    return this.littleEndian
      ? bytes[at]! | (bytes[at + 1]! << 8)
      : (bytes[at]! << 8) | bytes[at + 1]!;
  }

  /** The byte offset in `bytes` (whole units) of the first unpaired surrogate. */
  private unpairedAt(bytes: Uint8Array): number {
    for (let at = 0; at < bytes.length; at += 2) {
      const unit = this.unit(bytes, at);
      if (isHighSurrogate(unit)) {
        const next = at + 2 < bytes.length ? this.unit(bytes, at + 2) : -1;
        if (next < 0xdc00 || next > 0xdfff) return at;
        at += 2;
      } else if (unit >= 0xdc00 && unit <= 0xdfff) {
        return at;
      }
    }
    return bytes.length;
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Fatal UTF-8 decoding of a stream of chunks, as `new TextDecoder('utf-8', { fatal: true })`
 * with `stream: true` decodes them (a leading byte order mark dropped), about five times
 * faster on the ASCII chunks that make up most JSON: those are checked with `isAscii` and
 * turned into text as Latin-1, where each byte is its character; other chunks are validated
 * with `isUtf8` (ill-formed sequences, surrogates and overlong forms refused alike) and decoded,
 * a sequence cut by the chunk's end carried over to the next.
 */
class Utf8Chunks implements ChunkDecoder {
  readonly encoding = 'UTF-8';
  /**
   * Decodes checked bytes: Node 20's TextDecoder in streaming mode turns UTF-8 into text about
   * three times as fast as `Buffer.toString('utf8')` (measured on JSON with a few accented
   * letters a line); `whole` always ends on a whole sequence, so it never holds bytes back.
   */
  private readonly text = new TextDecoder('utf-8', { ignoreBOM: true });
  private carry: Uint8Array | undefined;
  private first = true;
  /** The input's byte offset of the next byte to decode (the carry's first, if any). */
  private position = 0;
  /** The byte offset of the first ill-formed byte, once {@link decode} or {@link end} failed. */
  failedAt: number | undefined;

  /** The text of `data`, or undefined when the bytes so far are not well-formed UTF-8. */
  decode(data: Uint8Array): string | undefined {
    let bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (this.carry !== undefined) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = undefined;
    }
    if (this.first && bytes.length > 0) {
      if (bytes.length < 3 && bytes[0] === 0xef) {
        // Too short to tell whether a byte order mark starts here: wait for more.
        this.carry = Uint8Array.prototype.slice.call(bytes);
        return '';
      }
      this.first = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        bytes = bytes.subarray(3);
        this.position = 3;
      }
    }
    if (isAscii(bytes)) {
      this.position += bytes.length;
      return bytes.toString('latin1');
    }
    const tail = incompleteTail(bytes);
    const whole = bytes.subarray(0, bytes.length - tail);
    if (!isUtf8(whole)) {
      this.failedAt = this.position + firstIllFormed(whole);
      return undefined;
    }
    this.position += whole.length;
    if (tail > 0) this.carry = Uint8Array.prototype.slice.call(bytes, bytes.length - tail);
    return this.text.decode(whole, { stream: true });
  }

  /** False when the input ended inside a UTF-8 sequence (none is shorter than what is held). */
  end(): boolean {
    if (this.carry === undefined) return true;
    this.failedAt = this.position;
    return false;
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
  let bytes: Uint8Array;
  if (source !== STDIN_NAME) {
    try {
      bytes = await readFile(source);
    } catch (error) {
      throw readError(source, error as NodeJS.ErrnoException);
    }
  } else {
    const chunks: Uint8Array[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
    bytes = Buffer.concat(chunks);
  }
  return { source, bytes: utf16Encoding(bytes) === undefined ? bytes : utf8OfUtf16(source, bytes) };
}

/** UTF-16 bytes (a byte order mark first) as UTF-8, for decoders that take UTF-8 bytes. */
function utf8OfUtf16(source: string, bytes: Uint8Array): Uint8Array {
  const decoder = decoderFor(bytes);
  const text = decoder.decode(bytes);
  if (text === undefined || !decoder.end()) throw illFormedError(source, decoder, bytes);
  return Buffer.from(text, 'utf8');
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
 * The error for ill-formed text at the decoder's failure offset (of a file, a pipe or stdin
 * alike); UTF-16 without a byte order mark, or a binary file (a NUL byte in its first chunk,
 * `head`), is named as such instead.
 */
function illFormedError(
  source: string,
  decoder: ChunkDecoder,
  head: Uint8Array | undefined,
): CliError {
  const offset = decoder.failedAt;
  const where = offset === undefined ? '' : ` at byte offset ${offset}`;
  if (decoder.encoding === 'UTF-16') {
    return new CliError(
      `${source}: ill-formed UTF-16${where} (the file starts with a UTF-16 byte order mark; an unpaired surrogate or a lone last byte follows): check the file, or convert it with \`iconv -f UTF-16 -t UTF-8\``,
      EXIT_DATA,
    );
  }
  const bomless = head === undefined ? undefined : bomlessUtf16(head);
  if (bomless !== undefined) return bomlessUtf16Error(source, bomless);
  const nul = head === undefined ? -1 : binaryOffset(head);
  if (nul >= 0) return binaryInputError(source, nul, 'JSON and TOON');
  return new CliError(
    `${source}: ill-formed UTF-8${where}; JSON and TOON input must be UTF-8: convert the file from its encoding (for Latin-1, \`iconv -f latin1 -t utf-8\`)`,
    EXIT_DATA,
  );
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
export async function* readJsonLines(
  path: string,
  onBytes?: OnBytes,
  checkNumbers = false,
): AsyncGenerator<Row> {
  let line = 0;
  for await (const batch of readJsonLineBatches(path, onBytes, checkNumbers)) {
    for (let i = 0; i < batch.length; i++) yield { value: batch[i]!, line: ++line };
  }
}

/**
 * The values of a JSON Lines input a batch at a time (those of each chunk read), for callers
 * that handle many rows at once; a batch is never empty. With `checkNumbers`, a number that
 * JSON.parse cannot read as the same value refuses the input (lossy-numbers.ts).
 *
 * @throws {CliError} `source:line:column: message` for a malformed line or a lossy number.
 * @example
 * for await (const values of readJsonLineBatches('items.jsonl')) count += values.length;
 */
export async function* readJsonLineBatches(
  path: string,
  onBytes?: OnBytes,
  checkNumbers = false,
): AsyncGenerator<JsonValue[]> {
  const { parseJsonLine } = await import('../json-input.js');
  const refuse = checkNumbers
    ? (await import('../lossy-numbers.js')).refuseLossyNumbers
    : undefined;
  let pending = '';
  let line = 0;
  for await (const text of readTextChunks(path, onBytes, ROW_CHUNK_BYTES)) {
    let start = 0;
    const chunk = pending + text;
    const batch: JsonValue[] = [];
    const firstLine = line + 1;
    for (;;) {
      const end = chunk.indexOf('\n', start);
      if (end < 0) break;
      line++;
      const value = parseJsonLine(chunk.slice(start, end), path, line);
      if (value !== undefined) batch.push(value);
      start = end + 1;
    }
    // One search over the chunk's whole lines, not one per line.
    refuse?.(chunk.slice(0, start), path, firstLine);
    pending = chunk.slice(start);
    if (batch.length > 0) yield batch;
  }
  if (pending !== '') {
    line++;
    const value = parseJsonLine(pending, path, line);
    refuse?.(pending, path, line);
    if (value !== undefined) yield [value];
  }
}

/**
 * The first `bytes` bytes of `file` (fewer when it is shorter): enough to tell what a file is
 * (binary, JSON, a root array) without reading it. A UTF-16 file's (one with a byte order mark)
 * come as UTF-8 without the mark, as the readers give its text.
 *
 * @example
 * const head = await readHead('rows.json', 4096);
 */
export async function readHead(file: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = new Uint8Array(bytes);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, bytesRead);
    const encoding = utf16Encoding(head);
    if (encoding === undefined) return head;
    // Not fatal: a head may end inside a surrogate pair, and the readers check the whole text.
    return Buffer.from(new TextDecoder(encoding).decode(head.subarray(0, bytesRead & ~1)), 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * True when `file` starts with a UTF-16 byte order mark: its text is read through
 * {@link readTextChunks}, never as raw bytes.
 *
 * @example
 * if (await isUtf16File('data.toon')) for await (const text of readTextChunks('data.toon')) use(text);
 */
export async function isUtf16File(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const start = new Uint8Array(2);
    const { bytesRead } = await handle.read(start, 0, 2, 0);
    return bytesRead === 2 && utf16Encoding(start) !== undefined;
  } finally {
    await handle.close();
  }
}

/** True when the first non-space character of a JSON file is `[`: a root array to stream. */
export async function startsWithArray(path: string): Promise<boolean> {
  const head = await readHead(path, 4096);
  let i = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (
    i < head.length &&
    (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)
  )
    i++;
  return head[i] === 0x5b;
}

/**
 * The elements of a JSON file whose root is an array, one at a time (see
 * {@link readJsonArrayBatches}); `line` is the element's index.
 *
 * @throws {CliError} exit 1 with `file:line:column` for malformed JSON or a root that is not an
 *   array.
 * @example
 * for await (const { value } of readJsonArray('rows.json')) count++;
 */
export async function* readJsonArray(
  path: string,
  onBytes?: OnBytes,
  checkNumbers = false,
): AsyncGenerator<Row> {
  let index = 0;
  for await (const batch of readJsonArrayBatches(path, onBytes, checkNumbers)) {
    for (let i = 0; i < batch.length; i++) yield { value: batch[i]!, line: index++ };
  }
}

/**
 * The elements of a JSON file whose root is an array, a batch at a time, never the whole file:
 * {@link ArrayBatches} parses the elements of each chunk with one JSON.parse where it can (so a
 * file beyond V8's 512 MB string limit is read at about JSON.parse's pace); a batch is never
 * empty. With `checkNumbers`, a number that JSON.parse cannot read as the same value refuses the
 * input (lossy-numbers.ts).
 *
 * @throws {CliError} exit 1 with `file:line:column` for malformed JSON, a root that is not an
 *   array, or a lossy number.
 * @example
 * for await (const values of readJsonArrayBatches('rows.json')) count += values.length;
 */
export async function* readJsonArrayBatches(
  path: string,
  onBytes?: OnBytes,
  checkNumbers = false,
): AsyncGenerator<JsonValue[]> {
  const batches = new ArrayBatches(checkNumbers);
  try {
    for await (const text of readTextChunks(path, onBytes, ROW_CHUNK_BYTES)) {
      const values = batches.push(text);
      if (values.length > 0) yield values;
    }
    const values = batches.end();
    if (values.length > 0) yield values;
  } catch (error) {
    if (error instanceof ArraySyntaxError) {
      throw new CliError(`${path}:${error.line}:${error.column}: ${error.message}`, EXIT_DATA);
    }
    throw error;
  }
}

/**
 * The rows of a large input: JSONL lines, or the elements of a root array; `checkNumbers`
 * refuses a lossy number (lossy-numbers.ts).
 */
export function readRows(
  path: string,
  format: 'json' | 'jsonl',
  onBytes?: OnBytes,
  checkNumbers = false,
): AsyncGenerator<Row> {
  return format === 'jsonl'
    ? readJsonLines(path, onBytes, checkNumbers)
    : readJsonArray(path, onBytes, checkNumbers);
}

/**
 * The rows of a large input a batch at a time (each batch never empty): JSONL lines, or the
 * elements of a root array; `checkNumbers` refuses a lossy number (lossy-numbers.ts).
 *
 * @example
 * for await (const values of readRowBatches('rows.json', 'json')) count += values.length;
 */
export function readRowBatches(
  path: string,
  format: 'json' | 'jsonl',
  onBytes?: OnBytes,
  checkNumbers = false,
): AsyncGenerator<JsonValue[]> {
  return format === 'jsonl'
    ? readJsonLineBatches(path, onBytes, checkNumbers)
    : readJsonArrayBatches(path, onBytes, checkNumbers);
}
