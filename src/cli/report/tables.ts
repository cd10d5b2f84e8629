// The report's tables (per payload, per tool, projection), built once from the report data and
// drawn as terminal text or Markdown.
import {
  TOKEN_GUARD_CLEAR_BYTES,
  TOKEN_GUARD_MARGIN,
  TOKEN_GUARD_SLACK,
} from '../../compact/index.js';
import { countOf, formatDelta, formatInt } from '../format.js';
import type { GroupSummary, ProjectionReport, ReportData } from './model.js';
import {
  type Column,
  escapeMarkdown,
  type Row,
  renderMarkdownTable,
  renderTextTable,
  type Table,
  wrapText,
} from './table.js';

/** The headline sentence above the tables. */
export function reportHeadline(data: ReportData): string {
  const what =
    data.source === 'bundled-corpus' ? 'the bundled corpus' : countOf(data.fixtures.length, 'file');
  const groups = data.groups.length === 1 ? '1 group' : `${data.groups.length} groups`;
  return `toonwire report on ${what}: ${countOf(data.fixtures.length, 'payload')} in ${groups}; picker by ${data.settings.by}; tokens counted with ${data.settings.tokenizer}${tokensEstimated(data)}`;
}

/** What the headline adds when some files' tokens were estimated rather than counted. */
function tokensEstimated(data: ReportData): string {
  const files = data.settings.tokensEstimatedFor ?? [];
  if (files.length === 0) return '';
  return files.length === data.fixtures.length
    ? ', estimated (o200k_base) for every file: each is over 64 MB and streamed (--by tokens counts them)'
    : `, estimated (o200k_base) for ${countOf(files.length, 'file')} over 64 MB, streamed (--by tokens counts them)`;
}

const share = (ratio: number) => `${Math.abs(Math.round(ratio * 1000) / 10).toFixed(1)}%`;

/**
 * The plain-language summary printed before the tables: what TOON is, the bottom line in bytes
 * and tokens, a hint when picking by bytes cost tokens, and which aggregate to quote. One
 * paragraph per element.
 *
 * @example
 * reportSummary(data)[1];
 * // "Shipping the picker's choice instead of JSON saves 3.7% of bytes and 1.6% of tokens on these 18 payloads; TOON won 12 of 18."
 */
export function reportSummary(data: ReportData): string[] {
  const out = [
    'TOON (Token-Oriented Object Notation) writes the same data as JSON with less punctuation: a list of similar objects becomes one header line that names the fields, then one line of values per item. The picker ships TOON where it is clearly smaller than JSON and JSON everywhere else, so it is never larger than JSON.',
  ];
  const n = data.fixtures.length;
  if (n > 0) {
    const { delta } = data.combined;
    const verb = (ratio: number, what: string) =>
      ratio <= 0 ? `saves ${share(ratio)} of ${what}` : `costs ${share(ratio)} more ${what}`;
    const tokens =
      delta.bytes <= 0 && delta.tokens <= 0
        ? `${share(delta.tokens)} of tokens`
        : verb(delta.tokens, 'tokens');
    const won = data.fixtures.filter((fixture) => fixture.picked.strategy !== 'json').length;
    out.push(
      `Shipping the picker's choice instead of JSON ${verb(delta.bytes, 'bytes')} and ${tokens} on ${n === 1 ? 'this payload' : `these ${n} payloads`}; TOON won ${won} of ${n}.`,
    );
    const costly = data.fixtures.filter((fixture) => fixture.delta.tokens > 0);
    if (costly.length > 0) {
      const worst = Math.max(...costly.map((fixture) => fixture.delta.tokens));
      out.push(
        `Picking by ${data.settings.by} cost tokens on ${costly.length} of ${n} payloads (up to +${share(worst)}): TOON can be smaller in bytes yet longer in tokens. The default, --by auto, ships TOON only with a clear margin (${GUARD_MARGIN}); --by tokens counts them exactly.`,
      );
    } else if (data.settings.by === 'auto') {
      out.push(
        `The picker (--by auto, the default) ships TOON only with a clear margin over JSON: ${GUARD_MARGIN}, above the estimate's error (--by tokens counts exactly, --by bytes ignores tokens).`,
      );
      const passed = passedOver(data);
      if (passed !== undefined) out.push(passed);
    }
    if (n > 1) {
      out.push(
        "Δ total is the figure to quote: what these payloads cost together, the picked sizes summed against the JSON sizes summed. Δ mean averages each payload's own change, so a 2 KB response weighs as much as a 300 KB one: it tells how a typical response fares, not what the whole costs.",
      );
    }
  }
  if (data.projections.length > 0) {
    out.push(
      'The projection tables measure dropping fields (--fields): their large factors come from sending fewer fields, not from the encoding; the encoding adds the picker row against the projected json row.',
    );
  }
  if (data.errors.length > 0) {
    out.push(
      data.errors.length === 1
        ? '1 problem (an unreadable file or a failed round trip) is listed on stderr; the file concerned is left out of these figures.'
        : `${data.errors.length} problems (unreadable files, failed round trips) are listed on stderr; the files concerned are left out of these figures.`,
    );
  }
  return out;
}

/** The default measure's margin, in words. */
const GUARD_MARGIN = `at least ${TOKEN_GUARD_CLEAR_BYTES * 100}% of JSON's bytes saved, or at least ${TOKEN_GUARD_MARGIN * 100}% of its tokens and ${TOKEN_GUARD_SLACK} more by a synchronous o200k_base estimate`;

/**
 * Names the payload where JSON shipped though a TOON candidate was smaller in both bytes and
 * tokens (the largest such token saving), and why: the saving is under the margin.
 */
function passedOver(data: ReportData): string | undefined {
  let best: { fixture: string; name: string; bytes: number; tokens: number } | undefined;
  for (const fixture of data.fixtures) {
    if (fixture.picked.strategy !== 'json') continue;
    const json = fixture.candidates.find((c) => c.name === 'json')?.size;
    if (json === undefined) continue;
    for (const candidate of fixture.candidates) {
      const size = candidate.size;
      if (candidate.name === 'json' || size === undefined) continue;
      if (size.bytes >= json.bytes || size.tokens >= json.tokens) continue;
      const tokens = 1 - size.tokens / json.tokens;
      if (best === undefined || tokens > best.tokens) {
        best = {
          fixture: fixture.name,
          name: candidate.name,
          bytes: 1 - size.bytes / json.bytes,
          tokens,
        };
      }
    }
  }
  if (best === undefined) return undefined;
  return `Passed over: on ${best.fixture}, ${best.name} was ${share(best.bytes)} smaller than JSON in bytes and ${share(best.tokens)} in tokens, and JSON shipped, since a saving that small is within the estimate's error. \`toonwire pick FILE --explain\` shows each payload's verdict.`;
}

/** The per-payload table: every candidate's size in bytes and tokens, the pick and its change. */
export function fixtureTable(data: ReportData): Table {
  const names = data.settings.candidates;
  const columns: Column[] = [
    { header: 'payload' },
    { header: 'items', align: 'right' },
    ...names.map((name): Column => ({ header: name, group: 'bytes', align: 'right' })),
    ...names.map((name): Column => ({ header: name, group: 'tokens', align: 'right' })),
    { header: 'picked' },
    { header: 'bytes', group: 'Δ vs json', align: 'right' },
    { header: 'tokens', group: 'Δ vs json', align: 'right' },
  ];
  const rows: Row[] = [];
  let group: string | undefined;
  for (const fixture of data.fixtures) {
    if (fixture.group !== group) {
      group = fixture.group;
      rows.push({ section: group });
    }
    const cell = (name: string, measure: 'bytes' | 'tokens') => {
      const candidate = fixture.candidates.find((c) => c.name === name);
      if (!candidate?.size) return '-';
      return `${formatInt(candidate.size[measure])}${name === fixture.picked.strategy ? '*' : ''}`;
    };
    rows.push([
      `  ${fixture.name}`,
      fixture.items === null ? '' : formatInt(fixture.items),
      ...names.map((name) => cell(name, 'bytes')),
      ...names.map((name) => cell(name, 'tokens')),
      fixture.picked.strategy,
      formatDelta(fixture.delta.bytes),
      formatDelta(fixture.delta.tokens),
    ]);
  }
  return {
    title: 'Per payload',
    columns,
    rows,
    notes: [
      '',
      '* the candidate the picker shipped; - a candidate that cannot encode this payload (the picker drops it).',
      'Δ vs json: the picked text against JSON.stringify of the same payload (negative is smaller).',
    ],
  };
}

/** The per-tool table, like the proposal's headline table, with a combined row. */
export function groupTable(data: ReportData): Table {
  const row = (group: GroupSummary, label: string): string[] => [
    label,
    formatInt(group.fixtures),
    formatInt(group.json.bytes),
    formatInt(group.picked.bytes),
    formatDelta(group.delta.bytes),
    formatDelta(group.meanDelta.bytes),
    formatInt(group.json.tokens),
    formatInt(group.picked.tokens),
    formatDelta(group.delta.tokens),
    formatDelta(group.meanDelta.tokens),
    formatWins(group.wins),
  ];
  return {
    title: 'Per tool',
    columns: [
      { header: 'tool' },
      { header: 'payloads', align: 'right' },
      { header: 'json', group: 'bytes', align: 'right' },
      { header: 'picked', group: 'bytes', align: 'right' },
      { header: 'Δ total', group: 'bytes', align: 'right' },
      { header: 'Δ mean', group: 'bytes', align: 'right' },
      { header: 'json', group: 'tokens', align: 'right' },
      { header: 'picked', group: 'tokens', align: 'right' },
      { header: 'Δ total', group: 'tokens', align: 'right' },
      { header: 'Δ mean', group: 'tokens', align: 'right' },
      { header: 'picks' },
    ],
    rows: [
      ...data.groups.map((group) => row(group, group.name)),
      row(data.combined, `combined (${countOf(data.combined.fixtures, 'payload')})`),
    ],
    rulesBefore: [data.groups.length],
    notes: [
      '',
      "Δ total: the summed picked size against the summed JSON size. Δ mean: the average of the payloads' own changes.",
    ],
  };
}

/** A projection scenario's table: full and projected payload, each candidate and the picker. */
export function projectionTable(projection: ProjectionReport): Table {
  const rows: Row[] = projection.rows.map((row) => {
    const label =
      row.payload === 'full'
        ? `full · ${row.encoding === 'picker' ? `picker (${row.strategy})` : row.encoding}`
        : `fields=${projection.fields.join(',')} · ${row.encoding === 'picker' ? `picker (${row.strategy})` : row.encoding}`;
    if (!row.size || !row.delta) return [label, '-', '-', '-', '-', '-'];
    const factor = row.delta.bytes + 1 > 0 ? 1 / (row.delta.bytes + 1) : 0;
    return [
      label,
      formatInt(row.size.bytes),
      row.payload === 'full' && row.encoding === 'json' ? 'baseline' : formatDelta(row.delta.bytes),
      formatInt(row.size.tokens),
      row.payload === 'full' && row.encoding === 'json'
        ? 'baseline'
        : formatDelta(row.delta.tokens),
      factor >= 1.05 ? `${factor >= 10 ? Math.round(factor) : factor.toFixed(1)}x` : '',
    ];
  });
  return {
    title: `Projection: ${projection.name}${projection.items === null ? '' : ` (${projection.items} items)`}, fields=${projection.fields.join(',')}`,
    columns: [
      { header: 'encoding' },
      { header: 'bytes', align: 'right' },
      { header: 'vs full json', align: 'right' },
      { header: 'tokens', align: 'right' },
      { header: 'vs full json', align: 'right' },
      { header: 'smaller', align: 'right' },
    ],
    rows,
    notes: [
      '',
      'vs full json and smaller: against the whole payload as JSON. Most of a projection gain comes from dropping fields, not from the encoding.',
    ],
  };
}

/** "toon-flatten 10, json 8", most picked first. */
export function formatWins(wins: Record<string, number>): string {
  return Object.entries(wins)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
}

/** The round-trip verdict line. */
export function roundTripLine(data: ReportData): string {
  return data.roundTrips.failed === 0
    ? `Round trip: all ${formatInt(data.roundTrips.checked)} encodings decode back to their input.`
    : `Round trip: ${formatInt(data.roundTrips.failed)} of ${formatInt(data.roundTrips.checked)} encodings do NOT decode back to their input (see errors).`;
}

/**
 * The report for a terminal: summary, then the tables, no line longer than `width`.
 *
 * @example
 * process.stdout.write(renderText(data, process.stdout.columns));
 */
export function renderText(data: ReportData, width = Infinity): string {
  const paragraphs = [reportHeadline(data), ...reportSummary(data)];
  const parts = [paragraphs.map((text) => wrapText(text, width).join('\n')).join('\n\n'), ''];
  if (data.fixtures.length > 0)
    parts.push(
      renderTextTable(fixtureTable(data), width),
      renderTextTable(groupTable(data), width),
    );
  for (const projection of data.projections)
    parts.push(renderTextTable(projectionTable(projection), width));
  parts.push(wrapText(roundTripLine(data), width).join('\n'));
  return `${parts.join('\n')}\n`;
}

/** The report as Markdown, for READMEs and pull requests. */
export function renderMarkdown(data: ReportData): string {
  const parts = [
    `## ${escapeMarkdown(reportHeadline(data))}`,
    '',
    ...reportSummary(data).flatMap((text) => [escapeMarkdown(text), '']),
  ];
  if (data.fixtures.length > 0)
    parts.push(renderMarkdownTable(fixtureTable(data)), renderMarkdownTable(groupTable(data)));
  for (const projection of data.projections)
    parts.push(renderMarkdownTable(projectionTable(projection)));
  parts.push(roundTripLine(data));
  return `${parts.join('\n')}\n`;
}
