// The names closest to a wrong one, for "did you mean" answers: the CLI's `--fields` suggestions
// (cli/fields.ts) and the proxy's unknown-tool answers and typo-tolerant tool search
// (mcp/proxy/tool-search.ts). Portable: plain string work, no Node built-ins.

/** How two strings may differ by one edit. */
export interface EditOptions {
  /**
   * Whether swapping two adjacent characters is one edit (optimal string alignment distance)
   * rather than two (Levenshtein). Default `false`.
   */
  swaps?: boolean;
}

/**
 * The fewest edits that turn `a` into `b`: insertions, deletions and substitutions of UTF-16 code
 * units, and with `swaps` transpositions of two adjacent ones (optimal string alignment).
 *
 * @example
 * editDistance('read_fil', 'read_file'); // 1
 * editDistance('nmae', 'name'); // 2
 * editDistance('nmae', 'name', { swaps: true }); // 1
 */
export function editDistance(a: string, b: string, options: EditOptions = {}): number {
  const swaps = options.swaps === true;
  // Three rows: the one before the previous is read only for a swap.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** How `closest` measures and which candidates it keeps. */
export interface ClosestOptions {
  /** How far a candidate is from the wanted string. Default: `editDistance` without swaps. */
  distance?: (wanted: string, candidate: string) => number;
  /** Keep only candidates at most this far. Default: every candidate. */
  within?: number;
}

/**
 * The candidates closest to `wanted`, closest first; candidates equally far keep their order.
 *
 * @example
 * closest('read_txt_file', ['write_file', 'read_file', 'read_text_file'], { within: 4 }); // ['read_text_file', 'read_file']
 */
export function closest(
  wanted: string,
  candidates: Iterable<string>,
  options: ClosestOptions = {},
): string[] {
  const distance = options.distance ?? editDistance;
  const within = options.within ?? Number.POSITIVE_INFINITY;
  const measured: Array<{ candidate: string; distance: number }> = [];
  for (const candidate of candidates) {
    const far = distance(wanted, candidate);
    if (far <= within) measured.push({ candidate, distance: far });
  }
  // Array.prototype.sort is stable: ties stay in the candidates' order.
  return measured.sort((x, y) => x.distance - y.distance).map(({ candidate }) => candidate);
}
