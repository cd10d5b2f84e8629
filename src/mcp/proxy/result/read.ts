// Stage 1, read: a tools/call result into a payload view, exactly once. Every text is parsed at
// most once here; later stages work on the view.
//
// A result holds structured data when
//   (a) one text content holds a JSON object or array,
//   (b) several text contents, one after the other, each hold one item of one list (the Python
//       SDK's FastMCP returns a tool's `list[Model]` as one text per item, with
//       `structuredContent: { result: [...] }` when the tool has an output schema), or
//   (c) a text is the serialization of `structuredContent`, whatever its white space;
// every other text ships verbatim: prose, Markdown, file and document contents, a text that
// `structuredContent` shows to be a string value, JSON interleaved with other content.

import { jsonEqual } from '../../../codec/json-equal.js';
import { isPlainObject } from '../../../codec/objects.js';
import type { JsonValue } from '../../../codec/types.js';
import { byteLength } from '../../../compact/index.js';
import type { ToolFacts } from '../config/tool-rules.js';
import type { VerbatimReason } from '../telemetry/outcome.js';
import { losesPrecision } from './json-numbers.js';
import { type DataPart, dataView, type PayloadView, textOf, verbatimView } from './view.js';

/**
 * What reading a text as a JSON object or array gave: its value, or why there is none
 * (`'not-container'`: it does not start with `{` or `[`; `'invalid'`: not JSON;
 * `'unsafe-numbers'`: a number would lose digits in a double).
 */
export type JsonRead =
  | { value: JsonValue; failed?: undefined }
  | { value?: undefined; failed: 'not-container' | 'invalid' | 'unsafe-numbers' };

/**
 * The JSON object or array `text` holds, or why it holds none. JSON whose numbers a double cannot
 * carry exactly (64-bit IDs) is refused: re-encoding it would change the data.
 *
 * @example
 * readJsonContainer('[1, 2]'); // { value: [1, 2] }
 * readJsonContainer('"text"'); // { failed: 'not-container' }
 * readJsonContainer('{"id": 12345678901234567891}'); // { failed: 'unsafe-numbers' }
 */
export function readJsonContainer(text: string): JsonRead {
  const first = firstNonSpace(text);
  if (first !== '{' && first !== '[') return { failed: 'not-container' };
  return readJson(text);
}

/**
 * Reads `result` into a {@link PayloadView}. `leaveAlone` is why the tool's results are not to be
 * looked at (its settings, `--exclude-tools`, the content policy), decided from the tool alone; a
 * result with more than `maxBytes` of text is not read either (`'too-large'`). `named`: the user
 * named the tool in `--include-tools` or `--tools`, so a JSON text is data even where the result
 * shows it to be a string value.
 *
 * @example
 * read({ content: [{ type: 'text', text: '[{"id":1},{"id":2}]' }] }, undefined, undefined).data?.value;
 * // [{ id: 1 }, { id: 2 }]
 * read({ content: [{ type: 'text', text: '{"id":1}' }, { type: 'text', text: '{"id":2}' }] }, undefined, undefined).data?.from;
 * // 'blocks'
 */
export function read(
  result: unknown,
  tool: ToolFacts | undefined,
  leaveAlone: VerbatimReason | undefined,
  maxBytes = Number.POSITIVE_INFINITY,
  named = false,
): PayloadView {
  const found = dataOf(result, tool, leaveAlone, maxBytes, named);
  return typeof found === 'string'
    ? verbatimView(result, tool, found)
    : dataView(result, tool, found);
}

/** The result's data, or why it has none. */
function dataOf(
  result: unknown,
  tool: ToolFacts | undefined,
  leaveAlone: VerbatimReason | undefined,
  maxBytes: number,
  named: boolean,
): DataPart | VerbatimReason {
  if (!isPlainObject(result)) return 'no-content';
  if (result.isError === true) return 'error';
  if (leaveAlone !== undefined) return leaveAlone;
  if (!Array.isArray(result.content)) return 'no-content';
  const content = result.content as unknown[];
  const texts: Text[] = [];
  content.forEach((block, index) => {
    const text = textOf(block);
    if (text !== undefined) texts.push({ index, text });
  });
  if (texts.length === 0) return 'no-text';
  if (textBytesOver(texts, maxBytes)) return 'too-large';
  return (
    (named ? undefined : stringEvidence(result, tool, texts)) ??
    itemsOfStructuredList(result, content, texts) ??
    jsonTexts(result, content, texts)
  );
}

/** Whether the texts hold more than `limit` UTF-8 bytes (counted only as far as needed). */
function textBytesOver(texts: readonly Text[], limit: number): boolean {
  let bytes = 0;
  for (const { text } of texts) {
    // A UTF-16 code unit takes at least one UTF-8 byte: a long text needs no count.
    bytes += text.length > limit ? text.length : byteLength(text);
    if (bytes > limit) return true;
  }
  return false;
}

/** A text content and where it stands in `content`. */
interface Text {
  index: number;
  text: string;
}

/**
 * `'string'` when `structuredContent` or the tool's output schema shows the text is a string
 * value (a Python tool returning a file's text gets `structuredContent: { result: "<the text>" }`):
 * such text is what it is, even when it parses as JSON.
 */
function stringEvidence(
  result: Record<string, unknown>,
  tool: ToolFacts | undefined,
  texts: readonly Text[],
): 'string' | undefined {
  if (declaresStringResult(tool?.outputSchema)) return 'string';
  const wrapped = wrappedResult(result.structuredContent);
  if (typeof wrapped === 'string')
    return texts.some(({ text }) => text === wrapped) ? 'string' : undefined;
  if (
    Array.isArray(wrapped) &&
    wrapped.length === texts.length &&
    wrapped.every((item, i) => typeof item === 'string' && item === texts[i]!.text)
  )
    return 'string';
  return undefined;
}

/**
 * The list a FastMCP-style result's texts are the items of, when `structuredContent.result` is
 * that list and the texts, each plain and one after the other, are its items in order; else
 * `undefined`. (Items may be any JSON value here, since the list says what each is.)
 */
function itemsOfStructuredList(
  result: Record<string, unknown>,
  content: readonly unknown[],
  texts: readonly Text[],
): DataPart | VerbatimReason | undefined {
  const wrapped = wrappedResult(result.structuredContent);
  if (!Array.isArray(wrapped) || wrapped.length !== texts.length) return undefined;
  if (!isPlainRun(content, texts)) return undefined;
  const items: JsonValue[] = [];
  for (let i = 0; i < texts.length; i++) {
    const read = readJson(texts[i]!.text);
    if (read.failed === 'unsafe-numbers') return 'unsafe-numbers';
    if (read.failed !== undefined || !jsonEqual(read.value, wrapped[i] as JsonValue))
      return undefined;
    items.push(read.value);
  }
  return blocksPart(items, texts);
}

/** The data of texts holding JSON objects or arrays: one, a run of several, or none. */
function jsonTexts(
  result: Record<string, unknown>,
  content: readonly unknown[],
  texts: readonly Text[],
): DataPart | VerbatimReason {
  const json: { index: number; text: string; value: JsonValue }[] = [];
  let unsafe = false;
  for (const { index, text } of texts) {
    const read = readJsonContainer(text);
    if (read.failed === 'unsafe-numbers') unsafe = true;
    else if (read.failed === undefined) json.push({ index, text, value: read.value });
  }
  // A number the data would change in: the whole result goes as it came.
  if (unsafe) return 'unsafe-numbers';
  if (json.length === 0) return 'not-json';
  if (json.length === 1) {
    const [{ index, text, value }] = json as [(typeof json)[number]];
    const structured = result.structuredContent;
    const from =
      structured !== undefined &&
      (jsonEqual(value, structured as JsonValue) ||
        jsonEqual(value, wrappedResult(structured) as JsonValue))
        ? 'structured'
        : 'text';
    return {
      value,
      original: value,
      from,
      first: index,
      count: 1,
      texts: [text],
      projected: false,
    };
  }
  if (!isPlainRun(content, json)) return 'mixed';
  return blocksPart(
    json.map(({ value }) => value),
    json,
  );
}

function blocksPart(items: JsonValue[], texts: readonly Text[]): DataPart {
  return {
    value: items,
    original: items,
    from: 'blocks',
    first: texts[0]!.index,
    count: texts.length,
    texts: texts.map(({ text }) => text),
    projected: false,
  };
}

/**
 * Whether the texts stand one after the other in `content` and are plain `{ type, text }`
 * blocks, so that one text can stand for all of them without losing an annotation.
 */
function isPlainRun(content: readonly unknown[], texts: readonly { index: number }[]): boolean {
  return texts.every(({ index }, i) => {
    if (i > 0 && index !== texts[i - 1]!.index + 1) return false;
    const block = content[index] as Record<string, unknown>;
    return Object.keys(block).every((key) => key === 'type' || key === 'text');
  });
}

/** `structuredContent.result` when `structuredContent` is `{ result }` alone (FastMCP's wrapping). */
function wrappedResult(structured: unknown): unknown {
  if (!isPlainObject(structured)) return undefined;
  const keys = Object.keys(structured);
  return keys.length === 1 && keys[0] === 'result' ? structured.result : undefined;
}

/** Whether an output schema says the result is `{ result: string }`. */
function declaresStringResult(schema: unknown): boolean {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return false;
  const keys = Object.keys(schema.properties);
  const result = schema.properties.result;
  return keys.length === 1 && isPlainObject(result) && result.type === 'string';
}

function readJson(text: string): JsonRead {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return { failed: 'invalid' };
  }
  return losesPrecision(text) ? { failed: 'unsafe-numbers' } : { value };
}

function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') return char;
  }
  return undefined;
}
