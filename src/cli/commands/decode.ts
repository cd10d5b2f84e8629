// `toonwire decode [file]`: TOON in, JSON out. Errors point at the offending character; the JSON
// is written in pieces as it is produced, so no output is too large for a string.

import { createReadStream } from 'node:fs';
import type { Command } from 'commander';
import { decodeStream } from '../../codec/decode/stream.js';
import { decode } from '../../codec/decode.js';
import { ToonDecodeError } from '../../codec/errors.js';
import type { JsonValue } from '../../codec/types.js';
import { unflatten } from '../../compact/index.js';
import { binaryInputError, binaryOffset } from '../binary-input.js';
import { CliError, EXIT_DATA, formatError } from '../errors.js';
import { writeChunks } from '../input.js';
import { parseIndent, parseMaxDepth } from '../options.js';
import { jsonFromEvents, jsonPieces } from '../stream/json-output.js';
import { byteProgress, PROGRESS_BYTES } from '../stream/progress.js';
import {
  fileSize,
  isUtf16File,
  readBytes,
  readHead,
  readTextChunks,
  STREAM_BYTES,
} from '../stream/read.js';

/** How much of a file tells a binary file, or JSON, from ill-formed TOON. */
const HEAD_BYTES = 8192;

interface DecodeCommandOptions {
  strict: boolean;
  indent: number;
  maxDepth: number;
  unflatten?: boolean;
  compact?: boolean;
  stream?: boolean;
  fromPick?: boolean;
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
      'spaces per indentation level of the input, 1 to 32',
      parseIndent,
      2,
    )
    .option(
      '--max-depth <levels>',
      'deepest nesting to accept (documents nested deeper are refused)',
      parseMaxDepth,
      1000,
    )
    .option(
      '--from-pick',
      "read what 'toonwire pick' wrote, JSON or TOON: JSON passes through, TOON is decoded",
    )
    .option(
      '--unflatten',
      "rebuild nested objects from dotted keys (for text the picker produced as 'toon-flatten'; with --from-pick, only when the text is TOON)",
    )
    .option('--compact', 'write JSON on one line instead of indented')
    .option(
      '--stream',
      'decode as a stream of events, whatever the size (the default above 64 MB without --unflatten): memory stays bounded',
    )
    .addHelpText(
      'after',
      '\nInput that is JSON (an object or an array) is refused: decode reads TOON. For what pick wrote,\nwhich is JSON or TOON, use --from-pick.\n\nExamples:\n  toonwire decode runs.toon\n  toonwire pick runs.json | toonwire decode --from-pick\n  toonwire pick runs.json -c toon-flatten | toonwire decode --from-pick --unflatten\n  toonwire decode deep.toon --max-depth 1500',
    )
    .action(async (file: string | undefined, options: DecodeCommandOptions) => {
      const decodeOptions = {
        strict: options.strict,
        indentSize: options.indent,
        maxDepth: options.maxDepth,
      };
      const size = await fileSize(file);
      if (
        file !== undefined &&
        size !== undefined &&
        !options.unflatten &&
        (options.stream || size > STREAM_BYTES)
      ) {
        if (looksLikeJson(await readHead(file, HEAD_BYTES))) {
          if (!options.fromPick) throw jsonInputError(file);
          await writeChunks(jsonFromFile(file, options.compact ? 0 : 2));
          return;
        }
        const progress = byteProgress(
          file,
          size,
          process.stderr.isTTY === true && size >= PROGRESS_BYTES,
        );
        const onBytes = progress.pass('decoding');
        const utf16 = await isUtf16File(file);
        async function* chunks(): AsyncGenerator<Uint8Array> {
          if (utf16) {
            // Checked and turned into text by the reader; the decoder takes UTF-8.
            for await (const text of readTextChunks(file!, onBytes))
              yield Buffer.from(text, 'utf8');
            return;
          }
          let read = 0;
          for await (const chunk of createReadStream(file!, { highWaterMark: 1 << 20 })) {
            read += (chunk as Uint8Array).length;
            onBytes(read);
            yield chunk as Uint8Array;
          }
        }
        try {
          await writeChunks(
            jsonFromEvents(decodeStream(chunks(), decodeOptions), options.compact ? 0 : 2),
          );
        } catch (error) {
          if (error instanceof ToonDecodeError && error.offset !== undefined) {
            const nul = binaryOffset(await readHead(file, HEAD_BYTES));
            if (nul >= 0) throw binaryInputError(file, nul, 'TOON');
          }
          if (error instanceof ToonDecodeError)
            throw new CliError(
              `${file}:${error.line}:${error.column}: ${inCliTerms(error.reason)}`,
              EXIT_DATA,
            );
          throw error;
        } finally {
          progress.done();
        }
        return;
      }
      const { source, bytes } = await readBytes(file);
      const json = parsedJson(bytes);
      if (json !== undefined) {
        if (!options.fromPick) throw jsonInputError(source);
        await writeChunks(jsonPieces(json, options.compact ? 0 : 2));
        return;
      }
      let value: JsonValue;
      try {
        value = decode(bytes, decodeOptions);
      } catch (error) {
        if (error instanceof ToonDecodeError) {
          const nul = error.offset === undefined ? -1 : binaryOffset(bytes);
          if (nul >= 0) throw binaryInputError(source, nul, 'TOON');
          throw new CliError(
            `${source}:${error.line}:${error.column}: ${inCliTerms(error.reason)}`,
            EXIT_DATA,
          );
        }
        throw error;
      }
      if (isBlank(bytes)) {
        // Spec §5: an empty document is the empty object. Say so, since an empty pipe is more
        // often a mistake upstream than a document.
        process.stderr.write(
          formatError(
            `warning: ${source} is empty; an empty TOON document decodes to {} (TOON spec §5)`,
          ),
        );
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

/**
 * A decode error's reason with the library's option names turned into this command's flags: the
 * codec tells a caller to raise or lower `maxDepth`, which on the command line is `--max-depth`.
 *
 * @example
 * inCliTerms('nesting is deeper than maxDepth (1000); ... raise the maxDepth option ...');
 * // 'nesting is deeper than --max-depth (1000); ... raise --max-depth ...'
 */
export function inCliTerms(reason: string): string {
  return reason
    .replaceAll('the maxDepth option', '--max-depth')
    .replaceAll('maxDepth (', '--max-depth (');
}

/** The refusal of JSON input, naming what reads it. */
function jsonInputError(source: string): CliError {
  return new CliError(
    `${source} is JSON, not TOON: decode reads TOON. For what 'toonwire pick' wrote (JSON or TOON), use 'toonwire decode --from-pick'; in code, parseCompact(text, strategy)`,
    EXIT_DATA,
  );
}

/**
 * The value of `bytes` when they are a JSON object or array (which TOON would misread as a key
 * line: `{"id":1}` decodes to `{ '{"id"': 1 }`); undefined otherwise. A JSON number, string or
 * boolean is left to the TOON decoder, which reads it as the same value.
 */
function parsedJson(bytes: Uint8Array): JsonValue | undefined {
  if (!looksLikeJson(bytes.subarray(0, 8192))) return undefined;
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * Whether a document starting with `head` is JSON rather than TOON: it opens with `{` (TOON
 * quotes a key that starts with one), or with `[` that is not a TOON root array header
 * (`[3]:`, `[2]{a,b}:`, `[3|]:`) nor TOON's empty root array `[]` (the same value as JSON's).
 */
function looksLikeJson(head: Uint8Array): boolean {
  const text = new TextDecoder()
    .decode(head.subarray(0, 256))
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('{')) return true;
  return (
    text.startsWith('[') && !/^\[\]\s*$/.test(text) && !/^\[#?\d+[|\t]?\](\{[^}]*\})?:/.test(text)
  );
}

/** A JSON file, re-indented, in pieces (for a large `--from-pick` input that is JSON). */
async function* jsonFromFile(file: string, indent: number): AsyncGenerator<string> {
  const { bytes } = await readBytes(file);
  const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as JsonValue;
  yield* jsonPieces(value, indent);
}

/** True when `bytes` hold nothing but whitespace: an empty document. */
function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes)
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  return true;
}
