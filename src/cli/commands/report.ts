// `toonwire report [files...]`: what toonwire would save, per payload and per tool, in bytes and
// tokens, with every encoding decoded back and checked. No arguments: the bundled corpus.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { JsonValue } from '../../codec/types.js';
import {
  type CandidateName,
  DEFAULT_CANDIDATES,
  loadTokenizer,
  type TokenizerName,
} from '../../compact/index.js';
import { CliError, EXIT_DATA, EXIT_USAGE, messageOf } from '../errors.js';
import { readTextFile, writeOutput } from '../input.js';
import { parseInput } from '../json-input.js';
import { candidatesOption, measureOption, parseFields, tokenizerOption } from '../options.js';
import { renderHtml } from '../report/html.js';
import { bundledInputs, fileInputs, type ReportInputs } from '../report/inputs.js';
import {
  itemCount,
  type MeasureSettings,
  measurePayload,
  type PayloadResult,
} from '../report/measure.js';
import {
  type FixtureReport,
  fixtureReport,
  type ProjectionReport,
  projectionRows,
  type ReportData,
  summarize,
  summarizeGroups,
} from '../report/model.js';
import { createProgress, progressMode } from '../report/progress.js';
import { renderMarkdown, renderText } from '../report/tables.js';

interface ReportCommandOptions {
  by: 'bytes' | 'tokens';
  tokenizer: TokenizerName;
  candidates?: CandidateName[];
  fields?: string[];
  json?: boolean;
  markdown?: boolean;
  html?: string;
  progress?: boolean;
}

/**
 * Adds `report` to the program.
 *
 * @example
 * registerReportCommand(program); // toonwire report exports/*.json --fields title,url --html report.html
 */
export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .summary('measure what the picker saves, in bytes and tokens (default: the bundled corpus)')
    .description(
      'Measure what the picker saves on JSON payloads, in bytes and tokens, and check that every encoding decodes back. With no files, measures the bundled corpus of Apify API responses.',
    )
    .argument(
      '[files...]',
      'JSON or JSONL files, directories, or quoted glob patterns (*, ?, **, [abc])',
    )
    .addOption(measureOption())
    .addOption(tokenizerOption())
    .addOption(candidatesOption())
    .option(
      '-f, --fields <list>',
      'also measure each payload projected to these fields (the projection table)',
      parseFields,
    )
    .option('--json', 'print the report as JSON')
    .option('--markdown', 'print the report as Markdown tables')
    .option('--html <file>', 'also write a self-contained HTML page with bar charts to <file>')
    .option('--progress', 'show progress on stderr even for small input')
    .option('--no-progress', 'never show progress')
    .addHelpText(
      'after',
      `
Every encoding is decoded back and compared with its input; any difference, or a file that
cannot be read or parsed, is reported on stderr naming the file, and the exit code is 1.
A file's group (the "tool" column) is the name of its directory.

Examples:
  toonwire report                                  the bundled Apify corpus
  toonwire report my-api-responses/                every .json/.jsonl file below the directory
  toonwire report 'exports/**/*.json' --by tokens
  toonwire report places.json --fields title,url,totalScore --html report.html`,
    )
    .action(async (files: string[], options: ReportCommandOptions) => {
      if (options.json && options.markdown)
        throw new CliError('choose one of --json and --markdown', EXIT_USAGE);
      const inputs =
        files.length > 0 ? await fileInputs(files, options.fields) : await bundledInputs();
      if (files.length === 0 && options.fields) {
        for (const projection of inputs.projections) projection.fields = options.fields;
      }
      const data = await buildReport(inputs, options);
      const rendered = options.json
        ? `${JSON.stringify(data, null, 2)}\n`
        : options.markdown
          ? renderMarkdown(data)
          : renderText(data);
      await writeOutput(rendered);
      if (options.html) {
        try {
          await writeFile(options.html, renderHtml(data));
        } catch (error) {
          throw new CliError(
            `${options.html}: cannot write the HTML report: ${messageOf(error)}`,
            EXIT_DATA,
          );
        }
      }
      if (data.errors.length > 0) {
        throw new CliError(data.errors.join('\n'), EXIT_DATA);
      }
    });
}

async function buildReport(
  inputs: ReportInputs,
  options: ReportCommandOptions,
): Promise<ReportData> {
  const candidates = options.candidates ?? [...DEFAULT_CANDIDATES];
  const settings: MeasureSettings = {
    candidates: candidates.filter((name) => name !== 'json'),
    by: options.by,
    tokenizer: options.tokenizer,
    countTokens: await loadTokenizer(options.tokenizer),
  };
  const errors: string[] = [];
  const texts = new Map<string, string>();
  // Read everything first: the total size decides whether progress is worth showing.
  for (const input of [...inputs.fixtures, ...inputs.projections]) {
    try {
      texts.set(input.file, await readTextFile(input.file));
    } catch (error) {
      errors.push(messageOf(error));
    }
  }
  const totalBytes = [...texts.values()].reduce((sum, text) => sum + text.length, 0);
  const work = inputs.fixtures.length + inputs.projections.length;
  const progress = createProgress(
    work,
    progressMode(options.progress, process.stderr.isTTY === true, totalBytes),
    (text) => {
      process.stderr.write(text);
    },
  );
  const parse = (file: string, path: string, format: 'json' | 'jsonl'): JsonValue | undefined => {
    const text = texts.get(file);
    if (text === undefined) return undefined;
    try {
      return parseInput(text, path, format);
    } catch (error) {
      errors.push(messageOf(error));
      return undefined;
    }
  };
  let checked = 0;
  let failed = 0;
  const measured = (path: string, value: JsonValue, fields?: readonly string[]): PayloadResult => {
    const result = measurePayload(value, settings, fields);
    checked += result.candidates.filter((candidate) => candidate.size !== undefined).length;
    failed += result.failures.length;
    for (const failure of result.failures)
      errors.push(
        `round trip failed for ${path}${fields ? ` (fields=${fields.join(',')})` : ''}: ${failure}`,
      );
    return result;
  };

  const fixtures: FixtureReport[] = [];
  const projections: ProjectionReport[] = [];
  for (const input of inputs.fixtures) {
    progress.step(input.path);
    const value = parse(input.file, input.path, input.format);
    if (value === undefined) continue;
    const items = itemCount(value);
    const result = measured(input.path, value);
    fixtures.push(
      fixtureReport({ name: input.name, group: input.group, path: input.path, items }, result),
    );
    if (inputs.projectFixtures) {
      const projected = measured(input.path, value, inputs.projectFixtures);
      projections.push({
        name: input.name,
        path: input.path,
        fields: inputs.projectFixtures,
        items,
        rows: projectionRows(result, projected),
      });
    }
  }
  for (const input of inputs.projections) {
    progress.step(input.path);
    const value = parse(input.file, input.path, input.format);
    if (value === undefined) continue;
    const full = measured(input.path, value);
    const projected = measured(input.path, value, input.fields);
    projections.push({
      name: input.name,
      path: input.path,
      fields: input.fields,
      items: itemCount(value),
      rows: projectionRows(full, projected),
    });
  }
  progress.done();

  return {
    source: inputs.source,
    settings: {
      by: options.by,
      tokenizer: options.tokenizer,
      candidates: ['json', ...settings.candidates],
    },
    fixtures,
    groups: summarizeGroups(fixtures),
    combined: summarize('combined', fixtures),
    projections,
    roundTrips: { checked, failed },
    errors,
  };
}
