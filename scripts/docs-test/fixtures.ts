// The user's files that the docs' shell and TypeScript examples name (`my-responses/`,
// `items.json`, `runs.toon`, ...), made from the sample corpus so that the examples run as
// written in the docs test's scratch project, as they would beside a user's own files.
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { encode } from '../../src/index.js';

/** What each example file is made of: a corpus path (file or directory), or a text. */
const FIXTURES: Record<string, { corpus: string } | { text: (corpus: string) => string }> = {
  'my-responses': { corpus: 'get-dataset-list' },
  responses: { corpus: 'get-key-value-store-list' },
  'response.json': { corpus: 'get-actor-run-list/user-runs-latest-10.json' },
  'runs.json': { corpus: 'get-actor-run-list/user-runs-latest-10.json' },
  'items.json': { corpus: 'get-dataset-items/google-maps-coffee-prague-10.json' },
  'places.json': { corpus: 'get-dataset-items/google-maps-coffee-prague-10.json' },
  'exports/items.json': { corpus: 'get-dataset-items/google-maps-coffee-prague-10.json' },
  'items.jsonl': { text: (corpus) => jsonLines(corpus, 'get-actor-run-list/actor-runs-50.json') },
  'runs.toon': {
    text: (corpus) =>
      `${encode(readJson(corpus, 'get-actor-run-list/user-runs-latest-10.json'))}\n`,
  },
  'big.toon': {
    text: (corpus) => `${encode(readJson(corpus, 'get-actor-run-list/actor-runs-50.json'))}\n`,
  },
  'hand-written.toon': { text: () => 'name: Ada\ntags[2]: a,b\n# a comment\n' },
};

/**
 * Writes the example files into `dir`.
 *
 * @example
 * writeFixtures('/tmp/docs-test-app', 'corpus'); // /tmp/docs-test-app/runs.json, my-responses/, ...
 */
export function writeFixtures(dir: string, corpus: string): string[] {
  for (const [name, source] of Object.entries(FIXTURES)) {
    const target = join(dir, name);
    mkdirSync(dirname(target), { recursive: true });
    if ('corpus' in source) {
      const from = join(corpus, source.corpus);
      if (source.corpus.endsWith('.json')) copyFileSync(from, target);
      else cpSync(from, target, { recursive: true });
    } else writeFileSync(target, source.text(corpus));
  }
  return Object.keys(FIXTURES);
}

function readJson(corpus: string, file: string): unknown {
  return JSON.parse(readFileSync(join(corpus, file), 'utf8'));
}

/** The items of an envelope `{ items: [...] }`, one JSON text a line. */
function jsonLines(corpus: string, file: string): string {
  const { items } = readJson(corpus, file) as { items: unknown[] };
  return `${items.map((item) => JSON.stringify(item)).join('\n')}\n`;
}
