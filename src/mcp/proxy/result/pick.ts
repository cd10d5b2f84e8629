// Stage 5, pick: the data's text, the smallest of JSON and the TOON candidates, shipped only when
// it is smaller than the texts the upstream sent (so a result is never larger than before).

import { byteLength } from '../../../compact/index.js';
import {
  asVerbatim,
  type DataPart,
  type DataText,
  type PayloadView,
  type Plan,
  sizeOf,
} from './view.js';

/**
 * `view` with the data's text picked (or the one paging encoded kept), or, when that is not
 * smaller than what the upstream sent, every text verbatim (`'not-smaller'`). Projected data ships
 * as rewritten whatever its size: it is not the same data as the upstream's text.
 *
 * @example
 * pick(view).text?.encoding; // 'toon'
 */
export function pick(view: PayloadView): PayloadView {
  const { data, plan } = view;
  // Paging, when it ran, has settled what ships and counted it.
  if (data === undefined || plan === undefined || view.tokens !== undefined) return view;
  const text = view.text ?? plan.encode(data.value);
  if (data.projected || isSmaller(text, data, plan)) return { ...view, text };
  return asVerbatim(view, 'not-smaller');
}

/** Whether `text` is smaller than the texts `data` stands for, in the plan's unit. */
function isSmaller(text: DataText, data: DataPart, plan: Plan): boolean {
  const size = text.size ?? plan.measure(text.text);
  // Bytes were counted by `read`.
  if (plan.measure === byteLength) return size < data.bytes;
  return size < sizeOf(data.texts, plan.measure);
}
