// Options and option value parsers shared by the commands. Each parser throws commander's
// InvalidArgumentError, which commander turns into "error: option '...' argument '...' is
// invalid. <reason>" and main.ts into exit code 2.
import { InvalidArgumentError, Option } from 'commander';
import type { Delimiter } from '../codec/types.js';
import { CANDIDATE_NAMES, type CandidateName, type TokenizerName } from '../compact/index.js';

const DELIMITER_NAMES: Readonly<Record<string, Delimiter>> = {
  ',': ',',
  comma: ',',
  '|': '|',
  pipe: '|',
  tab: '\t',
  '\t': '\t',
  '\\t': '\t',
};

/** `,`/`comma`, `|`/`pipe` or `tab`. */
export function parseDelimiter(value: string): Delimiter {
  const delimiter = DELIMITER_NAMES[value];
  if (delimiter === undefined)
    throw new InvalidArgumentError("Use ',' (comma), '|' (pipe) or tab.");
  return delimiter;
}

/** What {@link numberParser} accepts. */
export interface NumberSpec {
  /** Digits only (a safe integer), or digits with an optional decimal part. */
  whole: boolean;
  /** The smallest value allowed, or `'above 0'` for any number greater than 0. */
  least: 0 | 1 | 'above 0';
  /** The largest value allowed; unbounded when left out. */
  most?: number;
  /** Why a value was refused, in commander's words after "argument '...' is invalid." */
  message: string;
}

/**
 * A commander argument parser for a number option: written in digits (no sign, exponent or
 * hex; spaces around it are ignored), within `spec`'s bounds, else refused with its message.
 *
 * @example
 * const parseTimeout = numberParser({ whole: true, least: 0, message: 'expected milliseconds' });
 * parseTimeout('250'); // 250
 * parseTimeout('-1'); // throws InvalidArgumentError('expected milliseconds')
 */
export function numberParser(spec: NumberSpec): (value: string) => number {
  const digits = spec.whole ? /^\d+$/ : /^\d+(\.\d+)?$/;
  return (value) => {
    const number = Number(value);
    const representable = spec.whole ? Number.isSafeInteger(number) : Number.isFinite(number);
    const inRange =
      (spec.least === 'above 0' ? number > 0 : number >= spec.least) &&
      (spec.most === undefined || number <= spec.most);
    if (!digits.test(value.trim()) || !representable || !inRange)
      throw new InvalidArgumentError(spec.message);
    return number;
  };
}

/**
 * The most spaces `--indent` takes. An indentation is written once per nesting level on every
 * line, so a huge one makes text no one can read, and beyond a few million spaces a line (in the
 * output or the decoder's expectation) outgrows V8's string limit and failed as "Invalid string
 * length". `JSON.stringify` stops at 10; TOON files use 2 or 4.
 */
export const MAX_INDENT = 32;

/** Spaces per indentation level: a whole number from 1 to {@link MAX_INDENT}. */
export const parseIndent = numberParser({
  whole: true,
  least: 1,
  most: MAX_INDENT,
  message: `Use a whole number of spaces from 1 to ${MAX_INDENT}.`,
});

/** A positive integer, for `--max-depth`. */
export const parseMaxDepth = numberParser({
  whole: true,
  least: 1,
  message: 'Use a whole number of nesting levels, 1 or more (the default is 1000).',
});

/** The picker's measures on the command line. */
export type CliMeasure = 'auto' | 'bytes' | 'tokens';

/** `auto`, `bytes` or `tokens`. */
export function parseMeasure(value: string): CliMeasure {
  if (value !== 'auto' && value !== 'bytes' && value !== 'tokens')
    throw new InvalidArgumentError(
      "Use 'auto' (bytes, never more tokens than JSON), 'bytes' or 'tokens'.",
    );
  return value;
}

/** `o200k_base` or `cl100k_base`. */
export function parseTokenizer(value: string): TokenizerName {
  if (value !== 'o200k_base' && value !== 'cl100k_base') {
    throw new InvalidArgumentError(
      "Use 'o200k_base' (GPT-4o and later) or 'cl100k_base' (GPT-4, GPT-3.5).",
    );
  }
  return value;
}

/**
 * A comma-separated list of built-in candidates, or `all`. JSON is always measured, so listing
 * it is allowed but changes nothing.
 */
export function parseCandidates(value: string): CandidateName[] {
  if (value.trim() === 'all') return [...CANDIDATE_NAMES];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(CANDIDATE_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    const named =
      unknown.length > 0
        ? `unknown candidate ${unknown.map((name) => `'${name}'`).join(', ')}. `
        : '';
    throw new InvalidArgumentError(
      `${named}Use a comma-separated list of ${CANDIDATE_NAMES.join(', ')}, or 'all'.`,
    );
  }
  return names as CandidateName[];
}

/** A comma-separated field list such as `title,url,location.lat`. */
export function parseFields(value: string): string[] {
  const fields = value.split(',').map((field) => field.trim());
  if (
    fields.length === 0 ||
    fields.some((field) => field === '' || field.split('.').some((part) => part === ''))
  ) {
    throw new InvalidArgumentError(
      'Use a comma-separated list of field names or dotted paths, e.g. title,url,location.lat',
    );
  }
  return fields;
}

/**
 * `--allow-lossy-numbers`: write numbers that JSON.parse cannot read exactly (integers beyond
 * 2^53 that lose digits, numbers beyond a double's range) as the doubles they become, instead of
 * refusing the input (lossy-numbers.ts says which numbers, docs/cli.md why refusing is the
 * default).
 *
 * @example
 * command.addOption(lossyNumbersOption());
 */
export function lossyNumbersOption(): Option {
  return new Option(
    '--allow-lossy-numbers',
    'write numbers a double cannot hold (integers beyond 2^53 that lose digits, 1e400) as their nearest double (null for 1e400) instead of refusing the input',
  );
}

// The picker's options, spelled the same in every command that picks (pick, report, proxy).

/**
 * `-b, --by <measure>`: what "smallest" means to the picker. Unset means the picker's default,
 * `auto`: UTF-8 bytes, and TOON only when it also costs no more tokens than JSON (estimated).
 *
 * @example
 * command.addOption(measureOption());
 */
export function measureOption(): Option {
  return new Option(
    '-b, --by <measure>',
    "what 'smallest' means: auto (bytes, and never more tokens than JSON; the default), bytes (UTF-8 alone) or tokens (exact count)",
  ).argParser(parseMeasure);
}

/**
 * `-t, --tokenizer <name>`: the tokenizer that counts tokens, `o200k_base` (default) or `cl100k_base`.
 *
 * @example
 * command.addOption(tokenizerOption());
 */
export function tokenizerOption(): Option {
  return new Option(
    '-t, --tokenizer <name>',
    'tokenizer for token counts: o200k_base or cl100k_base',
  )
    .argParser(parseTokenizer)
    .default('o200k_base');
}

/**
 * `-c, --candidates <list>`: the encodings that compete with JSON; unset means the picker's default.
 *
 * @example
 * command.addOption(candidatesOption());
 */
export function candidatesOption(): Option {
  return new Option(
    '-c, --candidates <list>',
    "candidates besides json: toon, toon-flatten, toon-tab, or 'all' (default toon,toon-flatten)",
  ).argParser(parseCandidates);
}
