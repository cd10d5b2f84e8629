// The report as data: what `--json` prints and what every renderer draws from. Summaries are
// computed here once so the terminal, Markdown, HTML and JSON outputs can never disagree.
import { relativeChange } from '../format.js';
import type { CandidateResult, PayloadResult, Size } from './measure.js';

/** One measured payload. */
export interface FixtureReport {
  /** Display name (file name without extension). */
  name: string;
  /** The tool or directory the payload belongs to. */
  group: string;
  /** Path of the file, relative to the working directory or the corpus. */
  path: string;
  /** Rows in the payload, when it is a list or an envelope around one. */
  items: number | null;
  candidates: CandidateResult[];
  picked: { strategy: string } & Size;
  /** The picked text against JSON, as relative changes (-0.44 is 44% smaller). */
  delta: Size;
}

/** Totals of a group of fixtures, or of all of them. */
export interface GroupSummary {
  name: string;
  fixtures: number;
  json: Size;
  picked: Size;
  /** Change of the group's total: sum of picked sizes against sum of JSON sizes. */
  delta: Size;
  /** Unweighted mean of the fixtures' own changes. */
  meanDelta: Size;
  /** How often each strategy was picked. */
  wins: Record<string, number>;
}

/** One line of a projection table. */
export interface ProjectionRow {
  payload: 'full' | 'projected';
  /** A candidate's name, or 'picker' for the picker's choice. */
  encoding: string;
  /** For the picker row: the candidate it chose. */
  strategy?: string;
  size?: Size;
  error?: string;
  /** Against the full payload as JSON. */
  delta?: Size;
}

/** The projection scenario: a payload measured whole and projected to `fields`. */
export interface ProjectionReport {
  name: string;
  path: string;
  fields: string[];
  items: number | null;
  rows: ProjectionRow[];
}

/** The whole report. */
export interface ReportData {
  /** What was measured: the bundled corpus or the user's files. */
  source: 'bundled-corpus' | 'files';
  settings: {
    by: 'auto' | 'bytes' | 'tokens';
    tokenizer: string;
    candidates: string[];
    /** Files streamed in batches whose tokens were estimated (o200k_base), not counted. */
    tokensEstimatedFor?: string[];
  };
  fixtures: FixtureReport[];
  groups: GroupSummary[];
  combined: GroupSummary;
  projections: ProjectionReport[];
  /** Encodings decoded back and compared with their input, and how many differed. */
  roundTrips: { checked: number; failed: number };
  /** Every problem, each naming its file: unreadable input and failed round trips. */
  errors: string[];
  /** Things to check that are not errors, each naming its file (a `--fields` typo). */
  warnings: string[];
}

/** A fixture's report entry from its measurement. */
export function fixtureReport(
  meta: { name: string; group: string; path: string; items: number | null },
  result: PayloadResult,
): FixtureReport {
  const json = jsonSize(result);
  return {
    ...meta,
    candidates: result.candidates,
    picked: result.picked,
    delta: change(result.picked, json),
  };
}

/** Totals for a set of fixtures. */
export function summarize(name: string, fixtures: readonly FixtureReport[]): GroupSummary {
  const json = { bytes: 0, tokens: 0 };
  const picked = { bytes: 0, tokens: 0 };
  const deltaSum = { bytes: 0, tokens: 0 };
  const wins: Record<string, number> = {};
  for (const fixture of fixtures) {
    const base = jsonSize(fixture);
    json.bytes += base.bytes;
    json.tokens += base.tokens;
    picked.bytes += fixture.picked.bytes;
    picked.tokens += fixture.picked.tokens;
    deltaSum.bytes += fixture.delta.bytes;
    deltaSum.tokens += fixture.delta.tokens;
    wins[fixture.picked.strategy] = (wins[fixture.picked.strategy] ?? 0) + 1;
  }
  const count = Math.max(1, fixtures.length);
  return {
    name,
    fixtures: fixtures.length,
    json,
    picked,
    delta: change(picked, json),
    meanDelta: { bytes: deltaSum.bytes / count, tokens: deltaSum.tokens / count },
    wins,
  };
}

/** One summary per group, in order of first appearance. */
export function summarizeGroups(fixtures: readonly FixtureReport[]): GroupSummary[] {
  const order: string[] = [];
  const members = new Map<string, FixtureReport[]>();
  for (const fixture of fixtures) {
    if (!members.has(fixture.group)) {
      order.push(fixture.group);
      members.set(fixture.group, []);
    }
    members.get(fixture.group)!.push(fixture);
  }
  return order.map((group) => summarize(group, members.get(group)!));
}

/** The projection table rows: every candidate and the picker, for the full and projected payload. */
export function projectionRows(full: PayloadResult, projected: PayloadResult): ProjectionRow[] {
  const baseline = jsonSize(full);
  const rows: ProjectionRow[] = [];
  for (const [payload, result] of [
    ['full', full],
    ['projected', projected],
  ] as const) {
    for (const candidate of result.candidates) {
      rows.push(
        candidate.size
          ? {
              payload,
              encoding: candidate.name,
              size: candidate.size,
              delta: change(candidate.size, baseline),
            }
          : { payload, encoding: candidate.name, error: candidate.error ?? 'failed' },
      );
    }
    const size = { bytes: result.picked.bytes, tokens: result.picked.tokens };
    rows.push({
      payload,
      encoding: 'picker',
      strategy: result.picked.strategy,
      size,
      delta: change(size, baseline),
    });
  }
  return rows;
}

/** The JSON candidate's size: the baseline every change is measured against. */
export function jsonSize(result: { candidates: readonly CandidateResult[] }): Size {
  const json = result.candidates.find((candidate) => candidate.name === 'json');
  if (!json?.size) throw new Error('the json candidate always encodes a parsed JSON value');
  return json.size;
}

function change(value: Size, baseline: Size): Size {
  return {
    bytes: relativeChange(value.bytes, baseline.bytes),
    tokens: relativeChange(value.tokens, baseline.tokens),
  };
}
