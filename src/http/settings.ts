import { DELIMITERS as CODEC_DELIMITERS } from '../codec/constants.js';
import type { Delimiter } from '../codec/types.js';

/** A concrete response format: what a negotiated response is written in. */
export type ResponseFormat = 'json' | 'toon';

/**
 * What to answer when the client states no preference between JSON and TOON (no `Accept`,
 * `*\/*`, or both types equally preferred):
 * - `'json'` (default): JSON, so existing clients see no change.
 * - `'toon'`: TOON.
 * - `'auto'`: whichever of the two is smaller for this body (the picker's choice, see `pick`),
 *   labelled with the matching Content-Type.
 */
export type DefaultFormat = ResponseFormat | 'auto';

/** Options shared by every adapter (`toonwire/fastify`, `toonwire/express`, `toonwire/hono`). */
export interface ToonHttpOptions {
  /** Format used when the client states no preference. Default `'json'`. Changeable at runtime through {@link ToonSettings}. */
  defaultFormat?: DefaultFormat;
  /** Delimiter of TOON tables and inline arrays in responses: `','` (default), `'|'` or `'\t'`. Changeable at runtime. */
  delimiter?: Delimiter;
}

const DEFAULT_FORMATS: readonly DefaultFormat[] = ['json', 'toon', 'auto'];
const DELIMITERS: readonly Delimiter[] = Object.values(CODEC_DELIMITERS);

function checkDefaultFormat(value: unknown): DefaultFormat {
  if (DEFAULT_FORMATS.includes(value as DefaultFormat)) return value as DefaultFormat;
  throw new TypeError(
    `toonwire: defaultFormat must be 'json', 'toon' or 'auto', got ${JSON.stringify(value)}.`,
  );
}

function checkDelimiter(value: unknown): Delimiter {
  if (DELIMITERS.includes(value as Delimiter)) return value as Delimiter;
  throw new TypeError(
    `toonwire: delimiter must be ',' (comma), '|' (pipe) or '\\t' (tab), got ${JSON.stringify(value)}.`,
  );
}

/**
 * The live negotiation settings of one adapter instance. Every adapter exposes its instance
 * (Fastify: `app.toon`; Express and Hono: `middleware.settings`), and every response reads it
 * afresh, so assigning a property changes the behaviour of the next request without a restart.
 * Invalid values throw a `TypeError` at assignment, not at the next request.
 *
 * @example
 * const settings = new ToonSettings({ defaultFormat: 'json' });
 * settings.defaultFormat = 'toon'; // from now on, clients without a preference get TOON
 */
export class ToonSettings {
  #defaultFormat: DefaultFormat;
  #delimiter: Delimiter;

  constructor(options: ToonHttpOptions = {}) {
    this.#defaultFormat = checkDefaultFormat(options.defaultFormat ?? 'json');
    this.#delimiter = checkDelimiter(options.delimiter ?? ',');
  }

  /** Format used when the client states no preference. */
  get defaultFormat(): DefaultFormat {
    return this.#defaultFormat;
  }
  set defaultFormat(value: DefaultFormat) {
    this.#defaultFormat = checkDefaultFormat(value);
  }

  /** Delimiter of TOON tables and inline arrays in responses. */
  get delimiter(): Delimiter {
    return this.#delimiter;
  }
  set delimiter(value: Delimiter) {
    this.#delimiter = checkDelimiter(value);
  }

  toJSON(): Required<ToonHttpOptions> {
    return { defaultFormat: this.#defaultFormat, delimiter: this.#delimiter };
  }
}
