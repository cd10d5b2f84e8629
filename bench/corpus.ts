// The documents benchmarks run on: the shared real-world corpus when it sits beside the project
// (../shared/corpus), else a deterministic sample generated here, so a fresh clone can run them.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Document {
  name: string;
  value: unknown;
}

const sharedCorpus = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../shared/corpus',
);

/**
 * The benchmark documents: every `*.json` of ../shared/corpus, or a bundled sample.
 *
 * @example
 * for (const { name, value } of loadDocuments()) console.log(name, JSON.stringify(value).length);
 */
export function loadDocuments(): Document[] {
  if (fs.existsSync(sharedCorpus)) {
    const files = fs
      .readdirSync(sharedCorpus)
      .filter((file) => file.endsWith('.json'))
      .sort();
    if (files.length > 0) {
      return files.map((file) => ({
        name: file.replace(/\.json$/, ''),
        value: JSON.parse(fs.readFileSync(path.join(sharedCorpus, file), 'utf8')),
      }));
    }
  }
  console.error(`note: ${sharedCorpus} not found; benchmarking the bundled sample instead`);
  return [{ name: 'bundled-sample', value: bundledSample() }];
}

/** A deterministic mix of the shapes that matter: a uniform table, nesting, prose and numbers. */
function bundledSample(): unknown {
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const word = () =>
    ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'][Math.floor(next() * 6)]!;
  return {
    repos: Array.from({ length: 200 }, (_, i) => ({
      id: 1000 + i,
      name: `${word()}-${word()}`,
      description: `${word()} ${word()}, ${word()}: ${word()} ${word()}`,
      stars: Math.floor(next() * 50000),
      updatedAt: new Date(1.7e12 + Math.floor(next() * 1e10)).toISOString(),
      owner: { login: word(), id: Math.floor(next() * 1e6) },
    })),
    events: Array.from({ length: 100 }, (_, i) => ({
      id: i,
      tags: [word(), word()],
      payload:
        i % 3 === 0
          ? { kind: 'note', text: `${word()} ${word()}` }
          : { kind: 'point', at: [next(), next()] },
    })),
    coordinates: Array.from({ length: 2000 }, () => [next() * 180 - 90, next() * 360 - 180]),
  };
}
