// The CLI's answer to a JSON number whose digits a double cannot carry: refuse the input before
// anything is written, naming the first such number at file:line:column. Which numbers those are
// is decided in one place for the CLI and the MCP proxy, compact/json-numbers.ts.
import { firstLossyNumber, type LossyNumber } from '../compact/json-numbers.js';
import { CliError, EXIT_DATA } from './errors.js';
import { lineAndColumn } from './json-input.js';

/**
 * Refuses `text` (exit 1, nothing written) when one of its numbers would be written changed,
 * naming the first one as `source:line:column`. `line` and `column` (1-based) are where `text`
 * starts in the input, for a piece of a larger one.
 *
 * @throws {CliError} exit 1 with the number, what it would become and the two ways out.
 * @example
 * refuseLossyNumbers('{"id":12345678901234567891}', 'ids.json'); // throws "ids.json:1:7: the number ..."
 */
export function refuseLossyNumbers(text: string, source: string, line = 1, column = 1): void {
  const lossy = firstLossyNumber(text);
  if (lossy === undefined) return;
  const at = lossyNumberPlace(text, lossy, line, column);
  throw new CliError(`${source}:${at.line}:${at.column}: ${lossyNumberMessage(lossy)}`, EXIT_DATA);
}

/**
 * The 1-based line and column of `lossy` in the input, `text` starting there at `line` and
 * `column`.
 *
 * @example
 * lossyNumberPlace('{"a":\n1e400}', firstLossyNumber('{"a":\n1e400}')!, 40, 3); // { line: 41, column: 1 }
 */
export function lossyNumberPlace(
  text: string,
  lossy: LossyNumber,
  line: number,
  column: number,
): { line: number; column: number } {
  const at = lineAndColumn(text, lossy.offset);
  return at.line === 1
    ? { line, column: column + at.column - 1 }
    : { line: line + at.line - 1, column: at.column };
}

/**
 * Why a lossy number refuses the input, and the ways out; the caller puts the place before it.
 *
 * @example
 * lossyNumberMessage({ offset: 0, literal: '1e400', written: 'null' }); // 'the number 1e400 cannot be read exactly ...'
 */
export function lossyNumberMessage(lossy: LossyNumber): string {
  return `the number ${shownLiteral(lossy.literal)} cannot be read exactly (JSON numbers are read as doubles) and would be written as ${lossy.written}; nothing was written. Quote such numbers in the source to keep them as strings, or pass --allow-lossy-numbers to write them as doubles`;
}

/** The longest literal a message shows whole. */
const SHOWN_LITERAL = 48;

/**
 * A number's literal as a message shows it: whole up to {@link SHOWN_LITERAL} characters, else its
 * two ends and its length, so that a refused 20 MB number is not written to stderr whole.
 *
 * @example
 * shownLiteral('1e400'); // '1e400'
 * shownLiteral(`1.${'0'.repeat(100)}1`); // '1.0000000000000000000000…000000000001 (103 characters)'
 */
export function shownLiteral(literal: string): string {
  if (literal.length <= SHOWN_LITERAL) return literal;
  return `${literal.slice(0, 24)}…${literal.slice(-12)} (${literal.length} characters)`;
}
