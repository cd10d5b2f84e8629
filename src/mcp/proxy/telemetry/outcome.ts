// What became of a result, as telemetry counts it and `_meta` names it: fixed vocabularies, so
// metrics labels stay few whatever results hold. The result pipeline decides; this layer only
// names the outcomes, so telemetry needs nothing from the pipeline.

/** The encodings a result's text can ship in, as a picker candidate names them. */
export type Encoding = 'json' | 'toon' | 'toon-flatten' | 'toon-tab';

/**
 * What a shipped result's text is, one per result: `'verbatim'` when every text went out as the
 * upstream sent it, else the encoding of its one rewritten text. A fixed set, so metrics labels
 * and `_meta` stay small whatever the result holds.
 */
export type ResultStrategy = 'verbatim' | Encoding;

/** Every {@link ResultStrategy}, for label sets and docs. */
export const RESULT_STRATEGIES: readonly ResultStrategy[] = [
  'verbatim',
  'json',
  'toon',
  'toon-flatten',
  'toon-tab',
];

/**
 * Why a result's text went out exactly as the upstream sent it:
 * - decided without reading the text: `'config'` (`"compact": false`), `'excluded'`
 *   (`--exclude-tools`, or not in `--tools`), `'content'` (the content policy: a tool that
 *   returns file, resource or document contents), `'error'` (an `isError` result),
 *   `'no-content'` (no `content` array, e.g. a task handle);
 * - decided by reading it: `'no-text'` (no text content), `'not-json'` (prose, Markdown, a
 *   JSON string or number), `'string'` (`structuredContent` shows the text is a string value:
 *   a file's text, a document), `'mixed'` (JSON texts interleaved with other content),
 *   `'unsafe-numbers'` (a number a double cannot carry exactly);
 * - `'too-large'`: more text than the proxy reads (`--max-compact-mb`), forwarded unread;
 * - decided after picking: `'not-smaller'` (no encoding was smaller than the upstream's text);
 * - `'failed'`: a stage of the pipeline threw (a defect: the proxy logs it and forwards the
 *   result as it came).
 */
export type VerbatimReason =
  | 'config'
  | 'excluded'
  | 'content'
  | 'error'
  | 'no-content'
  | 'no-text'
  | 'not-json'
  | 'string'
  | 'mixed'
  | 'unsafe-numbers'
  | 'too-large'
  | 'not-smaller'
  | 'failed';

/** The reasons decided by reading the result's texts (the rest are decided without, or after). */
export const READ_REASONS = [
  'no-text',
  'not-json',
  'string',
  'mixed',
  'unsafe-numbers',
  'too-large',
] as const satisfies readonly VerbatimReason[];

/** Every {@link VerbatimReason}, for label sets and docs. */
export const VERBATIM_REASONS: readonly VerbatimReason[] = [
  'config',
  'excluded',
  'content',
  'error',
  'no-content',
  ...READ_REASONS,
  'not-smaller',
  'failed',
];
