// The stream decoders' inputs: lines (strings) or UTF-8 byte chunks split anywhere, fed into
// the event decoder as it asks for them, synchronously or asynchronously.

import { BOM } from '../char-codes.js';
import { ToonDecodeError } from '../errors.js';
import { type DecodeSettings, resolveDecodeOptions } from '../options.js';
import type { DecodeStreamOptions, JsonStreamEvent } from '../types.js';
import { firstIllFormed, isBytes, textOfBytes } from '../utf8.js';
import { EventDecoder, NEED_INPUT, type Step } from './events.js';
import { reasons } from './messages.js';

/** A source item: a line (a string; an embedded LF splits it) or a chunk of UTF-8 bytes. */
export type StreamInput = string | Uint8Array;

/** Splits what arrives into lines for the decoder. */
class LineFeeder {
  private readonly decoder: EventDecoder;
  /** The public function reading the source, named in a TypeError for an item of no kind. */
  private readonly caller: string;
  private readonly strict: boolean;
  private bytes: TextDecoder | undefined;
  /** Text of the line still being assembled from byte chunks. */
  private partial = '';
  /** Bytes taken so far, and the trailing bytes of an incomplete sequence, for error offsets. */
  private byteCount = 0;
  private carry: Uint8Array = new Uint8Array(0);
  private linesSeen = 0;

  constructor(decoder: EventDecoder, strict: boolean, caller: string) {
    this.decoder = decoder;
    this.strict = strict;
    this.caller = caller;
  }

  add(item: unknown): void {
    if (typeof item === 'string') {
      this.flushPartial();
      // A leading U+FEFF of the document is a byte order mark, not content (spec 4.1).
      const text = this.linesSeen === 0 && item.charCodeAt(0) === BOM ? item.slice(1) : item;
      if (text.indexOf('\n') === -1) this.line(text, this.strict);
      else for (const line of text.split('\n')) this.line(line, this.strict);
      return;
    }
    if (!isBytes(item)) {
      throw new TypeError(reasons.notLines(this.caller, item === null ? 'null' : typeof item));
    }
    // The default ignoreBOM: false removes a leading byte order mark, from bytes only.
    this.bytes ??= new TextDecoder('utf-8', { fatal: this.strict });
    let text: string;
    try {
      text = this.bytes.decode(item, { stream: true });
    } catch {
      throw this.illFormed(item);
    }
    this.carry = incompleteTail(this.carry, item);
    this.byteCount += item.length;
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      this.line(this.partial + text.slice(start, newline), false);
      this.partial = '';
      start = newline + 1;
    }
    this.partial += text.slice(start);
  }

  end(): void {
    if (this.bytes !== undefined) {
      try {
        this.partial += this.bytes.decode();
      } catch {
        throw this.illFormed(new Uint8Array(0));
      }
      this.line(this.partial, false);
      this.partial = '';
    }
    this.decoder.close();
  }

  private flushPartial(): void {
    if (this.partial !== '') {
      this.line(this.partial, false);
      this.partial = '';
    }
  }

  /** Hands one line to the decoder; `checkText` for lines given as strings in strict mode. */
  private line(text: string, checkText: boolean): void {
    this.linesSeen++;
    this.decoder.push(text, checkText);
  }

  /** The error for ill-formed UTF-8 in `chunk` (or at the end of input for an empty one). */
  private illFormed(chunk: Uint8Array): ToonDecodeError {
    const joined = new Uint8Array(this.carry.length + chunk.length);
    joined.set(this.carry);
    joined.set(chunk, this.carry.length);
    const at = firstIllFormed(joined);
    const offset = this.byteCount - this.carry.length + at;
    // Only the document's own first bytes can be a byte order mark: EF BB BF that a chunk
    // merely starts with is a U+FEFF in the line, and counts in the column as decode counts it.
    const before = textOfBytes(joined.subarray(0, at), offset - at === 0);
    const newline = before.lastIndexOf('\n');
    const lines = before.split('\n').length - 1;
    const lineText = newline === -1 ? this.partial + before : before.slice(newline + 1);
    const shown = joined[at]?.toString(16).toUpperCase().padStart(2, '0');
    return new ToonDecodeError(
      reasons.illFormedUtf8(offset, shown),
      this.linesSeen + lines + 1,
      [...lineText].length + 1,
      { offset },
    );
  }
}

/**
 * The trailing bytes of `previous + chunk` that start a UTF-8 sequence the chunk did not finish
 * (at most 3), which the next chunk continues.
 */
function incompleteTail(previous: Uint8Array, chunk: Uint8Array): Uint8Array {
  const joined =
    previous.length === 0
      ? chunk
      : (() => {
          const all = new Uint8Array(previous.length + chunk.length);
          all.set(previous);
          all.set(chunk, previous.length);
          return all;
        })();
  const length = joined.length;
  for (let back = 1; back <= Math.min(3, length); back++) {
    const b = joined[length - back]!;
    if (b < 0x80) return new Uint8Array(0);
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return need > back ? joined.slice(length - back) : new Uint8Array(0);
    }
  }
  return new Uint8Array(0);
}

/**
 * A whole document passed as the source would be read one character per line, and bytes one
 * byte (a number) per item: both are refused with what to pass instead.
 */
function checkSource(caller: string, source: unknown): void {
  if (typeof source === 'string') {
    throw new TypeError(
      `${caller} expects an iterable of lines or byte chunks, got a string; pass text.split('\\n'), or use decode(text)`,
    );
  }
  if (isBytes(source)) throw new TypeError(reasons.bytesAsSource(caller));
  if (
    source === null ||
    typeof source !== 'object' ||
    !(Symbol.iterator in source || Symbol.asyncIterator in source)
  ) {
    throw new TypeError(reasons.notLines(caller, source === null ? 'null' : typeof source));
  }
}

function startDecoder(settings: DecodeSettings): EventDecoder {
  return new EventDecoder(settings.strict, settings.indentSize, settings.maxDepth);
}

/**
 * Turns an engine limit met while parsing into the decoder's own error type, at the line the
 * decoder was reading (as `decode` places it).
 */
function limitError(error: unknown, decoder: EventDecoder): unknown {
  if (!(error instanceof RangeError)) return error;
  return decoder.errorAtCurrentLine(
    /call stack/i.test(error.message) ? reasons.stackTooDeep() : reasons.tooLarge(error.message),
  );
}

function* syncEvents(
  source: Iterable<StreamInput>,
  settings: DecodeSettings,
): Generator<JsonStreamEvent, void, undefined> {
  const decoder = startDecoder(settings);
  const feeder = new LineFeeder(decoder, settings.strict, 'decodeStreamSync');
  const input = source[Symbol.iterator]();
  const steps: Generator<Step, void, undefined> = decoder.run();
  const out = decoder.out;
  // Whether the source has more to give: leaving before its end (a consumer's break, a malformed
  // document) closes it, as for...of would, so a generator's finally runs and a file is closed.
  let open = true;
  try {
    for (;;) {
      let step: IteratorResult<Step, void>;
      try {
        step = steps.next();
      } catch (error) {
        // The events of everything before the problem still go out first.
        yield* drain(out);
        throw limitError(error, decoder);
      }
      yield* drain(out);
      if (step.done) return;
      if (step.value === NEED_INPUT) {
        open = false; // a source that throws from next() is not closed, as in for...of
        const next = input.next();
        open = next.done !== true;
        if (next.done) feeder.end();
        else feeder.add(next.value);
      }
    }
  } finally {
    if (open) closeQuietly(input);
  }
}

/**
 * Closes a source left before its end, as for...of and for await...of do when their body
 * throws: an error from `return()` itself is dropped, so the decoder's error (or the consumer's
 * break) is what the caller sees. The promise of an async source's `return()` is returned.
 */
function closeQuietly(
  input: AsyncIterator<StreamInput> | Iterator<StreamInput>,
): Promise<void> | undefined {
  try {
    const closed = input.return?.();
    if (closed instanceof Promise) return closed.then(ignore, ignore);
  } catch {
    // dropped, as above
  }
  return undefined;
}

function ignore(): void {}

function* drain(out: JsonStreamEvent[]): Generator<JsonStreamEvent, void, undefined> {
  for (let i = 0; i < out.length; i++) yield out[i]!;
  out.length = 0;
}

/**
 * The async iterator behind {@link decodeStream}. Written by hand rather than as an async
 * generator: most `next()` calls find an event already decoded and answer with a resolved
 * promise, while an async generator pays for a full suspension and resumption per event.
 */
class EventPump implements AsyncIterator<JsonStreamEvent> {
  private readonly out: JsonStreamEvent[];
  private index = 0;
  private finished = false;
  private failure: unknown = undefined;
  private failed = false;
  /** Whether the source has more to give, so that leaving early must close it. */
  private open = true;

  constructor(
    private readonly steps: Generator<Step, void, undefined>,
    private readonly feeder: LineFeeder,
    private readonly input: AsyncIterator<StreamInput> | Iterator<StreamInput>,
    private readonly decoder: EventDecoder,
  ) {
    this.out = decoder.out;
  }

  next(): Promise<IteratorResult<JsonStreamEvent, undefined>> {
    if (this.index < this.out.length) {
      return Promise.resolve({ value: this.out[this.index++]!, done: false });
    }
    return this.refill();
  }

  private async refill(): Promise<IteratorResult<JsonStreamEvent, undefined>> {
    const out = this.out;
    for (;;) {
      out.length = 0;
      this.index = 0;
      if (this.failed) {
        this.failed = false;
        this.finished = true;
        throw this.failure;
      }
      if (this.finished) return { value: undefined, done: true };
      try {
        const step = this.steps.next();
        if (step.done) this.finished = true;
        else if (step.value === NEED_INPUT) {
          this.open = false; // a source that fails in next() is not closed, as in for await
          const next = await this.input.next();
          this.open = next.done !== true;
          if (next.done) this.feeder.end();
          else this.feeder.add(next.value);
        }
      } catch (error) {
        // The events of everything before the problem still go out first; the source is closed
        // now (a file's descriptor, a request body), as for await...of closes it on a throw.
        this.failure = limitError(error, this.decoder);
        this.failed = true;
        if (this.open) {
          this.open = false;
          await closeQuietly(this.input);
        }
      }
      if (out.length > 0) return { value: out[this.index++]!, done: false };
    }
  }

  async return(): Promise<IteratorResult<JsonStreamEvent, undefined>> {
    this.finished = true;
    this.out.length = 0;
    if (this.open) {
      this.open = false;
      await this.input.return?.();
    }
    return { value: undefined, done: true };
  }
}

function asyncEvents(
  source: AsyncIterable<StreamInput> | Iterable<StreamInput>,
  settings: DecodeSettings,
): AsyncIterator<JsonStreamEvent> {
  const decoder = startDecoder(settings);
  const input =
    Symbol.asyncIterator in source
      ? (source as AsyncIterable<StreamInput>)[Symbol.asyncIterator]()
      : (source as Iterable<StreamInput>)[Symbol.iterator]();
  const feeder = new LineFeeder(decoder, settings.strict, 'decodeStream');
  return new EventPump(decoder.run(), feeder, input, decoder);
}

/**
 * Decodes a document given as lines into the reference implementation's event stream, without
 * building the value: `startObject`, `endObject`, `startArray` (with the declared `length`),
 * `endArray`, `key` and `primitive`, depth-first. The same checks as {@link decode} apply, in the
 * same order, so a malformed document fails with the same `ToonDecodeError` (after the events
 * of everything before the problem). Items may also be `Uint8Array` chunks of UTF-8, split at
 * any byte (decoded fatally in strict mode; a leading BOM is dropped).
 *
 * @example
 * [...decodeStreamSync(['name: Ada'])];
 * // [{ type: 'startObject' }, { type: 'key', key: 'name' }, { type: 'primitive', value: 'Ada' }, { type: 'endObject' }]
 */
export function decodeStreamSync(
  lines: Iterable<StreamInput>,
  options?: DecodeStreamOptions,
): Iterable<JsonStreamEvent> {
  const settings = resolveDecodeOptions('decodeStreamSync', options);
  checkSource('decodeStreamSync', lines);
  return { [Symbol.iterator]: () => syncEvents(lines, settings) };
}

/**
 * The asynchronous {@link decodeStreamSync}: reads lines or UTF-8 byte chunks from an async (or
 * sync) iterable as the events are consumed, so a file or response body of any size decodes in
 * memory proportional to its longest line and its nesting (and, in strict mode, to the keys of
 * the objects still open, kept to refuse duplicates).
 *
 * @example
 * import { createReadStream } from 'node:fs';
 * for await (const event of decodeStream(createReadStream('data.toon'))) console.log(event);
 */
export function decodeStream(
  source: AsyncIterable<StreamInput> | Iterable<StreamInput>,
  options?: DecodeStreamOptions,
): AsyncIterable<JsonStreamEvent> {
  const settings = resolveDecodeOptions('decodeStream', options);
  checkSource('decodeStream', source);
  return { [Symbol.asyncIterator]: () => asyncEvents(source, settings) };
}
