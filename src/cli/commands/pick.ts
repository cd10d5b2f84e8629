// `toonwire pick [file]`: the adaptive picker on the command line. Prints the smallest
// encoding; `--explain` shows every candidate's size on stderr.
import type { Command } from 'commander';
import {
  byteLength,
  type CandidateName,
  loadTokenizer,
  measureCandidates,
  pick,
  type TokenizerName,
} from '../../compact/index.js';
import { CliError, EXIT_DATA, messageOf } from '../errors.js';
import { formatInt } from '../format.js';
import { readInput, writeOutput } from '../input.js';
import { formatOfPath, parseInput } from '../json-input.js';
import { candidatesOption, measureOption, parseFields, tokenizerOption } from '../options.js';
import { renderTextTable } from '../report/table.js';

interface PickCommandOptions {
  by: 'bytes' | 'tokens';
  tokenizer: TokenizerName;
  fields?: string[];
  candidates?: CandidateName[];
  explain?: boolean;
  jsonl?: boolean;
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
    .addHelpText(
      'after',
      '\nThe chosen text goes to stdout. To read it back, use `toonwire decode` (add --unflatten when\n--explain reports toon-flatten), or parseCompact(text, strategy) from the library.\n\nExamples:\n  toonwire pick runs.json --explain\n  toonwire pick places.json --fields title,url,totalScore --by tokens',
    )
    .action(async (file: string | undefined, options: PickCommandOptions) => {
      const input = await readInput(file);
      const value = parseInput(
        input.text,
        input.source,
        options.jsonl ? 'jsonl' : formatOfPath(input.source),
      );
      const countTokens =
        options.by === 'tokens' || options.explain
          ? await loadTokenizer(options.tokenizer)
          : undefined;
      const pickOptions = {
        by: options.by,
        tokenizer: options.tokenizer,
        ...(options.fields ? { fields: options.fields } : {}),
        ...(options.candidates ? { candidates: options.candidates } : {}),
      };
      let result: ReturnType<typeof pick>;
      try {
        result = pick(value, pickOptions);
      } catch (error) {
        throw new CliError(`${input.source}: ${messageOf(error)}`, EXIT_DATA);
      }
      if (options.explain && countTokens) {
        // Sizes in both measures are computed below, so measuring by bytes here avoids tokenizing twice.
        process.stderr.write(
          explain(
            measureCandidates(value, { ...pickOptions, by: 'bytes' }),
            result.strategy,
            options.by,
            countTokens,
          ),
        );
      }
      await writeOutput(result.text);
    });
}

function explain(
  measurements: ReturnType<typeof measureCandidates>,
  chosen: string,
  by: 'bytes' | 'tokens',
  countTokens: (text: string) => number,
): string {
  const rows = measurements.map((m) =>
    m.text === undefined
      ? [m.name, '-', '-', `dropped: ${messageOf(m.error)}`]
      : [
          m.name,
          formatInt(byteLength(m.text)),
          formatInt(countTokens(m.text)),
          m.name === chosen ? `picked (smallest by ${by})` : '',
        ],
  );
  return renderTextTable({
    columns: [
      { header: 'candidate' },
      { header: 'bytes', align: 'right' },
      { header: 'tokens', align: 'right' },
      { header: 'note' },
    ],
    rows,
  });
}
