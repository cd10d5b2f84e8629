// `toonwire decode [file]`: TOON in, JSON out. Errors point at the offending character; the JSON
// is written in pieces as it is produced, so no output is too large for a string.
import type { Command } from 'commander';
import { decode } from '../../codec/decode.js';
import { ToonDecodeError } from '../../codec/errors.js';
import type { JsonValue } from '../../codec/types.js';
import { unflatten } from '../../compact/index.js';
import { CliError, EXIT_DATA } from '../errors.js';
import { writeChunks } from '../input.js';
import { parsePositiveInteger } from '../options.js';
import { jsonPieces } from '../stream/json-output.js';
import { readBytes } from '../stream/read.js';

interface DecodeCommandOptions {
  strict: boolean;
  indent: number;
  maxDepth: number;
  unflatten?: boolean;
  compact?: boolean;
}

/**
 * Adds `decode` to the program. A malformed document prints `file:line:column: message` on
 * stderr and exits 1.
 *
 * @example
 * registerDecodeCommand(program); // toonwire decode runs.toon --no-strict
 */
export function registerDecodeCommand(program: Command): void {
  program
    .command('decode')
    .summary('decode TOON to JSON')
    .description(
      'Decode TOON to JSON. A malformed document is reported as file:line:column: message.',
    )
    .argument('[file]', 'TOON file to read; standard input when omitted or "-"')
    .option(
      '--no-strict',
      'accept documents that break strict-mode rules (lengths, indentation, blank lines, ill-formed UTF-8)',
    )
    .option(
      '-i, --indent <spaces>',
      'spaces per indentation level of the input',
      parsePositiveInteger,
      2,
    )
    .option(
      '--max-depth <levels>',
      'deepest nesting to accept (documents nested deeper are refused)',
      parsePositiveInteger,
      1000,
    )
    .option(
      '--unflatten',
      "rebuild nested objects from dotted keys (for text the picker produced as 'toon-flatten')",
    )
    .option('--compact', 'write JSON on one line instead of indented')
    .addHelpText(
      'after',
      '\nExamples:\n  toonwire decode runs.toon\n  toonwire pick runs.json | toonwire decode --unflatten\n  toonwire decode deep.toon --max-depth 5000',
    )
    .action(async (file: string | undefined, options: DecodeCommandOptions) => {
      const { source, bytes } = await readBytes(file);
      let value: JsonValue;
      try {
        value = decode(bytes, {
          strict: options.strict,
          indentSize: options.indent,
          maxDepth: options.maxDepth,
        });
      } catch (error) {
        if (error instanceof ToonDecodeError) {
          throw new CliError(`${source}:${error.line}:${error.column}: ${error.reason}`, EXIT_DATA);
        }
        throw error;
      }
      if (options.unflatten) {
        try {
          value = unflatten(value);
        } catch (error) {
          throw new CliError(`${source}: cannot unflatten: ${(error as Error).message}`, EXIT_DATA);
        }
      }
      await writeChunks(jsonPieces(value, options.compact ? 0 : 2));
    });
}
