// Apify platform API list responses: Actor runs, datasets, key-value stores and key listings.
// Field names, order, nullability and envelopes follow the public API reference
// (docs.apify.com/api/v2): list endpoints answer `{ total, offset, limit, desc, count, items }`,
// the key listing answers `{ items, count, limit, exclusiveStartKey, isTruncated,
// nextExclusiveStartKey }`.
import type { Random } from './random.js';
import { apifyId, base62, CORPUS_NOW, DAY, HOUR, iso, MINUTE, round, slug } from './text.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** An Actor of the account the fixtures pretend to list. */
interface AccountActor {
  id: string;
  builds: Array<{ id: string; number: string }>;
  /** Median run length in milliseconds. */
  medianDurationMs: number;
  /** Platform cost per minute of run time in USD (memory size times the compute-unit price). */
  usdPerMinute: number;
}

function accountActor(random: Random): AccountActor {
  const major = random.int(0, 1);
  const minor = random.int(0, 9);
  let patch = random.int(3, 80);
  const builds = Array.from({ length: random.int(1, 3) }, () => ({
    id: apifyId(random),
    number: `${major}.${minor}.${patch++}`,
  }));
  return {
    id: apifyId(random),
    builds,
    medianDurationMs: random.logNormal(90_000, 1.1),
    usdPerMinute: random.pick([0.00033, 0.00067, 0.0013, 0.0027, 0.0053]),
  };
}

const NODE_CLIENT = 'ApifyClient/2.12.4 (linux; Node/v22.14.0)';
const PYTHON_CLIENT = 'ApifyClient/1.9.3 (linux; Python/3.12.9)';
const BROWSERS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/136.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/135.0.0.0 Safari/537.36 Edg/135.0.0.0',
  'Mozilla/5.0 (X11; Linux x86_64; rv:138.0) Gecko/20100101 Firefox/138.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Safari/605.1.15',
];

/** `meta` of a run: who started it. Every origin carries the user agent of the starting client. */
function runMeta(random: Random, browser: string): JsonObject {
  const origin = random.weighted([
    ['API', 45],
    ['SCHEDULER', 25],
    ['WEB', 18],
    ['ACTOR', 7],
    ['CLI', 5],
  ] as const);
  const userAgent =
    origin === 'WEB'
      ? browser
      : origin === 'SCHEDULER' || origin === 'ACTOR'
        ? `${NODE_CLIENT}; isAtHome/true`
        : origin === 'CLI'
          ? 'ApifyCLI/0.21.7 (darwin; Node/v22.14.0); isAtHome/false'
          : `${random.chance(0.7) ? NODE_CLIENT : PYTHON_CLIENT}; isAtHome/false`;
  return { origin, userAgent };
}

export interface RunListOptions {
  count: number;
  total: number;
  offset: number;
  limit: number;
  desc: boolean;
  /** How many different Actors the runs belong to (1 for the runs of a single Actor). */
  actorCount: number;
}

/** `GET /v2/actor-runs` or `GET /v2/acts/:actorId/runs`. */
export function actorRunList(random: Random, options: RunListOptions): JsonObject {
  const actors = Array.from({ length: options.actorCount }, () => accountActor(random));
  const browser = random.pick(BROWSERS);
  // Walk back from "now" for a descending list, forward from a past date for an ascending one.
  let cursor = options.desc ? CORPUS_NOW - random.int(2, 30) * MINUTE : CORPUS_NOW - 60 * DAY;
  const items: JsonObject[] = [];
  for (let i = 0; i < options.count; i++) {
    const actor = random.pick(actors);
    const build =
      actor.builds[
        Math.min(actor.builds.length - 1, Math.floor((i / options.count) * actor.builds.length))
      ]!;
    if (i > 0) {
      const gap = random.chance(0.4)
        ? HOUR * random.int(1, 24)
        : random.logNormal(20 * MINUTE, 1.2);
      cursor += options.desc ? -gap : gap;
    }
    // Scheduled and API starts never land on a round millisecond.
    const startedAt = Math.round(cursor) + random.int(0, 59_999);
    const isNewest = options.desc ? i === 0 : i === options.count - 1;
    const status =
      isNewest && random.chance(0.5)
        ? 'RUNNING'
        : random.weighted([
            ['SUCCEEDED', 84],
            ['FAILED', 7],
            ['ABORTED', 5],
            ['TIMED-OUT', 4],
          ] as const);
    const durationMs =
      status === 'TIMED-OUT'
        ? random.pick([300, 600, 3600]) * 1000 + random.int(200, 4000)
        : Math.max(2_500, Math.round(random.logNormal(actor.medianDurationMs, 0.9)));
    const finishedAt = status === 'RUNNING' ? null : iso(startedAt + durationMs);
    const minutes = (status === 'RUNNING' ? durationMs / 3 : durationMs) / MINUTE;
    items.push({
      id: apifyId(random),
      actId: actor.id,
      status,
      startedAt: iso(startedAt),
      finishedAt,
      buildId: build.id,
      buildNumber: build.number,
      meta: runMeta(random, browser),
      usageTotalUsd: round(
        Math.max(0.00001, minutes * actor.usdPerMinute * random.float(0.9, 1.3)),
        8,
      ),
      defaultKeyValueStoreId: apifyId(random),
      defaultDatasetId: apifyId(random),
      defaultRequestQueueId: apifyId(random),
    });
  }
  return envelope(options, items);
}

function envelope(
  options: { total: number; offset: number; limit: number; desc: boolean },
  items: JsonObject[],
): JsonObject {
  return {
    total: options.total,
    offset: options.offset,
    limit: options.limit,
    desc: options.desc,
    count: items.length,
    items,
  };
}

const STORAGE_NAMES = [
  'google-maps-leads-prague',
  'competitor-prices',
  'instagram-brand-mentions',
  'product-catalog-eu',
  'job-postings-weekly',
  'news-monitoring',
  'real-estate-listings',
  'tiktok-trends',
  'amazon-reviews-q2',
  'crawler-state',
  'rag-knowledge-base',
  'seo-audit-results',
  'hotel-prices-vienna',
  'twitter-sentiment',
  'linkedin-companies',
  'booking-availability',
  'youtube-comments',
  'price-history',
  'sitemap-urls',
  'restaurant-menus',
  'ecommerce-inventory',
  'event-calendar',
  'website-content-crawler-docs',
];

/** Unique storage names in random order; past the end of the list they get a numeric suffix. */
function storageNames(random: Random): () => string {
  const names = random.sample(STORAGE_NAMES, STORAGE_NAMES.length);
  let next = 0;
  return () => {
    const name = names[next % names.length]!;
    const round = Math.floor(next / names.length);
    next += 1;
    return round === 0 ? name : `${name}-${round + 1}`;
  };
}

export interface StorageListOptions {
  count: number;
  total: number;
  offset: number;
  limit: number;
  desc: boolean;
  /** Share of rows that are unnamed (auto-created by runs): their `name` is null. */
  unnamedShare: number;
  /** Share of rows carrying a user-declared `schema` (0 in real accounts without schemas). */
  schemaShare: number;
}

/** Which rows get a `schema`: exactly round(count * share) of them, at random positions. */
function schemaRows(random: Random, options: StorageListOptions): Set<number> {
  const indexes = Array.from({ length: options.count }, (_, i) => i);
  return new Set(random.sample(indexes, Math.round(options.count * options.schemaShare)));
}

interface StorageTimes {
  createdAt: number;
  modifiedAt: number;
  accessedAt: number;
}

function storageTimes(random: Random, index: number, options: StorageListOptions): StorageTimes {
  const ageDays = options.desc
    ? 2 + index * random.float(0.5, 3)
    : 300 - index * random.float(3, 9);
  const createdAt = Math.round(CORPUS_NOW - ageDays * DAY - random.int(0, DAY));
  // Later events never pass "now": past it, they land at a random moment of the last hours.
  const notAfterNow = (ms: number) =>
    ms < CORPUS_NOW ? Math.round(ms) : CORPUS_NOW - random.int(MINUTE, 6 * HOUR);
  const modifiedAt = Math.max(
    createdAt,
    notAfterNow(createdAt + random.logNormal(20 * MINUTE, 2.5)),
  );
  const accessedAt = Math.max(modifiedAt, notAfterNow(modifiedAt + random.logNormal(2 * DAY, 1.5)));
  return { createdAt, modifiedAt, accessedAt };
}

/** Who created a storage: a run (ids set) or a person or API client (both null). */
function storageOrigin(
  random: Random,
  named: boolean,
): { actId: string | null; actRunId: string | null } {
  const byRun = named ? random.chance(0.35) : true;
  return byRun
    ? { actId: apifyId(random), actRunId: apifyId(random) }
    : { actId: null, actRunId: null };
}

/** `GET /v2/datasets`. Rows chosen to carry a schema get the optional `schema` field last. */
export function datasetList(random: Random, options: StorageListOptions): JsonObject {
  const userId = apifyId(random);
  const nameOf = storageNames(random);
  const withSchema = schemaRows(random, options);
  const items = Array.from({ length: options.count }, (_, index) => {
    const named = !random.chance(options.unnamedShare);
    const times = storageTimes(random, index, options);
    const itemCount = Math.round(random.logNormal(180, 1.8));
    const row: JsonObject = {
      id: apifyId(random),
      name: named ? nameOf() : null,
      userId,
      createdAt: iso(times.createdAt),
      modifiedAt: iso(times.modifiedAt),
      accessedAt: iso(times.accessedAt),
      itemCount,
      cleanItemCount:
        itemCount - Math.round(itemCount * (random.chance(0.7) ? 0 : random.float(0, 0.2))),
      ...storageOrigin(random, named),
    };
    if (withSchema.has(index)) row['schema'] = datasetSchema(random);
    return row;
  });
  return envelope(options, items);
}

/** `GET /v2/key-value-stores`. */
export function keyValueStoreList(random: Random, options: StorageListOptions): JsonObject {
  const userId = apifyId(random);
  const username = random.pick(['janedoe', 'acme-data', 'growth-team', 'mkovacs', 'datahunters']);
  const nameOf = storageNames(random);
  const withSchema = schemaRows(random, options);
  const items = Array.from({ length: options.count }, (_, index) => {
    const named = !random.chance(options.unnamedShare);
    const times = storageTimes(random, index, options);
    const row: JsonObject = {
      id: apifyId(random),
      name: named ? nameOf() : null,
      userId,
      username,
      createdAt: iso(times.createdAt),
      modifiedAt: iso(times.modifiedAt),
      accessedAt: iso(times.accessedAt),
      ...storageOrigin(random, named),
    };
    if (withSchema.has(index)) row['schema'] = keyValueStoreSchema(random);
    return row;
  });
  return envelope(options, items);
}

/** A user-declared dataset schema (Actor dataset schema specification, version 1). */
function datasetSchema(random: Random): JsonObject {
  const kind = random.pick(DATASET_SCHEMA_KINDS);
  const fields = random.sample(kind.fields, random.int(4, kind.fields.length));
  const properties: JsonObject = {};
  for (const field of fields) {
    const property: JsonObject = { type: field.type };
    if (field.format) property['format'] = field.format;
    if (random.chance(0.6)) property['description'] = field.description;
    if (field.type === 'number' && random.chance(0.5)) property['minimum'] = 0;
    properties[field.name] = property;
  }
  const shown = fields.slice(0, random.int(3, Math.min(6, fields.length)));
  const display: JsonObject = {};
  for (const field of shown) {
    display[field.name] = {
      label: field.label,
      format: field.format === 'uri' ? 'link' : field.type === 'number' ? 'number' : 'text',
    };
  }
  return {
    actorSpecification: 1,
    title: kind.title,
    fields: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties,
      required: fields.slice(0, 2).map((field) => field.name),
    },
    views: {
      overview: {
        title: 'Overview',
        transformation: { fields: shown.map((field) => field.name) },
        display: { component: 'table', properties: display },
      },
    },
  };
}

interface SchemaField {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'integer';
  format?: string;
  label: string;
  description: string;
}

const DATASET_SCHEMA_KINDS: ReadonlyArray<{ title: string; fields: SchemaField[] }> = [
  {
    title: 'Product listings',
    fields: [
      {
        name: 'url',
        type: 'string',
        format: 'uri',
        label: 'URL',
        description: 'Canonical URL of the product page.',
      },
      {
        name: 'title',
        type: 'string',
        label: 'Title',
        description: 'Product name as shown on the page.',
      },
      {
        name: 'price',
        type: 'number',
        label: 'Price',
        description: 'Current price in the listed currency.',
      },
      {
        name: 'currency',
        type: 'string',
        label: 'Currency',
        description: 'ISO 4217 currency code.',
      },
      {
        name: 'inStock',
        type: 'boolean',
        label: 'In stock',
        description: 'Whether the product can be ordered now.',
      },
      { name: 'sku', type: 'string', label: 'SKU', description: 'Seller stock keeping unit.' },
      {
        name: 'scrapedAt',
        type: 'string',
        format: 'date-time',
        label: 'Scraped at',
        description: 'When the page was loaded.',
      },
    ],
  },
  {
    title: 'Company leads',
    fields: [
      {
        name: 'companyName',
        type: 'string',
        label: 'Company',
        description: 'Registered company name.',
      },
      {
        name: 'website',
        type: 'string',
        format: 'uri',
        label: 'Website',
        description: 'Company home page.',
      },
      {
        name: 'email',
        type: 'string',
        format: 'email',
        label: 'Email',
        description: 'Public contact email.',
      },
      {
        name: 'phone',
        type: 'string',
        label: 'Phone',
        description: 'Phone number in international format.',
      },
      {
        name: 'employees',
        type: 'integer',
        label: 'Employees',
        description: 'Headcount estimate.',
      },
      {
        name: 'country',
        type: 'string',
        label: 'Country',
        description: 'ISO 3166-1 alpha-2 country code.',
      },
    ],
  },
  {
    title: 'News articles',
    fields: [
      { name: 'url', type: 'string', format: 'uri', label: 'URL', description: 'Article URL.' },
      { name: 'headline', type: 'string', label: 'Headline', description: 'Article headline.' },
      { name: 'author', type: 'string', label: 'Author', description: 'Byline, if any.' },
      {
        name: 'publishedAt',
        type: 'string',
        format: 'date-time',
        label: 'Published',
        description: 'Publication time.',
      },
      {
        name: 'wordCount',
        type: 'integer',
        label: 'Words',
        description: 'Length of the article body.',
      },
      {
        name: 'section',
        type: 'string',
        label: 'Section',
        description: 'Site section the article belongs to.',
      },
    ],
  },
];

/** A user-declared key-value store schema (version 1) with collections. */
function keyValueStoreSchema(random: Random): JsonObject {
  const collections: JsonObject = {};
  for (const collection of random.sample(KV_COLLECTIONS, random.int(1, 3))) {
    const entry: JsonObject = { title: collection.title, description: collection.description };
    if (collection.keyPrefix) entry['keyPrefix'] = collection.keyPrefix;
    else entry['key'] = collection.key!;
    entry['contentTypes'] = collection.contentTypes;
    if (collection.contentTypes.includes('application/json')) {
      entry['jsonSchema'] = {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          generatedAt: { type: 'string', format: 'date-time' },
          itemCount: { type: 'integer', minimum: 0 },
          errors: { type: 'array', items: { type: 'string' } },
        },
      };
    }
    collections[slug(collection.title).replace(/-(\w)/g, (_, c: string) => c.toUpperCase())] =
      entry;
  }
  return {
    actorKeyValueStoreSchemaVersion: 1,
    title: random.pick(['Crawler outputs', 'Run artifacts', 'Screenshots and reports']),
    description: 'Files the Actor stores next to its dataset.',
    collections,
  };
}

const KV_COLLECTIONS: ReadonlyArray<{
  title: string;
  description: string;
  keyPrefix?: string;
  key?: string;
  contentTypes: string[];
}> = [
  {
    title: 'Screenshots',
    description: 'Full-page screenshots of visited pages.',
    keyPrefix: 'screenshot-',
    contentTypes: ['image/png', 'image/jpeg'],
  },
  {
    title: 'Page snapshots',
    description: 'Raw HTML of pages that failed to parse.',
    keyPrefix: 'page-',
    contentTypes: ['text/html'],
  },
  {
    title: 'Run report',
    description: 'Summary of the run written at the end.',
    key: 'REPORT',
    contentTypes: ['application/json'],
  },
  {
    title: 'Exports',
    description: 'CSV and XLSX exports of the dataset.',
    keyPrefix: 'export-',
    contentTypes: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  },
];

export interface KeyListOptions {
  /** 'run' lists a run's default store (INPUT, state, a few screenshots); 'screenshots' a big store. */
  kind: 'run' | 'screenshots';
  count: number;
  limit: number;
  truncated: boolean;
}

/** `GET /v2/key-value-stores/:storeId/keys`. */
export function keyValueStoreKeys(random: Random, options: KeyListOptions): JsonObject {
  const storeId = apifyId(random);
  const keys: Array<{ key: string; size: number }> = [];
  if (options.kind === 'run') {
    keys.push(
      { key: 'CRAWLEE_STATE', size: random.int(180, 900) },
      { key: 'INPUT', size: random.int(250, 2400) },
      { key: 'OUTPUT', size: random.int(400, 9000) },
      { key: 'SDK_CRAWLER_STATISTICS_0', size: random.int(1100, 1900) },
      { key: 'SDK_SESSION_POOL_STATE', size: random.int(3000, 60000) },
    );
  }
  const sites = [
    'www-example-com',
    'shop-acme-eu',
    'blog-contoso-io',
    'news-fabrikam-net',
    'docs-initech-dev',
  ];
  while (keys.length < options.count) {
    const site = random.pick(sites);
    const page = random.pick(['product', 'category', 'search', 'article', 'pricing', 'about']);
    const id = base62(random, 6).toLowerCase();
    const isHtml = random.chance(0.25);
    keys.push(
      isHtml
        ? { key: `page-${site}-${page}-${id}`, size: Math.round(random.logNormal(180_000, 0.6)) }
        : {
            key: `screenshot-${site}-${page}-${id}`,
            size: Math.round(random.logNormal(420_000, 0.5)),
          },
    );
  }
  // The API lists keys in ascending order.
  keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // Each record URL carries its own signature (an HMAC over store and key).
  const items = keys.map(({ key, size }) => ({
    key,
    size,
    recordPublicUrl: `https://api.apify.com/v2/key-value-stores/${storeId}/records/${encodeURIComponent(key)}?signature=${base62(random, 21)}`,
  }));
  return {
    items,
    count: items.length,
    limit: options.limit,
    exclusiveStartKey: null,
    isTruncated: options.truncated,
    nextExclusiveStartKey: options.truncated ? items[items.length - 1]!.key : null,
  };
}
