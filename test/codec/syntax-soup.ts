// Test helper: random text made of TOON's syntax pieces, for the hostile-input and differential
// tests, and the document edits both apply.
import fc from 'fast-check';

/** Pieces of TOON syntax and the characters that break codecs. */
const SYNTAX = [
  'a',
  'key',
  ':',
  ': ',
  ' ',
  '  ',
  '\n',
  '\n  ',
  '\n    ',
  '\r\n',
  '\t',
  '-',
  '- ',
  '[',
  ']',
  '[2]',
  '[0]',
  '[1:]',
  '{',
  '}',
  '{a,b}',
  'x{y}',
  ',',
  '|',
  '"',
  '\\',
  '\\u',
  '\\ud800',
  '#',
  '0',
  '07',
  '1e999',
  '-0',
  'true',
  'null',
  '[]',
  '__proto__',
  '😀',
  '\u0000',
  '\uFEFF',
];

/**
 * Text of up to `maxPieces` syntax pieces.
 *
 * @example
 * fc.sample(syntaxSoup(4), 1); // e.g. [ '[2]: "' ]
 */
export function syntaxSoup(maxPieces: number): fc.Arbitrary<string> {
  return fc
    .array(fc.constantFrom(...SYNTAX), { maxLength: maxPieces })
    .map((parts) => parts.join(''));
}

/** An edit of a document: syntax spliced in at a character offset. */
export interface Splice {
  at: number;
  remove: number;
  insert: string;
}

/** Random splices of up to `maxPieces` syntax pieces. */
export function splice(maxPieces: number): fc.Arbitrary<Splice> {
  return fc.record({ at: fc.nat(), remove: fc.nat({ max: 4 }), insert: syntaxSoup(maxPieces) });
}

/**
 * `text` with `edit` applied (its offset taken modulo the text's length).
 *
 * @example
 * applySplice('a: 1', { at: 1, remove: 0, insert: '[2]' }); // 'a[2]: 1'
 */
export function applySplice(text: string, edit: Splice): string {
  const at = edit.at % (text.length + 1);
  return text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
}
