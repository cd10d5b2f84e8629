// The text a model reads for a value: the picker's choice, optionally labelled with a one-line
// format hint, and never larger than JSON with the label counted.

import {
  byteLength,
  measureCandidates,
  type PickOptions,
  type PickResult,
  pick,
} from '../compact/index.js';

/**
 * A one-line label prepended to non-JSON text, for models that do better when told the format:
 * `true` for the built-in label of each strategy, a string for your own label, or a function of
 * the strategy returning the label (or `undefined` for none). JSON text is never labelled.
 */
export type FormatHint = boolean | string | ((strategy: string) => string | undefined);

/** Options of {@link modelText}: the picker's options plus the hint. */
export interface ModelTextOptions extends PickOptions {
  /** Label non-JSON text with its format (default `false`: the prompt tax is opt-in). */
  hint?: FormatHint;
}

const TABLE_HINT = 'TOON (toonformat.dev): `key[N]{a,b}:` starts a table of N rows with fields a,b';
const BUILT_IN_HINTS: Readonly<Record<string, string>> = {
  toon: `Format: ${TABLE_HINT}.`,
  'toon-tab': `Format: ${TABLE_HINT}, tab-separated.`,
  'toon-flatten': `Format: ${TABLE_HINT}; a dotted field a.b is field b inside a.`,
};

/**
 * The built-in one-line label for a strategy: the format's name and how to read its tables.
 *
 * @example
 * formatHint('toon'); // 'Format: TOON (toonformat.dev): `key[N]{a,b}:` starts a table ...'
 * formatHint('json'); // undefined
 */
export function formatHint(strategy: string): string | undefined {
  if (strategy === 'json') return undefined;
  return Object.hasOwn(BUILT_IN_HINTS, strategy)
    ? BUILT_IN_HINTS[strategy]
    : `Format: ${strategy}.`;
}

function hintFor(hint: FormatHint | undefined, strategy: string): string | undefined {
  if (hint === undefined || hint === false || strategy === 'json') return undefined;
  if (hint === true) return formatHint(strategy);
  const label = typeof hint === 'string' ? hint : hint(strategy);
  if (label === undefined) return undefined;
  if (typeof label !== 'string' || /[\r\n]/.test(label)) {
    throw new TypeError(
      `hint: a format hint must be one line of text, got ${JSON.stringify(label)}`,
    );
  }
  return label;
}

/**
 * `pick(value, options)` with the optional format hint: when a label is asked for, the labelled
 * text must still be smaller than JSON, or JSON ships unlabelled.
 */
export function modelText(value: unknown, options: ModelTextOptions = {}): PickResult {
  const { hint, ...pickOptions } = options;
  const picked = pick(value, pickOptions);
  const label = hintFor(hint, picked.strategy);
  if (label === undefined) return picked;
  const text = `${label}\n${picked.text}`;
  const size = measureText(text, pickOptions);
  const jsonSize = picked.sizes.json!;
  if (size < jsonSize) return { ...picked, text, size };
  return pick(value, { ...pickOptions, candidates: ['json'] });
}

/** `text`'s size under the picker's measure (bytes, a loaded tokenizer, or the caller's own). */
function measureText(text: string, options: PickOptions): number {
  if (options.by === undefined || options.by === 'bytes') return byteLength(text);
  if (typeof options.by === 'function') return options.by(text);
  // Tokens: the compact engine keeps the loaded tokenizers to itself, and its public way to
  // measure an arbitrary text in them is a candidate that returns exactly that text.
  const [, labelled] = measureCandidates(null, {
    by: options.by,
    tokenizer: options.tokenizer,
    candidates: [{ name: 'labelled', encode: () => text }],
  });
  if (labelled?.size === undefined)
    throw labelled?.error ?? new Error('could not measure the labelled text');
  return labelled.size;
}
