// Measures one payload the way the report needs it: every candidate encoded in full, sized in
// bytes and tokens, decoded back and compared with the input; then the real picker run on the
// same value, checked to ship exactly one of those texts.
import type { JsonValue } from '../../codec/types.js';
import { stringifyDeep } from '../../compact/deep-json.js';
import {
  byteLength,
  type CandidateName,
  DEFAULT_ENVELOPE,
  measureCandidates,
  parseCompact,
  pick,
  project,
  type TokenizerName,
} from '../../compact/index.js';
import { messageOf } from '../errors.js';
import { firstDifference } from './deep-equal.js';

/** How every payload of one report is measured. */
export interface MeasureSettings {
  /** Candidates besides JSON, in the picker's order. */
  candidates: readonly CandidateName[];
  /** The picker's measure. */
  by: 'auto' | 'bytes' | 'tokens';
  tokenizer: TokenizerName;
  /** Token counter of the loaded tokenizer. */
  countTokens: (text: string) => number;
}

/** Bytes and tokens of one text. */
export interface Size {
  bytes: number;
  tokens: number;
}

/** One candidate's outcome on one payload. */
export interface CandidateResult {
  name: string;
  /** Absent when the candidate threw (it would be dropped by the picker). */
  size?: Size;
  /** Why the candidate could not encode this payload. */
  error?: string;
}

/** Everything the report knows about one payload. */
export interface PayloadResult {
  candidates: CandidateResult[];
  picked: { strategy: string } & Size;
  /** Round-trip or consistency failures, each starting with the candidate's name. */
  failures: string[];
}

/**
 * Encodes `value` with JSON and every candidate, sizes each text in bytes and tokens, decodes
 * each back with `parseCompact` and compares it with the (projected) input, and runs `pick` to
 * get the shipped choice. With `fields`, everything applies to the projected value.
 *
 * @example
 * const result = measurePayload(runs, { candidates: ['toon', 'toon-flatten'], by: 'bytes', tokenizer: 'o200k_base', countTokens });
 * result.picked; // { strategy: 'toon-flatten', bytes: 2481, tokens: 1204 }
 */
export function measurePayload(
  value: JsonValue,
  settings: MeasureSettings,
  fields?: readonly string[],
): PayloadResult {
  const options = {
    candidates: settings.candidates,
    tokenizer: settings.tokenizer,
    ...(fields ? { fields } : {}),
  };
  const expected = fields ? project(value, fields) : value;
  const failures: string[] = [];
  const texts = new Map<string, string>();
  // Candidates often produce the same text (toon-flatten on data with nothing to flatten), and
  // tokenizing is most of a report's time: count each distinct text once.
  const tokenCounts = new Map<string, number>();
  const countTokens = (text: string): number => {
    let count = tokenCounts.get(text);
    if (count === undefined) {
      count = settings.countTokens(text);
      tokenCounts.set(text, count);
    }
    return count;
  };
  // JSON comes first: its text is JSON.stringify of the expected value, what every other
  // candidate's decoded value is compared with (one string, not one per candidate).
  let expectedJson: string | undefined;
  const candidates = measureCandidates(value, { ...options, by: 'bytes' }).map(
    (measurement): CandidateResult => {
      if (measurement.text === undefined)
        return { name: measurement.name, error: messageOf(measurement.error) };
      const text = measurement.text;
      texts.set(measurement.name, text);
      if (measurement.name === 'json') expectedJson = text;
      const problem =
        measurement.name === 'json'
          ? undefined
          : roundTripProblem(text, measurement.name, expected, expectedJson);
      if (problem !== undefined) failures.push(`${measurement.name}: ${problem}`);
      return {
        name: measurement.name,
        size: { bytes: byteLength(text), tokens: countTokens(text) },
      };
    },
  );

  const choice = pick(value, { ...options, by: settings.by });
  if (texts.get(choice.strategy) !== choice.text) {
    failures.push(
      `picker: the text it chose (${choice.strategy}) differs from that candidate's full encoding`,
    );
  }
  const chosen = candidates.find((candidate) => candidate.name === choice.strategy);
  const size = chosen?.size ?? { bytes: byteLength(choice.text), tokens: countTokens(choice.text) };
  return { candidates, picked: { strategy: choice.strategy, ...size }, failures };
}

function roundTripProblem(
  text: string,
  strategy: string,
  expected: JsonValue,
  expectedJson: string | undefined,
): string | undefined {
  let decoded: JsonValue;
  try {
    decoded = parseCompact(text, strategy);
  } catch (error) {
    return `its output does not decode: ${messageOf(error)}`;
  }
  // Same text, same data: the common case (JSON.stringify recurses, so deep values take the
  // writer that does not).
  if (sameJson(decoded, expected, expectedJson)) return undefined;
  let difference: string | undefined;
  try {
    difference = firstDifference(expected, decoded);
  } catch {
    return 'decodes to different data (too deep to name where)';
  }
  return difference === undefined ? undefined : `decodes to different data at ${difference}`;
}

function sameJson(a: JsonValue, b: JsonValue, bJson: string | undefined): boolean {
  try {
    return JSON.stringify(a) === (bJson ?? JSON.stringify(b));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyDeep(a) === stringifyDeep(b);
  }
}

/** Row count of a payload: a root array's length, or the length of an envelope's `items`/`data`. */
export function itemCount(value: JsonValue): number | null {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) {
    for (const key of DEFAULT_ENVELOPE) {
      const items = value[key];
      if (Array.isArray(items)) return items.length;
    }
  }
  return null;
}
