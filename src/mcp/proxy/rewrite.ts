// What the proxy does to a tools/call result: each text content holding a JSON object or array
// becomes the picker's text when that is smaller; everything else passes through untouched.

import { isPlainObject } from '../../codec/objects.js';
import { byteLength, loadTokenizer, type PickOptions } from '../../compact/index.js';
import { checkMetaKey, DEFAULT_META_KEY } from '../compact-result.js';
import { type FormatHint, modelText } from '../model-text.js';
import { losesPrecision } from './json-numbers.js';

/** How the proxy compacts tool results. */
export interface ToolResultCompactionOptions {
  /** Size measure the picker compares by (default `'bytes'`). */
  by?: 'bytes' | 'tokens';
  /** Tokenizer for `by: 'tokens'` (default `'o200k_base'`). */
  tokenizer?: PickOptions['tokenizer'];
  /** Candidates the picker tries (default `['json', 'toon', 'toon-flatten']`). */
  candidates?: PickOptions['candidates'];
  /** Only these tools' results are compacted (default: every tool's). */
  tools?: readonly string[];
  /** `_meta` key naming the strategy (default `'toonwire/encodingStrategy'`). */
  metaKey?: string;
  /** Label compacted text with its format (see {@link FormatHint}). */
  hint?: FormatHint;
  /**
   * Give a compacted result that has no `structuredContent` the parsed JSON as
   * `structuredContent`, when its tool declares no `outputSchema` (default `true`), so programs
   * keep a JSON view. Turn it off for clients that show `structuredContent` to the model too.
   */
  addStructuredContent?: boolean;
}

/** What the proxy knows of a tool's declared `outputSchema`, from the tools/list it forwarded. */
export type OutputSchemaKnowledge = 'declared' | 'none' | 'unknown';

/** One text content of a tool result, before and after (the same text when it was kept). */
export interface TextBlockOutcome {
  before: string;
  after: string;
  /** The strategy of the text now shipped; undefined when the text was not JSON or was kept. */
  strategy: string | undefined;
}

/** What {@link ToolResultCompactor.compact} did to one result. */
export interface CompactionOutcome {
  /** The result to forward: the same object when nothing changed. */
  result: unknown;
  changed: boolean;
  /** Every text content of the result, in order (empty for results that were not looked at). */
  blocks: TextBlockOutcome[];
}

/**
 * Compacts tool results with fixed options. Build it with {@link createToolResultCompactor},
 * which loads a tokenizer when asked to count tokens and checks the options once up front, so
 * that compacting a result never throws.
 */
export class ToolResultCompactor {
  private readonly tools: ReadonlySet<string> | undefined;
  private readonly metaKey: string;
  private readonly pickOptions: PickOptions & { hint?: FormatHint };
  private readonly measure: (text: string) => number;
  private readonly addStructuredContent: boolean;

  /** Use {@link createToolResultCompactor}. */
  constructor(options: ToolResultCompactionOptions, measure: (text: string) => number) {
    this.tools = options.tools === undefined ? undefined : new Set(options.tools);
    this.metaKey = options.metaKey ?? DEFAULT_META_KEY;
    this.pickOptions = {
      by: options.by,
      tokenizer: options.tokenizer,
      candidates: options.candidates,
      hint: options.hint,
    };
    this.measure = measure;
    this.addStructuredContent = options.addStructuredContent ?? true;
  }

  /** Whether results of `toolName` are compacted at all (`--tools`). */
  covers(toolName: string | undefined): boolean {
    return this.tools === undefined || (toolName !== undefined && this.tools.has(toolName));
  }

  /**
   * Compacts one tools/call result. `isError` results, results without a `content` array (a
   * task handle), and contents that are not text holding a JSON object or array pass through
   * untouched, as does JSON whose numbers would lose digits in a JavaScript number. A result
   * without `structuredContent` gets the parsed JSON as `structuredContent` when the tool
   * declares no `outputSchema` and exactly one text content held a JSON object, so no consumer
   * loses the JSON view (unless `addStructuredContent` is `false`).
   */
  compact(
    result: unknown,
    toolName: string | undefined,
    outputSchema: OutputSchemaKnowledge,
  ): CompactionOutcome {
    const unchanged: CompactionOutcome = { result, changed: false, blocks: [] };
    if (!this.covers(toolName) || !isPlainObject(result) || result.isError === true)
      return unchanged;
    const content = result.content;
    if (!Array.isArray(content)) return unchanged;

    const blocks: TextBlockOutcome[] = [];
    const strategies: string[] = [];
    const parsedObjects: Record<string, unknown>[] = [];
    let parsedCount = 0;
    const newContent = content.map((block: unknown) => {
      if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string')
        return block;
      const text = block.text;
      const kept: TextBlockOutcome = { before: text, after: text, strategy: undefined };
      const value = parseJsonContainer(text);
      if (value === undefined) {
        blocks.push(kept);
        return block;
      }
      parsedCount += 1;
      if (isPlainObject(value)) parsedObjects.push(value);
      const picked = this.pick(value);
      if (picked === undefined || !this.smaller(picked.size, text)) {
        blocks.push(kept);
        return block;
      }
      strategies.push(picked.strategy);
      blocks.push({ before: text, after: picked.text, strategy: picked.strategy });
      return { ...block, text: picked.text };
    });
    if (strategies.length === 0) return { result, changed: false, blocks };

    const rewritten: Record<string, unknown> = { ...result, content: newContent };
    const meta = isPlainObject(result._meta) ? result._meta : {};
    rewritten._meta = { ...meta, [this.metaKey]: strategies.join(',') };
    const canAdd =
      this.addStructuredContent && outputSchema === 'none' && !('structuredContent' in result);
    if (canAdd && parsedCount === 1 && parsedObjects.length === 1) {
      rewritten.structuredContent = parsedObjects[0];
    }
    return { result: rewritten, changed: true, blocks };
  }

  /** Whether a picked size beats `original`'s size under the measure. */
  private smaller(size: number, original: string): boolean {
    // UTF-8 takes at least one byte per UTF-16 code unit: under bytes, a size below the string's
    // length needs no count.
    if (this.measure === byteLength && size < original.length) return true;
    return size < this.measure(original);
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

/**
 * The JSON object or array `text` holds, or `undefined` when it holds anything else, is not
 * JSON, or has a number a JavaScript number cannot carry exactly (a 64-bit ID): re-encoding that
 * would change the data.
 */
function parseJsonContainer(text: string): unknown {
  const first = firstNonSpace(text);
  if (first !== '{' && first !== '[') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return losesPrecision(text) ? undefined : value;
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
 * @throws {TypeError} for invalid options (an unknown candidate, an empty `metaKey`), found by a
 *   trial pick now rather than on the first tool call.
 * @example
 * const compactor = await createToolResultCompactor({ by: 'tokens', tools: ['search'] });
 * compactor.compact(result, 'search', 'none').result;
 */
export async function createToolResultCompactor(
  options: ToolResultCompactionOptions = {},
): Promise<ToolResultCompactor> {
  checkMetaKey(options.metaKey ?? DEFAULT_META_KEY, 'proxy');
  if (options.by !== undefined && options.by !== 'bytes' && options.by !== 'tokens') {
    throw new TypeError(`proxy: by must be 'bytes' or 'tokens', got ${JSON.stringify(options.by)}`);
  }
  const measure = options.by === 'tokens' ? await loadTokenizer(options.tokenizer) : byteLength;
  const compactor = new ToolResultCompactor(options, measure);
  modelText([{ a: 1 }], {
    by: options.by,
    tokenizer: options.tokenizer,
    candidates: options.candidates,
    hint: options.hint,
  });
  return compactor;
}
