// Stage 4, page: a result over its token budget ships as the first page of whole rows of its
// main list, the rest waiting behind a cursor for `toonwire_more`; a result with no list to cut
// ships whole with a warning. Pages are cut before the whole is encoded: a long list's first page
// costs a few encodes of about a page each, never one of the whole.

import { byteLength } from '../../../compact/index.js';
import { mainList, type Pager } from '../paging/pages.js';
import type { Encoding } from '../telemetry/outcome.js';
import { pick } from './pick.js';
import { type PayloadView, shippedTexts, sizeOf } from './view.js';

/**
 * `view` within its plan's budget: unchanged when it surely fits (its texts are within the
 * budget in bytes, and a token is at least one byte), else cut into pages when its data has a
 * list of rows, else whole with a warning when it is over. `tokens` is then the count of every
 * text shipped.
 *
 * @example
 * page(view, pager, 'query').page?.nextCursor; // 'Xw3…​.484'
 */
export function page(view: PayloadView, pager: Pager | undefined, tool: string): PayloadView {
  const { data, plan } = view;
  const budget = plan?.budget;
  const count = plan?.countTokens;
  if (budget === undefined || count === undefined) return view;
  if (view.verbatim === 'too-large') return tooLarge(view);
  // Before pick, the texts that would ship are the result's own (counted by `read`) and notes.
  const bytes = (view.bytesIn ?? Number.POSITIVE_INFINITY) + sizeOf(view.notes, byteLength);
  if (!data?.projected && bytes <= budget) return view;
  const list = data === undefined ? undefined : mainList(data.value);
  if (data === undefined || list === undefined || list.rows.length < 2 || pager === undefined)
    return whole(view, budget, count);
  const reserved = sizeOf(shippedTexts(view, false), count);
  const first = pager.first(
    {
      tool,
      value: data.value,
      list,
      budget,
      encoder: {
        encode: (value) => {
          const { text, encoding } = plan!.encode(value);
          return { text, strategy: encoding };
        },
        countTokens: count,
      },
    },
    reserved,
  );
  const text = { text: first.text, encoding: first.strategy as Encoding };
  if (first.nextCursor === undefined) {
    // Every row fits: the whole ships as `pick` decides (it may be no smaller than the original).
    const picked = pick({ ...view, text });
    const tokens =
      picked.text === text
        ? reserved + first.textTokens
        : sizeOf(shippedTexts(picked, true), count);
    return { ...picked, tokens };
  }
  return {
    ...view,
    text,
    page: first,
    notes: [...view.notes, first.note],
    tokens: reserved + first.tokens,
  };
}

/** A result too large to read is not counted either: a note says it ships whole. */
function tooLarge(view: PayloadView): PayloadView {
  const megabytes = (sizeOf(shippedTexts(view, true), byteLength) / 2 ** 20).toFixed(1);
  const note = `toonwire proxy: this result is ${megabytes} MiB of text, more than the proxy reads (--max-compact-mb): it is shipped whole, neither compacted nor cut into pages.`;
  return { ...view, notes: [...view.notes, note] };
}

/** `view` shipped whole, as `pick` has it, with a warning when that is over `budget` tokens. */
function whole(view: PayloadView, budget: number, count: (text: string) => number): PayloadView {
  const picked = pick(view);
  const tokens = sizeOf(shippedTexts(picked, true), count);
  if (tokens <= budget) return { ...picked, tokens };
  const why =
    picked.data === undefined && view.data === undefined
      ? 'has no structured data to split into pages'
      : 'has no list of rows to split into pages';
  const warning = `toonwire proxy: this result is ${tokens} tokens, over the budget of ${budget}, and ${why}: it is shipped whole, nothing cut.`;
  return { ...picked, notes: [...picked.notes, warning], tokens: tokens + count(warning) };
}
