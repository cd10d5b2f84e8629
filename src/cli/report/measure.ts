// Measures one payload the way the report needs it: every candidate encoded in full, sized in
// bytes and tokens, decoded back and compared with the input; then the real picker run on the
// same value, checked to ship exactly one of those texts.

import { firstDifference } from '../../codec/json-equal.js';
import { normalize } from '../../codec/normalize.js';
import type { JsonValue } from '../../codec/types.js';
import { stringifyDeep } from '../../compact/deep-json.js';
import {
  byteLength,
  type CandidateName,
  measureCandidates,
  parseCompact,
  pick,
  project,
  type TokenizerName,
} from '../../compact/index.js';
import { messageOf } from '../errors.js';
import { itemsOf } from '../fields.js';

/** How every payload of one report is measured. */
export interface MeasureSettings {
  /** Candidates besides JSON, in the picker's order. */
  candidates: readonly CandidateName[];
  /** The picker's measure. */
  by: 'auto' | 'bytes' | 'tokens';
  tokenizer: TokenizerName;
  /** Token counter of the loaded tokenizer. */
  countTokens: (text: string) => number;
  /**
   * Called after each step of a payload (the pick, encoding the candidates, checking each one),
   * when nothing of that step but its figures is alive: where the report collects garbage for a
   * large payload.
   */
  afterStep?: () => void;
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
  const expected = asCarried(fields ? project(value, fields) : value);
  const failures: string[] = [];
  // Memory: a 10 MB payload's texts, decoded values and the picker's own encodings add up to
  // many times the payload, and V8 grows its heap to a multiple of what is alive when it
  // collects. So the picker runs first (only its text, the smallest, is kept), and each
  // candidate's text is let go as soon as it is sized and checked.
  const afterStep = settings.afterStep ?? (() => {});
  const choice = pick(value, { ...options, by: settings.by });
  afterStep();
  const texts: Array<string | undefined> = [];
  const measured = measureCandidates(value, { ...options, by: 'bytes' }).map(
    ({ name, text, error }) => {
      texts.push(text);
      return { name, error };
    },
  );
  afterStep();
  const chosen = measured.findIndex((measurement) => measurement.name === choice.strategy);
  if (texts[chosen] !== choice.text) {
    failures.push(
      `picker: the text it chose (${choice.strategy}) differs from that candidate's full encoding`,
    );
  }
  // Candidates often produce the same text (toon-flatten on data with nothing to flatten), and
  // tokenizing is most of a report's time: each distinct text is counted once, its copies found
  // while every text is still at hand.
  const firstCopy = texts.map((text) => (text === undefined ? -1 : texts.indexOf(text)));
  const sizes: Array<Size | undefined> = [];
  const candidates = measured.map(({ name, error }, index): CandidateResult => {
    const text = texts[index];
    texts[index] = undefined;
    if (text === undefined) return { name, error: messageOf(error) };
    if (name !== 'json') {
      const problem = roundTripProblem(text, name, expected);
      if (problem !== undefined) failures.push(`${name}: ${problem}`);
      afterStep();
    }
    const copyOf = firstCopy[index]!;
    const size = {
      bytes: byteLength(text),
      tokens: copyOf < index ? sizes[copyOf]!.tokens : settings.countTokens(text),
    };
    sizes[index] = size;
    return { name, size };
  });
  const size = sizes[chosen] ?? {
    bytes: byteLength(choice.text),
    tokens: settings.countTokens(choice.text),
  };
  return { candidates, picked: { strategy: choice.strategy, ...size }, failures };
}

/**
 * The payload as every candidate carries it, JSON's own included: the JSON model, where a number
 * too large for a double (`1e400`, read as Infinity) is `null`, as in JSON.stringify's text. A
 * value too deep to normalize is compared as it is (the deep path below).
 */
function asCarried(value: JsonValue): JsonValue {
  try {
    return normalize(value);
  } catch {
    return value;
  }
}

function roundTripProblem(text: string, strategy: string, expected: JsonValue): string | undefined {
  let decoded: JsonValue;
  try {
    decoded = parseCompact(text, strategy);
  } catch (error) {
    return `its output does not decode: ${messageOf(error)}`;
  }
  let difference: string | undefined;
  try {
    difference = firstDifference(expected, decoded);
  } catch (error) {
    // Too deep to walk: the writer that does not recurse can still tell equal from different.
    if (!(error instanceof RangeError)) throw error;
    return stringifyDeep(expected) === stringifyDeep(decoded)
      ? undefined
      : 'decodes to different data (too deep to name where)';
  }
  return difference === undefined ? undefined : `decodes to different data at ${difference}`;
}

/**
 * Item count of a payload: a root array's length, the length of an envelope's `items`/`data`,
 * or 1 for any other object (it is itself the one item, as `project` takes it); none for a
 * scalar.
 *
 * @example
 * itemCount({ total: 2, items: [{}, {}] }); // 2
 * itemCount({ id: 1 }); // 1
 */
export function itemCount(value: JsonValue): number | null {
  return typeof value === 'object' && value !== null ? itemsOf(value).length : null;
}
