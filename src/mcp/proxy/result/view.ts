// The one data type of the result pipeline: a tools/call result as the proxy reads it once, and
// what each later stage decided about it. Stages take a view and return a new one; nothing
// re-reads or re-parses a text.

import { isPlainObject } from '../../../codec/objects.js';
import type { JsonValue } from '../../../codec/types.js';
import type { ToolFacts } from '../config/tool-rules.js';
import type { Page } from '../paging/pages.js';
import type { Encoding, VerbatimReason } from '../telemetry/outcome.js';

/**
 * Where a result's structured data came from:
 * - `'text'`: one text content holding a JSON object or array (the serialization of
 *   `structuredContent` among them, whatever its white space);
 * - `'blocks'`: several text contents, each one item of one list (a FastMCP `list[Model]`
 *   result), merged into that list.
 */
export type DataSource = 'text' | 'blocks';

/** The structured data of a result: one value, standing for a run of its text contents. */
export interface DataPart {
  /** The data the texts hold (after projection, the projected data). */
  value: JsonValue;
  /** The data as the upstream sent it (before projection). */
  original: JsonValue;
  from: DataSource;
  /** The index in `content` of the first text it stands for. */
  first: number;
  /** How many texts it stands for, from `first` on (1 unless `from` is `'blocks'`). */
  count: number;
  /** The texts it stands for, as sent. */
  texts: readonly string[];
  /** Their UTF-8 bytes, counted once by `read`. */
  bytes: number;
  /** Projected to fields the model asked for: it ships as rewritten even where JSON wins. */
  projected: boolean;
}

/** The text the data ships as. */
export interface DataText {
  text: string;
  encoding: Encoding;
  /** The text's size in the picker's unit, when the picker measured it. */
  size?: number;
}

/** What `choose` decided for one result: what to project, the budget, how to encode. */
export interface Plan {
  /** The projection (comma-separated fields), if any. */
  fields: string | undefined;
  /** The token budget of the result's texts, if any. */
  budget: number | undefined;
  /** The picker with the tool's settings: the text a value ships as, sized by `measure`. */
  encode(value: JsonValue): DataText & { size: number };
  /** Measures a text as the picker compares: UTF-8 bytes, or tokens of the proxy's tokenizer. */
  measure(text: string): number;
  /** Exact tokens of a text; there whenever a budget is. */
  countTokens: ((text: string) => number) | undefined;
}

/**
 * One tools/call result on its way through the pipeline: read once into data and verbatim
 * contents, then planned, projected, paged, picked and shipped. Stages fill in the later fields;
 * none changes `result`.
 */
export interface PayloadView {
  /** The result as the upstream sent it. */
  readonly result: unknown;
  /** The tool, when the proxy knows it. */
  readonly tool: ToolFacts | undefined;
  /**
   * UTF-8 bytes of every text of the result as sent, counted once by `read`; `undefined` when it
   * did not count them (a result too large to read, or one it was told to leave alone).
   */
  readonly bytesIn: number | undefined;
  /** The result's structured data; `undefined` when every text ships verbatim. */
  readonly data: DataPart | undefined;
  /** Why every text ships verbatim, when `data` is `undefined`. */
  readonly verbatim: VerbatimReason | undefined;
  /** What `choose` decided; `undefined` for verbatim results. */
  readonly plan: Plan | undefined;
  /** Texts for the model shipped after the data (a projection's note, a page's note). */
  readonly notes: readonly string[];
  /** The data's text, once paged or picked. */
  readonly text: DataText | undefined;
  /** The first page, when the data was cut into pages. */
  readonly page: Page | undefined;
  /** Exact tokens of every text shipped, when a stage counted them all. */
  readonly tokens: number | undefined;
}

/** The notes of a view that has none: shared, since stages add notes by copying, never in place. */
const NO_NOTES: readonly string[] = Object.freeze([]);

/**
 * A view of `result` whose texts all ship verbatim, for `reason`.
 *
 * @example
 * verbatimView({ isError: true, content: [] }, undefined, 'error').verbatim; // 'error'
 */
export function verbatimView(
  result: unknown,
  tool: ToolFacts | undefined,
  reason: VerbatimReason,
  bytesIn?: number,
): PayloadView {
  return newView(result, tool, bytesIn, undefined, reason);
}

/**
 * A view of `result` whose structured data is `data`.
 *
 * @example
 * dataView(result, undefined, { value: [1], original: [1], from: 'text', first: 0, count: 1, texts: ['[1]'], bytes: 3 }, 3);
 */
export function dataView(
  result: unknown,
  tool: ToolFacts | undefined,
  data: DataPart,
  bytesIn: number,
): PayloadView {
  return newView(result, tool, bytesIn, data, undefined);
}

/**
 * A view as `read` makes it, nothing planned or picked yet: one literal for both kinds, so every
 * view has one shape (a spread of a verbatim view was a step of its own on every call).
 */
function newView(
  result: unknown,
  tool: ToolFacts | undefined,
  bytesIn: number | undefined,
  data: DataPart | undefined,
  verbatim: VerbatimReason | undefined,
): PayloadView {
  return {
    result,
    tool,
    bytesIn,
    data,
    verbatim,
    plan: undefined,
    notes: NO_NOTES,
    text: undefined,
    page: undefined,
    tokens: undefined,
  };
}

/**
 * `view` with its data dropped: every text of the result ships verbatim, for `reason`. Notes
 * already added (a warning that the result is over budget) still ship.
 */
export function asVerbatim(view: PayloadView, reason: VerbatimReason): PayloadView {
  return {
    ...verbatimView(view.result, view.tool, reason, view.bytesIn),
    notes: view.notes,
    tokens: view.tokens,
  };
}

/**
 * The text of a content block, or `undefined` when it is not a text content.
 *
 * @example
 * textOf({ type: 'text', text: 'hi' }); // 'hi'
 * textOf({ type: 'image', data: '...', mimeType: 'image/png' }); // undefined
 */
export function textOf(block: unknown): string | undefined {
  return isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
    ? block.text
    : undefined;
}

/** The result's `content`, or none. */
export function contentOf(result: unknown): readonly unknown[] {
  return isPlainObject(result) && Array.isArray(result.content) ? result.content : [];
}

/**
 * The texts that ship beside the data's: the result's texts outside the data's run, then the
 * notes. With `withData`, the data's own text too (its picked text, or else its texts as sent),
 * in its place: every text the model reads, in order.
 *
 * @example
 * shippedTexts(view, true); // ['rows[2]{id}:\n  1\n  2', 'toonwire proxy: rows 1-2 of 9 ...']
 */
export function shippedTexts(view: PayloadView, withData: boolean): string[] {
  const { data } = view;
  const texts: string[] = [];
  contentOf(view.result).forEach((block, index) => {
    if (data !== undefined && index >= data.first && index < data.first + data.count) {
      if (withData && index === data.first)
        texts.push(...(view.text === undefined ? data.texts : [view.text.text]));
      return;
    }
    const text = textOf(block);
    if (text !== undefined) texts.push(text);
  });
  texts.push(...view.notes);
  return texts;
}

/**
 * The total size of `items` under `measure`.
 *
 * @example
 * sizeOf(['ab', 'c'], (text) => text.length); // 3
 */
export function sizeOf<T>(items: readonly T[], measure: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += measure(item);
  return total;
}
