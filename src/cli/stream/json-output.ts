// JSON text of a value of any size, in pieces: a large array or object is written an entry at a
// time (each entry through JSON.stringify, re-indented to its depth), so the output never has to
// be one string (V8 caps strings at 512 MB) and can go to stdout as it is produced.
import type { JsonValue } from '../../codec/types.js';

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
