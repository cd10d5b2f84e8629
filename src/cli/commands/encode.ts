// `toonwire encode [file]`: JSON in, canonical TOON out. A large JSON Lines file or JSON array is
// encoded in two passes over the file (count and shape, then rows), in bounded memory.
import type { Command } from 'commander';
import { encode } from '../../codec/encode.js';
import type { Delimiter, EncodeOptions, JsonValue } from '../../codec/types.js';
import { CliError, EXIT_DATA, messageOf } from '../errors.js';
import { readInput, writeChunks, writeOutput } from '../input.js';
import { formatOfPath, type InputFormat, parseInput } from '../json-input.js';
import { parseDelimiter, parsePositiveInteger } from '../options.js';
import { ArrayShape, BATCH_ROWS } from '../stream/encode.js';
import { type ByteProgress, byteProgress, PROGRESS_BYTES } from '../stream/progress.js';
import { readRows, streamableSize } from '../stream/read.js';

interface EncodeCommandOptions {
  delimiter: Delimiter;
  indent: number;
  jsonl?: boolean;
  stream?: boolean;
}

/**
 * Adds `encode` to the program.
 *
 * @example
 * registerEncodeCommand(program); // toonwire encode data.json --delimiter tab
 */
export function registerEncodeCommand(program: Command): void {
  program
    .command('encode')
    .summary('encode JSON as TOON')
    .description(
      'Encode JSON (or JSON Lines) as TOON. JSON Lines files and JSON arrays larger than 64 MB are read twice, a row at a time, so memory stays bounded at any size.',
    )
    .argument('[file]', 'JSON file to read; standard input when omitted or "-"')
    .option(
      '-d, --delimiter <delimiter>',
      "delimiter for tables and inline arrays: ',' (comma), '|' (pipe) or tab",
      parseDelimiter,
      ',',
    )
    .option('-i, --indent <spaces>', 'spaces per indentation level', parsePositiveInteger, 2)
    .option(
      '--jsonl',
      'read the input as JSON Lines, one value per line (default for .jsonl and .ndjson files)',
    )
    .option(
      '--stream',
      'read a JSON Lines file or JSON array file a row at a time, whatever its size (the default above 64 MB)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  toonwire encode runs.json\n  toonwire encode export.jsonl > export.toon\n  curl -s https://api.example.com/items | toonwire encode --delimiter tab',
    )
    .action(async (file: string | undefined, options: EncodeCommandOptions) => {
      const encodeOptions: EncodeOptions = {
        delimiter: options.delimiter,
        indentSize: options.indent,
      };
      const format: InputFormat = options.jsonl ? 'jsonl' : formatOfPath(file ?? '');
      const size = await streamableSize(file, format, options.stream === true);
      if (file !== undefined && size !== undefined) {
        const progress = byteProgress(
          file,
          size,
          process.stderr.isTTY === true && size >= PROGRESS_BYTES,
        );
        try {
          await writeChunks(encodeRows(file, format, encodeOptions, progress));
        } finally {
          progress.done();
        }
        return;
      }
      const input = await readInput(file);
      const value = parseInput(input.text, input.source, format);
      let text: string;
      try {
        text = encode(value, encodeOptions);
      } catch (error) {
        // JSON input is plain data, so only what TOON cannot carry fails: an unpaired
        // surrogate, or nesting deeper than decoders accept.
        throw new CliError(`${input.source}: ${messageOf(error)}`, EXIT_DATA);
      }
      await writeOutput(text);
    });
}

/**
 * The TOON text of a file's rows, a batch at a time: pass 1 counts the rows and finds the
 * array's form, pass 2 encodes them.
 */
export async function* encodeRows(
  file: string,
  format: InputFormat,
  options: EncodeOptions,
  progress: ByteProgress,
): AsyncGenerator<string> {
  const shape = new ArrayShape(options);
  for await (const row of readRows(file, format, progress.pass('pass 1 of 2')))
    shape.observe(row.value);
  yield shape.header();
  let batch: JsonValue[] = [];
  const flush = (): string => {
    try {
      return shape.batch(batch);
    } catch (error) {
      throw new CliError(`${file}: ${messageOf(error)}`, EXIT_DATA);
    } finally {
      batch = [];
    }
  };
  for await (const row of readRows(file, format, progress.pass('pass 2 of 2'))) {
    batch.push(row.value);
    if (batch.length === BATCH_ROWS) yield flush();
  }
  yield flush();
}
