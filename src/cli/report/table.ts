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

/** Shortest a first column may be cut to when a table must fit a narrow terminal. */
const MIN_LABEL = 16;

/**
 * Renders a table as aligned text with a two-line header when columns are grouped. A table wider
 * than `width` is split into blocks of columns that fit, each repeating the first column (cut
 * short with `…` when it alone is too wide), and its notes are wrapped: no line is longer than
 * `width`.
 *
 * @example
 * renderTextTable({ columns: [{ header: 'name' }, { header: 'bytes', align: 'right' }], rows: [['a', '12']] });
 * // name  bytes
 * // ────  ─────
 * // a         12
 */
export function renderTextTable(table: Table, width = Infinity): string {
  const natural = columnWidths(table);
  const total = natural.reduce((a, b) => a + b, 0) + 2 * (natural.length - 1);
  const notes = (table.notes ?? []).flatMap((note) => (note === '' ? [''] : wrapText(note, width)));
  const title = table.title === undefined ? undefined : wrapText(table.title, width).join('\n');
  if (total <= width || table.columns.length < 2) {
    return renderFitted({ ...table, notes, ...(title ? { title } : {}) });
  }
  // The first column, cut to leave room for at least one more column.
  const labelWidth = Math.max(
    Math.min(natural[0]!, width - 2 - Math.max(...natural.slice(1))),
    MIN_LABEL,
  );
  const cut = (text: string) =>
    text.length <= labelWidth ? text : `${text.slice(0, labelWidth - 1)}…`;
  const blocks: number[][] = [];
  let current: number[] = [];
  let used = labelWidth;
  for (let i = 1; i < table.columns.length; i++) {
    const need = 2 + natural[i]!;
    if (current.length > 0 && used + need > width) {
      blocks.push(current);
      current = [];
      used = labelWidth;
    }
    current.push(i);
    used += need;
  }
  if (current.length > 0) blocks.push(current);
  const parts = blocks.map((block, index) =>
    renderFitted({
      ...(index === 0 && title ? { title } : {}),
      columns: [0, ...block].map((i) => table.columns[i]!),
      rows: table.rows.map((row) => {
        const cells = cellsOf(row);
        if (!cells) return { section: cut((row as { section: string }).section) };
        return [0, ...block].map((i) => (i === 0 ? cut(cells[0] ?? '') : (cells[i] ?? '')));
      }),
      ...(table.rulesBefore ? { rulesBefore: table.rulesBefore } : {}),
      ...(index === blocks.length - 1 ? { notes } : {}),
    }),
  );
  return parts.join('\n');
}

/**
 * `text` broken at spaces into lines of at most `width` characters (a word longer than the
 * width stands on its own line).
 *
 * @example
 * wrapText('one two three', 7); // ['one two', 'three']
 */
export function wrapText(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function columnWidths(table: Table): number[] {
  const widths = table.columns.map((column, i) =>
    Math.max(column.header.length, ...table.rows.map((row) => (cellsOf(row)?.[i] ?? '').length)),
  );
  for (const span of groupSpans(table.columns)) {
    const inner =
      widths.slice(span.start, span.end).reduce((a, b) => a + b, 0) +
      2 * (span.end - span.start - 1);
    if (span.label.length > inner) widths[span.end - 1]! += span.label.length - inner;
  }
  return widths;
}

function renderFitted(table: Table): string {
  // A group label wider than its columns widens the last of them.
  const widths = columnWidths(table);
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
  const escapeCell = escapeInline;
  const out: string[] = [];
  if (table.title) out.push(`### ${escapeInline(table.title)}`, '');
  out.push(
    `| ${table.columns.map((c) => escapeCell(c.group ? `${c.header} (${c.group})` : c.header)).join(' | ')} |`,
  );
  out.push(`|${table.columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`);
  for (const row of table.rows) {
    const cells = cellsOf(row)?.map((cell) => escapeCell(cell.trim())) ?? [
      `**${escapeCell((row as { section: string }).section)}**`,
      ...table.columns.slice(1).map(() => ''),
    ];
    out.push(`| ${cells.join(' | ')} |`);
  }
  const notes = (table.notes ?? []).filter((note) => note !== '').map(escapeMarkdown);
  if (notes.length > 0) out.push('', ...notes);
  return `${out.join('\n')}\n`;
}

/**
 * Escapes the characters Markdown would read as formatting (emphasis, code, links, HTML, table
 * cells), so file names and legends show as written.
 *
 * @example
 * escapeMarkdown('* the picked one'); // '\\* the picked one'
 * escapeMarkdown('my_file|v2'); // 'my\\_file\\|v2'
 */
export function escapeMarkdown(text: string): string {
  return escapeInline(text).replace(/^([#+-])/, '\\$1');
}

/** {@link escapeMarkdown} for text inside a line (a table cell): no line-start rules. */
function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]<>|~]/g, '\\$&');
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
