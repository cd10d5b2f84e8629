// `toonwire report [files...]`: what toonwire would save, per payload and per tool, in bytes and
// tokens, with every encoding decoded back and checked. No arguments: the bundled corpus.
import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import {
  type CandidateName,
  DEFAULT_CANDIDATES,
  loadTokenizer,
  type TokenizerName,
} from '../../compact/index.js';
import {
  CliError,
  EXIT_DATA,
  EXIT_USAGE,
  formatError,
  messageOf,
  writeErrorReason,
} from '../errors.js';
import { type FieldPresence, fieldPresence, fieldsProblem } from '../fields.js';
import { readTextFile, stdinHasInput, writeOutput } from '../input.js';
import { type InputFormat, parseInput } from '../json-input.js';
import { collectGarbage } from '../memory.js';
import {
  type CliMeasure,
  candidatesOption,
  measureOption,
  parseFields,
  tokenizerOption,
} from '../options.js';
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
import { measureRows } from '../stream/measure.js';
import { byteProgress } from '../stream/progress.js';
import { fileSize, STREAM_BYTES, startsWithArray } from '../stream/read.js';

interface ReportCommandOptions {
  by?: CliMeasure;
  tokenizer: TokenizerName;
  candidates?: CandidateName[];
  fields?: string[];
  json?: boolean;
  markdown?: boolean;
  html?: string;
  progress?: boolean;
  jsonl?: boolean;
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
    .summary('measure what the picker saves, in bytes and tokens')
    .description(
      'Measure what the picker saves on JSON payloads, in bytes and tokens, and check that every encoding decodes back. With no files, measures the JSON piped in on standard input, or, when nothing is piped in, the sample corpus of Apify API responses, which lives in a clone of the repository (the installed package does not ship it). Files are measured one at a time; JSON Lines files and JSON arrays over 64 MB a batch of rows at a time.',
    )
    .argument(
      '[files...]',
      'JSON or JSONL files, directories, quoted glob patterns (*, ?, **, [abc]), or "-" for standard input (read when no file is given and data is piped in)',
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
    .option(
      '--jsonl',
      'read every input as JSON Lines, one value per line (default for .jsonl and .ndjson files)',
    )
    .option('--progress', 'show progress on stderr even for small input')
    .option('--no-progress', 'never show progress')
    .addHelpText(
      'after',
      `
Every encoding is decoded back and compared with its input; any difference, or a file that
cannot be read or parsed, is reported on stderr naming the file (the other files are still
measured), and the exit code is 1. A file's group (the "tool" column) is its directory's name.
Tables fit the terminal's width (COLUMNS, or the terminal's own).

Examples:
  toonwire report                                  the sample Apify corpus (in a clone)
  toonwire report my-api-responses/                every .json/.jsonl file below the directory
  curl -s https://api.example.com/items | toonwire report
  toonwire report 'exports/**/*.json' --by tokens
  toonwire report places.json --fields title,url,totalScore --html report.html`,
    )
    .action(async (files: string[], options: ReportCommandOptions) => {
      if (options.json && options.markdown)
        throw new CliError('choose one of --json and --markdown', EXIT_USAGE);
      // Before measuring, which can take minutes: a page that cannot be written fails now.
      if (options.html) await assertWritable(options.html);
      // Piped data is the payload, as for the other commands; with none, the sample corpus.
      const named = files.length > 0 ? files : (await stdinHasInput()) ? ['-'] : [];
      const format = options.jsonl ? 'jsonl' : undefined;
      const inputs =
        named.length > 0 ? await fileInputs(named, options.fields, format) : await bundledInputs();
      if (named.length === 0 && options.fields) {
        for (const projection of inputs.projections) projection.fields = options.fields;
      }
      const data = await buildReport(inputs, options);
      for (const warning of data.warnings) process.stderr.write(formatError(`warning: ${warning}`));
      // Nothing measured: an empty report ("all 0 encodings decode back") would only hide the errors.
      if (data.fixtures.length === 0 && data.projections.length === 0 && data.errors.length > 0)
        throw new CliError(
          `${data.errors.join('\n')}\nnothing to report: no file could be measured`,
          EXIT_DATA,
        );
      const rendered = options.json
        ? `${JSON.stringify(data, null, 2)}\n`
        : options.markdown
          ? renderMarkdown(data)
          : renderText(data, outputWidth());
      await writeOutput(rendered);
      if (options.html) {
        try {
          await writeFile(options.html, renderHtml(data));
        } catch (error) {
          throw htmlWriteError(options.html, error);
        }
      }
      if (data.errors.length > 0) throw new CliError(data.errors.join('\n'), EXIT_DATA);
    });
}

/** The width tables must fit: `COLUMNS`, else the terminal's, else unlimited. */
function outputWidth(): number {
  const fromEnv = Number(process.env['COLUMNS']);
  if (Number.isInteger(fromEnv) && fromEnv >= 40) return fromEnv;
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : Infinity;
}

/**
 * Files from this size on are measured with full garbage collections between steps: a few tens
 * of milliseconds each, against seconds of tokenizing such a file, and they keep a 10 MB file's
 * report under half the memory it took without (bench/scale.bench.ts).
 */
const COLLECT_BYTES = 4 * 1024 * 1024;

async function buildReport(
  inputs: ReportInputs,
  options: ReportCommandOptions,
): Promise<ReportData> {
  const by = options.by ?? 'auto';
  const candidates = options.candidates ?? [...DEFAULT_CANDIDATES];
  const settings: MeasureSettings = {
    candidates: candidates.filter((name) => name !== 'json'),
    by,
    tokenizer: options.tokenizer,
    countTokens: await loadTokenizer(options.tokenizer),
  };
  const errors: string[] = [];
  const warnings: string[] = [];
  const all = [...inputs.fixtures, ...inputs.projections];
  const sizes = new Map<string, number | undefined>();
  for (const input of all) sizes.set(input.file, await fileSize(input.file).catch(() => undefined));
  const totalBytes = [...sizes.values()].reduce<number>((sum, size) => sum + (size ?? 0), 0);
  const mode = progressMode(options.progress, process.stderr.isTTY === true, totalBytes);
  const progress = createProgress(all.length, mode, (text) => {
    process.stderr.write(text);
  });
  let checked = 0;
  let failed = 0;
  const record = (path: string, result: PayloadResult, fields?: readonly string[]) => {
    checked += result.candidates.filter((candidate) => candidate.size !== undefined).length;
    failed += result.failures.length;
    for (const failure of result.failures)
      errors.push(
        `${path}: round trip failed${fields ? ` (fields=${fields.join(',')})` : ''}: ${failure}`,
      );
    return result;
  };
  /**
   * Warns about fields no item has (naming the closest real ones); false when none exists, so
   * the projection, which would keep nothing, is left out rather than reported as a saving.
   */
  const keepProjection = (path: string, fields: readonly string[], presence: FieldPresence) => {
    const problem = fieldsProblem(path, fields, presence);
    if (problem === undefined) return true;
    warnings.push(
      problem.allMissing ? `${problem.message}; the projection is left out` : problem.message,
    );
    return !problem.allMissing;
  };
  /** One file, read, parsed and measured on its own: nothing of it is kept but the figures. */
  const measureFile = async (
    input: { file: string; path: string; format: InputFormat },
    fields: readonly string[] | undefined,
  ): Promise<{
    full: PayloadResult;
    projected: PayloadResult | undefined;
    items: number | null;
  }> => {
    const size = sizes.get(input.file);
    if (
      size !== undefined &&
      size > STREAM_BYTES &&
      (input.format === 'jsonl' || (await startsWithArray(input.file)))
    ) {
      const bytes = byteProgress(input.path, size, mode !== 'off');
      if (by !== 'tokens') estimated.push(input.path);
      // Exact counting runs at about 1.5 MB/s (gpt-tokenizer's BPE), so a streamed file's
      // tokens are estimated unless the picker itself counts them (--by tokens).
      const stream = {
        candidates: settings.candidates,
        by,
        ...(by === 'tokens' ? { countTokens: settings.countTokens } : {}),
        roundTrip: true,
      };
      try {
        const full = await measureRows(input.file, input.format, stream, bytes);
        let projected = fields
          ? await measureRows(input.file, input.format, { ...stream, fields }, bytes)
          : undefined;
        if (fields && projected?.fields && !keepProjection(input.path, fields, projected.fields))
          projected = undefined;
        return {
          full: record(input.path, full),
          projected: projected && record(input.path, projected, fields),
          items: full.rows,
        };
      } finally {
        bytes.done();
      }
    }
    // A large file is measured with full collections between its steps (see memory.ts), and
    // after the files before it, whose garbage would otherwise set the heap this one starts in.
    const large = size !== undefined && size >= COLLECT_BYTES;
    if (large) collectGarbage();
    const stepSettings: MeasureSettings = large
      ? { ...settings, afterStep: collectGarbage }
      : settings;
    const value = parseInput(await readTextFile(input.file), input.path, input.format);
    const projectFields =
      fields && keepProjection(input.path, fields, fieldPresence(value, fields))
        ? fields
        : undefined;
    return {
      full: record(input.path, measurePayload(value, stepSettings)),
      projected: projectFields
        ? record(input.path, measurePayload(value, stepSettings, projectFields), projectFields)
        : undefined,
      items: itemCount(value),
    };
  };
  const failedFile = (path: string, error: unknown) => {
    const message = messageOf(error);
    errors.push(message.startsWith(path) ? message : `${path}: ${message}`);
  };

  const fixtures: FixtureReport[] = [];
  const projections: ProjectionReport[] = [];
  /** The streamed files whose tokens are estimated (see measureFile). */
  const estimated: string[] = [];
  /** Measures one file, whole and projected to `fields`; `fixture` also lists it as a payload. */
  const measureInput = async (
    input: { name: string; file: string; path: string; format: InputFormat },
    fields: string[] | undefined,
    fixture?: { group: string },
  ) => {
    progress.step(input.path);
    try {
      const { full, projected, items } = await measureFile(input, fields);
      if (fixture) {
        fixtures.push(
          fixtureReport({ name: input.name, group: fixture.group, path: input.path, items }, full),
        );
      }
      if (projected && fields) {
        projections.push({
          name: input.name,
          path: input.path,
          fields,
          items,
          rows: projectionRows(full, projected),
        });
      }
    } catch (error) {
      failedFile(input.path, error);
    }
  };
  for (const input of inputs.fixtures) await measureInput(input, inputs.projectFixtures, input);
  for (const input of inputs.projections) await measureInput(input, input.fields);
  progress.done();

  return {
    source: inputs.source,
    settings: {
      by,
      tokenizer: options.tokenizer,
      candidates: ['json', ...settings.candidates],
      ...(estimated.length > 0 ? { tokensEstimatedFor: [...new Set(estimated)] } : {}),
    },
    fixtures,
    groups: summarizeGroups(fixtures),
    combined: summarize('combined', fixtures),
    projections,
    roundTrips: { checked, failed },
    errors,
    warnings,
  };
}

/** The refusal of an HTML report path that cannot be written, with the reason in words. */
function htmlWriteError(path: string, error: unknown): CliError {
  const reason =
    (error as NodeJS.ErrnoException).code === undefined
      ? messageOf(error)
      : writeErrorReason(error as NodeJS.ErrnoException);
  return new CliError(`${path}: cannot write the HTML report: ${reason}`, EXIT_DATA);
}

/**
 * Fails, before any measuring, when `path` cannot be written: a directory, or a file whose
 * directory is missing or not writable. Nothing is created.
 */
async function assertWritable(path: string): Promise<void> {
  try {
    const existing = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.isDirectory())
      throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    await access(existing === undefined ? dirname(path) : path, constants.W_OK);
  } catch (error) {
    throw htmlWriteError(path, error);
  }
}
