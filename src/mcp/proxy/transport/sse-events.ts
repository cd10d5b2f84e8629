// Server-sent events, split on their boundaries in the raw bytes, so that an event can be looked
// at (its `id`) and then passed on byte for byte or dropped. The SDK's client transport parses
// the stream after this; nothing here decodes more than an `id:` line.

import { COLON, CR, LF, SPACE } from '../../../codec/char-codes.js';

/** The letters of the field name `id`. */
const I = 0x69;
const D = 0x64;
/** Longer `id:` lines are not read as ids (the events then count as having none). */
const MAX_ID_LINE = 1024;

/** An SSE stream's events, each as its raw bytes and its `id` (undefined without one). */
export type SseEventSink = (bytes: Uint8Array[], id: string | undefined) => void;

/**
 * Splits SSE bytes into events (a blank line ends one; lines end with CRLF, LF or CR) in one pass
 * over each chunk: an event's bytes are kept as views of the chunks, never copied or decoded.
 */
export class SseEventSplitter {
  private event: Uint8Array[] = [];
  /** The current line's bytes while it may be an `id` field (null once it cannot be). */
  private idLine: number[] | null = [];
  private lineLength = 0;
  private id: string | undefined;
  /** The last chunk ended with CR: an LF that starts the next one belongs to that line end. */
  private afterCR = false;
  /** That CR ended an event, which goes out once the next chunk shows whether an LF follows. */
  private endAfterCR = false;

  constructor(private readonly sink: SseEventSink) {}

  push(chunk: Uint8Array): void {
    let start = 0; // where the bytes not yet added to `event` begin
    let position = 0;
    if (this.afterCR) {
      this.afterCR = false;
      if (chunk[0] === LF) position = 1;
      if (this.endAfterCR) {
        // The blank line that ended the event was CR, or CRLF cut between two chunks.
        this.endAfterCR = false;
        if (position === 1) this.event.push(chunk.subarray(0, 1));
        start = position;
        this.emit();
      }
    }
    let nextLF = chunk.indexOf(LF, position);
    let nextCR = chunk.indexOf(CR, position);
    while (position < chunk.length) {
      if (nextLF !== -1 && nextLF < position) nextLF = chunk.indexOf(LF, position);
      if (nextCR !== -1 && nextCR < position) nextCR = chunk.indexOf(CR, position);
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      if (end === -1) {
        this.readLine(chunk, position, chunk.length);
        break;
      }
      this.readLine(chunk, position, end);
      let after = end + 1;
      if (chunk[end] === CR) {
        if (after === chunk.length) this.afterCR = true;
        else if (chunk[after] === LF) after += 1;
      }
      const blank = this.lineLength === 0;
      this.endLine();
      position = after;
      if (blank) {
        this.event.push(chunk.subarray(start, after));
        start = after;
        if (this.afterCR) this.endAfterCR = true;
        else this.emit();
      }
    }
    if (start < chunk.length) this.event.push(chunk.subarray(start));
  }

  /** Passes on what is left of an unfinished event (the parser after this will drop it). */
  flush(): void {
    this.endAfterCR = false;
    if (this.event.length > 0) this.emit();
  }

  private readLine(chunk: Uint8Array, from: number, to: number): void {
    const idLine = this.idLine;
    this.lineLength += to - from;
    if (idLine === null) return;
    if (idLine.length + (to - from) > MAX_ID_LINE) {
      this.idLine = null;
      return;
    }
    for (let index = from; index < to; index++) {
      const byte = chunk[index]!;
      const at = idLine.length;
      if ((at === 0 && byte !== I) || (at === 1 && byte !== D) || (at === 2 && byte !== COLON)) {
        this.idLine = null;
        return;
      }
      idLine.push(byte);
    }
  }

  private endLine(): void {
    const line = this.idLine;
    if (line !== null && line.length >= 2) {
      // `id` alone or `id:` with an empty value resets the id; one space after the colon is not
      // part of the value.
      const valueStart = line.length > 3 && line[3] === SPACE ? 4 : 3;
      const value = Buffer.from(line.slice(valueStart)).toString('utf8');
      this.id = value === '' || value.includes('\0') ? undefined : value;
    }
    this.idLine = [];
    this.lineLength = 0;
  }

  private emit(): void {
    const { event, id } = this;
    this.event = [];
    this.id = undefined;
    this.sink(event, id);
  }
}

/** Event ids already passed, the oldest forgotten past a bound. */
export class SeenEventIds {
  private readonly ids = new Set<string>();

  constructor(private readonly limit = 10_000) {}

  /** Records `id`; false when it was seen before. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.limit) this.ids.delete(this.ids.values().next().value!);
    return true;
  }
}

/**
 * `body` without the events whose id `seen` already holds: a server that replays events (after a
 * reconnection with `Last-Event-ID`) sends each one once. `onEvent` sees the id of every event
 * passed on.
 *
 * @example
 * const seen = new SeenEventIds();
 * const once = dropSeenEvents(response.body!, seen, (id) => console.log('event', id));
 */
export function dropSeenEvents(
  body: ReadableStream<Uint8Array>,
  seen: SeenEventIds,
  onEvent: (id: string) => void = () => {},
): ReadableStream<Uint8Array> {
  let output!: TransformStreamDefaultController<Uint8Array>;
  const splitter = new SseEventSplitter((bytes, id) => {
    if (id !== undefined) {
      if (!seen.add(id)) return;
      onEvent(id);
    }
    for (const piece of bytes) output.enqueue(piece);
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => {
        output = controller;
      },
      transform: (chunk) => splitter.push(chunk),
      flush: () => splitter.flush(),
    }),
  );
}
