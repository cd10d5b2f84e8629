// Stage 7, record: what one result cost before and after, measured once, for `--stats` and
// `--metrics`. One strategy per result, from a fixed set, so labels stay bounded.

import { byteLength } from '../../../compact/index.js';
import { currentCaller } from '../paging/store.js';
import type { ProxyMetrics } from '../telemetry/metrics.js';
import type { CallSizes, ProxyStats } from '../telemetry/stats.js';
import type { ShippedResult } from './ship.js';
import { sizeOf } from './view.js';

/** Where records go, and what to count. */
export interface RecordTargets {
  stats: ProxyStats | undefined;
  metrics: ProxyMetrics | undefined;
  /** Exact tokens of a text, when the proxy counts tokens. */
  countTokens: ((text: string) => number) | undefined;
  /**
   * Also count the tokens of the upstream's texts (for `--stats` and `--by tokens`); under a budget
   * alone only the shipped texts are counted, since a long result is never counted whole.
   */
  countTokensIn: boolean;
}

/**
 * Records one answered tools/call of `tool`, `seconds` after it was forwarded.
 *
 * @example
 * record(shipped, 'search', 0.012, { stats, metrics, countTokens: undefined, countTokensIn: false });
 */
export function record(
  shipped: ShippedResult,
  tool: string,
  seconds: number,
  targets: RecordTargets,
): void {
  const { stats, metrics, countTokens } = targets;
  if (stats === undefined && metrics === undefined) return;
  const sizes = measure(shipped, targets);
  stats?.record(tool, sizes);
  if (metrics === undefined) return;
  metrics.observeUpstreamLatency(tool, seconds);
  metrics.recordCall({
    tool,
    strategy: sizes.strategy,
    verbatim: sizes.verbatim,
    bytesIn: sizes.bytesIn,
    bytesOut: sizes.bytesOut,
    tokensIn: sizes.tokensIn,
    tokensOut: countTokens === undefined ? undefined : sizes.tokensOut,
    pages: shipped.paged ? 1 : 0,
    caller: currentCaller(),
  });
}

/** The call's sizes; a text shipped as it came is measured once. */
function measure(shipped: ShippedResult, targets: RecordTargets): CallSizes {
  const { in: textsIn, out: textsOut } = shipped.texts();
  const bytesIn = shipped.bytesIn ?? sizeOf(textsIn, byteLength);
  const bytesOut = textsOut === textsIn ? bytesIn : sizeOf(textsOut, byteLength);
  const count = targets.countTokens;
  const tokensIn =
    count !== undefined && targets.countTokensIn ? sizeOf(textsIn, count) : undefined;
  const tokensOut =
    count === undefined
      ? undefined
      : (shipped.tokensOut ??
        (textsOut === textsIn && tokensIn !== undefined ? tokensIn : sizeOf(textsOut, count)));
  return {
    strategy: shipped.strategy,
    verbatim: shipped.verbatim,
    bytesIn,
    bytesOut,
    tokensIn,
    tokensOut,
  };
}
