// The picker on a file too large for one string: JSON and the TOON candidates sized a batch of
// rows at a time (pass 1 finds each candidate's array form, pass 2 sizes it), then the winner
// written the same way (pass 3). Sizes are sums over pieces: exact in bytes; in tokens each
// piece is counted on its own, which can differ from counting the whole text by a token where
// pieces meet.
import { decode } from '../../codec/decode.js';
import { firstDifference } from '../../codec/json-equal.js';
import type { EncodeOptions, JsonValue } from '../../codec/types.js';
import { stringifyDeep } from '../../compact/deep-json.js';
import {
  byteLength,
  type CandidateName,
  estimateTokenRange,
  flatten,
  passesTokenGuard,
  type TokenEstimate,
  unflatten,
} from '../../compact/index.js';
import { projector } from '../../compact/project.js';
import { messageOf } from '../errors.js';
import { FieldPresence } from '../fields.js';
import type { InputFormat } from '../json-input.js';
import type { CandidateResult, PayloadResult } from '../report/measure.js';
import { ArrayShape, BATCH_ROWS } from './encode.js';
import type { ByteProgress } from './progress.js';
import { readRows } from './read.js';

/** How a streamed file is measured and picked. */
export interface StreamSettings {
  /** Candidates besides JSON (json, toon, toon-flatten, toon-tab). */
  candidates: readonly CandidateName[];
  by: 'auto' | 'bytes' | 'tokens';
  fields?: readonly string[];
  /** Exact token counter; without it tokens are estimated (estimateTokens). */
  countTokens?: (text: string) => number;
  /** Decode each batch back and compare (the report's round-trip check). */
  roundTrip?: boolean;
  /** Refuse the input at its first number JSON.parse cannot read exactly (lossy-numbers.ts). */
  checkNumbers?: boolean;
}

interface Track {
  name: string;
  options: EncodeOptions | undefined;
  flat: boolean;
  shape: ArrayShape | undefined;
  bytes: number;
  tokens: number;
  /** The sum of its pieces' estimates (estimateTokenRange). */
  estimate: TokenEstimate;
  error: string | undefined;
  failures: string[];
}

/**
 * What a row is before the candidates see it: the row projected to the fields, as an item of
 * the root array (a row is never itself taken as an envelope). The field spec is parsed once.
 */
function rowProjector(settings: StreamSettings): (row: JsonValue) => JsonValue {
  const fields = settings.fields;
  if (!fields) return (row) => row;
  const keepFields = projector(fields);
  return (row) => (keepFields([row]) as JsonValue[])[0]!;
}

/** The estimate of no text, and of every text when nothing asks for one. */
const NO_ESTIMATE: Readonly<TokenEstimate> = { tokens: 0, low: 0, dearest: 0, split: 0 };

function makeTrack(name: string): Track {
  const options: EncodeOptions | undefined = name === 'toon-tab' ? { delimiter: '\t' } : undefined;
  return {
    name,
    options,
    flat: name === 'toon-flatten',
    shape: name === 'json' ? undefined : new ArrayShape(options),
    bytes: 0,
    tokens: 0,
    estimate: { ...NO_ESTIMATE },
    error: undefined,
    failures: [],
  };
}

function tracks(settings: StreamSettings): Track[] {
  return ['json', ...settings.candidates.filter((name) => name !== 'json')].map(makeTrack);
}

function valueFor(track: Track, row: JsonValue): JsonValue {
  return track.flat ? (flatten([row], { dottedKeys: 'throw' }) as JsonValue[])[0]! : row;
}

/**
 * Measures every candidate on the rows of `file` (JSON Lines, or a JSON file whose root is an
 * array) and picks one by the same rule as `pick`, in two passes and bounded memory.
 *
 * @example
 * const result = await measureRows('big.jsonl', 'jsonl', { candidates: ['toon'], by: 'auto' }, progress);
 * result.picked.strategy; // 'toon'
 */
export async function measureRows(
  file: string,
  format: InputFormat,
  settings: StreamSettings,
  progress: ByteProgress,
): Promise<
  PayloadResult & { rows: number; shape: ArrayShape | undefined; fields?: FieldPresence }
> {
  const all = tracks(settings);
  const rowFor = rowProjector(settings);
  // Which of the fields the rows have, found in the pass that reads them anyway.
  const fields = settings.fields && new FieldPresence(settings.fields);
  let rows = 0;
  for await (const { value } of readRows(
    file,
    format,
    progress.pass('sizing, pass 1 of 2'),
    settings.checkNumbers,
  )) {
    rows++;
    fields?.observe(value);
    const row = rowFor(value);
    for (const track of all) {
      if (track.shape === undefined || track.error !== undefined) continue;
      try {
        track.shape.observe(valueFor(track, row));
      } catch (error) {
        track.error = messageOf(error);
      }
    }
  }
  // The estimate serves the auto guard and stands in for tokens without a counter; skip it otherwise.
  const estimating = settings.by === 'auto' || !settings.countTokens;
  // A table's rows are the same lines in toon and toon-flatten (only the header differs): a
  // batch text equal to the previous track's is sized once.
  let last: { text: string; bytes: number; estimate: TokenEstimate; tokens: number } = {
    text: '',
    bytes: 0,
    estimate: NO_ESTIMATE,
    tokens: 0,
  };
  const count = (track: Track, text: string) => {
    if (text !== last.text || text === '') {
      last = {
        text,
        bytes: byteLength(text),
        estimate: estimating ? estimateTokenRange(text) : NO_ESTIMATE,
        tokens: settings.countTokens ? settings.countTokens(text) : 0,
      };
    }
    track.bytes += last.bytes;
    track.estimate.tokens += last.estimate.tokens;
    track.estimate.low += last.estimate.low;
    track.estimate.dearest += last.estimate.dearest;
    track.estimate.split += last.estimate.split;
    track.tokens += last.tokens;
  };
  let first = true;
  for (const track of all)
    if (track.shape !== undefined && track.error === undefined) count(track, track.shape.header());
  count(all[0]!, '[]');
  // toon-flatten writes a table's rows as the same lines as toon (only the header differs): when
  // both are tables, its batches are toon's text, and its rows are not flattened and encoded again.
  const toon = all.find((track) => track.name === 'toon');
  const sharesToonRows = (track: Track) =>
    track.flat &&
    !settings.roundTrip &&
    toon?.error === undefined &&
    toon?.shape?.isTable === true &&
    track.shape?.isTable === true;
  let batch: JsonValue[] = [];
  const flush = () => {
    let toonText: string | undefined;
    for (const track of all) {
      if (track.error !== undefined) continue;
      if (toonText !== undefined && sharesToonRows(track)) {
        count(track, toonText);
        continue;
      }
      try {
        const values = batch.map((row) => valueFor(track, row));
        if (track.shape === undefined) {
          const text = values.map(rowJson).join(',');
          count(track, first ? text : `,${text}`);
          if (settings.roundTrip) check(track, JSON.parse(`[${text}]`) as JsonValue, batch);
        } else {
          const text = track.shape.batch(values);
          if (track === toon) toonText = text;
          count(track, text);
          if (settings.roundTrip) {
            const decoded = decode(track.shape.document(values));
            const lead = track.shape.lead();
            check(track, track.flat ? unflatten(decoded) : decoded, [
              track.flat ? unflatten(lead) : lead,
              ...batch,
            ]);
          }
        }
      } catch (error) {
        track.error = messageOf(error);
      }
    }
    first = false;
    batch = [];
  };
  for await (const { value } of readRows(file, format, progress.pass('sizing, pass 2 of 2'))) {
    batch.push(rowFor(value));
    if (batch.length === BATCH_ROWS) flush();
  }
  if (batch.length > 0) flush();

  const json = all[0]!;
  let winner = json;
  for (const track of all.slice(1)) {
    if (track.error !== undefined) continue;
    const size = (t: Track) => (settings.by === 'tokens' ? t.tokens : t.bytes);
    if (size(track) < size(winner)) winner = track;
  }
  if (
    settings.by === 'auto' &&
    winner !== json &&
    !passesTokenGuard(winner.bytes, json.bytes, () => [winner.estimate, json.estimate])
  ) {
    winner = json;
  }
  const tokensOf = (t: Track) => (settings.countTokens ? t.tokens : Math.round(t.estimate.tokens));
  const candidates: CandidateResult[] = all.map((track) =>
    track.error === undefined
      ? { name: track.name, size: { bytes: track.bytes, tokens: tokensOf(track) } }
      : { name: track.name, error: track.error },
  );
  return {
    candidates,
    picked: { strategy: winner.name, bytes: winner.bytes, tokens: tokensOf(winner) },
    failures: all.flatMap((track) => track.failures),
    rows,
    shape: winner.shape?.rewound(),
    ...(fields ? { fields } : {}),
  };
}

/**
 * A row's JSON text, however deep the row: JSON.stringify, or, where its recursion overflows
 * the stack (tens of thousands of levels), the iterative stringifyDeep, as `pick` does.
 */
function rowJson(row: JsonValue): string {
  try {
    return JSON.stringify(row);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyDeep(row);
  }
}

function check(track: Track, decoded: JsonValue, expected: JsonValue[]): void {
  if (track.failures.length > 0) return;
  const difference = firstDifference(expected, decoded);
  if (difference !== undefined)
    track.failures.push(`${track.name}: decodes to different data at ${difference}`);
}

/**
 * The text of candidate `strategy` for the rows of `file`, a batch at a time (pass 3 of a
 * streamed pick, or passes 1 and 2 of `encode`). `observed`, the shape {@link measureRows}
 * found for this candidate, saves observing the rows again.
 */
export async function* writeRows(
  file: string,
  format: InputFormat,
  strategy: string,
  settings: StreamSettings,
  progress: ByteProgress,
  observed?: ArrayShape,
): AsyncGenerator<string> {
  const track = makeTrack(strategy);
  if (observed !== undefined && track.shape !== undefined) track.shape = observed;
  const rowFor = rowProjector(settings);
  if (track.shape !== undefined) {
    if (observed === undefined) {
      for await (const { value } of readRows(file, format, progress.pass('writing, pass 1 of 2')))
        track.shape.observe(valueFor(track, rowFor(value)));
    }
    yield track.shape.header();
  } else {
    yield '[';
  }
  let batch: JsonValue[] = [];
  let first = true;
  const flush = (): string => {
    const values = batch.map((row) => valueFor(track, row));
    batch = [];
    if (track.shape !== undefined) return track.shape.batch(values);
    const text = values.map(rowJson).join(',');
    const out = first ? text : `,${text}`;
    first = false;
    return out;
  };
  for await (const { value } of readRows(
    file,
    format,
    progress.pass(
      track.shape && observed === undefined ? 'writing, pass 2 of 2' : 'writing, pass 1 of 1',
    ),
  )) {
    batch.push(rowFor(value));
    if (batch.length === BATCH_ROWS) yield flush();
  }
  if (batch.length > 0) yield flush();
  if (track.shape === undefined) yield ']';
}
