// `toonwire encode [file]`: JSON in, canonical TOON out. A large JSON Lines file or JSON array is
// encoded in one read of the file, in bounded memory: rows encoded as they come into a temporary
// file, then the header (which counts them) and that file (two reads when the rows' form changes
// midway).
import type { Command } from 'commander';
import { encode } from '../../codec/encode.js';
import type { Delimiter, EncodeOptions, JsonValue } from '../../codec/types.js';
import { CliError, EXIT_DATA, messageOf } from '../errors.js';
import { output, readInput, writeChunks, writeOutput, written } from '../input.js';
import { formatOfPath, type InputFormat, parseInput } from '../json-input.js';
import { refuseLossyNumbers } from '../lossy-numbers.js';
import { lossyNumbersOption, parseDelimiter, parseIndent } from '../options.js';
import { type ArrayForm, ArrayShape } from '../stream/encode.js';
import { type ByteProgress, byteProgress, PROGRESS_BYTES } from '../stream/progress.js';
import { readRowBatches, streamableSize } from '../stream/read.js';
import { Spool } from '../stream/spool.js';

interface EncodeCommandOptions {
  delimiter: Delimiter;
  indent: number;
  jsonl?: boolean;
  stream?: boolean;
  allowLossyNumbers?: boolean;
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
      'Encode JSON (or JSON Lines) as TOON. JSON Lines files and JSON arrays larger than 64 MB are read a batch of rows at a time, the rows set aside in a temporary file until the header is known, so memory stays bounded at any size.',
    )
    .argument('[file]', 'JSON file to read; standard input when omitted or "-"')
    .option(
      '-d, --delimiter <delimiter>',
      "delimiter for tables and inline arrays: ',' (comma), '|' (pipe) or tab",
      parseDelimiter,
      ',',
    )
    .option('-i, --indent <spaces>', 'spaces per indentation level, 1 to 32', parseIndent, 2)
    .option(
      '--jsonl',
      'read the input as JSON Lines, one value per line (default for .jsonl and .ndjson files)',
    )
    .option(
      '--stream',
      'read a JSON Lines file or JSON array file a row at a time, whatever its size (the default above 64 MB)',
    )
    .addOption(lossyNumbersOption())
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
      const checkNumbers = options.allowLossyNumbers !== true;
      const size = await streamableSize(file, format, options.stream === true);
      if (file !== undefined && size !== undefined) {
        const progress = byteProgress(
          file,
          size,
          process.stderr.isTTY === true && size >= PROGRESS_BYTES,
        );
        try {
          await encodeLargeFile(file, format, encodeOptions, progress, checkNumbers);
        } finally {
          progress.done();
        }
        return;
      }
      const input = await readInput(file);
      const value = parseInput(input.text, input.source, format);
      if (checkNumbers) refuseLossyNumbers(input.text, input.source);
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
 * Writes the TOON text of a large file's rows to stdout in one read of the file: each batch of
 * rows is encoded as it is read, in the form the rows so far take, and set aside in a
 * temporary file (the header, which counts the rows, must come first); at the end the header
 * goes out, then the spool. Should a later row change the array's form (a row that does not
 * fit the table), the rest is only observed and the file is read again ({@link encodeRows}),
 * as it is when no temporary file can be made. With `checkNumbers`, a number JSON.parse cannot
 * read exactly refuses the file before anything is written (lossy-numbers.ts).
 *
 * @example
 * await encodeLargeFile('rows.json', 'json', { delimiter: ',' }, byteProgress('rows.json', size, false));
 */
export async function encodeLargeFile(
  file: string,
  format: InputFormat,
  options: EncodeOptions,
  progress: ByteProgress,
  checkNumbers = false,
): Promise<void> {
  const spool = Spool.open();
  if (spool === undefined)
    return writeChunks(encodeRows(file, format, options, progress, checkNumbers));
  try {
    const shape = new ArrayShape(options);
    let form: ArrayForm | undefined;
    let spooled = true;
    for await (const values of readRowBatches(
      file,
      format,
      progress.pass('encoding'),
      checkNumbers,
    )) {
      for (let i = 0; i < values.length; i++) shape.observe(values[i]!);
      form ??= shape.form;
      if (form !== shape.form) continue;
      spooled = setAside(spool, encodeBatch(file, shape, values));
      if (!spooled) break;
    }
    if (spooled && form !== undefined && form !== shape.form) {
      spool.close();
      return writeChunks(encodeObserved(file, format, shape.rewound(), progress));
    }
    // Everything reaches the temporary file before the header goes out, so a full temporary
    // directory is found while stdout is still untouched: then two reads of the file, no spool.
    if (!spooled || !setAside(spool, '')) {
      spool.close();
      return writeChunks(encodeRows(file, format, options, progress, checkNumbers));
    }
    const out = output();
    out.write(shape.header());
    await spool.copyTo(out);
    await written(out, '\n');
  } finally {
    spool.close();
  }
}

/**
 * The TOON text of a file's rows in two reads of the file: the first counts the rows and finds
 * the array's form (and, with `checkNumbers`, refuses a lossy number), the second encodes them
 * a batch at a time.
 */
export async function* encodeRows(
  file: string,
  format: InputFormat,
  options: EncodeOptions,
  progress: ByteProgress,
  checkNumbers = false,
): AsyncGenerator<string> {
  const shape = new ArrayShape(options);
  for await (const values of readRowBatches(
    file,
    format,
    progress.pass('pass 1 of 2'),
    checkNumbers,
  ))
    for (let i = 0; i < values.length; i++) shape.observe(values[i]!);
  yield* encodeObserved(file, format, shape, progress);
}

/** The header of rows `shape` has observed, then their text from a second read of the file. */
async function* encodeObserved(
  file: string,
  format: InputFormat,
  shape: ArrayShape,
  progress: ByteProgress,
): AsyncGenerator<string> {
  yield shape.header();
  for await (const values of readRowBatches(file, format, progress.pass('pass 2 of 2')))
    yield encodeBatch(file, shape, values);
}

/**
 * Appends `text` to the spool and, for `''`, writes out what it holds: false when the temporary
 * file cannot be written (a full disk, an I/O error).
 */
function setAside(spool: Spool, text: string): boolean {
  try {
    if (text === '') spool.flush();
    else spool.write(text);
    return true;
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException).code === 'string') return false;
    throw error;
  }
}

/** The next rows' text, what TOON cannot carry (an unpaired surrogate, ...) an exit-1 error. */
function encodeBatch(file: string, shape: ArrayShape, values: readonly JsonValue[]): string {
  try {
    return shape.batch(values);
  } catch (error) {
    throw new CliError(`${file}: ${messageOf(error)}`, EXIT_DATA);
  }
}
