// A fast, dependency-free estimate of a text's o200k_base token count, for the picker's default
// token guard. A BPE tokenizer first splits text into chunks with a regular expression (the
// "pre-tokenizer": words with one leading space or symbol, runs of up to three digits, runs of
// punctuation, runs of whitespace) and then merges each chunk on its own. This module walks the
// same chunk boundaries with a scanner over character classes and gives each chunk the mean
// token count that o200k_base gives chunks of its class and length on real data. It is an
// estimate, not a count: the picker uses it only on close calls, with a margin, and the
// calibration against the real tokenizer is bench/tokens.bench.ts and test/compact/token-safe.
//
// Speed: on every close call the guard scans both JSON's text and TOON's, so the scan's cost
// per character is most of what the default pick pays there. Reading a string with charCodeAt
// was measured at 2x the cost of reading its UTF-8 bytes from a typed array (encodeInto
// included), so the text is first written to a byte buffer with one byte per UTF-16 code unit
// (ASCII as it is, any other code unit as its class) and the scanner reads that.

import { SHORT_TEXT } from './size.js';

/**
 * The classes of characters outside ASCII, as regular expressions made on the first such
 * character: V8 checks a regular expression literal as it compiles the module, and building the
 * Unicode property sets of these two was an eighth of importing the package root (issue 34).
 */
let unicodeClasses: { letter: RegExp; digit: RegExp; space: RegExp } | undefined;

// Character classes.
const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;
const SPACE = 3;
const NEWLINE = 4;
const PUNCT = 5;
/** A letter outside ASCII. */
const WIDE_LETTER = 6;
/** A symbol outside ASCII (emoji, CJK punctuation). */
const WIDE_SYMBOL = 7;
/** Not classified yet: characters outside ASCII are classified the first time they are seen. */
const UNKNOWN = 255;

/** The tables below before {@link ready} builds them. */
const UNBUILT = new Uint8Array(0);

/**
 * The class of every BMP character: ASCII filled in by {@link ready}, the rest on first sight,
 * so that the Unicode regular expressions run once per distinct character rather than once per
 * occurrence.
 */
let charClass = UNBUILT;

/**
 * Builds the scanner's tables on the first estimate, so that importing the package costs
 * nothing for them (a program that never estimates never allocates them).
 */
function ready(): void {
  if (charClass !== UNBUILT) return;
  charClass = new Uint8Array(0x10000).fill(UNKNOWN);
  for (let code = 0; code < 128; code++) {
    charClass[code] =
      code >= 97 && code <= 122
        ? LOWER
        : code >= 65 && code <= 90
          ? UPPER
          : code >= 48 && code <= 57
            ? DIGIT
            : code === 10 || code === 13
              ? NEWLINE
              : code === 32 || (code >= 9 && code <= 12)
                ? SPACE
                : PUNCT;
  }
  units = new Uint8Array(3 * WINDOW);
  unitKind = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) {
    unitKind[byte] = byte < 128 ? charClass[byte]! : byte & 0x7f;
  }
  shortRunTokens = new Uint8Array(SHORT_RUN_CODES);
  structureDigit = new Uint8Array(256);
  for (let digit = 0; digit < STRUCTURE_CHARS.length; digit++) {
    structureDigit[STRUCTURE_CHARS.charCodeAt(digit)] = digit + 1;
  }
  for (const token of STRUCTURE_TOKENS.split(' ')) {
    let code = 0;
    for (let at = 0; at < token.length; at++) {
      code = code * 9 + structureDigit[token.charCodeAt(at)]!;
    }
    structureTokens.add(code);
  }
}

function classOf(code: number): number {
  const kind = charClass[code]!;
  if (kind !== UNKNOWN) return kind;
  const ch = String.fromCharCode(code);
  unicodeClasses ??= {
    // biome-ignore lint/complexity/useRegexLiterals: a literal is checked at import (see above)
    letter: new RegExp('[\\p{L}\\p{M}]', 'u'),
    // biome-ignore lint/complexity/useRegexLiterals: a literal is checked at import (see above)
    digit: new RegExp('\\p{N}', 'u'),
    // biome-ignore lint/complexity/useRegexLiterals: a literal is checked at import (see above)
    space: new RegExp('\\s', 'u'),
  };
  const found = unicodeClasses.letter.test(ch)
    ? WIDE_LETTER
    : unicodeClasses.digit.test(ch)
      ? DIGIT
      : unicodeClasses.space.test(ch)
        ? SPACE
        : WIDE_SYMBOL;
  charClass[code] = found;
  return found;
}

/** Letters: ASCII lower and upper case and letters outside ASCII. */
const isLetter = (kind: number) => kind <= UPPER || kind === WIDE_LETTER;

/**
 * Texts longer than this many UTF-16 code units are scanned in windows, so the buffer stays at
 * three times this (UTF-8's worst case) whatever the text's size.
 */
const WINDOW = 1 << 16;
/**
 * The window being scanned, one byte per UTF-16 code unit: an ASCII character as itself, any
 * other code unit as `0x80 | class` (see {@link toCodeUnits}).
 */
let units = UNBUILT;
/** The class of each byte of {@link units}. */
let unitKind = UNBUILT;

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
  return PUNCT_PREFIX_ROW;
}
/** The {@link WORD} row of a word after a comma, colon or other punctuation (TOON's `,value`). */
const PUNCT_PREFIX_ROW = 3;
/** Tokens per letter beyond the table's twelve. */
const LONG_WORD_RATE = 0.35;
const WORD_TABLE_LETTERS = 16;
/** Mean tokens of an ASCII punctuation chunk by its length (0 to 12). */
const PUNCT_RUN: readonly number[] = [
  0, 1, 1, 1.04, 1.36, 1.95, 1.48, 2.31, 2.8, 3.61, 3.88, 3.9, 4,
];
const LONG_PUNCT_RATE = 0.4;
/**
 * What a word of each length after a comma or other punctuation costs more with the two apart
 * than joined (`split`); beyond the table, both grow at the same rate per letter.
 */
const JOINED_APART: readonly number[] = WORD[0]!.map((alone, letters) =>
  Math.max(0, PUNCT_RUN[1]! + alone - WORD[PUNCT_PREFIX_ROW]![letters]!),
);

/**
 * The o200k_base tokens of two to six characters made only of `"{}[]:,` and line breaks, a
 * space between each: the whole list, checked against the vocabulary
 * by test/compact/estimate.test.ts. A run's count is found by taking the longest of them at
 * each place, which gives o200k's own count on 214,054 of 214,084 structural runs in the npm
 * datasets' JSON and TOON texts.
 */
export const STRUCTURE_TOKENS =
  '\n\n "\n "" ", ": "[ "] "{ "} ,\n ," ,, ,: ,[ ,{ :\n :" :, :: :[ :] :{ [\n [" [, [: [[ [] [{ ]\n ]" ], ]: ][ ]] ]{ ]} {\n {" {: {{ {} }\n }" }, }: }[ }] }{ }} ' +
  '\n\n\n "\n\n """ "", "": ",\n "," ",[ ",{ ":\n ":" ":[ "]\n "], "]: "][ "]] "}\n "}, "}} ,\n\n ,"\n ,", ,,, ,:, ,{\n :\n\n :"\n :", ::\n ::: ::{ :[\n :[" :[[ :]\n :], :{\n :{} [,] [:, [:] []\n []" [], [][ []{ []} ]\n\n ]"\n ]", ],\n ]," ],[ ]:\n ][" ][: ][] ]]\n ]], ]][ ]]] ]}\n ]}" ]}, {\n\n {}\n {}, {}{ }\n\n }"\n }", },\n }," },{ }:{ }]\n }], }{\n }}\n }}" }}, ' +
  '\n\n\n\n "\n\n\n """\n """" "",\n ",\n\n ":\n\n ":[" ":[] ":{\n ":{" "]\n\n "],\n "]:\n "][" "]}\n "}\n\n "},\n ,\n\n\n ,,,, ,:,: ,},\n :\n\n\n :",\n ::\n\n :::: ::{\n :]\n\n []\n\n [],\n [][] []{\n []{" ]\n\n\n ]",\n ],\n\n ]:\n\n ]]\n\n ]],\n ]]:\n ]}"\n ]},\n {\n\n\n {}\n\n {}", {},\n {}{\n }\n\n\n }"\n\n }",\n },\n\n },{\n },{" }],\n }}\n\n }},\n }}{{ ' +
  '\n\n\n\n\n "\n\n\n\n """\n\n ":[{\n "]],\n "},{" "}},\n :\n\n\n\n :"",\n [:,:, ]:\n\n\n }\n\n\n\n }}],\n }}},\n \n\n\n\n\n\n """\n\n\n ",""," ":"",\n ":""," }\n\n\n\n\n';
/** The structural characters, in the order of their digits in a run's code (1 to 8). */
const STRUCTURE_CHARS = '"{}[]:,\n';
/** Runs longer than this are priced by length only (their codes would pass 9^8). */
const STRUCTURE_RUN_MAX = 8;
/** The longest entry of {@link STRUCTURE_TOKENS}. */
const STRUCTURE_TOKEN_MAX = 6;
/** Runs counted so far, by code; bounded, so that a hostile text cannot grow it without end. */
const STRUCTURE_MEMO_MAX = 4096;
/** Each structural character's digit (1 to 8) by its code, 0 for any other; built by {@link ready}. */
let structureDigit = UNBUILT;
/** The codes of {@link STRUCTURE_TOKENS}: each token's digits read in base 9. */
const structureTokens = new Set<number>();
/** Codes of runs of up to five characters (9^5), the most JSON and TOON write (`"},{"`). */
const SHORT_RUN_CODES = 59_049;
/** Tokens of each short structural run counted so far, by its code (0: not yet); built by {@link ready}. */
let shortRunTokens = UNBUILT;
/** The same for longer runs. */
const structureMemo = new Map<number, number>();

/**
 * The o200k tokens of the run `bytes[start..end)` (at most {@link STRUCTURE_RUN_MAX} long) by the
 * longest {@link STRUCTURE_TOKENS} entry at each place, or 0 when the run holds anything but
 * structural characters.
 */
function structureCount(bytes: Uint8Array, start: number, end: number): number {
  let code = 0;
  for (let at = start; at < end; at++) {
    const digit = structureDigit[bytes[at]!]!;
    if (digit === 0) return 0;
    code = code * 9 + digit;
  }
  const short = code < SHORT_RUN_CODES;
  const known = short ? shortRunTokens[code]! : (structureMemo.get(code) ?? 0);
  if (known !== 0) return known;
  let count = 0;
  for (let at = start; at < end; count++) {
    let length = Math.min(STRUCTURE_TOKEN_MAX, end - at);
    for (; length > 1; length--) {
      let token = 0;
      for (let k = at; k < at + length; k++) token = token * 9 + structureDigit[bytes[k]!]!;
      if (structureTokens.has(token)) break;
    }
    at += length;
  }
  if (short) shortRunTokens[code] = count;
  else if (structureMemo.size < STRUCTURE_MEMO_MAX) structureMemo.set(code, count);
  return count;
}

/**
 * Across one estimate, what pricing each run of structural characters at its count by
 * {@link STRUCTURE_TOKENS}, where that is above the mean, would add: see {@link TokenEstimate}'s
 * `dearest`.
 */
let structureDearer = 0;
/**
 * Across one estimate, what pricing each word that follows a comma or other punctuation apart
 * from it would add: see {@link TokenEstimate}'s `split`.
 */
let joinsApart = 0;
/** Tokens per UTF-16 code unit of a non-ASCII letter, and of a non-ASCII symbol (emoji). */
const WIDE_LETTER_RATE = 0.9;
const WIDE_SYMBOL_RATE = 1.2;
/**
 * The least a UTF-16 code unit outside ASCII costs on the vocabularies checked
 * (test/compact/tokenizers.ts): a CJK word or an emoji can be a single token where o200k needs
 * several, so {@link estimateTokenRange}'s `low` prices them at this.
 */
const WIDE_LOW_RATE = 0.3;

/** Code units outside ASCII the last {@link scan} priced as letters and as symbols. */
let wideLetters = 0;
let wideSymbols = 0;

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
  return estimateTokenRange(text).tokens;
}

/**
 * {@link estimateTokens}, and the same estimate with characters outside ASCII at their cheapest
 * and with runs of structural punctuation at their dearest.
 */
export interface TokenEstimate {
  /** The o200k_base estimate, {@link estimateTokens}. */
  tokens: number;
  /**
   * The same with every UTF-16 code unit outside ASCII at the least it costs on any of the
   * vocabularies checked: a saving that holds under both is not an artefact of how o200k
   * prices CJK text or emoji (a table that drops an emoji key per row saves less elsewhere).
   */
  low: number;
  /**
   * `tokens` with each run made only of JSON's and TOON's structural characters (`"{}[]:,`, and
   * line breaks at its end) at the dearer of its mean by length (what `tokens` counts, right on
   * average over real texts) and its o200k count. The mean is wrong per run: a TOON header's
   * `]{"` and `}:\n` are two tokens where their length says one. The token guard prices the text
   * it may ship at `dearest` (and JSON at `tokens`, against which its margin was measured), so
   * however many headers a short text has, they are not counted short (a 12-line text with two
   * table headers was estimated at 44 tokens against JSON's 54, and cost 51 against 50 on
   * cl100k_base; `dearest` is 49, its o200k count).
   */
  dearest: number;
  /**
   * `dearest`, with each word right after a comma or other punctuation (TOON's `,value`) at the
   * dearer of its price joined to it (o200k's chunk) and apart from it (how Claude's vocabulary
   * and the sentencepiece ones write it). Where that join is all a TOON text saves (a list of
   * codes such as `E0020`, which o200k read 16% cheaper as TOON and Claude 0.4% dearer than
   * JSON), the text costs JSON's tokens at this price; in a table, which drops every row's keys,
   * it is still well below JSON. The token guard asks that it be below JSON's estimate too.
   */
  split: number;
}

/**
 * {@link estimateTokens} and its variants ({@link TokenEstimate}), from one scan.
 *
 * @example
 * estimateTokenRange('hello world'); // { tokens: 2, low: 2, dearest: 2, split: 2 }
 * estimateTokenRange('日本'); // { tokens: 2, low: 1, dearest: 2, split: 2 }
 * estimateTokenRange('[2]{"a"}:'); // { tokens: 5, low: 5, dearest: 7, split: 7 }
 * estimateTokenRange('[3]: E0020,E0021,E0022'); // { tokens: 12, low: 12, dearest: 12, split: 14 }
 */
export function estimateTokenRange(text: string): TokenEstimate {
  return estimateUpTo(text, Number.POSITIVE_INFINITY, true) as TokenEstimate;
}

/**
 * What the token guard reads of JSON's text: {@link TokenEstimate}'s `tokens` and `low`. The
 * guard prices structure at its dearest only in the text it may ship, so JSON's scan skips it.
 */
export type BaselineEstimate = Pick<TokenEstimate, 'tokens' | 'low'>;

/**
 * {@link BaselineEstimate} of `text`: what the guard reads of JSON's whole text.
 *
 * @example
 * estimateBaseline('[{"a":1},{"a":2}]'); // { tokens: 9, low: 9 }
 */
export function estimateBaseline(text: string): BaselineEstimate {
  return estimateUpTo(text, Number.POSITIVE_INFINITY, false) as BaselineEstimate;
}

/**
 * {@link estimateBaseline}, or, once the estimate has passed `limit` part way through
 * the text, the tokens counted so far (rounded): a floor of the whole estimate, since every chunk
 * adds tokens and none takes any away. For a caller that only asks whether the estimate is
 * above `limit` (the picker, ruling TOON out on a long JSON text), the rest is not scanned.
 *
 * @example
 * estimateBaselineWithin('hello world', 10); // { tokens: 2, low: 2 }
 * estimateBaselineWithin('a, b, c, d, e, f, g, h', 3); // 4: four chunks counted, the rest not
 */
export function estimateBaselineWithin(text: string, limit: number): BaselineEstimate | number {
  return estimateUpTo(text, limit, false);
}

/**
 * Whether the scan running now prices runs of structural characters by {@link STRUCTURE_TOKENS}
 * (for `dearest`); set by {@link estimateUpTo}.
 */
let pricingStructure = false;

function estimateUpTo(
  text: string,
  limit: number,
  structure: boolean,
): TokenEstimate | BaselineEstimate | number {
  ready();
  let tokens = 0;
  let wide = 0;
  let start = 0;
  structureDearer = 0;
  joinsApart = 0;
  pricingStructure = structure;
  for (;;) {
    const last = text.length - start <= WINDOW;
    const end = last ? text.length : windowEnd(text, start + WINDOW);
    wideLetters = 0;
    wideSymbols = 0;
    tokens +=
      limit === Number.POSITIVE_INFINITY || end - start <= FIRST_PIECE
        ? scan(toCodeUnits(text, start, end), limit - tokens, 0)
        : scanInPieces(text, start, end, limit - tokens);
    if (tokens > limit) return Math.round(tokens);
    wide +=
      wideLetters * (WIDE_LETTER_RATE - WIDE_LOW_RATE) +
      wideSymbols * (WIDE_SYMBOL_RATE - WIDE_LOW_RATE);
    if (last) break;
    start = end;
  }
  // Built whole, not spread: on a short text an object spread costs about what the scan does.
  return structure
    ? {
        tokens: Math.round(tokens),
        low: Math.round(tokens - wide),
        dearest: Math.round(tokens + structureDearer),
        split: Math.round(tokens + structureDearer + joinsApart),
      }
    : { tokens: Math.round(tokens), low: Math.round(tokens - wide) };
}

const utf8 = new TextEncoder();

/**
 * Where to end a window at or a little before `limit`: at a {@link chunkBoundary}, so the windows
 * add up to the estimate of the whole text. Without one in the last 256 code units, at `limit`
 * (one chunk split in two: a token at most).
 */
function windowEnd(text: string, limit: number): number {
  const end = chunkBoundary(text, limit);
  return end < 0 ? limit : end;
}

/**
 * The last place at or a little before `limit` (within 256 code units) right after a letter or
 * digit that a space or punctuation follows, where the scanner always starts a new chunk; -1
 * when there is none.
 */
function chunkBoundary(text: string, limit: number): number {
  for (let end = limit; end > limit - 256; end--) {
    const before = text.charCodeAt(end - 1);
    const after = text.charCodeAt(end);
    if (before >= 128 || after >= 128) continue;
    const kind = charClass[before]!;
    if ((kind <= UPPER || kind === DIGIT) && charClass[after]! >= SPACE) return end;
  }
  return -1;
}

/** The first piece {@link scanInPieces} converts, in UTF-16 code units; each next one doubles. */
const FIRST_PIECE = 1024;

/**
 * `scan(toCodeUnits(text, start, end), limit)`, converted and scanned a piece at a time, so that
 * a scan that passes `limit` early leaves the rest of the window unconverted: on a long JSON text
 * the picker rules TOON out once a part of it is estimated, and converting the whole window
 * first was most of that estimate's cost (two thirds, on a 47 KB one). Pieces end at a
 * {@link chunkBoundary} (a piece without one runs to the window's end) and the count carries on
 * from piece to piece, so the chunks, the sum and where it stops are exactly the window's.
 */
function scanInPieces(text: string, start: number, end: number, limit: number): number {
  let tokens = 0;
  for (let piece = FIRST_PIECE; start < end && tokens <= limit; piece *= 2) {
    const boundary = end - start <= piece ? -1 : chunkBoundary(text, start + piece);
    const pieceEnd = boundary < 0 ? end : boundary;
    tokens = scan(toCodeUnits(text, start, pieceEnd), limit, tokens);
    start = pieceEnd;
  }
  return tokens;
}

/**
 * Writes `text.slice(start, end)` into {@link units}, one byte per UTF-16 code unit, and returns
 * their number. A short text is copied code unit by code unit; a long one through `encodeInto`,
 * which writes UTF-8: a text with anything outside ASCII is then compacted in place (a
 * character's UTF-8 sequence is never shorter than its UTF-16 code units), each code unit
 * outside ASCII becoming `0x80 | class`.
 */
function toCodeUnits(text: string, start: number, end: number): number {
  const length = end - start;
  if (length < SHORT_TEXT) {
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(start + i);
      // A surrogate, paired or lone, is a symbol to the classifier either way.
      units[i] = code < 0x80 ? code : 0x80 | classOf(code);
    }
    return length;
  }
  const { written } = utf8.encodeInto(
    start === 0 && end === text.length ? text : text.slice(start, end),
    units,
  );
  if (written === length) return written;
  let out = 0;
  for (let at = 0; at < written; ) {
    const lead = units[at]!;
    if (lead < 0x80) {
      units[out++] = lead;
      at++;
    } else if (lead >= 0xf0) {
      // Outside the BMP: two code units, each a lone surrogate to the classifier, so symbols.
      units[out++] = 0x80 | WIDE_SYMBOL;
      units[out++] = 0x80 | WIDE_SYMBOL;
      at += 4;
    } else if (lead >= 0xe0) {
      // Three bytes (U+FFFD for a lone surrogate, a symbol like the surrogate itself).
      const code = ((lead & 0x0f) << 12) | ((units[at + 1]! & 0x3f) << 6) | (units[at + 2]! & 0x3f);
      units[out++] = 0x80 | classOf(code);
      at += 3;
    } else {
      units[out++] = 0x80 | classOf(((lead & 0x1f) << 6) | (units[at + 1]! & 0x3f));
      at += 2;
    }
  }
  return out;
}

/**
 * The estimate of the first `length` code units of {@link units}, unrounded, added to `counted`
 * (what the text before them counted); it stops at the first chunk boundary after the estimate
 * passes `limit`.
 */
function scan(length: number, limit: number, counted: number): number {
  // The tables in locals: read from the module's bindings, each load in the loops below would
  // be a context load with a hole check.
  const bytes = units;
  const kinds = unitKind;
  let symbols = 0;
  // What the structure's dearer pricing adds, and whether it is asked for, in locals for the loop.
  let dearer = +structureDearer;
  let apartExtra = +joinsApart;
  const structure = pricingStructure;
  const digits = structureDigit;
  // Unary plus tells the optimizer the sum is a number from the start, so it stays an unboxed
  // double: started from the parameter as it is, the loop ran 15-25% slower.
  let tokens = +counted;
  let i = 0;
  while (i < length && tokens <= limit) {
    let kind = kinds[bytes[i]!]!;
    if (kind === DIGIT) {
      let end = i + 1;
      while (end < length && kinds[bytes[end]!] === DIGIT) end++;
      tokens += Math.ceil((end - i) / 3);
      i = end;
      continue;
    }
    // The WORD row of the word chunk about to be scanned: what stands before its letters.
    let prefix = 0;
    if (kind === SPACE || kind === NEWLINE) {
      let end = i;
      let lastNewline = -1;
      for (; end < length; end++) {
        const next = kinds[bytes[end]!]!;
        if (next === NEWLINE) lastNewline = end;
        else if (next !== SPACE) break;
      }
      if (lastNewline >= 0) tokens += 1;
      const spaces = end - Math.max(lastNewline + 1, i);
      i = end;
      if (spaces === 0) continue;
      if (end === length) {
        tokens += 1;
        continue;
      }
      // The last space joins a following word or punctuation chunk; before a digit it stands alone.
      if (spaces >= 2) tokens += 1;
      kind = kinds[bytes[end]!]!;
      if (kind === DIGIT) {
        tokens += 1;
        continue;
      }
      prefix = 1;
    } else if (!isLetter(kind) && i + 1 < length) {
      // Punctuation or a symbol: alone right before a letter it starts that word's chunk.
      const next = kinds[bytes[i + 1]!]!;
      if (isLetter(next)) {
        prefix = prefixRow(bytes[i]!);
        kind = next;
        i++;
      }
    }
    if (isLetter(kind)) {
      // Letters up to a lower-to-upper case change, which ends the chunk.
      let ascii = 0;
      let wide = 0;
      let previous = -1;
      let end = i;
      for (; end < length; end++) {
        const next = kinds[bytes[end]!]!;
        if (next <= UPPER) {
          if (next === UPPER && previous === LOWER) break;
          ascii++;
        } else if (next === WIDE_LETTER) {
          wide++;
        } else {
          break;
        }
        previous = next;
      }
      tokens += wordTokens(prefix, ascii, wide);
      // o200k joins a comma (or other punctuation) to the word after it; Claude's vocabulary and
      // the sentencepiece ones write them apart, the pair costing both tokens (for `split`).
      if (structure && prefix === PUNCT_PREFIX_ROW && wide === 0)
        apartExtra += JOINED_APART[Math.min(ascii, WORD_TABLE_LETTERS)]!;
      i = end;
      continue;
    }
    // A punctuation chunk: symbols, then any newlines and slashes (o200k's `[\r\n/]*`).
    let ascii = 0;
    let wide = 0;
    let end = i;
    for (; end < length; end++) {
      const next = kinds[bytes[end]!]!;
      if (next === PUNCT) ascii++;
      else if (next === WIDE_SYMBOL) wide++;
      else break;
    }
    while (end < length) {
      const code = bytes[end];
      if (code !== 10 && code !== 13 && code !== 0x2f) break;
      end++;
    }
    symbols += wide;
    const run = ascii <= 12 ? PUNCT_RUN[ascii]! : PUNCT_RUN[12]! + (ascii - 12) * LONG_PUNCT_RATE;
    // Only a run that opens and ends with structural characters can be all of them: checked
    // here, so that runs of other punctuation (`."`, `\"`) cost no call.
    if (
      structure &&
      wide === 0 &&
      end - i > 1 &&
      end - i <= STRUCTURE_RUN_MAX &&
      digits[bytes[i]!] !== 0 &&
      digits[bytes[end - 1]!] !== 0
    ) {
      const exact = structureCount(bytes, i, end);
      if (exact > run) dearer += exact - run;
    }
    tokens += run + wide * WIDE_SYMBOL_RATE;
    i = end;
  }
  wideSymbols += symbols;
  structureDearer = dearer;
  joinsApart = apartExtra;
  return tokens;
}

/** The estimate of a word chunk of `ascii` ASCII and `wide` other letters after `prefix`. */
function wordTokens(prefix: number, ascii: number, wide: number): number {
  if (wide > 0) {
    wideLetters += wide;
    return wide * WIDE_LETTER_RATE + ascii / 4 + (prefix >= 2 ? 0.9 : 0);
  }
  const row = WORD[prefix]!;
  return ascii <= WORD_TABLE_LETTERS
    ? row[ascii]!
    : row[WORD_TABLE_LETTERS]! + (ascii - WORD_TABLE_LETTERS) * LONG_WORD_RATE;
}

/**
 * An upper bound of how many estimated tokens `text`'s first chunk costs less after a space
 * than after a run of punctuation (a JSON string's opening quote ends such a run; a TOON scalar
 * after `: ` or an indented key follows a space): the one place where a string's own tokens
 * differ between a JSON text and a TOON text of the same value. For the picker's shape bound.
 *
 * @example
 * spaceGain('description'); // 0.54: 'description' costs 1.94 tokens alone, 1.4 after a space
 * spaceGain('42'); // 0: a digit after a space costs one token more, not less
 */
export function spaceGain(text: string): number {
  const letters = leadingWord(text);
  if (letters <= 0) return letters === 0 ? 0 : 1;
  return SPACE_GAIN[letters]!;
}

/** {@link spaceGain} of a word of each length: the shape bound asks it of every string. */
const SPACE_GAIN: readonly number[] = WORD[0]!.map((alone, letters) =>
  Math.max(0, alone - WORD[1]![letters]!),
);

/**
 * The same for a string after a comma in TOON (`a,b`) against after `","` in JSON (`"a","b"`):
 * o200k joins a comma to the word after it, and JSON's quotes make a chunk of their own.
 *
 * @example
 * commaGain('a'); // 1.01: `","` + `a` is 2.04 tokens, `,a` 1.03
 */
export function commaGain(text: string): number {
  const letters = leadingWord(text);
  if (letters <= 0) return letters === 0 ? 0.04 : 1;
  return COMMA_GAIN[letters]!;
}

/** {@link commaGain} of a word of each length: the shape bound asks it of list items. */
const COMMA_GAIN: readonly number[] = WORD[0]!.map((alone, letters) =>
  Math.max(0, alone + PUNCT_RUN[3]! - WORD[3]![letters]!),
);

/**
 * The least estimated tokens `key`'s first chunk costs in a table header (`[N]{a,b}`), where
 * it follows `{` after `]` or another bracket (a chunk of its own: the word has no prefix), or
 * follows a lone comma or brace (`afterSeparator`: o200k joins that symbol to the word). 0 when
 * the key opens otherwise. The header's keys are the one thing a TOON table writes that the
 * shape bound's rows do not already count; a key's later chunks are not priced (a floor).
 *
 * @example
 * headerKeyFloor('id', false); // 1.03: `]{id`
 * headerKeyFloor('name', true); // 1.92: `,name` costs more than `name`
 * headerKeyFloor('_id', true); // 0: punctuation first joins the separator's run
 */
export function headerKeyFloor(key: string, afterSeparator: boolean): number {
  const letters = leadingWord(key);
  if (letters <= 0) {
    // A digit opens a chunk of its own (digits never join a prefix): a token at least.
    return letters === 0 && key.length > 0 ? 1 : 0;
  }
  const first = WORD[afterSeparator ? 3 : 0]![letters]!;
  // A key that ends in a letter or digit is chunked in the header as it is alone (the comma or
  // brace after it starts a new chunk), but for its first word's prefix.
  const last = key.charCodeAt(key.length - 1);
  ready();
  const kind = last < 128 ? charClass[last]! : PUNCT;
  if (kind > DIGIT) return first;
  return first + unroundedTokens(key) - WORD[0]![letters]!;
}

/**
 * {@link estimateTokens} before rounding: for summing the estimates of pieces of one text (a
 * key that a table writes once and JSON once per row), which rounding each would skew.
 *
 * @example
 * unroundedTokens('amount'); // 1.38
 */
export function unroundedTokens(text: string): number {
  ready();
  if (text.length >= SHORT_TEXT) {
    let tokens = 0;
    for (let start = 0; start < text.length; ) {
      const end = text.length - start <= WINDOW ? text.length : windowEnd(text, start + WINDOW);
      tokens += scan(toCodeUnits(text, start, end), Number.POSITIVE_INFINITY, 0);
      start = end;
    }
    return tokens;
  }
  return scan(toCodeUnits(text, 0, text.length), Number.POSITIVE_INFINITY, 0);
}

/**
 * The least a comma costs right before `text` when `text` is written bare (a TOON table cell)
 * and not after a punctuation run (as a JSON string is, after `":"`): o200k joins the comma to
 * a leading word, which then costs more; 0 when `text` opens otherwise (a digit-led string may
 * be quoted, and then the comma joins the quote's run).
 *
 * @example
 * commaWordCost('usd'); // 0.72: `,usd` 1.89 tokens, `usd` 1.17
 * commaWordCost('-'); // 0
 */
export function commaWordCost(text: string): number {
  const letters = leadingWord(text);
  return letters <= 0 ? 0 : WORD[3]![letters]! - WORD[0]![letters]!;
}

/**
 * The ASCII letters that open `text`, up to the table's limit, when its first chunk is such a
 * word; 0 when it opens with a digit or is empty (no gain); -1 when it opens otherwise
 * (punctuation, a space, a character outside ASCII), for which the callers assume the most.
 * The shape bound asks this of every string and key, so the classes are computed (`isAsciiLetter`,
 * `isAsciiUpper`), not read from the scanner's table, and no table has to be built.
 */
function leadingWord(text: string): number {
  if (text.length === 0) return 0;
  const first = text.charCodeAt(0);
  if (first >= 0x30 && first <= 0x39) return 0;
  if (!isAsciiLetter(first)) return -1;
  let letters = 1;
  let previousLower = !isAsciiUpper(first);
  for (; letters < text.length && letters < WORD_TABLE_LETTERS; letters++) {
    const code = text.charCodeAt(letters);
    // A letter outside ASCII makes it a word the estimate prices the same after anything.
    if (code >= 128) return -1;
    if (!isAsciiLetter(code)) break;
    const upper = isAsciiUpper(code);
    // A lower-to-upper case change ends the chunk.
    if (upper && previousLower) break;
    previousLower = !upper;
  }
  return letters;
}

/** `A` to `Z` or `a` to `z`: the scanner's {@link LOWER} and {@link UPPER}. */
function isAsciiLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/** An ASCII letter's case, from the bit that tells `A` (0x41) from `a` (0x61). */
function isAsciiUpper(letter: number): boolean {
  return (letter & 0x20) === 0;
}
