// JSON numbers that a JavaScript number cannot carry exactly. JSON.parse turns
// 12345678901234567891 into 12345678901234567000 without a word; a proxy that re-encoded that
// would ship different data than the server sent, so such texts are forwarded as they are.

/** Doubles carry any decimal of up to 15 significant digits exactly through a round trip. */
const SAFE_SIGNIFICANT_DIGITS = 15;

/** A digit before an exponent, or 16 digits and points in a row (see losesPrecision). */
const MAY_LOSE_PRECISION = /\d[eE]|\d[\d.]{15}/;

/**
 * Whether any number in the JSON text `text` changes value through `JSON.parse` (more digits
 * than a double holds, or out of range). Strings are skipped; `text` is assumed to be JSON.
 *
 * @example
 * losesPrecision('{"id":12345678901234567891}'); // true
 * losesPrecision('{"id":1234, "price":0.1, "big":1e300}'); // false
 */
export function losesPrecision(text: string): boolean {
  // A number that can lose precision has an exponent or more than 15 significant digits, so
  // a run of 16 digits and points. Texts without either (most) need no scan; a match inside a
  // string only costs the scan below.
  if (!MAY_LOSE_PRECISION.test(text)) return false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === 0x22 /* " */) {
      i = skipString(text, i + 1);
      continue;
    }
    if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) {
      const start = i;
      let exponent = false;
      for (i += 1; i < length; i++) {
        const next = text.charCodeAt(i);
        if (!isNumberChar(next)) break;
        if (next === 0x65 || next === 0x45) exponent = true;
      }
      // Most numbers are short: at most 15 characters hold at most 15 digits, which a double
      // carries exactly unless an exponent takes them out of range.
      if (i - start <= SAFE_SIGNIFICANT_DIGITS && !exponent) continue;
      if (!survivesParse(text.slice(start, i))) return true;
      continue;
    }
    i += 1;
  }
  return false;
}

function skipString(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x5c /* \ */) i += 2;
    else if (code === 0x22) return i + 1;
    else i += 1;
  }
  return i;
}

function isNumberChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45 ||
    code === 0x2b ||
    code === 0x2d
  );
}

/** Whether the JSON number literal `literal` keeps its value as a double. */
function survivesParse(literal: string): boolean {
  if (significantDigits(literal) <= SAFE_SIGNIFICANT_DIGITS && !/[eE]/.test(literal)) return true;
  const parsed = Number(literal);
  if (!Number.isFinite(parsed)) return false;
  return decimalKey(literal) === decimalKey(String(parsed));
}

function significantDigits(literal: string): number {
  let count = 0;
  let leading = true;
  for (let i = 0; i < literal.length; i++) {
    const code = literal.charCodeAt(i);
    if (code < 0x30 || code > 0x39) continue;
    if (leading && code === 0x30) continue;
    leading = false;
    count += 1;
  }
  return count;
}

/** A canonical spelling of a decimal's value: `12e3` and `12000` and `1.2e4` agree. */
function decimalKey(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return literal;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let power = Number(exponent) - fraction.length;
  if (digits === '') return '0'; // -0 and 0 are the same JSON value
  const trimmed = digits.replace(/0+$/, '');
  power += digits.length - trimmed.length;
  digits = trimmed;
  return `${sign}${digits}e${power}`;
}
