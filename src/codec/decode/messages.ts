// Every reason a TOON document can be refused for, in one place (like zod's error map): the
// decoder says *what* went wrong and where; the wording, and the advice on what to do about it,
// live here. The tree decoder and the stream decoders share these, so both explain a problem
// in the same words.

import { PIPE, TAB } from '../char-codes.js';
import { excerpt } from '../excerpt.js';

/** A short, quoted excerpt of user text for error messages. */
export function quoted(text: string): string {
  return JSON.stringify(excerpt(text, 40));
}

/** The code unit at `offset` of `text` as messages write it: `D800`. */
export function surrogateCode(text: string, offset: number): string {
  return text.charCodeAt(offset).toString(16).toUpperCase();
}

/** How a delimiter is named in messages. */
export function delimiterName(code: number): string {
  return code === TAB ? 'tab' : code === PIPE ? 'pipe "|"' : 'comma ","';
}

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}

/** The reasons, by situation. Each is a complete sentence pair: the problem; the fix. */
export const reasons = {
  // Indentation and structure (§8, §12)
  tabIndent: (indentSize: number) =>
    `tab used for indentation; indent with ${indentSize} spaces per level instead`,
  notMultiple: (spaces: number, indentSize: number) =>
    `indentation of ${spaces} spaces is not a multiple of ${indentSize}; indent each level by exactly ${indentSize} spaces`,
  depthJump: (levels: number, spaces: number) =>
    `indentation jumps ${levels} levels; indent this block exactly ${spaces} spaces, one level below the line that opens it`,
  overIndented: (spaces: number) =>
    `unexpected indentation: expected ${spaces} spaces here, because the line above does not open a nested block`,
  blankInArray: () =>
    'blank line inside an array; remove it (blank lines may separate fields, but not the items, rows or entries of an array)',
  tooDeep: (maxDepth: number) =>
    `nesting is deeper than maxDepth (${maxDepth}); flatten the data or raise the maxDepth option for trusted input`,
  stackTooDeep: () =>
    'nesting is too deep for the JavaScript call stack; lower the maxDepth option',
  tooLarge: (detail: string) =>
    `document too large to decode (${detail}); split it into smaller documents, or read it with decodeStream`,
  trailing: (what: string) =>
    `unexpected content after ${what}; a document holds one root value, so remove this line or indent it under an item`,

  // Lines (§5.2, §8)
  noColon: () =>
    'this line has no ":"; in an object every line must be "key: value", "key:" or an array header such as "key[N]:"',
  textAfterQuotedKey: () =>
    'unexpected text after the quoted key; a quoted key must be followed by ":"',
  textAfterQuote: () =>
    'unexpected text after the closing quote; quote the whole value or remove the extra text',
  textAfterCell: (delimiter: number) =>
    `unexpected text after the closing quote; separate values with the ${delimiterName(delimiter)} delimiter`,
  duplicateKey: (key: string) =>
    `duplicate key ${quoted(key)}; each key may appear once per object`,
  duplicateEntry: (key: string) =>
    `duplicate entry key ${quoted(key)}; each key may appear once per object`,
  keylessField: () =>
    'an array header needs a key here; a keyless "[N]:" header is only valid as the document root or after a list item\'s "- "',
  keylessTableItem: () =>
    'a keyless header with a field list is only valid as the document root; give the array a key, as in "- rows[2]{a,b}:"',
  notListItem: () =>
    'expected a list item starting with "- " in this array; begin each item with "- ", or outdent this line if it does not belong to the array',
  entryWithoutColon: () =>
    'expected an entry row "key: value,value" in this keyed table; the line has no ":"',
  entryKeyWithoutColon: () => 'missing ":" after the entry key; an entry row is "key: value,value"',

  // Counts and widths (§14.1). `declared` is the length as written in the header.
  count: (declared: string, found: string, noun: string) =>
    `expected ${declared === '1' ? `1 ${noun}` : `${declared} ${noun}s`} as declared by [${declared}], found ${found}; fix the declared length or the ${noun}s`,
  width: (what: string, found: string, fields: readonly string[], delimiter: number) =>
    `${what} has ${found} but the header declares ${plural(fields.length, 'field')}${fields.length <= 8 ? ` (${fields.join(', ')})` : ''}; separate values with the ${delimiterName(delimiter)} delimiter and quote values that contain it`,
  values: (count: number) => plural(count, 'value'),
  moreValues: (count: number) => `more than ${plural(count, 'value')}`,

  // Headers (§6)
  emptyBrackets: () =>
    'array header "[]" has no length; write [N] with the element count, or "key: []" for an empty array',
  badLength: () =>
    'invalid array length; the brackets must start with a non-negative integer, as in [3] (if the brackets are part of the key, quote the key)',
  leadingZeros: (length: string) =>
    `invalid array length "${length}"; write it without leading zeros`,
  unclosedBracket: () => 'unclosed "[" in the array header; add "]"',
  badBracket: (found: string) =>
    `unexpected ${quoted(found)} in the array header's brackets; expected [N], [N|], [N<tab>] or a keyed [N:], [N:|], [N:<tab>]`,
  missingHeaderColon: () =>
    'missing ":" at the end of the array header; end it with ":", as in key[2]: a,b',
  textBeforeHeaderColon: (found: string, afterFields: boolean) =>
    `unexpected ${quoted(found)} after the array header's ${afterFields ? 'field list' : 'brackets'}; the header must end with ":"`,
  keyedWithoutFields: () => 'a keyed header [N:] needs a field list, as in key[2:]{a,b}:',
  textAfterTableHeader: () =>
    'a header with a field list takes its rows on the following lines; move this text to an indented row',
  unclosedBrace: () => 'unclosed "{" in the field list; add "}"',
  emptyFields: () => 'empty field list "{}"; list at least one field name',
  emptyFieldName: () =>
    'empty field name in the field list; remove the extra delimiter or quote an empty name as ""',
  duplicateField: (name: string) =>
    `duplicate field name ${quoted(name)} in the header; each field may appear once per group`,
  spaceBeforeBracket: () =>
    'whitespace between the key and "["; write key[N]: with no space, or quote the key if the brackets are part of it',
  spaceBeforeGroup: () =>
    'whitespace before a nested field group; write name{a,b} with no space before "{"',
  badFieldSeparator: (found: string, delimiter: number) =>
    `unexpected ${quoted(found)} in the field list; separate field names with the ${delimiterName(delimiter)} delimiter`,
  delimiterMismatch: (found: number, declared: number) =>
    `the field list uses the ${delimiterName(found)} delimiter but the brackets declare ${delimiterName(declared)}; use the same delimiter in both`,

  // Text (§4, §7.1)
  loneSurrogate: (code: string) =>
    `unpaired surrogate U+${code}; TOON is Unicode text and cannot carry half a surrogate pair: repair the text (for example with toWellFormed()), or decode with strict: false to keep it`,

  // Byte input (§4)
  illFormedUtf8: (offset: number, byte: string | undefined) =>
    `ill-formed UTF-8 at byte offset ${offset} (${byte === undefined ? 'a truncated sequence at the end of input' : `byte 0x${byte}`}); TOON is UTF-8 text: re-encode the input as UTF-8, or decode with strict: false to replace bad bytes with U+FFFD`,

  // Stream input
  notLines: (caller: string, what: string) =>
    `${caller} expects an iterable of strings (lines) or Uint8Array chunks (UTF-8 bytes), got ${what}`,
  bytesAsSource: (caller: string) =>
    `${caller} expects an iterable of lines or byte chunks, got a Uint8Array, whose items are single bytes; pass [bytes] (one chunk), or use decode(bytes)`,
} as const;
