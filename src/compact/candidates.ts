// The encodings the picker chooses between: JSON, the TOON variants built in, and the caller's
// own. Each built-in TOON variant is "an input transform plus encode options", which lets the
// picker share the transform between variants and budget every encode.

import { decode } from '../codec/decode.js';
import type { EncodeOptions, JsonValue } from '../codec/types.js';
import { flattenJson, unflatten } from './flatten.js';
import { flattenedHeaderDelta } from './flatten-delta.js';

/** The built-in candidates, by name. */
export type CandidateName = 'json' | 'toon' | 'toon-flatten' | 'toon-tab';

/**
 * A custom candidate. `encode` receives the value already normalized to the JSON model (and
 * projected, when `fields` is set); it must not modify it. Give it a `decode` so that
 * {@link parseCompact} can read its output back.
 */
export interface Candidate {
  name: string;
  encode(value: JsonValue): string;
  decode?(text: string): JsonValue;
}

/** Every built-in candidate, in the order the picker would try them. */
export const CANDIDATE_NAMES: readonly CandidateName[] = [
  'json',
  'toon',
  'toon-flatten',
  'toon-tab',
];

/** The picker's default set: the two of the TOON adoption proposal for Apify's MCP server, plus plain TOON, which has nested field groups. */
export const DEFAULT_CANDIDATES: readonly CandidateName[] = ['json', 'toon', 'toon-flatten'];

/** The values every candidate of one pick works from, each computed at most once. */
export class SharedInput {
  private flat: JsonValue | undefined;
  private flatError: unknown;
  private flatDone = false;

  private headerDelta: number | undefined;
  private headerDeltaDone = false;

  constructor(readonly value: JsonValue) {}

  /**
   * See {@link flattenedHeaderDelta}: toon-flatten's size relative to toon's, when cheap.
   * `toonText` is plain toon's text when it was encoded in full.
   */
  flattenedHeaderDelta(toonText: string | undefined): number | undefined {
    if (!this.headerDeltaDone) {
      this.headerDeltaDone = true;
      this.headerDelta = flattenedHeaderDelta(this.value, toonText);
    }
    return this.headerDelta;
  }

  /**
   * The dot-flattened value, refusing dotted source keys: the `_` rename would not survive
   * unflatten, and every text the picker ships must decode to the original.
   */
  flattened(): JsonValue {
    if (!this.flatDone) {
      this.flatDone = true;
      try {
        this.flat = flattenJson(this.value, { dottedKeys: 'throw' });
      } catch (error) {
        this.flatError = error;
      }
    }
    if (this.flatError !== undefined) throw this.flatError;
    return this.flat!;
  }
}

/** A TOON candidate: which value it encodes and with which options. */
export interface ToonCandidate {
  kind: 'toon';
  name: CandidateName;
  input(shared: SharedInput): JsonValue;
  options: EncodeOptions | undefined;
  decode(text: string): JsonValue;
  /**
   * This candidate's UTF-8 size minus plain `toon`'s, when it can be known without encoding
   * (then the picker needs only toon's outcome to size it).
   */
  bytesOverToon?(shared: SharedInput, toonText: string | undefined): number | undefined;
}

/** The JSON candidate: always present, always first. */
export interface JsonCandidate {
  kind: 'json';
  name: 'json';
  decode(text: string): JsonValue;
}

/** A caller-supplied candidate. */
export interface CustomCandidate {
  kind: 'custom';
  name: string;
  encode(value: JsonValue): string;
  decode: ((text: string) => JsonValue) | undefined;
}

export type ResolvedCandidate = JsonCandidate | ToonCandidate | CustomCandidate;

const identity = (shared: SharedInput): JsonValue => shared.value;

const BUILTIN: Readonly<Record<CandidateName, ResolvedCandidate>> = {
  json: { kind: 'json', name: 'json', decode: (text) => JSON.parse(text) as JsonValue },
  toon: {
    kind: 'toon',
    name: 'toon',
    input: identity,
    options: undefined,
    decode: (text) => decode(text),
  },
  'toon-flatten': {
    kind: 'toon',
    name: 'toon-flatten',
    input: (shared) => shared.flattened(),
    options: undefined,
    decode: (text) => unflatten(decode(text)),
    bytesOverToon: (shared, toonText) => shared.flattenedHeaderDelta(toonText),
  },
  'toon-tab': {
    kind: 'toon',
    name: 'toon-tab',
    input: identity,
    options: { delimiter: '\t' },
    decode: (text) => decode(text),
  },
};

function isCandidateName(name: unknown): name is CandidateName {
  return typeof name === 'string' && Object.hasOwn(BUILTIN, name);
}

const DEFAULT_RESOLVED: readonly ResolvedCandidate[] = DEFAULT_CANDIDATES.map(
  (name) => BUILTIN[name],
);

/**
 * The candidate list a pick runs: JSON first, then the others in the given order, duplicates of
 * a built-in name ignored.
 *
 * @throws {TypeError} for an unknown name, a malformed custom candidate, or a custom name that
 *   is taken.
 */
export function resolveCandidates(
  candidates: ReadonlyArray<CandidateName | Candidate> | undefined,
  caller: string,
): readonly ResolvedCandidate[] {
  if (candidates === undefined) return DEFAULT_RESOLVED;
  if (!Array.isArray(candidates)) {
    throw new TypeError(`${caller}: candidates must be an array of names and candidate objects`);
  }
  const resolved: ResolvedCandidate[] = [BUILTIN.json];
  const names = new Set<string>(['json']);
  for (const candidate of candidates as ReadonlyArray<unknown>) {
    if (typeof candidate === 'string') {
      if (!isCandidateName(candidate)) {
        throw new TypeError(
          `${caller}: unknown candidate ${JSON.stringify(candidate)}; the built-in ones are ${CANDIDATE_NAMES.map((name) => `'${name}'`).join(', ')}, or pass { name, encode, decode }`,
        );
      }
      if (names.has(candidate)) continue;
      names.add(candidate);
      resolved.push(BUILTIN[candidate]);
      continue;
    }
    const custom = checkCustom(candidate, caller);
    if (names.has(custom.name) || isCandidateName(custom.name)) {
      throw new TypeError(
        `${caller}: two candidates are named ${JSON.stringify(custom.name)}; give each custom candidate a unique name that is not a built-in one`,
      );
    }
    names.add(custom.name);
    resolved.push(custom);
  }
  return resolved;
}

function checkCustom(candidate: unknown, caller: string): CustomCandidate {
  const { name, encode, decode: decodeText } = (candidate ?? {}) as Partial<Candidate>;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof name !== 'string' ||
    name === ''
  ) {
    throw new TypeError(`${caller}: a custom candidate needs a non-empty string name`);
  }
  if (typeof encode !== 'function') {
    throw new TypeError(
      `${caller}: the candidate ${JSON.stringify(name)} needs an encode(value) function`,
    );
  }
  if (decodeText !== undefined && typeof decodeText !== 'function') {
    throw new TypeError(
      `${caller}: the candidate ${JSON.stringify(name)} has a decode that is not a function`,
    );
  }
  return {
    kind: 'custom',
    name,
    encode: (value) => encode.call(candidate, value),
    decode: decodeText === undefined ? undefined : (text) => decodeText.call(candidate, text),
  };
}

/** The decoder for `strategy`: built-in, or a custom candidate's own. */
export function decoderFor(
  strategy: string,
  candidates: ReadonlyArray<CandidateName | Candidate> | undefined,
): ((text: string) => JsonValue) | undefined {
  if (isCandidateName(strategy)) return BUILTIN[strategy].decode;
  for (const candidate of candidates ?? []) {
    if (typeof candidate === 'object' && candidate !== null && candidate.name === strategy) {
      const decodeText = candidate.decode;
      return typeof decodeText === 'function'
        ? (text) => decodeText.call(candidate, text)
        : undefined;
    }
  }
  return undefined;
}
