// The adaptive picker: encode the value as JSON and as each TOON candidate, ship the smallest.
// JSON is always a candidate and wins ties, so the result is never larger than JSON; a candidate
// that throws is dropped, so the picker never fails where JSON.stringify would succeed.

import { encodeIfPlain, encodeWithin } from '../codec/encode.js';
import { isPlain } from '../codec/layout.js';
import { normalize, normalizeTracked } from '../codec/normalize.js';
import { describeValue } from '../codec/options.js';
import type { JsonValue } from '../codec/types.js';
import {
  type Candidate,
  type CandidateName,
  decoderFor,
  type ResolvedCandidate,
  resolveCandidates,
  SharedInput,
  type ToonCandidate,
} from './candidates.js';
import { stringifyDeep } from './deep-json.js';
import {
  type BaselineEstimate,
  estimateBaseline,
  estimateBaselineWithin,
  estimateTokenRange,
  type TokenEstimate,
} from './estimate.js';
import { type FieldSpec, project } from './project.js';
import { cannotPassGuard, type ShapeBound, shapeBound } from './shape-bound.js';
import {
  byteLength,
  checkTokenizerName,
  resolveMeasure,
  type SizeMeasure,
  type TokenizerName,
} from './size.js';

/** Options of {@link pick}, {@link stringifyCompact} and {@link measureCandidates}. */
export interface PickOptions {
  /**
   * The candidates to try (default `['json', 'toon', 'toon-flatten']`). JSON is always included
   * and always tried first, whatever this list says.
   */
  candidates?: ReadonlyArray<CandidateName | Candidate>;
  /**
   * How sizes compare. The default, `'auto'`, compares UTF-8 bytes and guards tokens: a TOON
   * text that is smaller in bytes ships only when it saves half of JSON's bytes or more, or when
   * a synchronous estimate of its o200k_base tokens ({@link estimateTokenRange}) is at least
   * {@link TOKEN_GUARD_MARGIN} and {@link TOKEN_GUARD_SLACK} tokens below JSON's, also with
   * characters outside ASCII at their cheapest; otherwise JSON ships ({@link TOKEN_GUARD_RULE}). `'bytes'` compares bytes
   * alone. `'tokens'` counts exactly with a real tokenizer and needs `await loadTokenizer()`
   * once first; a function `(text) => number` is your own measure.
   */
  by?: SizeMeasure;
  /** The tokenizer `by: 'tokens'` counts with (default `'o200k_base'`). */
  tokenizer?: TokenizerName;
  /** Project the value to these fields first (see {@link project}). */
  fields?: FieldSpec;
  /** Where `fields` finds the list of items in an envelope object (default `['items', 'data']`). */
  envelope?: string | readonly string[];
  /** Sees each error of a dropped candidate (the pick itself goes on). */
  onError?(error: unknown, candidate: string): void;
  /** Sees every pick's outcome, for per-tool win-rate telemetry. */
  onPick?(info: { strategy: string; sizes: Record<string, number> }): void;
}

/** What {@link pick} returns. */
export interface PickResult {
  /** The winning encoding of the value: exactly what that candidate's full encoder produces. */
  text: string;
  /** The winning candidate's name, for {@link parseCompact} and telemetry. */
  strategy: string;
  /** `text`'s size under the chosen measure. */
  size: number;
  /**
   * Exact sizes of the candidates encoded to completion, JSON always among them. A candidate
   * abandoned because it had already grown past the best size so far is absent, as is one that
   * threw; {@link measureCandidates} sizes every candidate in full.
   */
  sizes: Record<string, number>;
}

/** One row of {@link measureCandidates}: a candidate's full text and size, or why it failed. */
export interface CandidateMeasurement {
  name: string;
  text?: string;
  size?: number;
  error?: unknown;
}

/**
 * Encodes `value` with every candidate and returns the smallest encoding: never larger than
 * `JSON.stringify` under the chosen measure (JSON is always a candidate and wins ties), and
 * never failing because of a candidate (one that throws is dropped; `onError` sees it).
 *
 * The value is normalized to the JSON model once (like `JSON.stringify`: `toJSON`, Date, Map,
 * Set, BigInt) and projected to `fields` if given, and every candidate encodes that same value.
 * With `by: 'bytes'`, each TOON candidate stops encoding as soon as it outgrows the best size so
 * far, so losing candidates cost little.
 *
 * @throws {TypeError} for a circular structure, bad options or field specs, a measure that
 *   returns no finite size for the JSON text, or `by: 'tokens'` before `loadTokenizer()`.
 * @example
 * const result = pick([
 *   { id: 1, stats: { runs: 10, reads: 5 } },
 *   { id: 2, stats: { runs: 20, reads: 8 } },
 * ]);
 * result.strategy; // 'toon'
 * result.text; // '[2]{id,stats{runs,reads}}:\n  1,10,5\n  2,20,8'
 * parseCompact(result.text, result.strategy); // the rows again
 */
export function pick(value: unknown, options?: PickOptions): PickResult {
  return pickWithInput(value, options).result;
}

/** {@link pick}'s result, and the value its candidates encoded, from {@link pickWithInput}. */
export interface PickedWithInput {
  result: PickResult;
  /**
   * The value as the candidates saw it: normalized to the JSON model (and projected to `fields`),
   * the given value itself when it was plain JSON data already (however deep); `undefined` when
   * it needed normalizing and nests too deep for that (only JSON's text was written).
   */
  input: JsonValue | undefined;
}

/**
 * {@link pick}, also handing back the value its candidates encoded, so that a caller who needs
 * the value in the JSON model too (`compactResult`'s `structuredContent`) does not normalize it
 * a second time.
 *
 * @example
 * const { result, input } = pickWithInput({ at: new Date(0) });
 * input; // { at: '1970-01-01T00:00:00.000Z' }
 * result.text; // 'at: "1970-01-01T00:00:00.000Z"'
 */
export function pickWithInput(value: unknown, options?: PickOptions): PickedWithInput {
  const measure = resolveMeasure(options?.by, options?.tokenizer, 'pick');
  const guarded = options?.by === undefined || options.by === 'auto';
  const candidates = resolveCandidates(options?.candidates, 'pick');
  if (
    guarded &&
    options?.fields === undefined &&
    isPlainScalar(value) &&
    onlyCommaToon(candidates)
  ) {
    // A number, boolean or null: its TOON text is its JSON text or longer, so the shape bound
    // rules the comma-delimited TOON candidates out, and JSON ships.
    const json = JSON.stringify(value);
    const size = byteLength(json);
    const sizes = { json: size };
    options?.onPick?.({ strategy: 'json', sizes });
    return { result: { text: json, strategy: 'json', size, sizes }, input: value };
  }
  // UTF-16 length never exceeds UTF-8 bytes, so under bytes a TOON encode can stop once its
  // length alone shows it cannot be smaller than the best.
  const budgeted = measure === byteLength;
  const outcomes: ToonOutcome[] = [];
  let shared: SharedInput;
  let json: string;
  let size: number;
  // Under the default measure, a comma-delimited TOON candidate whose best case, bounded from
  // the value's shape, cannot pass the token guard is not encoded at all.
  let bound: ShapeBound | undefined;
  // JSON's token estimate, when the bound needed it (the guard then reuses it).
  let jsonEstimate: BaselineEstimate | undefined;
  const quick = quickStart(value, options, candidates, measure, budgeted, outcomes, guarded);
  if (quick !== undefined) {
    ({ shared, json, size, bound, jsonEstimate } = quick);
  } else {
    const prepared = prepareOrJson(value, options);
    if (prepared instanceof DeepJson) {
      const size = checkedSize(measure(prepared.text), 'json');
      const result = { text: prepared.text, strategy: 'json', size, sizes: { json: size } };
      options?.onPick?.({ strategy: 'json', sizes: result.sizes });
      return { result, input: undefined };
    }
    shared = new SharedInput(prepared);
    json = JSON.stringify(shared.value);
    size = checkedSize(measure(json), 'json');
    if (guarded) ({ bound, jsonEstimate } = decideFromShape(shared.value, json, size));
  }
  const ruledOut = bound !== undefined && ruledOutByShape(bound, size);
  let text = json;
  let strategy = 'json';
  const sizes: Record<string, number> = { json: size };

  for (let i = 1; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    let candidateText: string | undefined;
    let candidateSize: number | undefined;
    if (candidate.kind === 'toon' && candidate.options?.delimiter === undefined) {
      if (ruledOut) continue;
      // Flattening is tried only where it can change a table (its header, or how deep its rows
      // sit): elsewhere it only lifts nested objects into dotted keys, which saves indentation
      // bytes but no tokens.
      if (candidate.bytesOverToon !== undefined && bound?.rows === false) continue;
    }
    try {
      if (candidate.kind === 'toon') {
        // The outcome may carry an exact size without text: sized from toon's, and a loser.
        const outcome = encodeToon(
          candidate,
          shared,
          outcomes,
          budgeted ? size - 1 : Infinity,
          measure,
        );
        candidateText = outcome.text;
        candidateSize = outcome.size;
      } else if (candidate.kind === 'custom') {
        candidateText = encodeCustom(candidate, shared.value);
        candidateSize = checkedSize(measure(candidateText), candidate.name);
      }
    } catch (error) {
      options?.onError?.(error, candidate.name);
      continue;
    }
    if (candidateSize === undefined) continue;
    setSize(sizes, candidate.name, candidateSize);
    if (candidateText !== undefined && candidateSize < size) {
      text = candidateText;
      strategy = candidate.name;
      size = candidateSize;
    }
  }

  if (guarded && strategy !== 'json' && !tokenSafe(text, size, json, sizes.json!, jsonEstimate)) {
    text = json;
    strategy = 'json';
    size = sizes.json!;
  }

  options?.onPick?.({ strategy, sizes });
  return { result: { text, strategy, size, sizes }, input: shared.value };
}

/**
 * Under the default measure, a TOON text that saves at least this share of JSON's UTF-8 bytes
 * ships without a token estimate: on every dataset measured (bench/tokens.bench.ts), tokens saved
 * trail bytes saved by at most 25 points, and the estimate would cost as much as the pick.
 */
export const TOKEN_GUARD_CLEAR_BYTES = 0.5;
/**
 * Under the default measure, a TOON text that saves less than {@link TOKEN_GUARD_CLEAR_BYTES} of
 * the bytes ships only when its estimated tokens are at least this share below JSON's (and
 * {@link TOKEN_GUARD_SLACK} tokens): above the estimate's largest error in TOON's favour on real
 * data (bench/tokens.bench.ts) and on generated values, on eight tokenizers
 * (test/compact/token-safe.test.ts, cross-tokenizer.test.ts).
 */
export const TOKEN_GUARD_MARGIN = 0.1;
/**
 * Tokens the estimate must also save, for short texts where one token is a large share (4: at
 * 3, a 4-row table with a quoted key cost Gemma 3 one token more than JSON;
 * test/compact/cross-tokenizer.test.ts).
 */
export const TOKEN_GUARD_SLACK = 4;

/**
 * Under the default measure, a TOON text that passes the {@link TOKEN_GUARD_MARGIN} must also be
 * at least this share (and {@link TOKEN_GUARD_SLACK} tokens) below JSON with each comma and the
 * word after it priced apart (`split`, {@link TokenEstimate}): o200k joins them, Claude's vocabulary
 * and the sentencepiece ones do not, and where that join is what TOON saves (lists of codes such
 * as `E0020`), those vocabularies read TOON up to 2.5% dearer than this estimate says
 * (test/compact/cross-tokenizer.test.ts).
 */
export const TOKEN_GUARD_SPLIT_MARGIN = 0.03;

/** Can no comma-delimited TOON text pass the default measure's guard, by the shape alone? */
function ruledOutByShape(bound: ShapeBound, jsonBytes: number): boolean {
  return cannotPassGuard(
    bound,
    jsonBytes,
    TOKEN_GUARD_CLEAR_BYTES,
    TOKEN_GUARD_MARGIN,
    TOKEN_GUARD_SLACK,
  );
}

/**
 * The shape bound of a plain `value` whose JSON text is `json` (`jsonBytes` long), and JSON's
 * token estimate when the bound needed it. The bound floors JSON's tokens loosely (a string of
 * any length counts a token at most), so when its bytes cannot clear the guard but its floor
 * leaves TOON in, JSON's text is estimated and the bound judged against that: about one
 * `JSON.stringify` of work, which the guard would spend on the same text anyway whenever TOON
 * comes out smaller (it cannot come out smaller by half, the bytes bound shows). The scan stops
 * once JSON's tokens so far rule TOON out (then no guard runs, and the bound carries that floor).
 */
function decideFromShape(
  value: unknown,
  json: string,
  jsonBytes: number,
): { bound: ShapeBound | undefined; jsonEstimate: BaselineEstimate | undefined } {
  const bound = shapeBound(value, jsonBytes * TOKEN_GUARD_CLEAR_BYTES);
  if (
    bound === undefined ||
    bound.bytesSaved >= jsonBytes * TOKEN_GUARD_CLEAR_BYTES ||
    ruledOutByShape(bound, jsonBytes)
  ) {
    return { bound, jsonEstimate: undefined };
  }
  // The bound rules TOON out once JSON's tokens pass this (cannotPassGuard, solved for them;
  // a token over, so that the rounded floor below passes it too), and the estimate only grows as
  // it scans: on a long text it can stop there, without the rest.
  const enough = (bound.tokensSaved - TOKEN_GUARD_SLACK) / TOKEN_GUARD_MARGIN + 1;
  const estimate = estimateBaselineWithin(json, enough);
  if (typeof estimate === 'number') {
    const floored = { ...bound, jsonTokens: estimate };
    // Ruled out by a floor of JSON's estimate, so by the estimate itself.
    if (ruledOutByShape(floored, jsonBytes)) return { bound: floored, jsonEstimate: undefined };
  }
  const jsonEstimate = typeof estimate === 'number' ? estimateBaseline(json) : estimate;
  return { bound: { ...bound, jsonTokens: jsonEstimate.tokens }, jsonEstimate };
}

/** Whether a TOON text smaller in bytes than JSON may ship under the default measure. */
function tokenSafe(
  text: string,
  bytes: number,
  json: string,
  jsonBytes: number,
  knownJsonEstimate: BaselineEstimate | undefined,
): boolean {
  return passesTokenGuard(bytes, jsonBytes, () => [
    estimateTokenRange(text),
    knownJsonEstimate ?? estimateTokenRange(json),
  ]);
}

/** Does a text of `bytes` save enough of JSON's `jsonBytes` to ship on bytes alone? */
function clearsBytes(bytes: number, jsonBytes: number): boolean {
  return bytes <= jsonBytes * (1 - TOKEN_GUARD_CLEAR_BYTES);
}

/** Are `tokens` at least the guard's margin and slack below `jsonTokens`? */
function clearsMargin(tokens: number, jsonTokens: number): boolean {
  return tokens <= jsonTokens * (1 - TOKEN_GUARD_MARGIN) - TOKEN_GUARD_SLACK;
}

/**
 * The default measure's rule for a text smaller than JSON in bytes: it ships when it is not empty
 * and saves at least {@link TOKEN_GUARD_CLEAR_BYTES} of JSON's bytes, or when `estimates()` (its estimated
 * tokens and JSON's, asked for only then) shows a saving of {@link TOKEN_GUARD_MARGIN} and
 * {@link TOKEN_GUARD_SLACK} tokens. Given {@link estimateTokenRange}'s estimates, the text is
 * priced with its structure at its dearest ({@link shippedEstimate}), the saving must also
 * hold with characters outside ASCII at their cheapest, and the text must stay
 * {@link TOKEN_GUARD_SPLIT_MARGIN} and {@link TOKEN_GUARD_SLACK} tokens below JSON with each comma
 * and the word after it priced apart (`split`: what o200k joins, other vocabularies do not). For
 * callers that size a text in pieces (the CLI on files too large for one string).
 *
 * @example
 * passesTokenGuard(400, 1000, () => [0, 0]); // true: 60% of the bytes saved
 * passesTokenGuard(900, 1000, () => [95, 100]); // false: 5% is too close to call
 * passesTokenGuard(0, 2, () => [0, 1]); // false: empty (the empty object's TOON)
 */
export function passesTokenGuard(
  bytes: number,
  jsonBytes: number,
  estimates: () => readonly [number | TokenEstimate, number | BaselineEstimate],
): boolean {
  // The empty TOON document (the empty object's) reads to a model as no result at all, where
  // JSON's `{}` says there is an empty object.
  if (bytes === 0) return false;
  if (clearsBytes(bytes, jsonBytes)) return true;
  const [text, json] = estimates();
  if (typeof text === 'number' || typeof json === 'number') {
    return clearsMargin(
      typeof text === 'number' ? text : text.tokens,
      typeof json === 'number' ? json : json.tokens,
    );
  }
  const shipped = shippedEstimate(text);
  return (
    clearsMargin(shipped.tokens, json.tokens) &&
    clearsMargin(shipped.low, json.low) &&
    text.split <= json.tokens * (1 - TOKEN_GUARD_SPLIT_MARGIN) - TOKEN_GUARD_SLACK
  );
}

/**
 * What the token guard counts for a text it may ship: its estimate with structure at its
 * dearest (see {@link TokenEstimate}'s `dearest`), `low` raised by as much. JSON's own estimate
 * is counted as it is.
 *
 * @example
 * shippedEstimate(estimateTokenRange('[2]{"a"}:')); // { tokens: 7, low: 7 }
 */
export function shippedEstimate(estimate: TokenEstimate): { tokens: number; low: number } {
  return { tokens: estimate.dearest, low: estimate.low + estimate.dearest - estimate.tokens };
}

/**
 * The default measure's rule in words, for explanations (`toonwire pick --explain`, the size
 * report): what {@link passesTokenGuard} asks of a TOON text.
 */
export const TOKEN_GUARD_RULE = `TOON ships only when it is smaller than JSON in UTF-8 bytes, not empty (the empty object's TOON reads as no result), and saves at least ${TOKEN_GUARD_CLEAR_BYTES * 100}% of JSON's bytes, or at least ${TOKEN_GUARD_MARGIN * 100}% of its tokens (and ${TOKEN_GUARD_SLACK} more) by a synchronous o200k_base estimate (its punctuation at its dearest), also with characters outside ASCII at their cheapest, and stays ${TOKEN_GUARD_SPLIT_MARGIN * 100}% and ${TOKEN_GUARD_SLACK} tokens below JSON with each comma and the word after it counted apart: a margin above the estimate's error on the tokenizers checked; otherwise JSON ships`;

/** The default measure's verdict on one TOON text, from {@link guardVerdict}. */
export interface GuardVerdict {
  /** Whether the text may ship under the default measure (when it is also the smallest). */
  passes: boolean;
  /** Its reason in words, e.g. "saves 12.0% of the bytes but an estimated 6.6% of the tokens". */
  reason: string;
}

/**
 * Why the default measure would ship a TOON text of `bytes` against JSON's `jsonBytes`, or pass
 * it over: `tokens` and `jsonTokens` are the two texts' estimates ({@link estimateTokens}).
 *
 * @example
 * guardVerdict(880, 1000, 94, 100).reason;
 * // 'saves 12.0% of the bytes but an estimated 6.0% of the tokens, under the 10% margin'
 */
export function guardVerdict(
  bytes: number,
  jsonBytes: number,
  estimate: number | TokenEstimate,
  jsonEstimate: number | BaselineEstimate,
): GuardVerdict {
  const tokens = typeof estimate === 'number' ? estimate : shippedEstimate(estimate).tokens;
  const jsonTokens = typeof jsonEstimate === 'number' ? jsonEstimate : jsonEstimate.tokens;
  const share = (part: number, whole: number) =>
    `${whole === 0 ? '0.0' : ((part / whole) * 100).toFixed(1)}%`;
  if (bytes >= jsonBytes) {
    return { passes: false, reason: 'no smaller than JSON in bytes' };
  }
  if (bytes === 0) {
    return { passes: false, reason: 'empty, which reads as no result at all' };
  }
  const savedBytes = share(jsonBytes - bytes, jsonBytes);
  if (clearsBytes(bytes, jsonBytes)) {
    return {
      passes: true,
      reason: `saves ${savedBytes} of the bytes (${TOKEN_GUARD_CLEAR_BYTES * 100}% clears the rule)`,
    };
  }
  const savedTokens = share(jsonTokens - tokens, jsonTokens);
  if (passesTokenGuard(bytes, jsonBytes, () => [estimate, jsonEstimate])) {
    return {
      passes: true,
      reason: `saves ${savedBytes} of the bytes and an estimated ${savedTokens} of the tokens`,
    };
  }
  const wideShort =
    typeof estimate !== 'number' &&
    typeof jsonEstimate !== 'number' &&
    !clearsMargin(shippedEstimate(estimate).low, jsonEstimate.low);
  const short =
    tokens > jsonTokens * (1 - TOKEN_GUARD_MARGIN)
      ? `under the ${TOKEN_GUARD_MARGIN * 100}% margin`
      : tokens > jsonTokens * (1 - TOKEN_GUARD_MARGIN) - TOKEN_GUARD_SLACK
        ? `fewer than the ${TOKEN_GUARD_SLACK} tokens the rule also asks for`
        : wideShort
          ? 'under the margin once its characters outside ASCII are priced at their cheapest'
          : `not ${TOKEN_GUARD_SPLIT_MARGIN * 100}% and ${TOKEN_GUARD_SLACK} tokens below JSON once each comma and the word after it are counted apart, as Claude's vocabulary and the sentencepiece ones write them`;
  return {
    passes: false,
    reason: `saves ${savedBytes} of the bytes but an estimated ${savedTokens} of the tokens, ${short}`,
  };
}

/**
 * `pick(value, options).text`: a drop-in for `JSON.stringify` that ships whichever encoding is
 * smaller (the `stringifyCompact` helper for Code Mode in the TOON adoption proposal for Apify's MCP server).
 *
 * @example
 * console.log(stringifyCompact(places, { fields: 'title,url,totalScore' }));
 */
export function stringifyCompact(value: unknown, options?: PickOptions): string {
  return pick(value, options).text;
}

/**
 * Reads a picked text back, given the strategy `pick` reported: `JSON.parse` for `json`,
 * `decode` for `toon` and `toon-tab`, `decode` then {@link unflatten} for `toon-flatten`. For a
 * custom strategy, pass the same `candidates` you picked with (the candidate needs a `decode`).
 * `parseCompact(r.text, r.strategy)` deep-equals the picked value (after normalization and
 * projection) for every `r = pick(...)`.
 *
 * @throws {TypeError} for an unknown strategy; `SyntaxError` (`ToonDecodeError` for TOON) for
 *   malformed text.
 * @example
 * const { text, strategy } = pick(rows);
 * parseCompact(text, strategy); // rows
 */
export function parseCompact(
  text: string,
  strategy: string,
  options?: Pick<PickOptions, 'candidates'>,
): JsonValue {
  const decodeText = decoderFor(strategy, options?.candidates);
  if (decodeText === undefined) {
    throw new TypeError(
      `parseCompact: cannot read the strategy ${JSON.stringify(strategy)}; it is not built in ('json', 'toon', 'toon-flatten', 'toon-tab'), so pass { candidates: [yourCandidate] } with a decode(text) method`,
    );
  }
  return decodeText(text);
}

/**
 * Encodes `value` with every candidate in full and sizes each one: the data behind a size
 * report or `--explain`. Unlike {@link pick} nothing is cut short, and a failing candidate is
 * listed with its error instead of being dropped. JSON comes first.
 *
 * @throws {TypeError} like {@link pick}, for the value and options themselves.
 * @example
 * for (const { name, size, error } of measureCandidates(rows)) {
 *   console.log(name, error === undefined ? size : `failed: ${String(error)}`);
 * }
 */
export function measureCandidates(value: unknown, options?: PickOptions): CandidateMeasurement[] {
  const measure = resolveMeasure(options?.by, options?.tokenizer, 'measureCandidates');
  const candidates = resolveCandidates(options?.candidates, 'measureCandidates');
  const prepared = prepareOrJson(value, options);
  if (prepared instanceof DeepJson) {
    // Too deep for TOON: JSON alone, every other candidate listed with the reason.
    const text = prepared.text;
    const size = checkedSize(measure(text), 'json');
    return candidates.map((candidate) =>
      candidate.kind === 'json'
        ? { name: 'json', text, size }
        : { name: candidate.name, error: tooDeep() },
    );
  }
  const shared = new SharedInput(prepared);
  const outcomes: ToonOutcome[] = [];
  return candidates.map((candidate): CandidateMeasurement => {
    try {
      let text: string;
      let size: number;
      if (candidate.kind === 'toon') {
        const outcome = encodeToon(candidate, shared, outcomes, Infinity, measure);
        text = outcome.text!; // an unlimited budget always completes
        size = outcome.size!;
      } else {
        text =
          candidate.kind === 'json'
            ? JSON.stringify(shared.value)
            : encodeCustom(candidate, shared.value);
        size = checkedSize(measure(text), candidate.name);
      }
      return { name: candidate.name, text, size };
    } catch (error) {
      return { name: candidate.name, error };
    }
  });
}

/**
 * The size of `text` under the measure `options` selects, exactly as {@link pick} sizes its
 * candidates: UTF-8 bytes by default, tokens of a loaded tokenizer for `by: 'tokens'`, or the
 * caller's own function. For a text the picker did not produce (a labelled variant, a text the
 * caller already holds) without a fake candidate.
 *
 * @throws {TypeError} for a bad `by` or `tokenizer`, `by: 'tokens'` before `loadTokenizer()`,
 *   or a measure that returns no finite size.
 * @example
 * measureText('[2]{id}:\n  1\n  2'); // 17 (bytes)
 * await loadTokenizer();
 * measureText('hello world', { by: 'tokens' }); // 2
 */
export function measureText(text: string, options?: Pick<PickOptions, 'by' | 'tokenizer'>): number {
  const measure = resolveMeasure(options?.by, options?.tokenizer, 'measureText');
  return checkedSize(measure(text), 'given text');
}

/**
 * Checks picker options once, up front, the way {@link pick} would: the measure (and that its
 * tokenizer is loaded), the candidates, the field spec and envelope, and the callbacks. After
 * it passes, `pick(value, options)` cannot fail because of its options (only because of the
 * value: a circular structure). `caller` starts every message.
 *
 * @throws {TypeError} naming the bad option and what to use instead.
 * @example
 * checkPickOptions({ by: 'bytes', candidates: ['toon'] }, 'proxy'); // passes
 * checkPickOptions({ candidates: ['yaml'] }, 'proxy'); // throws "proxy: unknown candidate ..."
 */
export function checkPickOptions(
  options: unknown,
  caller = 'pick',
): asserts options is PickOptions | undefined {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${caller}: options must be an object, got ${describeValue(options)}`);
  }
  const given = options as PickOptions;
  if (given.tokenizer !== undefined) checkTokenizerName(given.tokenizer, caller);
  resolveMeasure(given.by, given.tokenizer, caller);
  resolveCandidates(given.candidates, caller);
  if (given.fields !== undefined) {
    try {
      project(
        {},
        given.fields,
        given.envelope === undefined ? undefined : { envelope: given.envelope },
      );
    } catch (error) {
      throw new TypeError(`${caller}: ${(error as Error).message.replace(/^project: /, '')}`);
    }
  }
  for (const name of ['onError', 'onPick'] as const) {
    if (given[name] !== undefined && typeof given[name] !== 'function') {
      throw new TypeError(
        `${caller}: ${name} must be a function, got ${describeValue(given[name])}`,
      );
    }
  }
}

/** Why a TOON candidate is absent for a value nested too deep to normalize. */
function tooDeep(): RangeError {
  return new RangeError(
    "the value nests deeper than TOON documents may (1000 levels, decode's default maxDepth); only JSON can carry it",
  );
}

/**
 * The normalized (and projected) value, or, for a value nested too deep to normalize, its JSON
 * text: every candidate but JSON is out, and JSON.stringify itself may overflow the stack.
 */
function prepareOrJson(value: unknown, options: PickOptions | undefined): JsonValue | DeepJson {
  try {
    return prepare(value, options);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const json = stringifyDeep(value);
  if (options?.fields === undefined) return new DeepJson(json);
  // JSON.parse has no depth limit; projecting keeps the listed fields, which may be shallow.
  const projected = project(
    JSON.parse(json) as JsonValue,
    options.fields,
    options.envelope === undefined ? undefined : { envelope: options.envelope },
  );
  try {
    return prepare(projected, undefined);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return new DeepJson(stringifyDeep(projected));
  }
}

/** JSON's text and size, and the shared input, as {@link quickStart} found them. */
interface QuickStart {
  shared: SharedInput;
  json: string;
  size: number;
  /** The value's shape bound, under the default measure when the value is plain. */
  bound: ShapeBound | undefined;
  /** JSON's token estimate, when the bound needed it. */
  jsonEstimate?: BaselineEstimate | undefined;
}

/**
 * Pick's start for the common case, with JSON's text taken from the value as it is and at most
 * one walk before the candidates. `JSON.stringify` applies the JSON model's rules itself (toJSON,
 * so Dates; dropping undefined; NaN to null), so its text of the value is JSON's candidate text
 * unless normalize converts something its own way (a Map, a Set; a RawString passes through).
 * Plain toon's optimistic encode (`encodeIfPlain`) runs next, within the budget the candidate
 * loop would give it: on plain data, which needs no normalizing, it is toon's outcome and no
 * normalize walk runs at all. Otherwise (a Date, say, or an encode that stopped over budget with
 * the rest unchecked) normalize runs once, as it would have, and returns plain data as the very
 * same object; after a Map, Set or RawString, JSON's text is written again from its result
 * rather than normalizing a second time on the ordinary path.
 *
 * Only for picks that hand the value to nothing else: no projection, and no custom candidate
 * (their `encode` is promised the normalized value, with NaN already null). Undefined when it
 * does not apply or a step failed: the caller takes the ordinary path.
 */
function quickStart(
  value: unknown,
  options: PickOptions | undefined,
  candidates: readonly ResolvedCandidate[],
  measure: (text: string) => number,
  budgeted: boolean,
  outcomes: ToonOutcome[],
  guarded: boolean,
): QuickStart | undefined {
  if (options?.fields !== undefined) return undefined;
  let toon: ToonCandidate | undefined;
  for (const candidate of candidates) {
    if (candidate.kind === 'custom') return undefined;
    if (candidate.kind === 'toon' && candidate.name === 'toon') toon = candidate;
  }
  if (toon === undefined || !looksPlain(value)) return undefined;
  const delimiter = toon.options?.delimiter ?? ',';
  try {
    const json = JSON.stringify(value);
    if (typeof json !== 'string') return undefined;
    const size = checkedSize(measure(json), 'json');
    // A bound that rules TOON out comes from a whole walk (one stopped early rules nothing out),
    // which also proves the value plain, so JSON's text above is JSON's candidate.
    const { bound, jsonEstimate } = guarded
      ? decideFromShape(value, json, size)
      : { bound: undefined, jsonEstimate: undefined };
    if (bound !== undefined && ruledOutByShape(bound, size)) {
      return { shared: new SharedInput(value as JsonValue), json, size, bound };
    }
    const maxLength = budgeted ? size - 1 : Number.POSITIVE_INFINITY;
    const text = encodeIfPlain(value, toon.options, maxLength);
    if (typeof text === 'string') {
      const shared = new SharedInput(value as JsonValue);
      const toonSize = checkedSize(measure(text), toon.name);
      outcomes.push({ input: shared.value, delimiter, text, size: toonSize, atLeast: toonSize });
      return { shared, json, size, bound, jsonEstimate };
    }
    const normalized = normalizeTracked(value);
    const shared = new SharedInput(normalized.value);
    if (normalized.rawStrings || normalized.collections) {
      // JSON.stringify wrote these its own way: JSON's text comes from the normalized value.
      const normalizedJson = JSON.stringify(normalized.value);
      const normalizedSize = checkedSize(measure(normalizedJson), 'json');
      const decided = guarded
        ? decideFromShape(normalized.value, normalizedJson, normalizedSize)
        : { bound: undefined, jsonEstimate: undefined };
      return { shared, json: normalizedJson, size: normalizedSize, ...decided };
    }
    if (text === undefined && normalized.value === value) {
      // Plain after all, and toon outgrew JSON: the loop need not encode it again.
      outcomes.push({ input: shared.value, delimiter, text, size: undefined, atLeast: size });
    }
    if (bound !== undefined || !guarded) return { shared, json, size, bound, jsonEstimate };
    return { shared, json, size, ...decideFromShape(shared.value, json, size) };
  } catch {
    // A BigInt or a cycle (JSON.stringify), a value too deep (normalize), text TOON cannot carry
    // (an unpaired surrogate), a failing measure: the ordinary path meets each again and
    // handles or reports it.
    return undefined;
  }
}

/** A finite number, a boolean or null: a root TOON cannot write shorter than JSON does. */
function isPlainScalar(value: unknown): value is number | boolean | null {
  return (
    value === null ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** Are the candidates besides JSON all comma-delimited TOON ones (the default set is)? */
function onlyCommaToon(candidates: readonly ResolvedCandidate[]): boolean {
  for (const candidate of candidates) {
    if (candidate.kind === 'custom') return false;
    if (candidate.kind === 'toon' && candidate.options?.delimiter !== undefined) return false;
  }
  return true;
}

/** How many values {@link looksPlain} looks at. */
const PLAIN_PROBE = 64;

/**
 * Are the value's first {@link PLAIN_PROBE} values (depth first) plain JSON data? Data is
 * usually uniform: a Date in the first row means one in every row, and then the quick start
 * would only add work (`JSON.stringify` of Dates takes V8's slow path, and normalize runs
 * anyway), so the ordinary path is taken at once.
 */
function looksPlain(value: unknown): boolean {
  return probePlain(value, PLAIN_PROBE) !== NOT_PLAIN_PROBE;
}

/** What {@link probePlain} returns on a value that is not plain. */
const NOT_PLAIN_PROBE = -1;

/** How many of `left` values remain after looking at `node`'s, or {@link NOT_PLAIN_PROBE}. */
function probePlain(node: unknown, left: number): number {
  left--;
  if (typeof node !== 'object' || node === null) {
    return typeof node === 'string' ||
      typeof node === 'number' ||
      typeof node === 'boolean' ||
      node === null
      ? left
      : NOT_PLAIN_PROBE;
  }
  if (!isPlain(node)) return NOT_PLAIN_PROBE;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length && left > 0; i++) {
      left = probePlain(node[i], left);
      if (left === NOT_PLAIN_PROBE) return left;
    }
    return left;
  }
  for (const key in node) {
    if (left <= 0) break;
    left = probePlain((node as Record<string, unknown>)[key], left);
    if (left === NOT_PLAIN_PROBE) return left;
  }
  return left;
}

/** The JSON text of a value too deep to normalize: the one candidate left. */
class DeepJson {
  constructor(readonly text: string) {}
}

function prepare(value: unknown, options: PickOptions | undefined): JsonValue {
  const normalized = normalize(value);
  const fields = options?.fields;
  if (fields === undefined) return normalized;
  return project(
    normalized,
    fields,
    options?.envelope === undefined ? undefined : { envelope: options.envelope },
  );
}

/**
 * A TOON candidate's result in this pick. Two candidates that encode the same value with the
 * same delimiter (toon-flatten on data with nothing to flatten is plain toon) share one.
 */
interface ToonOutcome {
  input: JsonValue | undefined;
  delimiter: string;
  /** Undefined when the candidate cannot beat the budget and so was not (fully) encoded. */
  text: string | undefined;
  /** The exact size, when known (always, when `text` is). */
  size: number | undefined;
  /** A lower bound of the UTF-8 size when `size` is unknown. */
  atLeast: number;
}

function encodeToon(
  candidate: ToonCandidate,
  shared: SharedInput,
  outcomes: ToonOutcome[],
  maxLength: number,
  measure: (text: string) => number,
): ToonOutcome {
  const budgeted = maxLength !== Infinity;
  if (budgeted) {
    const known = sizeFromToon(candidate, shared, outcomes);
    // The size (or its lower bound) already shows it cannot win: skip the transform and encode.
    if (known !== undefined && known.atLeast > maxLength) return known;
  }
  const input = candidate.input(shared);
  const delimiter = candidate.options?.delimiter ?? ',';
  for (const outcome of outcomes) {
    if (outcome.input !== input || outcome.delimiter !== delimiter) continue;
    if (outcome.text !== undefined || outcome.atLeast > maxLength) return outcome;
  }
  const text = maxLength < 0 ? undefined : encodeWithin(input, candidate.options, maxLength);
  const size = text === undefined ? undefined : checkedSize(measure(text), candidate.name);
  // Over budget, the UTF-16 length passed maxLength, so the UTF-8 size did too.
  const outcome: ToonOutcome = {
    input,
    delimiter,
    text,
    size,
    atLeast: size ?? Math.max(maxLength + 1, 0),
  };
  outcomes.push(outcome);
  return outcome;
}

/** The outcome of a candidate whose UTF-8 size follows from plain toon's, if toon ran already. */
function sizeFromToon(
  candidate: ToonCandidate,
  shared: SharedInput,
  outcomes: ToonOutcome[],
): ToonOutcome | undefined {
  if (candidate.bytesOverToon === undefined) return undefined;
  const toon = outcomes.find(
    (outcome) => outcome.input === shared.value && outcome.delimiter === ',',
  );
  if (toon === undefined) return undefined;
  const delta = candidate.bytesOverToon(shared, toon.text);
  if (delta === undefined) return undefined;
  const size = toon.size === undefined ? undefined : toon.size + delta;
  return {
    input: undefined,
    delimiter: '',
    text: undefined,
    size,
    atLeast: size ?? toon.atLeast + delta,
  };
}

function encodeCustom(
  candidate: Extract<ResolvedCandidate, { kind: 'custom' }>,
  value: JsonValue,
): string {
  const text = candidate.encode(value);
  if (typeof text !== 'string') {
    throw new TypeError(
      `the candidate ${JSON.stringify(candidate.name)} returned ${typeof text}, not a string`,
    );
  }
  return text;
}

function checkedSize(size: number, name: string): number {
  if (typeof size !== 'number' || !Number.isFinite(size) || size < 0) {
    throw new TypeError(
      `the size measure returned ${String(size)} for the ${name} candidate; it must return a finite number >= 0`,
    );
  }
  return size;
}

/** Records a size under a candidate's name, which may be `__proto__` for a custom candidate. */
function setSize(sizes: Record<string, number>, name: string, size: number): void {
  if (name !== '__proto__') {
    sizes[name] = size;
    return;
  }
  Object.defineProperty(sizes, name, {
    value: size,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
