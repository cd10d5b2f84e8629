// Generates the bundled fixture corpus under corpus/ that `toonwire report` measures by default.
//
//   node --import tsx scripts/generate-corpus.ts           write corpus/
//   node --import tsx scripts/generate-corpus.ts --check   exit 1 if corpus/ differs from the generator
//
// The corpus mirrors the 18 fixtures of the TOON adoption proposal (four Apify list tools plus
// dataset items of four Actors) and its 100-place projection scenario. Everything is derived
// from one seed through a PRNG, so the output is byte-identical on every machine. Fixture sizes
// and field sets were fixed before anything was measured and were not tuned to the results.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  actorRunList,
  datasetList,
  keyValueStoreKeys,
  keyValueStoreList,
} from './corpus/apify-api.js';
import { googleMapsPlaces } from './corpus/google-maps.js';
import { instagramPosts, instagramProfiles } from './corpus/instagram.js';
import { ragWebBrowserPages } from './corpus/rag-web-browser.js';
import { hashSeed, Random } from './corpus/random.js';

const SEED = 'toonwire-corpus-v1';
const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'corpus');

interface FixtureSpec {
  group: string;
  name: string;
  description: string;
  build(random: Random): unknown;
}

interface ProjectionSpec {
  name: string;
  fields: string[];
  description: string;
  build(random: Random): unknown;
}

const FIXTURES: FixtureSpec[] = [
  {
    group: 'get-actor-run-list',
    name: 'user-runs-latest-10',
    description:
      'GET /v2/actor-runs?desc=1&limit=10: the ten newest runs across five Actors of one account.',
    build: (r) =>
      actorRunList(r, { count: 10, total: 1487, offset: 0, limit: 10, desc: true, actorCount: 5 }),
  },
  {
    group: 'get-actor-run-list',
    name: 'actor-runs-50',
    description: 'GET /v2/acts/:actorId/runs?limit=50: fifty runs of one Actor, oldest first.',
    build: (r) =>
      actorRunList(r, { count: 50, total: 213, offset: 0, limit: 50, desc: false, actorCount: 1 }),
  },
  {
    group: 'get-dataset-list',
    name: 'named-datasets-8',
    description: 'GET /v2/datasets: the eight named datasets of an account.',
    build: (r) =>
      datasetList(r, {
        count: 8,
        total: 8,
        offset: 0,
        limit: 1000,
        desc: false,
        unnamedShare: 0,
        schemaShare: 0,
      }),
  },
  {
    group: 'get-dataset-list',
    name: 'all-datasets-30',
    description: 'GET /v2/datasets?unnamed=1&desc=1&limit=30: mostly unnamed run datasets.',
    build: (r) =>
      datasetList(r, {
        count: 30,
        total: 412,
        offset: 0,
        limit: 30,
        desc: true,
        unnamedShare: 0.8,
        schemaShare: 0,
      }),
  },
  {
    group: 'get-dataset-list',
    name: 'mixed-schema-datasets-10',
    description:
      'Synthetic, as in the proposal: ten named datasets, half of them declaring a nested `schema`.',
    build: (r) =>
      datasetList(r, {
        count: 10,
        total: 10,
        offset: 0,
        limit: 1000,
        desc: false,
        unnamedShare: 0,
        schemaShare: 0.5,
      }),
  },
  {
    group: 'get-key-value-store-list',
    name: 'named-stores-6',
    description: 'GET /v2/key-value-stores: the six named key-value stores of an account.',
    build: (r) =>
      keyValueStoreList(r, {
        count: 6,
        total: 6,
        offset: 0,
        limit: 1000,
        desc: false,
        unnamedShare: 0,
        schemaShare: 0,
      }),
  },
  {
    group: 'get-key-value-store-list',
    name: 'all-stores-25',
    description: 'GET /v2/key-value-stores?unnamed=1&desc=1&limit=25: mostly unnamed run stores.',
    build: (r) =>
      keyValueStoreList(r, {
        count: 25,
        total: 388,
        offset: 0,
        limit: 25,
        desc: true,
        unnamedShare: 0.8,
        schemaShare: 0,
      }),
  },
  {
    group: 'get-key-value-store-list',
    name: 'mixed-schema-stores-10',
    description:
      'Synthetic, as in the proposal: ten named stores, half of them declaring a nested `schema`.',
    build: (r) =>
      keyValueStoreList(r, {
        count: 10,
        total: 10,
        offset: 0,
        limit: 1000,
        desc: false,
        unnamedShare: 0,
        schemaShare: 0.5,
      }),
  },
  {
    group: 'get-key-value-store-keys',
    name: 'run-default-store-keys',
    description:
      "GET /v2/key-value-stores/:storeId/keys: a crawler run's default store (state, input, output, screenshots).",
    build: (r) => keyValueStoreKeys(r, { kind: 'run', count: 12, limit: 1000, truncated: false }),
  },
  {
    group: 'get-key-value-store-keys',
    name: 'screenshot-store-keys-100',
    description:
      'GET /v2/key-value-stores/:storeId/keys?limit=100: first page of a store of screenshots and HTML snapshots.',
    build: (r) =>
      keyValueStoreKeys(r, { kind: 'screenshots', count: 100, limit: 100, truncated: true }),
  },
  {
    group: 'get-dataset-items',
    name: 'google-maps-coffee-prague-10',
    description: 'compass/crawler-google-places, "coffee" in Prague, 10 places, maxReviews 0.',
    build: (r) =>
      googleMapsPlaces(r, { city: 'prague', vertical: 'coffee', count: 10, reviewsPerPlace: 0 }),
  },
  {
    group: 'get-dataset-items',
    name: 'google-maps-restaurants-berlin-20',
    description: 'compass/crawler-google-places, "restaurant" in Berlin, 20 places, maxReviews 5.',
    build: (r) =>
      googleMapsPlaces(r, {
        city: 'berlin',
        vertical: 'restaurant',
        count: 20,
        reviewsPerPlace: 5,
      }),
  },
  {
    group: 'get-dataset-items',
    name: 'rag-web-browser-scraping-3',
    description: 'apify/rag-web-browser, 3 results for a web-scraping question, pages as Markdown.',
    build: (r) => ragWebBrowserPages(r, { topic: 'scraping', results: 3 }),
  },
  {
    group: 'get-dataset-items',
    name: 'rag-web-browser-hiking-5',
    description: 'apify/rag-web-browser, 5 results for a travel question, pages as Markdown.',
    build: (r) => ragWebBrowserPages(r, { topic: 'hiking', results: 5 }),
  },
  {
    group: 'get-dataset-items',
    name: 'instagram-profiles-3',
    description: 'apify/instagram-scraper (details): 3 profiles, each with its 12 latest posts.',
    build: (r) => instagramProfiles(r, { themes: ['coffee', 'outdoor', 'food'] }),
  },
  {
    group: 'get-dataset-items',
    name: 'instagram-profiles-6',
    description: 'apify/instagram-scraper (details): 6 profiles, each with its 12 latest posts.',
    build: (r) =>
      instagramProfiles(r, { themes: ['coffee', 'coffee', 'outdoor', 'outdoor', 'food', 'food'] }),
  },
  {
    group: 'get-dataset-items',
    name: 'instagram-posts-10',
    description: 'apify/instagram-post-scraper: the 10 newest posts of one account, with comments.',
    build: (r) => instagramPosts(r, { themes: ['food'], count: 10 }),
  },
  {
    group: 'get-dataset-items',
    name: 'instagram-posts-20',
    description: 'apify/instagram-post-scraper: 20 posts of two accounts, with comments.',
    build: (r) => instagramPosts(r, { themes: ['outdoor', 'coffee'], count: 20 }),
  },
];

const PROJECTIONS: ProjectionSpec[] = [
  {
    name: 'google-maps-restaurants-vienna-100',
    fields: ['title', 'url', 'totalScore'],
    description:
      "The proposal's projection scenario: 100 Google Maps places (maxReviews 5) of which the agent needs only name, URL and rating, i.e. the places' own fields title, url and totalScore.",
    build: (r) =>
      googleMapsPlaces(r, {
        city: 'vienna',
        vertical: 'restaurant',
        count: 100,
        reviewsPerPlace: 5,
      }),
  },
];

/**
 * Fails on values JSON.stringify would silently drop or change (undefined, NaN, functions): a
 * generator bug must not turn into a fixture with a missing key.
 */
function assertJsonModel(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${path}: non-finite number`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      assertJsonModel(item, `${path}[${i}]`);
    });
    return;
  }
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) assertJsonModel(item, `${path}.${key}`);
    return;
  }
  throw new Error(`${path}: ${typeof value} is not JSON`);
}

/** Every file of the corpus, path relative to corpus/ mapped to its exact text. */
function renderCorpus(): Map<string, string> {
  const files = new Map<string, string>();
  const write = (path: string, value: unknown) => {
    assertJsonModel(value, path);
    files.set(path, `${JSON.stringify(value, null, 2)}\n`);
  };
  for (const fixture of FIXTURES) {
    const path = `${fixture.group}/${fixture.name}.json`;
    write(path, fixture.build(new Random(hashSeed(`${SEED}/${path}`))));
  }
  for (const projection of PROJECTIONS) {
    const path = `projection/${projection.name}.json`;
    write(path, projection.build(new Random(hashSeed(`${SEED}/${path}`))));
  }
  write('manifest.json', {
    description:
      'Deterministic fixture corpus for `toonwire report`. Generated; do not edit by hand.',
    generator: 'scripts/generate-corpus.ts',
    seed: SEED,
    fixtures: FIXTURES.map((f) => ({
      group: f.group,
      file: `${f.group}/${f.name}.json`,
      description: f.description,
    })),
    projections: PROJECTIONS.map((p) => ({
      file: `projection/${p.name}.json`,
      fields: p.fields,
      description: p.description,
    })),
  });
  return files;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const files = renderCorpus();
  const stale: string[] = [];
  for (const [path, text] of files) {
    const target = join(CORPUS_DIR, path);
    if (check) {
      const current = await readFile(target, 'utf8').catch(() => null);
      if (current !== text) stale.push(path);
    } else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, text);
    }
  }
  if (check && stale.length > 0) {
    process.stderr.write(
      `corpus/ is out of date in ${stale.length} file(s): ${stale.join(', ')}\nRun: node --import tsx scripts/generate-corpus.ts\n`,
    );
    process.exitCode = 1;
    return;
  }
  const bytes = [...files.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  process.stdout.write(
    `${check ? 'checked' : 'wrote'} ${files.size} files (${(bytes / 1024).toFixed(0)} KiB) in ${CORPUS_DIR}\n`,
  );
}

await main();
