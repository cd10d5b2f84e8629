// `toonwire pick [file]`: the adaptive picker on the command line. Prints the smallest
// encoding; `--explain` shows every candidate's size on stderr.
import type { Command } from 'commander';
import {
  byteLength,
  type CandidateName,
  DEFAULT_CANDIDATES,
  estimateTokenRange,
  guardVerdict,
  loadTokenizer,
  measureCandidates,
  pick,
  TOKEN_GUARD_RULE,
  type TokenEstimate,
  type TokenizerName,
} from '../../compact/index.js';
import { CliError, EXIT_DATA, formatError, messageOf } from '../errors.js';
import { type FieldPresence, fieldPresence, fieldsProblem } from '../fields.js';
import { formatInt } from '../format.js';
import { readInput, writeChunks, writeOutput } from '../input.js';
import { formatOfPath, type InputFormat, parseInput } from '../json-input.js';
import { refuseLossyNumbers } from '../lossy-numbers.js';
import {
  type CliMeasure,
  candidatesOption,
  lossyNumbersOption,
  measureOption,
  parseFields,
  tokenizerOption,
} from '../options.js';
import type { PayloadResult } from '../report/measure.js';
import { renderTextTable } from '../report/table.js';
import { measureRows, type StreamSettings, writeRows } from '../stream/measure.js';
import { byteProgress, PROGRESS_BYTES } from '../stream/progress.js';
import { streamableSize } from '../stream/read.js';

interface PickCommandOptions {
  by?: CliMeasure;
  tokenizer: TokenizerName;
  fields?: string[];
  candidates?: CandidateName[];
  explain?: boolean;
  jsonl?: boolean;
  stream?: boolean;
  allowLossyNumbers?: boolean;
}

/**
 * Adds `pick` to the program.
 *
 * @example
 * registerPickCommand(program); // toonwire pick places.json --fields title,url --explain
 */
export function registerPickCommand(program: Command): void {
  program
    .command('pick')
    .summary('print the smallest encoding of JSON: JSON or TOON')
    .description(
      'Print the smallest encoding of JSON input: JSON itself or one of the TOON candidates.',
    )
    .argument('[file]', 'JSON file to read; standard input when omitted or "-"')
    .addOption(measureOption())
    .addOption(tokenizerOption())
    .option(
      '-f, --fields <list>',
      "keep only these fields of each item first, e.g. 'title,url,totalScore'",
      parseFields,
    )
    .addOption(candidatesOption())
    .option('-e, --explain', "print every candidate's size and the choice to stderr")
    .option(
      '--jsonl',
      'read the input as JSON Lines, one value per line (default for .jsonl and .ndjson files)',
    )
    .option(
      '--stream',
      'read a JSON Lines file or JSON array file a row at a time, whatever its size (the default above 64 MB): three passes, bounded memory',
    )
    .addOption(lossyNumbersOption())
    .addHelpText(
      'after',
      '\nThe chosen text goes to stdout. To read it back, whichever format it is, use\n`toonwire decode --from-pick` (add --unflatten when --explain reports toon-flatten), or\nparseCompact(text, strategy) from the library.\n\nExamples:\n  toonwire pick runs.json --explain\n  toonwire pick places.json --fields title,url,totalScore --by tokens',
    )
    .action(async (file: string | undefined, options: PickCommandOptions) => {
      const by = options.by ?? 'auto';
      const format: InputFormat = options.jsonl ? 'jsonl' : formatOfPath(file ?? '');
      const size = await streamableSize(file, format, options.stream === true);
      if (file !== undefined && size !== undefined) {
        await pickStreamed(file, format, size, by, options);
        return;
      }
      const input = await readInput(file);
      const value = parseInput(input.text, input.source, format);
      if (options.allowLossyNumbers !== true) refuseLossyNumbers(input.text, input.source);
      const tokenizer =
        by === 'tokens' || options.explain ? await loadTokenizer(options.tokenizer) : undefined;
      // With --by tokens --explain the pick and the explanation size the same texts (tokenizing
      // is most of the time): the picker gets the same counter, remembering what it counted.
      const countTokens = tokenizer && (by === 'tokens' ? rememberCounts(tokenizer) : tokenizer);
      const pickOptions = {
        by: by === 'tokens' ? countTokens! : by,
        tokenizer: options.tokenizer,
        ...(options.fields ? { fields: options.fields } : {}),
        ...(options.candidates ? { candidates: options.candidates } : {}),
      };
      if (options.fields) {
        const fields = options.fields;
        checkFields(input.source, fields, fieldPresence(value, fields));
      }
      let result: ReturnType<typeof pick>;
      try {
        result = pick(value, pickOptions);
      } catch (error) {
        throw new CliError(`${input.source}: ${messageOf(error)}`, EXIT_DATA);
      }
      if (options.explain && countTokens) {
        // Sizes in both measures are computed below, so measuring by bytes here avoids tokenizing twice.
        const measured = measureCandidates(value, { ...pickOptions, by: 'bytes' });
        process.stderr.write(
          explain(
            measured.map((m) =>
              m.text === undefined
                ? { name: m.name, error: messageOf(m.error) }
                : {
                    name: m.name,
                    bytes: byteLength(m.text),
                    tokens: countTokens(m.text),
                    // The default measure's rule reads the estimate, whatever the column shows.
                    ...(by === 'auto' ? { estimate: estimateTokenRange(m.text) } : {}),
                  },
            ),
            result.strategy,
            by,
            false,
          ),
        );
      }
      await writeOutput(result.text);
    });
}

/**
 * Warns about fields no item has, naming the closest real ones; refuses (exit 1) when none of
 * the fields exists, since every item would be written as `{}`.
 */
function checkFields(source: string, fields: readonly string[], presence: FieldPresence): void {
  const problem = fieldsProblem(source, fields, presence);
  if (problem === undefined) return;
  if (problem.allMissing) throw new CliError(`${problem.message}; nothing was written`, EXIT_DATA);
  process.stderr.write(formatError(`warning: ${problem.message}`));
}

/** `count`, asked at most once per distinct text. */
function rememberCounts(count: (text: string) => number): (text: string) => number {
  const counts = new Map<string, number>();
  return (text) => {
    let tokens = counts.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      counts.set(text, tokens);
    }
    return tokens;
  };
}

/** The picker on a file too large for memory: size every candidate, then stream the winner. */
async function pickStreamed(
  file: string,
  format: InputFormat,
  size: number,
  by: CliMeasure,
  options: PickCommandOptions,
): Promise<void> {
  const settings: StreamSettings = {
    candidates: options.candidates ?? DEFAULT_CANDIDATES,
    by,
    checkNumbers: options.allowLossyNumbers !== true,
    ...(options.fields ? { fields: options.fields } : {}),
    ...(by === 'tokens' ? { countTokens: await loadTokenizer(options.tokenizer) } : {}),
  };
  const progress = byteProgress(
    file,
    size,
    process.stderr.isTTY === true && size >= PROGRESS_BYTES,
  );
  try {
    const result = await measureRows(file, format, settings, progress);
    progress.done();
    if (options.fields && result.fields) checkFields(file, options.fields, result.fields);
    if (options.explain)
      process.stderr.write(explainStreamed(result, by, settings.countTokens !== undefined));
    await writeChunks(
      writeRows(file, format, result.picked.strategy, settings, progress, result.shape),
    );
  } finally {
    progress.done();
  }
}

function explainStreamed(result: PayloadResult, by: CliMeasure, exact: boolean): string {
  return explain(
    result.candidates.map((c) =>
      c.size === undefined
        ? { name: c.name, error: c.error ?? 'failed' }
        : { name: c.name, bytes: c.size.bytes, tokens: c.size.tokens },
    ),
    result.picked.strategy,
    by,
    !exact,
  );
}

interface ExplainRow {
  name: string;
  bytes?: number;
  tokens?: number;
  /** The o200k_base estimate the default measure's rule reads (the tokens, when estimated). */
  estimate?: number | TokenEstimate;
  error?: string;
}

function explain(rows: ExplainRow[], chosen: string, by: CliMeasure, estimated: boolean): string {
  const table = explainTable(rows, chosen, by, estimated);
  // The default measure states its rule, since "smallest" alone would not explain a JSON pick.
  return by === 'auto' ? `${table}The rule (--by auto): ${TOKEN_GUARD_RULE}.\n` : table;
}

/** The note beside a candidate: picked, or passed over though smaller, and why. */
function explainNote(
  row: ExplainRow,
  json: ExplainRow | undefined,
  chosen: string,
  by: CliMeasure,
) {
  if (by !== 'auto') return row.name === chosen ? `picked (smallest by ${by})` : '';
  if (row.name === 'json') {
    return row.name === chosen ? 'picked: no TOON text passes the rule below' : '';
  }
  const jsonEstimate = json?.estimate ?? json?.tokens;
  const estimate = row.estimate ?? row.tokens;
  if (json?.bytes === undefined || jsonEstimate === undefined || estimate === undefined) {
    return row.name === chosen ? 'picked' : '';
  }
  const verdict = guardVerdict(row.bytes!, json.bytes, estimate, jsonEstimate);
  if (row.name === chosen) return `picked: ${verdict.reason}`;
  if (row.bytes! >= json.bytes) return '';
  return verdict.passes
    ? `passed over for a smaller text: ${verdict.reason}`
    : `passed over: ${verdict.reason}`;
}

function explainTable(
  rows: ExplainRow[],
  chosen: string,
  by: CliMeasure,
  estimated: boolean,
): string {
  const json = rows.find((row) => row.name === 'json');
  return renderTextTable({
    columns: [
      { header: 'candidate' },
      { header: 'bytes', align: 'right' },
      { header: estimated ? 'tokens (est.)' : 'tokens', align: 'right' },
      { header: 'note' },
    ],
    rows: rows.map((row) =>
      row.bytes === undefined || row.tokens === undefined
        ? [row.name, '-', '-', `dropped: ${row.error ?? 'failed'}`]
        : [
            row.name,
            formatInt(row.bytes),
            formatInt(row.tokens),
            explainNote(row, json, chosen, by),
          ],
    ),
  });
}
