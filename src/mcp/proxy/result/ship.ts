// Stage 6, ship: the result the client gets, built from the view. Texts that ship verbatim are
// the upstream's own blocks; the data's text takes the place of the texts it stands for; notes
// follow; `_meta` says what was done; `structuredContent` follows the session's mode.

import { isPlainObject, setOwn } from '../../../codec/objects.js';
import type { JsonObject } from '../../../codec/types.js';
import type { StructuredContentMode } from '../../clients.js';
import { PAGE_META_KEY, pageMeta } from '../paging/pages.js';
import type { ResultStrategy, VerbatimReason } from '../telemetry/outcome.js';
import { contentOf, type PayloadView, shippedTexts } from './view.js';

/** The `_meta` key saying how many text contents one shipped text stands for (2 or more). */
export const MERGED_META_KEY = 'toonwire/mergedBlocks';

/** See {@link ShippedResult.texts}. */
export interface ShippedTexts {
  in: readonly string[];
  out: readonly string[];
}

/** A result on its way to the client, and what the record stage needs to know of it. */
export interface ShippedResult {
  /** The result to forward: the upstream's own object when nothing changed. */
  result: unknown;
  changed: boolean;
  /** What its text is: `'verbatim'`, or the encoding of its one rewritten text. */
  strategy: ResultStrategy;
  /** Why it went out verbatim, when it did. */
  verbatim: VerbatimReason | undefined;
  /**
   * Every text of the result as the upstream sent it (`in`) and every text shipped (`out`, the
   * same array when none changed), in order; worked out when asked (only a record needs them).
   */
  texts(): ShippedTexts;
  /** The UTF-8 bytes of the texts in, when `read` counted them. */
  bytesIn: number | undefined;
  /** Exact tokens of the texts out, when a stage counted them. */
  tokensOut: number | undefined;
  /** Whether a first page shipped. */
  paged: boolean;
}

/**
 * The result for the client. `mode` is what happens to `structuredContent`: kept as sent
 * (`'keep'`), also added to a rewritten object result of a tool known to declare no
 * `outputSchema` (`'add'`), or removed (`'strip'`), except for tools with an MCP Apps UI, whose
 * widget renders from it.
 *
 * @example
 * ship(view, 'keep', 'toonwire/encodingStrategy').result;
 * // { content: [{ type: 'text', text: 'rows[2]{id}:\n  1\n  2' }], _meta: { 'toonwire/encodingStrategy': 'toon' } }
 */
export function ship(
  view: PayloadView,
  mode: StructuredContentMode,
  metaKey: string,
): ShippedResult {
  const { data, text, notes } = view;
  const original = view.result;
  if (!isPlainObject(original)) return shippedResult(view, original, false, view.verbatim);
  const shipped: Record<string, unknown> = { ...original };
  let changed = false;
  const rewritten = data !== undefined && text !== undefined;
  if (rewritten) {
    // The data's text in place of the texts it stands for.
    const content = contentOf(original);
    const first = content[data.first] as Record<string, unknown>;
    const block =
      data.count === 1 ? { ...first, text: text.text } : { type: 'text', text: text.text };
    const blocks: unknown[] = content.slice(0, data.first);
    blocks.push(block);
    for (let index = data.first + data.count; index < content.length; index++)
      blocks.push(content[index]);
    shipped.content = blocks;
    const meta: Record<string, unknown> = isPlainObject(original._meta)
      ? { ...original._meta }
      : {};
    // A `__proto__` key is data here, as it is in an object literal.
    setOwn(meta as JsonObject, metaKey, text.encoding);
    if (data.count > 1) meta[MERGED_META_KEY] = data.count;
    if (view.page !== undefined) meta[PAGE_META_KEY] = pageMeta(view.page);
    shipped._meta = meta;
    changed = true;
  }
  if (notes.length > 0) {
    const blocks = [...contentOf(shipped)];
    for (const note of notes) blocks.push({ type: 'text', text: note });
    shipped.content = blocks;
    changed = true;
  }
  const structured = structuredContentFor(view, mode);
  if (structured === undefined && Object.hasOwn(original, 'structuredContent')) {
    delete shipped.structuredContent;
    changed = true;
  } else if (structured !== original.structuredContent) {
    shipped.structuredContent = structured;
    changed = true;
  }
  return rewritten
    ? shippedResult(view, changed ? shipped : original, changed, undefined, text.encoding)
    : shippedResult(view, changed ? shipped : original, changed, view.verbatim);
}

/** The {@link ShippedResult} of `view`: `result` goes out, `strategy` names its text. */
function shippedResult(
  view: PayloadView,
  result: unknown,
  changed: boolean,
  verbatim: VerbatimReason | undefined,
  strategy: ResultStrategy = 'verbatim',
): ShippedResult {
  return {
    result,
    changed,
    strategy,
    verbatim,
    // The texts in, and out: the same array unless the result's content changed.
    texts: () => {
      const textsIn = shippedTexts({ ...view, text: undefined, notes: [] }, true);
      return { in: textsIn, out: changed ? shippedTexts(view, true) : textsIn };
    },
    bytesIn: view.bytesIn,
    tokensOut: view.tokens,
    paged: view.page !== undefined,
  };
}

/** The `structuredContent` a result ships with under `mode` (`undefined`: none). */
function structuredContentFor(view: PayloadView, mode: StructuredContentMode): unknown {
  const original = (view.result as Record<string, unknown>).structuredContent;
  if (view.tool?.hasUi === true || mode === 'keep') return original;
  if (mode === 'strip') return undefined;
  // 'add': the parsed JSON of a rewritten object result, when nothing can reject it (the tool
  // is known to declare no outputSchema) and it does not carry rows past a budget (a page).
  const { data, text } = view;
  const canAdd =
    original === undefined &&
    data !== undefined &&
    text !== undefined &&
    view.page === undefined &&
    // Listed without an outputSchema (a tool not listed yet might declare one).
    view.tool?.listed === true &&
    view.tool.outputSchema === undefined &&
    isPlainObject(data.original);
  return canAdd ? data.original : original;
}
