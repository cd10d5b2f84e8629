// JSON text of a value of any size, in pieces: a large array or object is written an entry at a
// time (each entry through JSON.stringify, re-indented to its depth), so the output never has to
// be one string (V8 caps strings at 512 MB) and can go to stdout as it is produced. A value nested
// too deep for JSON.stringify (which overflows the call stack a few thousand levels down, while
// JSON.parse reads tens of thousands) is written by walking it with a stack of our own.
import type { JsonStreamEvent, JsonValue } from '../../codec/types.js';

/** Containers with more entries than this are written an entry at a time. */
const SPLIT_ENTRIES = 64;

/**
 * Levels of large containers written by recursion before the rest is walked without it: far
 * below the depth where a generator's own recursion would overflow the call stack, and shallow
 * enough that passing each piece up through every level's `yield*` stays cheap.
 */
const RECURSION_LEVELS = 100;

/**
 * The pieces of `JSON.stringify(value, null, indent)` (compact for `indent` 0), in order, for a
 * value of any size and any depth.
 *
 * @example
 * [...jsonPieces({ a: [1, 2] }, 2)].join(''); // JSON.stringify({ a: [1, 2] }, null, 2)
 */
export function* jsonPieces(value: JsonValue, indent: number, level = 0): Generator<string> {
  if (level >= RECURSION_LEVELS) {
    yield* deepJsonPieces(value, indent, level);
    return;
  }
  if (typeof value !== 'object' || value === null || !isLarge(value)) {
    let text: string;
    try {
      text = JSON.stringify(value, null, indent) ?? 'null';
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      yield* deepJsonPieces(value, indent, level);
      return;
    }
    yield reindent(text, indent, level);
    return;
  }
  const inner = indent === 0 ? '' : `\n${' '.repeat(indent * (level + 1))}`;
  const outer = indent === 0 ? '' : `\n${' '.repeat(indent * level)}`;
  const colon = indent === 0 ? ':' : ': ';
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? inner : `,${inner}`;
      yield* jsonPieces(value[i]!, indent, level + 1);
    }
    yield `${outer}]`;
    return;
  }
  yield '{';
  let first = true;
  for (const key of Object.keys(value)) {
    yield `${first ? '' : ','}${inner}${JSON.stringify(key)}${colon}`;
    first = false;
    yield* jsonPieces(value[key]!, indent, level + 1);
  }
  yield `${outer}}`;
}

function isLarge(value: object): boolean {
  if (Array.isArray(value)) return value.length > SPLIT_ENTRIES;
  let count = 0;
  for (const _ in value) if (++count > SPLIT_ENTRIES) return true;
  return false;
}

function reindent(text: string, indent: number, level: number): string {
  if (indent === 0 || level === 0 || !text.includes('\n')) return text;
  return text.replaceAll('\n', `\n${' '.repeat(indent * level)}`);
}

/** Whether `error` is the engine's call stack overflow (a RangeError), not a bug to rethrow. */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * The pieces of a value at indentation `level`, written without recursion: its events, walked
 * with an explicit stack, through the same writer as {@link jsonFromEvents}.
 */
function* deepJsonPieces(value: JsonValue, indent: number, level: number): Generator<string> {
  const writer = new JsonEventWriter(indent, level);
  for (const event of valueEvents(value)) {
    writer.write(event);
    if (writer.size >= PIECE_CHARS) yield writer.take();
  }
  if (writer.size > 0) yield writer.take();
}

/** What is left to walk: a value still to write, or an event owed after a container's entries. */
type Pending = { value: JsonValue } | { event: JsonStreamEvent };

/** The events `decodeStream` would emit for `value`, in order, walked without recursion. */
function* valueEvents(value: JsonValue): Generator<JsonStreamEvent> {
  const pending: Pending[] = [{ value }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if ('event' in next) {
      yield next.event;
      continue;
    }
    const item = next.value;
    if (typeof item !== 'object' || item === null) {
      yield { type: 'primitive', value: item };
      continue;
    }
    // Entries are pushed last first, so that they come off the stack in order.
    if (Array.isArray(item)) {
      yield { type: 'startArray', length: item.length };
      pending.push({ event: { type: 'endArray' } });
      for (let i = item.length - 1; i >= 0; i--) pending.push({ value: item[i]! });
      continue;
    }
    yield { type: 'startObject' };
    pending.push({ event: { type: 'endObject' } });
    const keys = Object.keys(item);
    for (let i = keys.length - 1; i >= 0; i--) {
      pending.push({ value: item[keys[i]!]! });
      pending.push({ event: { type: 'key', key: keys[i]! } });
    }
  }
}

/** A container being written from events: its kind and whether it has an entry yet. */
interface OpenContainer {
  array: boolean;
  empty: boolean;
}

/** About how many characters each piece of JSON text holds. */
const PIECE_CHARS = 1 << 16;

/**
 * JSON text, in pieces of about 64 KB, from the event stream of the codec's `decodeStream`:
 * what `JSON.stringify(value, null, indent)` writes for the value the events describe, without
 * building that value.
 *
 * @example
 * for await (const piece of jsonFromEvents(decodeStream(createReadStream('a.toon')), 2)) out.write(piece);
 */
export async function* jsonFromEvents(
  events: AsyncIterable<JsonStreamEvent>,
  indent: number,
): AsyncGenerator<string> {
  const writer = new JsonEventWriter(indent, 0);
  for await (const event of events) {
    writer.write(event);
    if (writer.size >= PIECE_CHARS) yield writer.take();
  }
  if (writer.size > 0) yield writer.take();
}

/**
 * Turns value events into the JSON text `JSON.stringify(value, null, indent)` would write, for a
 * value that starts at indentation `baseLevel` (its lines after the first indented that much
 * more), collecting it until {@link take} hands it over. Keeps its own stack: any depth.
 */
class JsonEventWriter {
  private readonly stack: OpenContainer[] = [];
  private out: string[] = [];
  /** Characters collected since the last {@link take}. */
  size = 0;

  constructor(
    private readonly indent: number,
    private readonly baseLevel: number,
  ) {}

  write(event: JsonStreamEvent): void {
    switch (event.type) {
      case 'startObject':
      case 'startArray':
        this.beforeValue();
        this.emit(event.type === 'startObject' ? '{' : '[');
        this.stack.push({ array: event.type === 'startArray', empty: true });
        break;
      case 'endObject':
        this.close('}');
        break;
      case 'endArray':
        this.close(']');
        break;
      case 'key': {
        const top = this.stack[this.stack.length - 1]!;
        this.emit(
          `${top.empty ? '' : ','}${this.newline(this.stack.length)}${JSON.stringify(event.key)}${this.indent === 0 ? ':' : ': '}`,
        );
        top.empty = false;
        break;
      }
      case 'primitive':
        this.beforeValue();
        this.emit(JSON.stringify(event.value));
        break;
    }
  }

  /** The text collected so far; the writer starts collecting afresh. */
  take(): string {
    const text = this.out.join('');
    this.out = [];
    this.size = 0;
    return text;
  }

  private newline(depth: number): string {
    return this.indent === 0 ? '' : `\n${' '.repeat(this.indent * (this.baseLevel + depth))}`;
  }

  private emit(text: string): void {
    this.out.push(text);
    this.size += text.length;
  }

  /** Before a value: inside an array, the separator and the line break. */
  private beforeValue(): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined || !top.array) return;
    this.emit(top.empty ? this.newline(this.stack.length) : `,${this.newline(this.stack.length)}`);
    top.empty = false;
  }

  private close(bracket: string): void {
    const top = this.stack.pop()!;
    this.emit(top.empty ? bracket : `${this.newline(this.stack.length)}${bracket}`);
  }
}
