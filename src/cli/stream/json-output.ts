// JSON text of a value of any size, in pieces: a large array or object is written an entry at a
// time (each entry through JSON.stringify, re-indented to its depth), so the output never has to
// be one string (V8 caps strings at 512 MB) and can go to stdout as it is produced.
import type { JsonStreamEvent, JsonValue } from '../../codec/types.js';

/** Containers with more entries than this are written an entry at a time. */
const SPLIT_ENTRIES = 64;

/**
 * The pieces of `JSON.stringify(value, null, indent)` (compact for `indent` 0), in order.
 *
 * @example
 * [...jsonPieces({ a: [1, 2] }, 2)].join(''); // JSON.stringify({ a: [1, 2] }, null, 2)
 */
export function* jsonPieces(value: JsonValue, indent: number, level = 0): Generator<string> {
  if (typeof value !== 'object' || value === null || !isLarge(value)) {
    yield reindent(JSON.stringify(value, null, indent) ?? 'null', indent, level);
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

/** A container being written from events: its kind and whether it has an entry yet. */
interface OpenContainer {
  array: boolean;
  empty: boolean;
}

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
  const stack: OpenContainer[] = [];
  let out: string[] = [];
  let size = 0;
  const newline = (level: number) => (indent === 0 ? '' : `\n${' '.repeat(indent * level)}`);
  const emit = (text: string) => {
    out.push(text);
    size += text.length;
  };
  /** Before a value: inside an array, the separator and the line break. */
  const beforeValue = () => {
    const top = stack[stack.length - 1];
    if (top === undefined || !top.array) return;
    emit(top.empty ? newline(stack.length) : `,${newline(stack.length)}`);
    top.empty = false;
  };
  const close = (bracket: string) => {
    const top = stack.pop()!;
    emit(top.empty ? bracket : `${newline(stack.length)}${bracket}`);
  };
  for await (const event of events) {
    switch (event.type) {
      case 'startObject':
      case 'startArray':
        beforeValue();
        emit(event.type === 'startObject' ? '{' : '[');
        stack.push({ array: event.type === 'startArray', empty: true });
        break;
      case 'endObject':
        close('}');
        break;
      case 'endArray':
        close(']');
        break;
      case 'key': {
        const top = stack[stack.length - 1]!;
        emit(
          `${top.empty ? '' : ','}${newline(stack.length)}${JSON.stringify(event.key)}${indent === 0 ? ':' : ': '}`,
        );
        top.empty = false;
        break;
      }
      case 'primitive':
        beforeValue();
        emit(JSON.stringify(event.value));
        break;
    }
    if (size >= 1 << 16) {
      yield out.join('');
      out = [];
      size = 0;
    }
  }
  if (size > 0) yield out.join('');
}
