// Counting a text's tokens in time linear in its length. The BPE tokenizers of gpt-tokenizer merge
// each pre-token (a run of letters, of digits, of white space or of other characters, as the
// tokenizer's split pattern cuts the text) in time quadratic in its length: 100,000 `=` in a row
// take 7 s, 400,000 `x` 160 s. Real text has no run that long, but data does: a padding line, a
// zero-filled buffer in base64 (`AAAA...`), a separator drawn in a log. So a run of one character
// class longer than LONGEST_COUNTED_RUN is cut, and the pieces are counted apart.

/**
 * The longest run of one character class counted in one piece, in UTF-16 code units. A cut inside
 * a run may count a token more or less than the whole run would (BPE merges differently at the
 * cut), so the count stays exact for every text without such a run, and is off by at most about
 * one token per cut (per 1,024 code units of a run) for the rest.
 */
export const LONGEST_COUNTED_RUN = 1024;

const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const OTHER = 4;

/** The class of each BMP code unit outside ASCII, worked out on first sight (0: not yet). */
let wideClasses: Uint8Array | undefined;

/**
 * `text`'s token count by `count`, with every run of one character class longer than
 * {@link LONGEST_COUNTED_RUN} cut into pieces counted apart.
 *
 * @example
 * const pieces: number[] = [];
 * countInPieces((text) => { pieces.push(text.length); return 1; }, '='.repeat(3000)); // 3
 * pieces; // [1024, 1024, 952]
 */
export function countInPieces(count: (text: string) => number, text: string): number {
  let total = 0;
  let pieceStart = 0;
  let runStart = 0;
  let runClass = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // The second half of a surrogate pair belongs to the character its first half began.
    if (code >= 0xdc00 && code <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1)))
      continue;
    const kind = classOf(text, i, code);
    if (kind !== runClass) {
      runClass = kind;
      runStart = i;
    } else if (i - runStart >= LONGEST_COUNTED_RUN) {
      total += count(text.slice(pieceStart, i));
      pieceStart = i;
      runStart = i;
    }
  }
  return pieceStart === 0 ? count(text) : total + count(text.slice(pieceStart));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The class of the character at `i` (whose first code unit is `code`), as pre-tokens run. */
function classOf(text: string, i: number, code: number): number {
  if (code < 0x80) {
    if ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) return LETTER;
    if (code >= 0x30 && code <= 0x39) return DIGIT;
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return SPACE;
    return OTHER;
  }
  if (isHighSurrogate(code)) return classOfCharacter(String.fromCodePoint(text.codePointAt(i)!));
  wideClasses ??= new Uint8Array(0x10000);
  let kind = wideClasses[code]!;
  if (kind === 0) {
    kind = classOfCharacter(String.fromCharCode(code));
    wideClasses[code] = kind;
  }
  return kind;
}

/** Letters go with their combining marks, as the tokenizers' split patterns group them. */
function classOfCharacter(character: string): number {
  if (/[\p{L}\p{M}]/u.test(character)) return LETTER;
  if (/\p{N}/u.test(character)) return DIGIT;
  if (/\s/u.test(character)) return SPACE;
  return OTHER;
}
