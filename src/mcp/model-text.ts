// The text a model reads for a value: the picker's choice, optionally labelled with a one-line
// format hint, and never larger than JSON with the label counted.

import {
  checkPickOptions,
  estimateTokenRange,
  measureText,
  type PickOptions,
  type PickResult,
  pick,
  shippedEstimate,
  TOKEN_GUARD_SLACK,
} from '../compact/index.js';
import { type PickedWithInput, pickWithInput } from '../compact/pick.js';

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
 * text must still be smaller than JSON (under the default measure, also by the token guard that
 * TOON passes), or JSON ships unlabelled.
 *
 * @example
 * modelText(rows, { hint: true }).text; // 'Format: TOON (toonformat.dev): ...\nitems[20]{id,name}:\n  ...'
 */
export function modelText(value: unknown, options: ModelTextOptions = {}): PickResult {
  return modelTextWithInput(value, options).result;
}

/**
 * {@link modelText}, also handing back the value the picker encoded (see `pickWithInput`): the
 * payload in the JSON model, for a caller that needs that view too.
 *
 * @example
 * const { result, input } = modelTextWithInput({ items: rows });
 * // result: what modelText returns; input: { items: rows } (plain data is passed as it is)
 */
export function modelTextWithInput(
  value: unknown,
  options: ModelTextOptions = {},
): PickedWithInput {
  // The picker reads the options it knows, so it is given these as they are (`hint` too): no
  // copy of them on every call.
  const withInput = pickWithInput(value, options);
  const picked = withInput.result;
  const label = hintFor(options.hint, picked.strategy);
  if (label === undefined) return withInput;
  const text = `${label}\n${picked.text}`;
  const size = measureText(text, options);
  const jsonSize = picked.sizes.json!;
  let json: PickResult | undefined;
  const asJson = (): PickResult => {
    json ??= pick(value, { ...options, candidates: ['json'] });
    return json;
  };
  // The default measure sizes bytes and guards tokens, so the label must also leave the text
  // fewer tokens than JSON. The picked text passed the guard, but by how much is known only as
  // an estimate, and the estimate of a saving can be three times the real one (1,209 TOON picks,
  // o200k_base: a 14-row table estimated to save 47 tokens saved 26, so its 28-token label made it
  // 2 tokens dearer than JSON): the label ships only when the estimated saving covers it three
  // times over on both estimates, with the guard's slack.
  const guarded = options.by === undefined || options.by === 'auto';
  const fits = size < jsonSize && (!guarded || affordsLabel(label, picked.text, asJson().text));
  return { result: fits ? { ...picked, text, size } : asJson(), input: withInput.input };
}

/** How many times over the estimated saving of the picked text must pay for a label. */
const LABEL_SAVING_FACTOR = 3;

/** Does `text`'s estimated saving over `json` cover `label` {@link LABEL_SAVING_FACTOR} times, plus the guard's slack? */
function affordsLabel(label: string, text: string, json: string): boolean {
  // Priced as the guard prices them: the label with the text it ships.
  const cost = shippedEstimate(estimateTokenRange(`${label}\n`));
  const mine = shippedEstimate(estimateTokenRange(text));
  const theirs = estimateTokenRange(json);
  const covers = (saving: number, labelTokens: number) =>
    saving >= LABEL_SAVING_FACTOR * labelTokens + TOKEN_GUARD_SLACK;
  return (
    covers(theirs.tokens - mine.tokens, cost.tokens) && covers(theirs.low - mine.low, cost.low)
  );
}

/**
 * Checks {@link modelText}'s options once, up front: the picker's (see `checkPickOptions`) and
 * the hint's type (a string hint must be one line), so that a later `modelText` cannot fail
 * because of them. A function hint is checked each time it is called.
 *
 * @throws {TypeError} naming the bad option, prefixed with `caller`.
 * @example
 * checkModelTextOptions({ by: 'tokens', hint: true }, 'proxy'); // passes once the tokenizer is loaded
 */
export function checkModelTextOptions(options: ModelTextOptions, caller: string): void {
  const { hint, ...pickOptions } = options;
  checkPickOptions(pickOptions, caller);
  if (hint === undefined || typeof hint === 'boolean' || typeof hint === 'function') return;
  if (typeof hint !== 'string' || /[\r\n]/.test(hint)) {
    throw new TypeError(
      `${caller}: hint must be true, a one-line label or a function returning one, got ${JSON.stringify(hint)}`,
    );
  }
}
