// Parses JSON and JSON Lines input with errors that point at the problem as `file:line:column`.
// JSON.parse does the parsing; only when it fails does a small scanner walk the text to find
// where, because Node 20's JSON.parse messages do not always carry a position.
import type { JsonValue } from '../codec/types.js';
import { bomlessUtf16, bomlessUtf16Error } from './binary-input.js';
import { CliError, EXIT_DATA } from './errors.js';

/** Which syntax an input is in. */
export type InputFormat = 'json' | 'jsonl';

/** `jsonl` for `.jsonl` and `.ndjson` files, `json` for everything else. */
export function formatOfPath(path: string): InputFormat {
  return /\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'json';
}

/**
 * Parses one JSON document. A leading byte order mark is ignored.
 *
 * @throws {CliError} `source:line:column: message` with exit code 1 for malformed JSON.
 * @example
 * parseJson('{"a": 1}', 'data.json'); // { a: 1 }
 * parseJson('{"a": }', 'data.json'); // throws "data.json:1:7: unexpected '}'; expected a value"
 */
export function parseJson(text: string, source: string): JsonValue {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body) as JsonValue;
  } catch (error) {
    throw (
      utf16Error(body, source) ?? new CliError(jsonErrorMessage(body, source, 0, error), EXIT_DATA)
    );
  }
}

/**
 * The error for text that is UTF-16 without a byte order mark read as UTF-8: ASCII-only UTF-16
 * is well-formed UTF-8 with a NUL after (or before) each character, which JSON.parse refuses at
 * the first NUL; undefined for other text.
 */
function utf16Error(text: string, source: string): CliError | undefined {
  if (text.indexOf('\0') < 0) return undefined;
  const encoding = bomlessUtf16(Buffer.from(text.slice(0, 512), 'latin1'));
  return encoding === undefined ? undefined : bomlessUtf16Error(source, encoding);
}

/**
 * Parses JSON Lines: one JSON value per line, blank lines skipped. The result is the array of
 * the lines' values, which is how a dataset exported as JSONL reads as one payload.
 *
 * @throws {CliError} `source:line:column: message` naming the offending line.
 * @example
 * parseJsonLines('{"id":1}\n{"id":2}\n', 'items.jsonl'); // [{ id: 1 }, { id: 2 }]
 */
export function parseJsonLines(text: string, source: string): JsonValue[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const values: JsonValue[] = [];
  const lines = body.split('\n');
  try {
    for (let index = 0; index < lines.length; index++) {
      const value = parseJsonLine(lines[index]!, source, index + 1);
      if (value !== undefined) values.push(value);
    }
  } catch (error) {
    throw utf16Error(body, source) ?? error;
  }
  return values;
}

/**
 * Parses line `lineNumber` (1-based) of a JSON Lines input: `undefined` for a blank line.
 *
 * @throws {CliError} `source:line:column: message` for a malformed line.
 * @example
 * parseJsonLine('{"id":1}\r', 'items.jsonl', 3); // { id: 1 }
 */
export function parseJsonLine(
  text: string,
  source: string,
  lineNumber: number,
): JsonValue | undefined {
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line) as JsonValue;
  } catch (error) {
    throw new CliError(jsonErrorMessage(line, source, lineNumber - 1, error), EXIT_DATA);
  }
}

/** Parses `text` as the given format. */
export function parseInput(text: string, source: string, format: InputFormat): JsonValue {
  return format === 'jsonl' ? parseJsonLines(text, source) : parseJson(text, source);
}

function jsonErrorMessage(
  text: string,
  source: string,
  lineOffset: number,
  error: unknown,
): string {
  const problem = locateJsonError(text);
  if (problem === undefined) {
    // The scanner accepted what JSON.parse rejected: report the engine's own words.
    return `${source}:${lineOffset + 1}:1: ${error instanceof Error ? error.message : String(error)}`;
  }
  const { line, column } = lineAndColumn(text, problem.offset);
  return `${source}:${line + lineOffset}:${column}: ${problem.message}`;
}

/** 1-based line and column (in UTF-16 code units) of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

type Expectation =
  | 'value'
  | 'value-or-close'
  | 'key'
  | 'key-or-close'
  | 'colon'
  | 'comma-or-close'
  | 'end';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Finds the first syntax error of a JSON text: its offset and what was expected there, or
 * `undefined` for valid JSON. Iterative, so deeply nested input cannot overflow the stack.
 *
 * @example
 * locateJsonError('[1, 2,]'); // { offset: 6, message: "unexpected ']'; expected a value" }
 */
export function locateJsonError(text: string): { offset: number; message: string } | undefined {
  const containers: Array<'object' | 'array'> = [];
  let expect: Expectation = 'value';
  let i = 0;
  const afterValue = (): Expectation => (containers.length > 0 ? 'comma-or-close' : 'end');
  const fail = (offset: number, message: string) => ({ offset, message });

  for (;;) {
    while (
      i < text.length &&
      (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')
    )
      i++;
    if (i >= text.length) {
      if (expect === 'end') return undefined;
      // Nothing at all, most often a command before this one in a pipe that failed.
      if (expect === 'value' && containers.length === 0)
        return fail(text.length, 'the input is empty; expected a JSON value');
      return fail(text.length, 'unexpected end of input; the JSON is incomplete');
    }
    const ch = text[i]!;
    switch (expect) {
      case 'value':
      case 'value-or-close': {
        if (expect === 'value-or-close' && ch === ']') {
          containers.pop();
          i++;
          expect = afterValue();
          break;
        }
        if (ch === '{' || ch === '[') {
          containers.push(ch === '{' ? 'object' : 'array');
          i++;
          expect = ch === '{' ? 'key-or-close' : 'value-or-close';
          break;
        }
        const end = scanScalar(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = afterValue();
        break;
      }
      case 'key':
      case 'key-or-close': {
        if (expect === 'key-or-close' && ch === '}') {
          containers.pop();
          i++;
          expect = afterValue();
          break;
        }
        if (ch !== '"')
          return fail(
            i,
            `unexpected ${describeCharacter(ch)}; expected a property name in double quotes`,
          );
        const end = scanString(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (ch !== ':')
          return fail(
            i,
            `unexpected ${describeCharacter(ch)}; expected ':' after the property name`,
          );
        i++;
        expect = 'value';
        break;
      case 'comma-or-close': {
        const inObject = containers[containers.length - 1] === 'object';
        const close = inObject ? '}' : ']';
        if (ch === ',') {
          i++;
          expect = inObject ? 'key' : 'value';
        } else if (ch === close) {
          containers.pop();
          i++;
          expect = afterValue();
        } else {
          return fail(i, `unexpected ${describeCharacter(ch)}; expected ',' or '${close}'`);
        }
        break;
      }
      case 'end':
        return fail(
          i,
          `unexpected ${describeCharacter(ch)} after the end of the JSON value${
            startsLaterLine(text, i)
              ? '; if each line holds a JSON value of its own (JSON Lines), pass --jsonl'
              : ''
          }`,
        );
    }
  }
}

/** Whether only white space with a line break in it stands between `at` and the text before. */
function startsLaterLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const ch = text[i];
    if (ch === '\n') return true;
    if (ch !== ' ' && ch !== '\t' && ch !== '\r') return false;
  }
  return false;
}

function scanScalar(text: string, start: number): number | { offset: number; message: string } {
  const ch = text[start]!;
  if (ch === '"') return scanString(text, start);
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, start)) return start + literal.length;
  }
  if (ch === '-' || (ch >= '0' && ch <= '9')) {
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(text);
    if (match !== null) return start + match[0].length;
    return { offset: start, message: 'malformed number' };
  }
  return { offset: start, message: `unexpected ${describeCharacter(ch)}; expected a value` };
}

function scanString(text: string, start: number): number | { offset: number; message: string } {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20)
      return {
        offset: i,
        message: 'unescaped control character in a string; write it as an escape such as \\n',
      };
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          return { offset: i, message: 'bad \\u escape; it needs exactly four hex digits' };
        }
        i += 5;
      } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
        i += 1;
      } else {
        return { offset: i, message: `bad escape \\${next ?? ''} in a string` };
      }
    }
  }
  return { offset: start, message: 'unterminated string; a closing double quote is missing' };
}

/**
 * A character as an error message shows it: quoted, or by its code point when it would not show
 * (a NUL byte, a control character, a byte order mark in the middle).
 *
 * @example
 * describeCharacter('}'); // "'}'"
 * describeCharacter('\0'); // 'NUL byte (U+0000)'
 */
export function describeCharacter(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code === 0) return 'NUL byte (U+0000)';
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xfeff)
    return `invisible character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return ch === "'" ? `"'"` : `'${ch}'`;
}
