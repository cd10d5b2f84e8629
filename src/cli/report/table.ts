// One table model, two renderings: aligned plain text for the terminal and GitHub Markdown.
// The report builds its tables once and every output format draws the same cells.

/** A column of a {@link Table}. */
export interface Column {
  header: string;
  /** A label shared by adjacent columns ("bytes", "tokens"), drawn above their headers. */
  group?: string;
  align?: 'left' | 'right';
}

/** A row of cells, or a section heading spanning the whole table. */
export type Row = string[] | { section: string };

/** A titled grid of preformatted cells. */
export interface Table {
  title?: string;
  columns: Column[];
  rows: Row[];
  /** Row indexes before which a rule is drawn (e.g. before a "Combined" row). */
  rulesBefore?: number[];
  /** Lines printed under the table. */
  notes?: string[];
}

function cellsOf(row: Row): string[] | undefined {
  return Array.isArray(row) ? row : undefined;
}

/**
 * Renders a table as aligned text with a two-line header when columns are grouped.
 *
 * @example
 * renderTextTable({ columns: [{ header: 'name' }, { header: 'bytes', align: 'right' }], rows: [['a', '12']] });
 * // name  bytes
 * // ────  ─────
 * // a         12
 */
export function renderTextTable(table: Table): string {
  const widths = table.columns.map((column, i) =>
    Math.max(column.header.length, ...table.rows.map((row) => (cellsOf(row)?.[i] ?? '').length)),
  );
  // A group label wider than its columns widens the last of them.
  for (const span of groupSpans(table.columns)) {
    const inner =
      widths.slice(span.start, span.end).reduce((a, b) => a + b, 0) +
      2 * (span.end - span.start - 1);
    if (span.label.length > inner) widths[span.end - 1]! += span.label.length - inner;
  }
  const pad = (text: string, i: number) =>
    table.columns[i]!.align === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => pad(cell, i))
      .join('  ')
      .trimEnd();
  const totalWidth = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);

  const out: string[] = [];
  if (table.title) out.push(table.title, '');
  const spans = groupSpans(table.columns);
  if (spans.some((span) => span.label !== '')) {
    let header = '';
    for (const span of spans) {
      const width =
        widths.slice(span.start, span.end).reduce((a, b) => a + b, 0) +
        2 * (span.end - span.start - 1);
      header += `${span.label.padEnd(width)}  `;
    }
    out.push(header.trimEnd());
  }
  out.push(line(table.columns.map((column) => column.header)));
  out.push(widths.map((width) => '─'.repeat(width)).join('  '));
  table.rows.forEach((row, index) => {
    if (table.rulesBefore?.includes(index)) out.push('─'.repeat(totalWidth));
    const cells = cellsOf(row);
    out.push(cells ? line(cells) : (row as { section: string }).section);
  });
  for (const note of table.notes ?? []) out.push(note);
  return `${out.join('\n')}\n`;
}

/**
 * Renders a table as GitHub-flavoured Markdown. Grouped headers become "header (group)"; section
 * rows become a bold first cell.
 *
 * @example
 * renderMarkdownTable({ columns: [{ header: 'name' }, { header: 'bytes', align: 'right' }], rows: [['a', '12']] });
 * // | name | bytes |
 * // |---|---:|
 * // | a | 12 |
 */
export function renderMarkdownTable(table: Table): string {
  const escapeCell = (text: string) => text.replace(/\|/g, '\\|');
  const out: string[] = [];
  if (table.title) out.push(`### ${table.title}`, '');
  out.push(
    `| ${table.columns.map((c) => escapeCell(c.group ? `${c.header} (${c.group})` : c.header)).join(' | ')} |`,
  );
  out.push(`|${table.columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`);
  for (const row of table.rows) {
    const cells = cellsOf(row) ?? [
      `**${(row as { section: string }).section}**`,
      ...table.columns.slice(1).map(() => ''),
    ];
    out.push(`| ${cells.map((cell) => escapeCell(cell.trim())).join(' | ')} |`);
  }
  const notes = (table.notes ?? []).filter((note) => note !== '');
  if (notes.length > 0) out.push('', ...notes);
  return `${out.join('\n')}\n`;
}

/** Runs of adjacent columns sharing a group label ('' for ungrouped columns). */
export function groupSpans(
  columns: Column[],
): Array<{ label: string; start: number; end: number }> {
  const spans: Array<{ label: string; start: number; end: number }> = [];
  columns.forEach((column, i) => {
    const label = column.group ?? '';
    const last = spans[spans.length - 1];
    if (last && last.label === label && label !== '') last.end = i + 1;
    else spans.push({ label, start: i, end: i + 1 });
  });
  return spans;
}
