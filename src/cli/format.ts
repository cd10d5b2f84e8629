// Number formatting for tables. Written by hand rather than with Intl so the output is the same
// under every locale and ICU build (the docs paste it verbatim).

/**
 * `count` and `noun`, the noun in the plural unless `count` is 1, the count with thousands
 * separators.
 *
 * @example
 * countOf(1, 'payload'); // '1 payload'
 * countOf(1200, 'payload'); // '1,200 payloads'
 */
export function countOf(count: number, noun: string): string {
  return `${formatInt(count)} ${count === 1 ? noun : `${noun}s`}`;
}

/**
 * An integer with thousands separators.
 *
 * @example
 * formatInt(1329660); // '1,329,660'
 */
export function formatInt(value: number): string {
  const sign = value < 0 ? '-' : '';
  const digits = String(Math.round(Math.abs(value)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A relative change as a signed percentage with one decimal.
 *
 * @example
 * formatDelta(-0.44); // '-44.0%'
 * formatDelta(0); // '0.0%'
 */
export function formatDelta(ratio: number): string {
  const percent = Math.round(ratio * 1000) / 10;
  if (percent === 0) return '0.0%';
  return `${percent > 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

/** `(value - baseline) / baseline`, 0 for an empty baseline. */
export function relativeChange(value: number, baseline: number): number {
  return baseline === 0 ? 0 : (value - baseline) / baseline;
}

/**
 * A byte count in the units the tables of the TOON adoption proposal for Apify's MCP server use (B, KB, MB; powers of 1000).
 *
 * @example
 * formatSize(1_010_000); // '1.01 MB'
 * formatSize(9_500); // '9.5 KB'
 */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${trim((bytes / 1000).toFixed(bytes < 10_000 ? 2 : 1))} KB`;
  return `${trim((bytes / 1_000_000).toFixed(2))} MB`;
}

function trim(text: string): string {
  return text.replace(/\.?0+$/, '');
}
