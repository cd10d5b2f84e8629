// `--html FILE`: the report as one self-contained page. Styles are inline and the bar charts are
// plain CSS boxes, so the file opens offline, in any browser, and can be mailed or attached.
//
// Layout: it reads on a phone (390 px) as on a desktop without scrolling the page sideways, and
// leads with the saving: every table shows its name column, then the saving columns (Δ against
// JSON), then the rest, and its name column stays pinned when the table scrolls in its own box;
// charts stack their columns on narrow screens. Each chart's colours mean one thing, and every
// colour of a bar is in the legend above it. Each chart
// has one scale for all its bars: the summary chart in percent saved, every payload chart in
// percent of the payload's JSON size, with one scale shared by all payload charts so that their
// bars compare across payloads too (scripts/check-html-width.ts checks the widths in Chromium).
import { countOf, formatDelta, formatInt } from '../format.js';
import type { Size } from './measure.js';
import type { FixtureReport, GroupSummary, ProjectionReport, ReportData } from './model.js';
import type { Table } from './table.js';
import {
  fixtureTable,
  groupTable,
  projectionTable,
  reportHeadline,
  reportSummary,
  roundTripLine,
} from './tables.js';

/** Candidate colours (payload and projection charts); none is the summary chart's teal or red. */
const PALETTE = ['#6b7280', '#2563eb', '#65a30d', '#d97706', '#9333ea', '#db2777'];
const PICKER_COLOR = '#111827';

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Renders the whole report as an HTML document: headline and summary, a chart of what the picker
 * saves per tool and combined, the per-tool table, bar charts of bytes and tokens for every
 * payload and candidate, the projection tables and charts, the per-payload table, and the
 * round-trip verdict.
 *
 * @example
 * await writeFile('report.html', renderHtml(data));
 */
export function renderHtml(data: ReportData): string {
  const colors = new Map(
    ['json', ...data.settings.candidates.filter((c) => c !== 'json')].map((name, i) => [
      name,
      PALETTE[i % PALETTE.length]!,
    ]),
  );
  colors.set('picker', PICKER_COLOR);
  const legend = [...colors.entries()]
    .filter(([name]) => name !== 'picker')
    .map(([name, color]) => legendKey(name, color))
    .join('');
  const projectionLegend = `<p class="legend">${[...colors.entries()].map(([name, color]) => legendKey(name, color)).join('')}<span class="note">bars in % of the full payload's JSON size</span></p>`;
  const sections: string[] = [];
  if (data.fixtures.length > 0) {
    sections.push(`<h2>What the picker saves against JSON</h2>${savingsChart(data)}`);
    sections.push(`<h2>Per tool</h2>${tableHtml(groupTable(data))}`);
    const scale = payloadScale(data.fixtures);
    sections.push(
      `<h2>Bytes and tokens per payload</h2><p class="legend">${legend} <span class="note">bars in % of the payload's JSON size, one scale for every payload (the longest bar is ${formatPercent(scale)}); ★ marks the picker's choice</span></p>`,
    );
    sections.push(data.fixtures.map((fixture) => fixtureChart(fixture, colors, scale)).join('\n'));
  }
  for (const projection of data.projections) {
    sections.push(
      `<h2>${escapeHtml(projectionTable(projection).title ?? projection.name)}</h2>${projectionLegend}${projectionChart(projection, colors)}${tableHtml({ ...projectionTable(projection), title: '' })}`,
    );
  }
  if (data.fixtures.length > 0)
    sections.push(`<h2>Per payload</h2>${tableHtml({ ...fixtureTable(data), title: '' })}`);
  sections.push(
    `<p class="${data.roundTrips.failed === 0 ? 'ok' : 'fail'}">${escapeHtml(roundTripLine(data))}</p>`,
  );
  if (data.errors.length > 0)
    sections.push(
      `<h2>Errors</h2><ul class="fail">${data.errors.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`,
    );

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toonwire report</title>
<style>
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#111827;overflow-wrap:break-word}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:2rem}
.scroll{overflow-x:auto;max-width:100%;margin:.5rem 0}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}
th,td{padding:.2rem .45rem;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:bottom;white-space:nowrap;background:#fff}
th.name,td.name{position:sticky;left:0;z-index:1;white-space:normal;min-width:7rem;max-width:16rem;box-shadow:1px 0 0 #e5e7eb}
td.saving{font-weight:600}
th{font-weight:600}
.summary{max-width:60rem}
td.r,th.r{text-align:right}tr.section td{font-weight:600;background:#f9fafb;white-space:normal}
.chart{display:grid;grid-template-columns:1fr 1fr;gap:.5rem 1.5rem;border-top:1px solid #e5e7eb;padding:.6rem 0}
.chart h3{grid-column:1/-1;margin:0;font-size:.95rem;overflow-wrap:anywhere}.chart h3 small{color:#6b7280;font-weight:400}
.bars{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:.15rem .5rem;align-items:center;font-size:12px;min-width:0}
.bars .title{grid-column:1/-1;color:#6b7280}
.bars>span:nth-child(even){overflow-wrap:anywhere}
.track{display:flex;align-items:center;gap:.4rem;min-width:0}.box{flex:1 1 auto;min-width:2rem}
.bar{display:block;height:1rem;border-radius:2px;min-width:1px;max-width:100%}.val{flex:0 0 auto;white-space:nowrap}
.savings{display:grid;grid-template-columns:max-content minmax(0,1fr) minmax(0,1fr);gap:.3rem .8rem;align-items:center;font-size:13px;margin:.5rem 0}
.savings .head{color:#6b7280;font-size:12px}
.savings .name{white-space:nowrap}.savings .total{font-weight:600}
.legend .key{margin-right:1rem;white-space:nowrap}.legend i{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px}
.note{color:#6b7280}.ok{color:#15803d}.fail{color:#b91c1c}
@media (max-width:40rem){
body{margin:1rem auto;padding:0 .75rem}
.chart{grid-template-columns:minmax(0,1fr)}
.savings{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
.savings .name{grid-column:1/-1;white-space:normal;overflow-wrap:anywhere;margin-top:.3rem}
.savings .head.name{display:none}
}
</style>
</head>
<body>
<h1>${escapeHtml(reportHeadline(data))}</h1>
${reportSummary(data)
  .map((text) => `<p class="summary">${escapeHtml(text)}</p>`)
  .join('\n')}
${sections.join('\n')}
</body>
</html>
`;
}

function legendKey(name: string, color: string): string {
  return `<span class="key"><i style="background:${color}"></i>${escapeHtml(name)}</span>`;
}

/** A ratio as a percentage with one decimal: 0.421 -> '42.1%'. */
function formatPercent(ratio: number): string {
  return `${(Math.round(ratio * 1000) / 10).toFixed(1)}%`;
}

/** Whether a column holds a saving against JSON (the figure the reader came for). */
function isSaving(column: Table['columns'][number]): boolean {
  return (
    column.group === 'Δ vs json' || column.header === 'Δ total' || column.header === 'vs full json'
  );
}

/**
 * The order a table's columns are shown in: the name column, the saving columns, what was
 * picked, then the rest as the text report has them.
 */
function columnOrder(table: Table): number[] {
  const indexes = table.columns.map((_, i) => i).slice(1);
  const picked = (i: number) => ['picked', 'picks', 'smaller'].includes(table.columns[i]!.header);
  const saving = indexes.filter((i) => isSaving(table.columns[i]!));
  const chosen = indexes.filter((i) => !isSaving(table.columns[i]!) && picked(i));
  const rest = indexes.filter((i) => !saving.includes(i) && !chosen.includes(i));
  return [0, ...saving, ...chosen, ...rest];
}

function tableHtml(table: Table): string {
  const order = columnOrder(table);
  const classes = (i: number) =>
    [i === 0 ? 'name' : '', table.columns[i]?.align === 'right' ? 'r' : '']
      .concat(isSaving(table.columns[i]!) ? ['saving'] : [])
      .filter(Boolean)
      .join(' ');
  const header = `<tr>${order
    .map((i) => table.columns[i]!)
    .map(
      (c, at) =>
        `<th class="${classes(order[at]!)}">${escapeHtml(c.group ? `${c.group} ${c.header}` : c.header)}</th>`,
    )
    .join('')}</tr>`;
  const body = table.rows
    .map((row) =>
      Array.isArray(row)
        ? `<tr>${order.map((i) => `<td class="${classes(i)}">${escapeHtml((row[i] ?? '').trim())}</td>`).join('')}</tr>`
        : `<tr class="section"><td colspan="${table.columns.length}">${escapeHtml(row.section)}</td></tr>`,
    )
    .join('\n');
  const notes = (table.notes ?? [])
    .filter((note) => note !== '')
    .map((note) => `<p class="note">${escapeHtml(note)}</p>`)
    .join('');
  // A table wider than the screen scrolls in its own box, never the page.
  return `<div class="scroll" role="region" tabindex="0"><table>${header}\n${body}</table></div>${notes}`;
}

/** The summary chart's colours: one meaning, which way the size went against JSON. */
const SAVED_COLORS = { saved: '#0f766e', worse: '#b91c1c' };

/**
 * The headline figures as one chart: per tool and combined, the share of bytes and of tokens
 * the picked texts save against JSON (Δ total), all on one scale.
 */
function savingsChart(data: ReportData): string {
  const summaries: GroupSummary[] = [
    ...data.groups,
    ...(data.groups.length > 1 ? [data.combined] : []),
  ];
  const scale = Math.max(
    0.001,
    ...summaries.flatMap((summary) => [
      Math.abs(summary.delta.bytes),
      Math.abs(summary.delta.tokens),
    ]),
  );
  const cell = (ratio: number) => {
    const width = ((Math.abs(ratio) / scale) * 100).toFixed(2);
    const color = ratio > 0 ? SAVED_COLORS.worse : SAVED_COLORS.saved;
    const text =
      ratio > 0
        ? `${formatPercent(ratio)} more`
        : ratio < 0
          ? `${formatPercent(-ratio)} saved`
          : 'same as JSON';
    return `<span class="track"><span class="box"><span class="bar" style="width:${width}%;background:${color}"></span></span><span class="val">${text}</span></span>`;
  };
  const rows = summaries
    .map((summary) => {
      const total = summary === data.combined;
      const name = total ? `combined (${countOf(summary.fixtures, 'payload')})` : summary.name;
      return `<span class="name${total ? ' total' : ''}">${escapeHtml(name)}</span>${cell(summary.delta.bytes)}${cell(summary.delta.tokens)}`;
    })
    .join('');
  return `<p class="legend">${legendKey('saved against JSON', SAVED_COLORS.saved)}${legendKey('larger than JSON', SAVED_COLORS.worse)}<span class="note">Δ total against JSON, one scale for the whole chart (the longest bar is ${formatPercent(scale)})</span></p><div class="savings"><span class="head name">tool</span><span class="head">bytes saved</span><span class="head">tokens saved</span>${rows}</div>`;
}

interface Bar {
  label: string;
  color: string;
  size: Size | undefined;
  picked: boolean;
  baseline: Size;
}

/** The longest bar of the payload charts, as a share of JSON: at least 100%. */
function payloadScale(fixtures: readonly FixtureReport[]): number {
  let scale = 1;
  for (const fixture of fixtures) {
    const json = fixture.candidates.find((c) => c.name === 'json')?.size;
    if (!json) continue;
    for (const candidate of fixture.candidates) {
      if (!candidate.size) continue;
      for (const measure of ['bytes', 'tokens'] as const)
        if (json[measure] > 0) scale = Math.max(scale, candidate.size[measure] / json[measure]);
    }
  }
  return scale;
}

/** Bars of one measure, each `size / baseline` on the chart's scale (a share of JSON). */
function bars(title: string, measure: keyof Size, entries: Bar[], scale: number): string {
  const rows = entries
    .map((entry) => {
      if (!entry.size)
        return `<span>${escapeHtml(entry.label)}</span><span class="note">cannot encode this payload</span>`;
      const value = entry.size[measure];
      const base = entry.baseline[measure];
      const width = base === 0 ? '0.00' : ((value / base / scale) * 100).toFixed(2);
      const delta =
        entry.label === 'json' ? '' : ` (${formatDelta(base === 0 ? 0 : (value - base) / base)})`;
      return `<span>${entry.picked ? '★ ' : ''}${escapeHtml(entry.label)}</span><span class="track"><span class="box"><span class="bar" style="width:${width}%;background:${entry.color}"></span></span><span class="val">${formatInt(value)}${delta}</span></span>`;
    })
    .join('');
  return `<div class="bars"><span class="title">${escapeHtml(title)}</span>${rows}</div>`;
}

function fixtureChart(fixture: FixtureReport, colors: Map<string, string>, scale: number): string {
  const baseline = fixture.candidates.find((c) => c.name === 'json')!.size!;
  const entries: Bar[] = fixture.candidates.map((c) => ({
    label: c.name,
    color: colors.get(c.name) ?? PALETTE[0]!,
    size: c.size,
    picked: c.name === fixture.picked.strategy,
    baseline,
  }));
  return `<div class="chart"><h3>${escapeHtml(fixture.group)} / ${escapeHtml(fixture.name)} <small>${fixture.items === null ? '' : `${fixture.items} items · `}picked ${escapeHtml(fixture.picked.strategy)}, ${formatDelta(fixture.delta.bytes)} bytes, ${formatDelta(fixture.delta.tokens)} tokens</small></h3>${bars('bytes (UTF-8)', 'bytes', entries, scale)}${bars('tokens', 'tokens', entries, scale)}</div>`;
}

/** A projection's chart: every row against the full payload as JSON, on one scale. */
function projectionChart(projection: ProjectionReport, colors: Map<string, string>): string {
  const baseline = projection.rows.find((r) => r.payload === 'full' && r.encoding === 'json')!
    .size!;
  const entries: Bar[] = projection.rows.map((row) => ({
    label: `${row.payload === 'full' ? 'full' : 'fields'} · ${row.encoding === 'picker' ? `picker (${row.strategy})` : row.encoding}`,
    color: colors.get(row.encoding) ?? PALETTE[0]!,
    size: row.size,
    picked: false,
    baseline,
  }));
  let scale = 1;
  for (const entry of entries)
    for (const measure of ['bytes', 'tokens'] as const)
      if (entry.size && baseline[measure] > 0)
        scale = Math.max(scale, entry.size[measure] / baseline[measure]);
  return `<div class="chart">${bars('bytes (UTF-8)', 'bytes', entries, scale)}${bars('tokens', 'tokens', entries, scale)}</div>`;
}
