// `--html FILE`: the report as one self-contained page. Styles are inline and the bar charts are
// plain CSS boxes, so the file opens offline, in any browser, and can be mailed or attached.
import { formatDelta, formatInt } from '../format.js';
import type { Size } from './measure.js';
import type { FixtureReport, ProjectionReport, ReportData } from './model.js';
import type { Table } from './table.js';
import {
  fixtureTable,
  groupTable,
  projectionTable,
  reportHeadline,
  reportSummary,
  roundTripLine,
} from './tables.js';

const PALETTE = ['#6b7280', '#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626'];

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Renders the whole report as an HTML document: headline, per-tool table, bar charts of bytes
 * and tokens for every payload and candidate, the projection tables and charts, the per-payload
 * table, and the round-trip verdict.
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
  colors.set('picker', '#111827');
  const legend = [...colors.entries()]
    .filter(([name]) => name !== 'picker')
    .map(
      ([name, color]) =>
        `<span class="key"><i style="background:${color}"></i>${escapeHtml(name)}</span>`,
    )
    .join('');
  const sections: string[] = [];
  if (data.fixtures.length > 0) {
    sections.push(`<h2>Per tool</h2>${tableHtml(groupTable(data))}`);
    sections.push(
      `<h2>Bytes and tokens per payload</h2><p class="legend">${legend} <span class="note">bar length is relative to the payload's largest encoding; ★ marks the picker's choice</span></p>`,
    );
    sections.push(data.fixtures.map((fixture) => fixtureChart(fixture, colors)).join('\n'));
  }
  for (const projection of data.projections) {
    sections.push(
      `<h2>${escapeHtml(projectionTable(projection).title ?? projection.name)}</h2>${projectionChart(projection, colors)}${tableHtml({ ...projectionTable(projection), title: '' })}`,
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
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#111827}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.5rem 0;font-size:13px;max-width:100%}
th,td{padding:.2rem .45rem;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:bottom}
td{white-space:nowrap}td:first-child{white-space:normal;overflow-wrap:anywhere}th{font-weight:600}
.summary{max-width:60rem}
td.r,th.r{text-align:right}tr.section td{font-weight:600;background:#f9fafb}
.chart{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem;border-top:1px solid #e5e7eb;padding:.6rem 0}
.chart h3{grid-column:1/3;margin:0;font-size:.95rem}.chart h3 small{color:#6b7280;font-weight:400}
.bars{display:grid;grid-template-columns:minmax(7.5rem,max-content) 1fr;gap:.15rem .5rem;align-items:center;font-size:12px}
.bars .title{grid-column:1/3;color:#6b7280}
.track{display:flex;align-items:center;gap:.4rem}.box{flex:1 1 auto;min-width:0}
.bar{display:block;height:1rem;border-radius:2px;min-width:1px}.val{flex:0 0 8.5rem;white-space:nowrap}
.legend .key{margin-right:1rem}.legend i{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px}
.note{color:#6b7280}.ok{color:#15803d}.fail{color:#b91c1c}
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

function tableHtml(table: Table): string {
  const header = `<tr>${table.columns.map((c) => `<th class="${c.align === 'right' ? 'r' : ''}">${escapeHtml(c.group ? `${c.group} ${c.header}` : c.header)}</th>`).join('')}</tr>`;
  const body = table.rows
    .map((row) =>
      Array.isArray(row)
        ? `<tr>${row.map((cell, i) => `<td class="${table.columns[i]?.align === 'right' ? 'r' : ''}">${escapeHtml(cell.trim())}</td>`).join('')}</tr>`
        : `<tr class="section"><td colspan="${table.columns.length}">${escapeHtml(row.section)}</td></tr>`,
    )
    .join('\n');
  const notes = (table.notes ?? [])
    .filter((note) => note !== '')
    .map((note) => `<p class="note">${escapeHtml(note)}</p>`)
    .join('');
  return `<table>${header}\n${body}</table>${notes}`;
}

interface Bar {
  label: string;
  color: string;
  size: Size | undefined;
  picked: boolean;
  baseline: Size;
}

function bars(title: string, measure: keyof Size, entries: Bar[]): string {
  const max = Math.max(1, ...entries.map((e) => e.size?.[measure] ?? 0));
  const rows = entries
    .map((entry) => {
      if (!entry.size)
        return `<span>${escapeHtml(entry.label)}</span><span class="note">cannot encode this payload</span>`;
      const value = entry.size[measure];
      const width = ((value / max) * 100).toFixed(2);
      const delta =
        entry.label === 'json'
          ? ''
          : ` (${formatDelta(entry.baseline[measure] === 0 ? 0 : (value - entry.baseline[measure]) / entry.baseline[measure])})`;
      return `<span>${entry.picked ? '★ ' : ''}${escapeHtml(entry.label)}</span><span class="track"><span class="box"><span class="bar" style="width:${width}%;background:${entry.color}"></span></span><span class="val">${formatInt(value)}${delta}</span></span>`;
    })
    .join('');
  return `<div class="bars"><span class="title">${escapeHtml(title)}</span>${rows}</div>`;
}

function fixtureChart(fixture: FixtureReport, colors: Map<string, string>): string {
  const baseline = fixture.candidates.find((c) => c.name === 'json')!.size!;
  const entries: Bar[] = fixture.candidates.map((c) => ({
    label: c.name,
    color: colors.get(c.name) ?? PALETTE[0]!,
    size: c.size,
    picked: c.name === fixture.picked.strategy,
    baseline,
  }));
  return `<div class="chart"><h3>${escapeHtml(fixture.group)} / ${escapeHtml(fixture.name)} <small>${fixture.items === null ? '' : `${fixture.items} items · `}picked ${escapeHtml(fixture.picked.strategy)}, ${formatDelta(fixture.delta.bytes)} bytes, ${formatDelta(fixture.delta.tokens)} tokens</small></h3>${bars('bytes (UTF-8)', 'bytes', entries)}${bars('tokens', 'tokens', entries)}</div>`;
}

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
  return `<div class="chart">${bars('bytes (UTF-8)', 'bytes', entries)}${bars('tokens', 'tokens', entries)}</div>`;
}
