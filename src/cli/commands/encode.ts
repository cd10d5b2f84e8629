// `toonwire encode [file]`: JSON in, canonical TOON out.
import type { Command } from 'commander';
import { encode } from '../../codec/encode.js';
import type { Delimiter } from '../../codec/types.js';
import { CliError, EXIT_DATA, messageOf } from '../errors.js';
import { readInput, writeOutput } from '../input.js';
import { formatOfPath, parseInput } from '../json-input.js';
import { parseDelimiter, parsePositiveInteger } from '../options.js';

interface EncodeCommandOptions {
  delimiter: Delimiter;
  indent: number;
  jsonl?: boolean;
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
    .description('Encode JSON (or JSON Lines) as TOON.')
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
    .addHelpText(
      'after',
      '\nExamples:\n  toonwire encode runs.json\n  curl -s https://api.example.com/items | toonwire encode --delimiter tab',
    )
    .action(async (file: string | undefined, options: EncodeCommandOptions) => {
      const input = await readInput(file);
      const format = options.jsonl ? 'jsonl' : formatOfPath(input.source);
      const value = parseInput(input.text, input.source, format);
      let text: string;
      try {
        text = encode(value, { delimiter: options.delimiter, indentSize: options.indent });
      } catch (error) {
        // JSON input is plain data, so only text TOON cannot carry (an unpaired surrogate) fails.
        throw new CliError(`${input.source}: ${messageOf(error)}`, EXIT_DATA);
      }
      await writeOutput(text);
    });
}
