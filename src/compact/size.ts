// Size measures for the picker: UTF-8 bytes with a token guard (the default), plain UTF-8 bytes
// (the reproducible measure of the TOON adoption proposal for Apify's MCP server), BPE tokens of
// a real tokenizer (what a model is billed for), or any function the caller supplies.

import { countInPieces } from './token-pieces.js';

/** The tokenizers {@link loadTokenizer} knows. */
export type TokenizerName = 'o200k_base' | 'cl100k_base';

/**
 * How the picker compares candidates:
 * - `'auto'` (default): UTF-8 bytes, and a TOON text ships only when it also costs no more
 *   o200k_base tokens than JSON by a synchronous estimate (no tokenizer to load);
 * - `'bytes'`: UTF-8 bytes alone, the reproducible measure;
 * - `'tokens'`: exact tokens of a tokenizer loaded with {@link loadTokenizer};
 * - a function `(text) => number`: your own measure.
 */
export type SizeMeasure = 'auto' | 'bytes' | 'tokens' | ((text: string) => number);

/** The tokenizer `by: 'tokens'` uses unless told otherwise: GPT-4o's, GPT-4.1's and GPT-5's. */
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

/**
 * Below this length a JavaScript loop over the code units beats the call into the native encoder
 * (here, and in the token estimate's copy). Measured on fresh texts (JSON and TOON of the small
 * payloads, as a pick meets them): the loop costs about 3 ns a code unit and `encodeInto` about
 * 50 ns a call, so they cross near 16 (at 128, a 118-byte JSON text cost a quarter of a pick that
 * ships JSON; the estimate's texts of 60 to 300 code units took half the time once copied
 * natively).
 */
export const SHORT_TEXT = 16;
/** The native encoder writes into one reused scratch buffer, a chunk at a time. */
const SCRATCH_BYTES = 1 << 16;
let scratch: Uint8Array | undefined;
const utf8 = new TextEncoder();

/**
 * The number of bytes `text` takes in UTF-8, exactly what `new TextEncoder().encode(text).length`
 * returns (a lone surrogate counts as the 3 bytes of U+FFFD), without allocating a copy of the
 * text: short strings are counted from their UTF-16 code units, long ones are run through
 * `TextEncoder.encodeInto` a 64 KiB chunk at a time into one reused buffer (measured about 50x
 * faster than a JavaScript loop on ASCII, 5x on mixed text).
 *
 * @example
 * byteLength('abc'); // 3
 * byteLength('é'); // 2
 * byteLength('😀'); // 4
 */
export function byteLength(text: string): number {
  if (text.length < SHORT_TEXT) return countUtf8(text);
  scratch ??= new Uint8Array(SCRATCH_BYTES);
  let bytes = 0;
  let rest = text;
  for (;;) {
    // encodeInto never splits a surrogate pair, so `read` always lands on a character boundary.
    const { read, written } = utf8.encodeInto(rest, scratch);
    bytes += written;
    if (read === rest.length) return bytes;
    rest = rest.slice(read);
  }
}

function countUtf8(text: string): number {
  const length = text.length;
  let bytes = length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else {
      bytes += 2;
      // A surrogate pair is two code units and four bytes; a lone surrogate is encoded as
      // U+FFFD, three bytes, like any other code unit from U+0800 up.
      if (code <= 0xdbff && code >= 0xd800 && i + 1 < length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i += 1;
      }
    }
  }
  return bytes;
}

/**
 * An exact token counter for one vocabulary, as {@link loadTokenizer} gives it.
 *
 * @example
 * const count: CountTokens = await loadTokenizer('o200k_base');
 * count('hello world'); // 2
 */
export type CountTokens = (text: string) => number;

const loaded = new Map<TokenizerName, CountTokens>();
const loading = new Map<TokenizerName, Promise<CountTokens>>();

const TOKENIZER_NAMES: readonly TokenizerName[] = ['o200k_base', 'cl100k_base'];

/** Throws a `TypeError` naming `caller` unless `name` is a known tokenizer. */
export function checkTokenizerName(name: unknown, caller: string): asserts name is TokenizerName {
  if (!TOKENIZER_NAMES.includes(name as TokenizerName)) {
    throw new TypeError(
      `${caller}: unknown tokenizer ${JSON.stringify(name)}; use 'o200k_base' (GPT-4o and later) or 'cl100k_base' (GPT-4, GPT-3.5)`,
    );
  }
}

/**
 * Loads a BPE tokenizer from the `gpt-tokenizer` package (imported only when asked for, so the
 * rest of the library never pays for its vocabulary) and returns its token counter. Call it once,
 * `await` it, and from then on `pick(value, { by: 'tokens' })` can count synchronously. Special
 * tokens such as `<|endoftext|>` in the data count as the plain text they are.
 *
 * @example
 * const countTokens = await loadTokenizer('o200k_base');
 * countTokens('hello world'); // 2
 * pick(rows, { by: 'tokens' }); // now allowed
 */
export function loadTokenizer(name: TokenizerName = DEFAULT_TOKENIZER): Promise<CountTokens> {
  checkTokenizerName(name, 'loadTokenizer');
  const ready = loaded.get(name);
  if (ready !== undefined) return Promise.resolve(ready);
  let pending = loading.get(name);
  if (pending === undefined) {
    pending = importTokenizer(name).then(
      (count) => {
        loaded.set(name, count);
        loading.delete(name);
        return count;
      },
      (error: unknown) => {
        loading.delete(name);
        throw new Error(
          `loadTokenizer: could not load the ${name} tokenizer from the gpt-tokenizer package; install it with \`npm install gpt-tokenizer\``,
          { cause: error },
        );
      },
    );
    loading.set(name, pending);
  }
  return pending;
}

interface TokenizerModule {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** Treats special-token text as ordinary text instead of throwing, as a chat API does. */
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

async function importTokenizer(name: TokenizerName): Promise<CountTokens> {
  // Literal specifiers, so bundlers can see and split both modules.
  const module: TokenizerModule =
    name === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  const count = (text: string): number => module.countTokens(text, NO_SPECIAL_TOKENS);
  // In pieces where a run of one character class is long: the BPE's time grows with its square.
  return (text) => countInPieces(count, text);
}

/**
 * The synchronous measure behind a {@link SizeMeasure}. Throws a `TypeError` when tokens are
 * asked for before {@link loadTokenizer} has finished.
 */
export function resolveMeasure(
  by: SizeMeasure | undefined,
  tokenizer: TokenizerName | undefined,
  caller: string,
): (text: string) => number {
  if (by === undefined || by === 'auto' || by === 'bytes') return byteLength;
  if (typeof by === 'function') return by;
  if (by === 'tokens') {
    const name = tokenizer ?? DEFAULT_TOKENIZER;
    checkTokenizerName(name, caller);
    const count = loaded.get(name);
    if (count === undefined) {
      throw new TypeError(
        `${caller}: by: 'tokens' needs the ${name} tokenizer loaded first; call \`await loadTokenizer('${name}')\` once at startup`,
      );
    }
    return count;
  }
  throw new TypeError(
    `${caller}: by must be 'auto' (the default), 'bytes', 'tokens' or a function (text) => number, got ${JSON.stringify(by)}`,
  );
}
