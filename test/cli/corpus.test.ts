// The bundled corpus: committed output of a deterministic generator, shaped like the proposal's
// 18 fixtures and following the public Apify API's field names and envelopes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './run-cli.js';

const CORPUS = join(REPO_ROOT, 'corpus');

interface Manifest {
  seed: string;
  fixtures: Array<{ group: string; file: string; description: string }>;
  projections: Array<{ file: string; fields: string[] }>;
}

type Row = Record<string, unknown>;
const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as Manifest;
const load = (file: string) =>
  JSON.parse(readFileSync(join(CORPUS, file), 'utf8')) as Record<string, unknown> & {
    items: Row[];
  };
const fixturesOf = (group: string) =>
  manifest.fixtures.filter((f) => f.group === group).map((f) => ({ ...f, value: load(f.file) }));

describe('the bundled corpus', () => {
  it('is exactly what scripts/generate-corpus.ts generates', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/generate-corpus.ts', '--check'],
      { cwd: REPO_ROOT },
    );
    assert.match(stdout, /^checked 20 files/);
  });

  it('does not use Math.random or the clock', () => {
    for (const file of [
      'generate-corpus.ts',
      'corpus/random.ts',
      'corpus/text.ts',
      'corpus/apify-api.ts',
      'corpus/google-maps.ts',
      'corpus/rag-web-browser.ts',
      'corpus/instagram.ts',
    ]) {
      const source = readFileSync(join(REPO_ROOT, 'scripts', file), 'utf8');
      assert.doesNotMatch(source, /Math\.random|Date\.now|new Date\(\)|toLocale/, file);
    }
  });

  it("mirrors the proposal's 18 fixtures in five tool groups", () => {
    const counts: Record<string, number> = {};
    for (const fixture of manifest.fixtures)
      counts[fixture.group] = (counts[fixture.group] ?? 0) + 1;
    assert.deepEqual(counts, {
      'get-actor-run-list': 2,
      'get-dataset-list': 3,
      'get-key-value-store-list': 3,
      'get-key-value-store-keys': 2,
      'get-dataset-items': 8,
    });
  });

  it('wraps list responses in the API envelope { total, offset, limit, desc, count, items }', () => {
    for (const group of [
      'get-actor-run-list',
      'get-dataset-list',
      'get-key-value-store-list',
      'get-dataset-items',
    ]) {
      for (const { file, value } of fixturesOf(group)) {
        assert.deepEqual(
          Object.keys(value),
          ['total', 'offset', 'limit', 'desc', 'count', 'items'],
          file,
        );
        assert.equal(value['count'], value.items.length, file);
      }
    }
    for (const { file, value } of fixturesOf('get-key-value-store-keys')) {
      assert.deepEqual(
        Object.keys(value),
        ['items', 'count', 'limit', 'exclusiveStartKey', 'isTruncated', 'nextExclusiveStartKey'],
        file,
      );
    }
  });

  it("gives run items the API's fields, with 17-character ids", () => {
    for (const { value } of fixturesOf('get-actor-run-list')) {
      for (const run of value.items) {
        assert.deepEqual(Object.keys(run), [
          'id',
          'actId',
          'status',
          'startedAt',
          'finishedAt',
          'buildId',
          'buildNumber',
          'meta',
          'usageTotalUsd',
          'defaultKeyValueStoreId',
          'defaultDatasetId',
          'defaultRequestQueueId',
        ]);
        assert.match(run['id'] as string, /^[2-9A-HJ-NP-Za-km-z]{17}$/);
        assert.deepEqual(Object.keys(run['meta'] as Row), ['origin', 'userAgent']);
      }
    }
  });

  it('puts a nested schema on exactly half the rows of the mixed-schema fixtures', () => {
    for (const file of [
      'get-dataset-list/mixed-schema-datasets-10.json',
      'get-key-value-store-list/mixed-schema-stores-10.json',
    ]) {
      const rows = load(file).items;
      assert.equal(
        rows.filter((row) => typeof row['schema'] === 'object').length,
        rows.length / 2,
        file,
      );
    }
  });

  it('gives every Google Maps place the same ~70 fields, nullable ones included', () => {
    const places = load('get-dataset-items/google-maps-restaurants-berlin-20.json').items;
    const keys = Object.keys(places[0]!);
    assert.ok(keys.length >= 60, `${keys.length} fields`);
    for (const field of [
      'title',
      'categoryName',
      'address',
      'location',
      'totalScore',
      'reviewsCount',
      'reviewsDistribution',
      'openingHours',
      'additionalInfo',
      'peopleAlsoSearch',
      'url',
    ]) {
      assert.ok(keys.includes(field), field);
    }
    for (const place of places) assert.deepEqual(Object.keys(place), keys);
  });

  it('lets Instagram post fields depend on the post type', () => {
    const posts = load('get-dataset-items/instagram-posts-20.json').items;
    const videos = posts.filter((post) => post['type'] === 'Video');
    const carousels = posts.filter((post) => post['type'] === 'Sidecar');
    assert.ok(videos.length > 0 && carousels.length > 0);
    for (const video of videos) assert.equal(typeof video['videoUrl'], 'string');
    for (const carousel of carousels) assert.ok((carousel['childPosts'] as unknown[]).length > 0);
    assert.ok(
      videos.some((video) => 'musicInfo' in video) &&
        videos.some((video) => !('musicInfo' in video)),
    );
  });

  it('includes the 100-place projection scenario with fields mapped to the places own names', () => {
    assert.deepEqual(
      manifest.projections.map((p) => p.fields),
      [['title', 'url', 'totalScore']],
    );
    assert.equal(load(manifest.projections[0]!.file).items.length, 100);
  });
});
