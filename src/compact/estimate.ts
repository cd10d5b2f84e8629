// A fast, dependency-free estimate of a text's o200k_base token count, for the picker's default
// token guard. A BPE tokenizer first splits text into chunks with a regular expression (the
// "pre-tokenizer": words with one leading space or symbol, runs of up to three digits, runs of
// punctuation, runs of whitespace) and then merges each chunk on its own. This module walks the
// same chunk boundaries with a scanner over character classes (a table for ASCII) and gives each
// chunk the mean token count that o200k_base gives chunks of its class and length on real data.
// It is an estimate, not a count: the picker uses it only on close calls, with a margin, and the
// calibration against the real tokenizer is bench/tokens.bench.ts and test/compact/token-safe.

const LETTER = /[\p{L}\p{M}]/u;
const DIGIT = /\p{N}/u;
const SPACE = /\s/u;

// Character classes (ASCII by table, the rest by Unicode property).
const LOWER = 0;
const UPPER = 1;
const DIGIT_KIND = 2;
const SPACE_KIND = 3;
const NEWLINE = 4;
const PUNCT = 5;
/** A letter outside ASCII. */
const WIDE_LETTER = 6;
/** A symbol outside ASCII (emoji, CJK punctuation). */
const WIDE_SYMBOL = 7;

const ASCII = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  ASCII[code] =
    code >= 97 && code <= 122
      ? LOWER
      : code >= 65 && code <= 90
        ? UPPER
        : code >= 48 && code <= 57
          ? DIGIT_KIND
          : code === 10 || code === 13
            ? NEWLINE
            : code === 32 || (code >= 9 && code <= 12)
              ? SPACE_KIND
              : PUNCT;
}

function wideKind(text: string, i: number): number {
  const ch = text[i]!;
  if (LETTER.test(ch)) return WIDE_LETTER;
  if (DIGIT.test(ch)) return DIGIT_KIND;
  if (SPACE.test(ch)) return SPACE_KIND;
  return WIDE_SYMBOL;
}

function kindAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 128 ? ASCII[code]! : wideKind(text, i);
}

const isLetter = (kind: number) => kind === LOWER || kind === UPPER || kind === WIDE_LETTER;

/**
 * Mean o200k_base tokens of an ASCII word chunk (0 to 16 letters) by what precedes its letters:
 * nothing, a space, a double quote, a comma, colon or other ASCII punctuation, a `-`, `.` or `_`,
 * and a `/`. Measured by counting every word of the npm datasets and the corpus (as JSON and as
 * TOON) with each prefix, so that the rows differ only by the prefix: the same words cost more
 * after a comma than after a space, which is much of why TOON can cost more tokens than JSON.
 */
const WORD: readonly (readonly number[])[] = [
  [0, 1, 1.03, 1.17, 1.16, 1.21, 1.38, 1.45, 1.56, 1.74, 1.89, 1.94, 1.82, 2.33, 2.94, 2.26, 3.75],
  [0, 1, 1.04, 1.16, 1.14, 1.15, 1.17, 1.22, 1.26, 1.32, 1.33, 1.4, 1.64, 1.73, 2.23, 1.88, 3.17],
  [0, 1.67, 1.9, 2.06, 2.02, 2.08, 2.33, 2.4, 2.49, 2.7, 2.84, 2.89, 2.78, 3.3, 3.89, 3.22, 4.64],
  [
    0, 1.03, 1.85, 1.89, 1.92, 2.05, 2.28, 2.38, 2.46, 2.67, 2.82, 2.87, 2.77, 3.25, 3.82, 3.21,
    4.58,
  ],
  [0, 1, 1.26, 1.44, 1.46, 1.61, 1.75, 1.93, 2.13, 2.35, 2.38, 2.44, 2.53, 2.82, 3.41, 3.16, 4.13],
  [0, 1, 1.45, 1.72, 1.86, 1.91, 2, 2.16, 2.24, 2.53, 2.61, 2.64, 2.65, 3.04, 3.61, 3.31, 4.57],
];
/** The {@link WORD} row for a one-character prefix. */
function prefixRow(code: number): number {
  if (code === 0x20 || code === 0x09) return 1;
  if (code === 0x22) return 2;
  if (code === 0x2d || code === 0x2e || code === 0x5f) return 4;
  if (code === 0x2f) return 5;
  return 3;
}
/** Tokens per letter beyond the table's twelve. */
const LONG_WORD_RATE = 0.35;
const WORD_TABLE_LETTERS = 16;
/** Mean tokens of an ASCII punctuation chunk by its length (0 to 12). */
const PUNCT_RUN: readonly number[] = [
  0, 1, 1, 1.04, 1.36, 1.95, 1.48, 2.31, 2.8, 3.61, 3.88, 3.9, 4,
];
const LONG_PUNCT_RATE = 0.4;
/** Tokens per UTF-16 code unit of a non-ASCII letter, and of a non-ASCII symbol (emoji). */
const WIDE_LETTER_RATE = 0.9;
const WIDE_SYMBOL_RATE = 1.2;

/**
 * Estimated o200k_base tokens of `text`, without a vocabulary: digits are exact (the tokenizer
 * splits numbers into groups of three), whitespace and punctuation follow the tokenizer's chunk
 * rules, and words count what words of their length and prefix cost on average. On the npm
 * datasets and the corpus the estimate of a whole text is within a few percent of the count;
 * see bench/tokens.bench.ts for the figures.
 *
 * @example
 * estimateTokens('hello world'); // 2
 * estimateTokens('12345'); // 2
 */
export function estimateTokens(text: string): number {
  const length = text.length;
  let tokens = 0;
  let i = 0;
  while (i < length) {
    const kind = kindAt(text, i);
    if (kind === DIGIT_KIND) {
      let end = i + 1;
      while (end < length && kindAt(text, end) === DIGIT_KIND) end++;
      tokens += Math.ceil((end - i) / 3);
      i = end;
      continue;
    }
    if (kind === SPACE_KIND || kind === NEWLINE) {
      let end = i;
      let lastNewline = -1;
      for (; end < length; end++) {
        const next = kindAt(text, end);
        if (next === NEWLINE) lastNewline = end;
        else if (next !== SPACE_KIND) break;
      }
      if (lastNewline >= 0) tokens += 1;
      const spaces = end - Math.max(lastNewline + 1, i);
      if (spaces === 0) {
        i = end;
        continue;
      }
      if (end === length) {
        tokens += 1;
        i = end;
        continue;
      }
      // The last space joins a following word or punctuation chunk; before a digit it stands alone.
      if (spaces >= 2) tokens += 1;
      const next = kindAt(text, end);
      if (next === DIGIT_KIND) {
        tokens += 1;
        i = end;
      } else if (isLetter(next)) {
        i = scanWord(text, end, 1);
        tokens += lastWord;
      } else {
        i = scanPunct(text, end);
        tokens += lastWord;
      }
      continue;
    }
    if (isLetter(kind)) {
      i = scanWord(text, i, 0);
      tokens += lastWord;
      continue;
    }
    // Punctuation or a symbol: alone right before a letter it starts that word's chunk.
    if (i + 1 < length && isLetter(kindAt(text, i + 1))) {
      i = scanWord(text, i + 1, prefixRow(text.charCodeAt(i)));
      tokens += lastWord;
      continue;
    }
    i = scanPunct(text, i);
    tokens += lastWord;
  }
  return Math.round(tokens);
}

/** The token estimate of the chunk the last scan read (saves returning a pair). */
let lastWord = 0;

/** Scans the letters from `start` (a lower-to-upper case change ends the chunk). */
function scanWord(text: string, start: number, prefix: number): number {
  const length = text.length;
  let ascii = 0;
  let wide = 0;
  let end = start;
  let previous = -1;
  for (; end < length; end++) {
    const kind = kindAt(text, end);
    if (kind === LOWER || kind === UPPER) {
      if (kind === UPPER && previous === LOWER) break;
      ascii++;
    } else if (kind === WIDE_LETTER) {
      wide++;
    } else {
      break;
    }
    previous = kind;
  }
  if (wide > 0) {
    lastWord = wide * WIDE_LETTER_RATE + ascii / 4 + (prefix >= 2 ? 0.9 : 0);
  } else {
    const row = WORD[prefix]!;
    lastWord =
      ascii <= WORD_TABLE_LETTERS
        ? row[ascii]!
        : row[WORD_TABLE_LETTERS]! + (ascii - WORD_TABLE_LETTERS) * LONG_WORD_RATE;
  }
  return end;
}

/** Scans a punctuation chunk from `start`: an optional space, symbols, then newlines or `/`. */
function scanPunct(text: string, start: number): number {
  const length = text.length;
  let end = start;
  if (text.charCodeAt(end) === 0x20) end++;
  let ascii = 0;
  let wide = 0;
  for (; end < length; end++) {
    const kind = kindAt(text, end);
    if (kind === PUNCT) ascii++;
    else if (kind === WIDE_SYMBOL) wide++;
    else break;
  }
  while (end < length) {
    const code = text.charCodeAt(end);
    if (code !== 10 && code !== 13 && code !== 0x2f) break;
    end++;
  }
  lastWord =
    (ascii <= 12 ? PUNCT_RUN[ascii]! : PUNCT_RUN[12]! + (ascii - 12) * LONG_PUNCT_RATE) +
    wide * WIDE_SYMBOL_RATE;
  if (end === start) {
    // Not a chunk start the scanner knows (cannot happen for the classes above): one token.
    lastWord = 1;
    return start + 1;
  }
  return end;
}
