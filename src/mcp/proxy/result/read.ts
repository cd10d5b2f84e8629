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
import { firstLossyNumber } from '../../../compact/json-numbers.js';
import type { ToolFacts } from '../config/tool-rules.js';
import type { VerbatimReason } from '../telemetry/outcome.js';
import { type DataPart, dataView, type PayloadView, sizeOf, textOf, verbatimView } from './view.js';

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
  if (typeof found === 'string') return verbatimView(result, tool, found);
  if (!('data' in found)) return verbatimView(result, tool, found.verbatim, found.bytes);
  return dataView(result, tool, found.data, found.bytes);
}

/** What a result's texts were found to be, once counted. */
type Found = { data: DataPart; bytes: number } | { verbatim: VerbatimReason; bytes: number };

/** The result's data, or why it has none. */
function dataOf(
  result: unknown,
  tool: ToolFacts | undefined,
  leaveAlone: VerbatimReason | undefined,
  maxBytes: number,
  named: boolean,
): Found | VerbatimReason {
  if (!isPlainObject(result)) return 'no-content';
  if (result.isError === true) return 'error';
  if (leaveAlone !== undefined) return leaveAlone;
  if (!Array.isArray(result.content)) return 'no-content';
  const content = result.content as unknown[];
  const texts = textsOf(content, maxBytes);
  if (texts === undefined) return 'too-large';
  const bytes = sizeOf(texts, textBytes);
  if (texts.length === 0) return { verbatim: 'no-text', bytes };
  const json = new JsonReads(texts);
  // FastMCP's `{ result }` wrapping, looked up once for both readings that ask for it.
  const wrapped = wrappedResult(result.structuredContent);
  const found =
    (named ? undefined : stringEvidence(tool, wrapped, texts)) ??
    itemsOfStructuredList(wrapped, content, texts, json) ??
    jsonTexts(content, texts, json);
  return typeof found === 'string' ? { verbatim: found, bytes } : { data: found, bytes };
}

/**
 * The text contents of `content`, each with its UTF-8 bytes; `undefined` once they hold more
 * than `limit` bytes together (counted only as far as needed).
 */
function textsOf(content: readonly unknown[], limit: number): Text[] | undefined {
  const texts: Text[] = [];
  let total = 0;
  for (let index = 0; index < content.length; index++) {
    const text = textOf(content[index]);
    if (text === undefined) continue;
    // A UTF-16 code unit takes at least one UTF-8 byte: a long text needs no count.
    if (text.length > limit) return undefined;
    const bytes = byteLength(text);
    total += bytes;
    if (total > limit) return undefined;
    texts.push({ index, text, bytes });
  }
  return texts;
}

/** A text content, where it stands in `content`, and its UTF-8 bytes. */
interface Text {
  index: number;
  text: string;
  bytes: number;
}

function textBytes(text: Text): number {
  return text.bytes;
}

/**
 * Each text read as JSON at most once, whichever reading asks first (a FastMCP list's items,
 * then a run of JSON texts, may both look at the same texts).
 */
class JsonReads {
  private readonly reads: (JsonRead | undefined)[];

  constructor(private readonly texts: readonly Text[]) {
    this.reads = new Array(texts.length);
  }

  /** Text `i` as any JSON value. */
  any(i: number): JsonRead {
    this.reads[i] ??= readJson(this.texts[i]!.text);
    return this.reads[i];
  }

  /** Text `i` as a JSON object or array (anything else is `'not-container'`, unparsed). */
  container(i: number): JsonRead {
    const first = firstNonSpace(this.texts[i]!.text);
    if (first !== '{' && first !== '[') return { failed: 'not-container' };
    return this.any(i);
  }
}

/**
 * `'string'` when `structuredContent` or the tool's output schema shows the text is a string
 * value (a Python tool returning a file's text gets `structuredContent: { result: "<the text>" }`):
 * such text is what it is, even when it parses as JSON.
 */
function stringEvidence(
  tool: ToolFacts | undefined,
  wrapped: unknown,
  texts: readonly Text[],
): 'string' | undefined {
  if (declaresStringResult(tool?.outputSchema)) return 'string';
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
  wrapped: unknown,
  content: readonly unknown[],
  texts: readonly Text[],
  json: JsonReads,
): DataPart | VerbatimReason | undefined {
  if (!Array.isArray(wrapped) || wrapped.length !== texts.length) return undefined;
  if (!isPlainRun(content, texts)) return undefined;
  const items: JsonValue[] = [];
  for (let i = 0; i < texts.length; i++) {
    const read = json.any(i);
    if (read.failed === 'unsafe-numbers') return 'unsafe-numbers';
    if (read.failed !== undefined || !jsonEqual(read.value, wrapped[i] as JsonValue))
      return undefined;
    items.push(read.value);
  }
  return blocksPart(items, texts);
}

/** The data of texts holding JSON objects or arrays: one, a run of several, or none. */
function jsonTexts(
  content: readonly unknown[],
  texts: readonly Text[],
  reads: JsonReads,
): DataPart | VerbatimReason {
  // The texts holding JSON, and their values, index for index.
  const json: Text[] = [];
  const values: JsonValue[] = [];
  for (let i = 0; i < texts.length; i++) {
    const read = reads.container(i);
    // A number the data would change in: the whole result goes as it came.
    if (read.failed === 'unsafe-numbers') return 'unsafe-numbers';
    if (read.failed !== undefined) continue;
    json.push(texts[i]!);
    values.push(read.value);
  }
  if (json.length === 0) return 'not-json';
  if (json.length === 1) {
    const [{ index, text, bytes }] = json as [Text];
    const value = values[0]!;
    return {
      value,
      original: value,
      from: 'text',
      first: index,
      count: 1,
      texts: [text],
      bytes,
      projected: false,
    };
  }
  if (!isPlainRun(content, json)) return 'mixed';
  return blocksPart(values, json);
}

function blocksPart(items: JsonValue[], texts: readonly Text[]): DataPart {
  return {
    value: items,
    original: items,
    from: 'blocks',
    first: texts[0]!.index,
    count: texts.length,
    texts: texts.map(({ text }) => text),
    bytes: sizeOf(texts, textBytes),
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
  return firstLossyNumber(text) === undefined ? { value } : { failed: 'unsafe-numbers' };
}

function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') return char;
  }
  return undefined;
}
