// What the proxy does to a tools/call result: each text content holding a JSON object or array
// becomes the picker's text when that is smaller; everything else passes through untouched.

import { isPlainObject } from '../../codec/objects.js';
import { byteLength, loadTokenizer, type PickOptions } from '../../compact/index.js';
import { checkMetaKey, DEFAULT_META_KEY } from '../compact-result.js';
import { checkModelTextOptions, type FormatHint, modelText } from '../model-text.js';
import { contentToolReason, type ToolDescription } from './content-policy.js';
import { losesPrecision } from './json-numbers.js';

/** What the proxy does with `structuredContent` (`--structured-content`). */
export type StructuredContentMode = 'keep' | 'add' | 'strip';

/** The modes of {@link StructuredContentMode}, for option parsers. */
export const STRUCTURED_CONTENT_MODES: readonly StructuredContentMode[] = ['keep', 'add', 'strip'];

/** How the proxy compacts tool results. */
export interface ToolResultCompactionOptions {
  /**
   * Size measure the picker compares by (default `'auto'`: UTF-8 bytes, and TOON only where it
   * also costs no more tokens than JSON; see `pick`).
   */
  by?: 'auto' | 'bytes' | 'tokens';
  /** Tokenizer for `by: 'tokens'` (default `'o200k_base'`). */
  tokenizer?: PickOptions['tokenizer'];
  /** Candidates the picker tries (default `['json', 'toon', 'toon-flatten']`). */
  candidates?: PickOptions['candidates'];
  /**
   * Only these tools' results are compacted (default: every tool's). Naming a tool here also
   * overrides the content policy for it: the user has said its results are data.
   */
  tools?: readonly string[];
  /** These tools' results are never rewritten (wins over `tools` and `includeTools`). */
  excludeTools?: readonly string[];
  /** These tools' results are compacted even when the content policy would pass them through. */
  includeTools?: readonly string[];
  /**
   * Leave alone the results of tools that return file, resource or document contents (default
   * `true`; see {@link contentToolReason} for how they are recognised).
   */
  contentPolicy?: boolean;
  /** `_meta` key naming the strategy (default `'toonwire/encodingStrategy'`). */
  metaKey?: string;
  /** Label compacted text with its format (see {@link FormatHint}). */
  hint?: FormatHint;
  /**
   * What happens to `structuredContent` (default `'keep'`):
   * - `'keep'`: results keep exactly the `structuredContent` the upstream sent, and none is added;
   * - `'add'`: a compacted result without `structuredContent`, of a tool that declares no
   *   `outputSchema`, gets the parsed JSON as `structuredContent` (a JSON view for programs);
   * - `'strip'`: `structuredContent` is removed from every result and `outputSchema` from every
   *   tool in tools/list, for clients that show the model `structuredContent` instead of the text.
   */
  structuredContent?: StructuredContentMode;
}

/** What the proxy knows of a tool's declared `outputSchema`, from the tools/list it forwarded. */
export type OutputSchemaKnowledge = 'declared' | 'none' | 'unknown';

/**
 * Why a result's text was forwarded as it came without being looked at: `'excluded'` (by
 * `excludeTools` or not in `tools`), `'content'` (the content policy: file or document
 * contents), `'error'` (an `isError` result), `'no-content'` (no `content` array, e.g. a task).
 */
export type PassThroughReason = 'excluded' | 'content' | 'error' | 'no-content';

/**
 * Why the compactor looked at a result's text and rewrote none of it: `'no-text'` (no text
 * content), `'not-json'` (no text that looks like a JSON object or array), `'unsafe-numbers'`
 * (JSON with a number a double cannot carry exactly), `'not-smaller'` (the picked text was not
 * smaller than the original, or the JSON-looking text was not JSON).
 */
export type KeptReason = 'no-text' | 'not-json' | 'unsafe-numbers' | 'not-smaller';

/**
 * What reading a text content as JSON gave: its object or array, or why there is none
 * (`'not-container'`: it does not start with `{` or `[`; `'invalid'`: not JSON;
 * `'unsafe-numbers'`: a number would lose digits). See {@link readJsonContainer}.
 */
export type JsonRead =
  | { value: unknown; failed?: undefined }
  | { value?: undefined; failed: 'not-container' | 'invalid' | 'unsafe-numbers' };

/**
 * Text contents the caller has read already (with {@link readJsonContainer}), for
 * {@link ToolResultCompactor.compact} to use instead of reading them again.
 */
export interface ReadTexts {
  /** What each text content held, by its index in `content`; one entry per text content. */
  reads: ReadonlyMap<number, JsonRead>;
  /**
   * The values are not the texts' own but replace them (a projection): each ships as the
   * picker's text of its value, JSON included, and its `before` size is unknown.
   */
  replace: boolean;
}

/** One text content of a tool result, before and after (the same text when it was kept). */
export interface TextBlockOutcome {
  before: string;
  after: string;
  /** The strategy of the text now shipped; undefined when the text was not JSON or was kept. */
  strategy: string | undefined;
  /** `before`'s size in the compactor's unit, when it was measured. */
  beforeSize?: number;
  /** `after`'s size in the compactor's unit, when it was measured. */
  afterSize?: number;
}

/** What {@link ToolResultCompactor.compact} did to one result. */
export interface CompactionOutcome {
  /** The result to forward: the same object when nothing changed. */
  result: unknown;
  changed: boolean;
  /** Every text content of the result, in order. */
  blocks: TextBlockOutcome[];
  /** The unit of the blocks' sizes (the compactor's), when any has one. */
  unit?: 'bytes' | 'tokens';
  /** Set when the result's text was passed through without being looked at, and why. */
  passedThrough?: PassThroughReason;
  /** Set when the result's text was looked at and none of it rewritten, and why. */
  kept?: KeptReason;
}

/**
 * The text of a content block, or `undefined` when it is not a text content.
 *
 * @example
 * textOf({ type: 'text', text: 'hi' }); // 'hi'
 * textOf({ type: 'image', data: '...' }); // undefined
 */
export function textOf(block: unknown): string | undefined {
  return isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
    ? block.text
    : undefined;
}

/**
 * Compacts tool results with fixed options. Build it with {@link createToolResultCompactor},
 * which loads a tokenizer when asked to count tokens and checks the options once up front, so
 * that compacting a result never throws.
 */
export class ToolResultCompactor {
  /** The unit sizes are measured in. */
  readonly unit: 'bytes' | 'tokens';
  /** Measures a text in {@link unit}. */
  readonly measure: (text: string) => number;
  /** What happens to `structuredContent`. */
  readonly structuredContent: StructuredContentMode;
  private readonly tools: ReadonlySet<string> | undefined;
  private readonly excludeTools: ReadonlySet<string>;
  private readonly includeTools: ReadonlySet<string>;
  private readonly contentPolicy: boolean;
  private readonly metaKey: string;
  private readonly pickOptions: PickOptions & { hint?: FormatHint };

  /** Use {@link createToolResultCompactor}. */
  constructor(options: ToolResultCompactionOptions, measure: (text: string) => number) {
    this.tools = options.tools === undefined ? undefined : new Set(options.tools);
    this.excludeTools = new Set(options.excludeTools ?? []);
    this.includeTools = new Set(options.includeTools ?? []);
    this.contentPolicy = options.contentPolicy ?? true;
    this.metaKey = options.metaKey ?? DEFAULT_META_KEY;
    this.pickOptions = {
      by: options.by,
      tokenizer: options.tokenizer,
      candidates: options.candidates,
      hint: options.hint,
    };
    this.unit = options.by === 'tokens' ? 'tokens' : 'bytes';
    this.measure = measure;
    this.structuredContent = options.structuredContent ?? 'keep';
  }

  /**
   * Why results of `tool` are passed through without a look, or `undefined` when they are
   * compacted: `excludeTools` first, then `tools` (naming a tool there, or in `includeTools`,
   * overrides the content policy), then the content policy.
   *
   * @example
   * compactor.passThroughReason({ name: 'read_text_file' }); // 'content'
   */
  passThroughReason(tool: ToolDescription | undefined): 'excluded' | 'content' | undefined {
    const name = tool?.name;
    if (name !== undefined && this.excludeTools.has(name)) return 'excluded';
    if (this.tools !== undefined && (name === undefined || !this.tools.has(name)))
      return 'excluded';
    if (name !== undefined && (this.includeTools.has(name) || this.tools?.has(name)))
      return undefined;
    if (this.contentPolicy && tool !== undefined && contentToolReason(tool) !== undefined)
      return 'content';
    return undefined;
  }

  /**
   * Compacts one tools/call result. Passed through untouched: results of excluded tools and of
   * tools that return file or document contents (see {@link passThroughReason}), `isError`
   * results, results without a `content` array (a task handle), text that is not a JSON object
   * or array, and JSON whose numbers would lose digits in a JavaScript number.
   * `structuredContent` follows {@link structuredContent}. `inputSchema` is the tool's, from
   * tools/list, when known; `read`, the text contents already read by the caller.
   */
  compact(
    result: unknown,
    toolName: string | undefined,
    outputSchema: OutputSchemaKnowledge,
    inputSchema?: unknown,
    read?: ReadTexts,
  ): CompactionOutcome {
    if (!isPlainObject(result)) return { result, changed: false, blocks: [] };
    const tool = toolName === undefined ? undefined : { name: toolName, inputSchema };
    const reason: PassThroughReason | undefined =
      result.isError === true
        ? 'error'
        : (this.passThroughReason(tool) ??
          (Array.isArray(result.content) ? undefined : 'no-content'));
    if (reason !== undefined)
      return this.stripped({
        result,
        changed: false,
        blocks: textBlocks(result.content),
        passedThrough: reason,
      });
    return this.rewrite(result, outputSchema, read);
  }

  /**
   * `result` as {@link compact} ships it once its text contents are rewritten to `content`:
   * `_meta[metaKey]` names `strategy`, and `structuredContent` follows
   * {@link structuredContent} (`added`, the one JSON object the texts held, is what `'add'`
   * adds where it may). Paging asks for this alone, for a page it encoded itself.
   *
   * @example
   * compactor.shipped(result, [{ type: 'text', text: 'a: 1' }], 'toon', 'none');
   * // { ...result, content: [...], _meta: { ...result._meta, 'toonwire/encodingStrategy': 'toon' } }
   */
  shipped(
    result: Record<string, unknown>,
    content: unknown[],
    strategy: string,
    outputSchema: OutputSchemaKnowledge,
    added?: Record<string, unknown>,
  ): Record<string, unknown> {
    const shipped: Record<string, unknown> = { ...result, content };
    const meta = isPlainObject(result._meta) ? result._meta : {};
    shipped._meta = { ...meta, [this.metaKey]: strategy };
    const canAdd =
      this.structuredContent === 'add' &&
      outputSchema === 'none' &&
      !Object.hasOwn(result, 'structuredContent');
    if (canAdd && added !== undefined) shipped.structuredContent = added;
    if (this.structuredContent === 'strip') delete shipped.structuredContent;
    return shipped;
  }

  /** `outcome` without `structuredContent` in `'strip'` mode. */
  private stripped(outcome: CompactionOutcome): CompactionOutcome {
    if (this.structuredContent !== 'strip') return outcome;
    const shipped = outcome.result as Record<string, unknown>;
    if (!Object.hasOwn(shipped, 'structuredContent')) return outcome;
    const { structuredContent: _, ...stripped } = shipped;
    return { ...outcome, result: stripped, changed: true };
  }

  /**
   * A tools/list result as the client should see it: in `'strip'` mode without any tool's
   * `outputSchema` (a client that validates `structuredContent` against it would reject the
   * stripped results), otherwise `undefined` (forward it as it came).
   *
   * @example
   * compactor.toolsList({ tools: [{ name: 'q', inputSchema: {}, outputSchema: {} }] });
   */
  toolsList(result: unknown): Record<string, unknown> | undefined {
    if (this.structuredContent !== 'strip' || !isPlainObject(result)) return undefined;
    const tools = result.tools;
    if (!Array.isArray(tools)) return undefined;
    let changed = false;
    const stripped = tools.map((tool: unknown) => {
      if (!isPlainObject(tool) || !Object.hasOwn(tool, 'outputSchema')) return tool;
      changed = true;
      const { outputSchema: _, ...rest } = tool;
      return rest;
    });
    return changed ? { ...result, tools: stripped } : undefined;
  }

  private rewrite(
    result: Record<string, unknown>,
    outputSchema: OutputSchemaKnowledge,
    read: ReadTexts | undefined,
  ): CompactionOutcome {
    const content = result.content as unknown[];
    const blocks: TextBlockOutcome[] = [];
    const strategies: string[] = [];
    const parsedObjects: Record<string, unknown>[] = [];
    const kept: KeptReason[] = [];
    let parsedCount = 0;
    let replaced = false;
    const newContent = content.map((block: unknown, index) => {
      const text = textOf(block);
      if (text === undefined) return block;
      const { value, failed } = read?.reads.get(index) ?? readJsonContainer(text);
      if (failed !== undefined) {
        blocks.push(keptBlock(text));
        kept.push(keptReason(text, failed));
        return block;
      }
      parsedCount += 1;
      if (isPlainObject(value)) parsedObjects.push(value);
      const picked = this.pick(value);
      if (read?.replace) {
        // A replacing value ships as its own text: the picker's, or its JSON where that wins.
        if (picked === undefined || picked.strategy === 'json') {
          const json = picked?.text ?? JSON.stringify(value);
          blocks.push({ before: text, after: json, strategy: undefined });
          kept.push('not-smaller');
          if (json === text) return block;
          replaced = true;
          return { ...(block as object), text: json };
        }
        strategies.push(picked.strategy);
        blocks.push({
          before: text,
          after: picked.text,
          strategy: picked.strategy,
          afterSize: picked.size,
        });
        return { ...(block as object), text: picked.text };
      }
      const beforeSize = picked === undefined ? undefined : this.sizeIfLarger(picked.size, text);
      if (picked === undefined || beforeSize === undefined) {
        blocks.push(keptBlock(text));
        kept.push('not-smaller');
        return block;
      }
      strategies.push(picked.strategy);
      blocks.push({
        before: text,
        after: picked.text,
        strategy: picked.strategy,
        beforeSize: beforeSize >= 0 ? beforeSize : undefined,
        afterSize: picked.size,
      });
      return { ...(block as object), text: picked.text };
    });
    if (strategies.length === 0) {
      return this.stripped({
        result: replaced ? { ...result, content: newContent } : result,
        changed: replaced,
        blocks,
        unit: this.unit,
        kept: keptOverall(kept),
      });
    }
    const added = parsedCount === 1 && parsedObjects.length === 1 ? parsedObjects[0] : undefined;
    return {
      result: this.shipped(result, newContent, strategies.join(','), outputSchema, added),
      changed: true,
      blocks,
      unit: this.unit,
    };
  }

  /**
   * `original`'s size when `size` beats it under the measure (`-1` when that is plain without
   * measuring it), `undefined` when it does not.
   */
  private sizeIfLarger(size: number, original: string): number | undefined {
    // UTF-8 takes at least one byte per UTF-16 code unit: under bytes, a size below the string's
    // length needs no count.
    if (this.measure === byteLength && size < original.length) return -1;
    const originalSize = this.measure(original);
    return size < originalSize ? originalSize : undefined;
  }

  private pick(value: unknown): { text: string; strategy: string; size: number } | undefined {
    try {
      return modelText(value, this.pickOptions);
    } catch {
      // The options were checked up front, so this is a value the picker cannot take at all
      // (none parsed from JSON should be): forwarding the text as it came is always safe.
      return undefined;
    }
  }
}

/** The text contents of a result's `content`, each kept as it is. */
function textBlocks(content: unknown): TextBlockOutcome[] {
  if (!Array.isArray(content)) return [];
  const blocks: TextBlockOutcome[] = [];
  for (const block of content as unknown[]) {
    const text = textOf(block);
    if (text !== undefined) blocks.push(keptBlock(text));
  }
  return blocks;
}

/** The outcome of a text block shipped as it came. */
function keptBlock(text: string): TextBlockOutcome {
  return { before: text, after: text, strategy: undefined };
}

/** Why one text was kept, when reading it as JSON `failed`. */
function keptReason(text: string, failed: NonNullable<JsonRead['failed']>): KeptReason {
  if (failed === 'unsafe-numbers') return 'unsafe-numbers';
  // What looks like JSON to a reader (any white space first) but was not read as JSON counts as
  // JSON that was not smaller, unless a number in it would lose digits.
  if (!/^\s*[[{]/.test(text)) return 'not-json';
  return losesPrecision(text) ? 'unsafe-numbers' : 'not-smaller';
}

/** Why a result's texts were all kept, from why each was: the first reason that applies. */
function keptOverall(reasons: readonly KeptReason[]): KeptReason {
  if (reasons.length === 0) return 'no-text';
  if (reasons.every((reason) => reason === 'not-json')) return 'not-json';
  return reasons.includes('unsafe-numbers') ? 'unsafe-numbers' : 'not-smaller';
}

/**
 * The JSON object or array `text` holds, or `undefined` when it holds anything else, is not
 * JSON, or has a number a JavaScript number cannot carry exactly (a 64-bit ID): re-encoding that
 * would change the data.
 *
 * @example
 * parseJsonContainer('{"a": 1}'); // { a: 1 }
 * parseJsonContainer('"text"'); // undefined
 */
export function parseJsonContainer(text: string): unknown {
  return readJsonContainer(text).value;
}

/**
 * {@link parseJsonContainer} saying why there is no value: `{ value }`, or `{ failed }` with
 * `'not-container'`, `'invalid'` or `'unsafe-numbers'`.
 *
 * @example
 * readJsonContainer('[1, 2]'); // { value: [1, 2] }
 * readJsonContainer('{"id": 12345678901234567891}'); // { failed: 'unsafe-numbers' }
 */
export function readJsonContainer(text: string): JsonRead {
  const first = firstNonSpace(text);
  if (first !== '{' && first !== '[') return { failed: 'not-container' };
  let value: unknown;
  try {
    value = JSON.parse(text);
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

/**
 * A {@link ToolResultCompactor} for `options`, with its tokenizer loaded when `by: 'tokens'`.
 *
 * @throws {TypeError} for invalid options (an unknown candidate, an empty `metaKey`, a bad
 *   `structuredContent` mode), found now rather than on the first tool call.
 * @example
 * const compactor = await createToolResultCompactor({ by: 'tokens', tools: ['search'] });
 * compactor.compact(result, 'search', 'none').result;
 */
export async function createToolResultCompactor(
  options: ToolResultCompactionOptions = {},
): Promise<ToolResultCompactor> {
  checkMetaKey(options.metaKey ?? DEFAULT_META_KEY, 'proxy');
  if (
    options.by !== undefined &&
    options.by !== 'auto' &&
    options.by !== 'bytes' &&
    options.by !== 'tokens'
  ) {
    throw new TypeError(
      `proxy: by must be 'auto', 'bytes' or 'tokens', got ${JSON.stringify(options.by)}`,
    );
  }
  const mode = options.structuredContent;
  if (mode !== undefined && !STRUCTURED_CONTENT_MODES.includes(mode)) {
    throw new TypeError(
      `proxy: structuredContent must be 'keep', 'add' or 'strip', got ${JSON.stringify(mode)}`,
    );
  }
  const measure = options.by === 'tokens' ? await loadTokenizer(options.tokenizer) : byteLength;
  const compactor = new ToolResultCompactor(options, measure);
  checkModelTextOptions(
    {
      by: options.by,
      tokenizer: options.tokenizer,
      candidates: options.candidates,
      hint: options.hint,
    },
    'proxy',
  );
  return compactor;
}
