// Stage 2, choose: what the proxy will do with a result it looked at, from the tool's settings
// (flags, then `--config`) and the call (the `fields` the model asked for).

import type { ResolvedToolSettings } from '../config/config.js';
import { READ_REASONS } from '../telemetry/outcome.js';
import type { PayloadView, Plan } from './view.js';

/** How a tool's results are encoded and measured: everything of a {@link Plan} but the call's. */
export type Encoder = Omit<Plan, 'fields' | 'budget'>;

/**
 * `view` with its plan: the projection (the call's `fields`, else the tool's default), the token
 * budget and the encoder of the tool's settings. Results the proxy did not look at (left alone
 * by the tool's settings or the content policy, errors, results without content) get none.
 *
 * @example
 * choose(view, settings, 'id,name', encoder).plan?.fields; // 'id,name'
 */
export function choose(
  view: PayloadView,
  settings: ResolvedToolSettings,
  requestedFields: string | undefined,
  encoder: Encoder,
): PayloadView {
  if (view.data === undefined && !LOOKED_AT.has(view.verbatim!)) return view;
  const plan: Plan = {
    ...encoder,
    fields: requestedFields ?? settings.fields,
    budget: settings.maxTokens,
  };
  return { ...view, plan };
}

/** Verbatim results whose text the proxy read: they stay within a budget like data does. */
const LOOKED_AT: ReadonlySet<string> = new Set(READ_REASONS);
