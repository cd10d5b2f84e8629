// JSON numbers that change value when JSON.parse reads them into a double, and which the CLI
// would then write changed without a word: an integer with more digits than a double holds
// (12345678901234567891 becomes 12345678901234567000, an ID pointing at another record) and a
// number out of a double's range (1e400 becomes Infinity, written as null; 1e-400 becomes 0).
// A fraction rounded in its 17th digit (0.10000000000000001 is the double 0.1) is not counted:
// that is what any JSON reader does to it, and the writer of such text meant that double.
import { CliError, EXIT_DATA } from './errors.js';
import { lineAndColumn } from './json-input.js';

/** A number of a JSON text that a double cannot carry, and where it starts. */
export interface LossyNumber {
  /** Offset of the number's first character in the text (UTF-16 code units). */
  offset: number;
  /** The number as written. */
  literal: string;
  /** What it would be written as after JSON.parse: `12345678901234567000`, `null`, `0`. */
  written: string;
}

/**
 * What a text must contain for any number in it to be lossy, outside strings or in: 16 digits in
 * a row ending where a JSON number ends, or a digit, an exponent and its digits ending there. A
 * hex or UUID string (`"9e3f…"`) or a digit string (`"1234567890123456789"`, an `id_str`) does
 * not match, since a quote ends it; most texts have no match and cost one native search.
 */
const MAY_BE_LOSSY = /\d{16}(?=[\s,\]}]|$)|\d[eE][+-]?\d+(?=[\s,\]}]|$)/;

/** A string (skipped) or a number, in a text JSON.parse has accepted. */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d[\d.eE+-]*/g;

/** Integers a double holds exactly whatever their digits: up to 15 significant digits. */
const SAFE_DIGITS = 15;

/**
 * The first number of `text` (valid JSON, or JSON Lines) that JSON.parse cannot read as the same
 * value, or `undefined` when every number survives.
 *
 * @example
 * firstLossyNumber('{"id":12345678901234567891}'); // { offset: 6, literal: '12345678901234567891', written: '12345678901234567000' }
 * firstLossyNumber('{"big":1e400,"id":"12345678901234567891"}'); // { offset: 7, literal: '1e400', written: 'null' }
 * firstLossyNumber('[0.1, 1e300, 9007199254740993.5]'); // undefined
 */
export function firstLossyNumber(text: string): LossyNumber | undefined {
  if (!MAY_BE_LOSSY.test(text)) return undefined;
  STRING_OR_NUMBER.lastIndex = 0;
  for (
    let match = STRING_OR_NUMBER.exec(text);
    match !== null;
    match = STRING_OR_NUMBER.exec(text)
  ) {
    const literal = match[0];
    if (literal.charCodeAt(0) === 0x22 /* " */) continue;
    const written = lossyAs(literal);
    if (written !== undefined) return { offset: match.index, literal, written };
  }
  return undefined;
}

/** What `literal` is written as when JSON.parse changes its value; undefined when it does not. */
function lossyAs(literal: string): string | undefined {
  const digits = literal.charCodeAt(0) === 0x2d /* - */ ? literal.length - 1 : literal.length;
  const integer = /^-?\d+$/.test(literal);
  if (integer && digits <= SAFE_DIGITS) return undefined;
  const parsed = Number(literal);
  if (!Number.isFinite(parsed)) return 'null';
  if (!integer) {
    // A fraction or an exponent: only leaving a double's range changes its value beyond rounding.
    const mantissa = literal.split(/[eE]/)[0]!;
    return parsed === 0 && /[1-9]/.test(mantissa) ? '0' : undefined;
  }
  // JSON allows no leading zeros, so equal values have equal digits.
  const shown = integerText(parsed);
  return shown === literal ? undefined : shown;
}

/**
 * An integral double in plain digits, as the TOON encoder writes it (`12345678901234567000`),
 * where String() would write `1.2345678901234568e+25`; JSON.stringify writes the same value.
 */
function integerText(value: number): string {
  const text = String(value);
  const exponent = text.indexOf('e+');
  if (exponent < 0) return text;
  const [whole, fraction = ''] = text.slice(0, exponent).split('.');
  return `${whole}${fraction}${'0'.repeat(Number(text.slice(exponent + 2)) - fraction.length)}`;
}

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
  return `the number ${lossy.literal} cannot be read exactly (JSON numbers are read as doubles) and would be written as ${lossy.written}; nothing was written. Quote such numbers in the source to keep them as strings, or pass --allow-lossy-numbers to write them as doubles`;
}
