// Real public datasets from npm (devDependencies), for the token benchmark (bench:tokens): the
// shapes where UTF-8 bytes and tokens disagree. The real-data test of the picker's token guard
// (test/compact/token-safe.test.ts) reads the same packages itself.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** One dataset file: its npm package and path, and the parsed value. */
export interface Dataset {
  name: string;
  value: unknown;
}

/** The npm dataset files, as `package/path`. */
export const NPM_DATASETS: readonly string[] = [
  'world-countries/countries.json',
  'emojibase-data/en/data.json',
  'emojibase-data/en/compact.json',
  'emojibase-data/en/messages.json',
  'spdx-license-list/spdx.json',
  'spdx-license-list/spdx-simple.json',
  'spdx-license-list/spdx-full.json',
  'mime-db/db.json',
];

/**
 * Reads the npm datasets (each resolved through Node's module resolution).
 *
 * @example
 * for (const { name, value } of loadNpmDatasets()) console.log(name, JSON.stringify(value).length);
 */
export function loadNpmDatasets(names: readonly string[] = NPM_DATASETS): Dataset[] {
  return names.map((name) => ({
    name,
    value: JSON.parse(fs.readFileSync(require.resolve(name), 'utf8')),
  }));
}
