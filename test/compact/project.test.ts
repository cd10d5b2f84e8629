import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../../src/codec/types.js';
import { omit, project } from '../../src/compact/index.js';

const places: JsonValue = [
  { name: 'Cafe', url: 'https://a', rating: 4.5, location: { lat: 1, lng: 2 }, reviews: 10 },
  { name: 'Bar', url: 'https://b', location: { lng: 3 } },
];

describe('project', () => {
  it('keeps only the listed fields of each item of a root array, in the listed order', () => {
    const projected = project(places, 'rating,name');
    assert.deepEqual(projected, [{ rating: 4.5, name: 'Cafe' }, { name: 'Bar' }]);
    assert.deepEqual(Object.keys((projected as JsonValue[])[0] as object), ['rating', 'name']);
  });

  it('omits a field missing from an item instead of inventing it', () => {
    assert.deepEqual(project(places, ['rating']), [{ rating: 4.5 }, {}]);
  });

  it('selects nested values with dotted paths and keeps their nesting', () => {
    assert.deepEqual(project(places, 'name,location.lat'), [
      { name: 'Cafe', location: { lat: 1 } },
      { name: 'Bar' },
    ]);
  });

  it('groups several paths into one parent at its first-listed position', () => {
    assert.deepEqual(project([{ a: { x: 1, y: 2, z: 3 }, b: 4 }], 'b,a.y,a.x'), [
      { b: 4, a: { y: 2, x: 1 } },
    ]);
  });

  it('keeps a whole field when both it and a path inside it are listed', () => {
    const item = [{ a: { x: 1, y: 2 } }];
    assert.deepEqual(project(item, 'a.x,a'), [{ a: { x: 1, y: 2 } }]);
    assert.deepEqual(project(item, 'a,a.x'), [{ a: { x: 1, y: 2 } }]);
  });

  it('treats a path through a non-object as missing', () => {
    assert.deepEqual(project([{ a: 5 }, { a: [{ b: 1 }] }, { a: null }], 'a.b'), [{}, {}, {}]);
  });

  it('projects the items under an envelope key and keeps the rest of the envelope', () => {
    const page = { total: 2, offset: 0, items: places };
    assert.deepEqual(project(page, 'name'), {
      total: 2,
      offset: 0,
      items: [{ name: 'Cafe' }, { name: 'Bar' }],
    });
    assert.deepEqual(project({ data: [{ a: 1, b: 2 }], meta: { n: 1 } }, 'a'), {
      data: [{ a: 1 }],
      meta: { n: 1 },
    });
  });

  it('uses the first envelope key that holds an array, and a configurable envelope list', () => {
    assert.deepEqual(project({ items: 'not a list', data: [{ a: 1, b: 2 }] }, 'a'), {
      items: 'not a list',
      data: [{ a: 1 }],
    });
    assert.deepEqual(project({ results: [{ a: 1, b: 2 }] }, 'a', { envelope: 'results' }), {
      results: [{ a: 1 }],
    });
    assert.deepEqual(project({ items: [{ a: 1, b: 2 }] }, 'a', { envelope: ['results'] }), {});
  });

  it('projects a root object without an envelope as the one item', () => {
    assert.deepEqual(project({ id: 'x', name: 'n', stats: { a: 1 } }, 'id,stats.a'), {
      id: 'x',
      stats: { a: 1 },
    });
  });

  it('leaves scalars and non-object items unchanged', () => {
    assert.equal(project('text', 'a'), 'text');
    assert.deepEqual(project([1, null, ['x'], { a: 1, b: 2 }], 'a'), [1, null, ['x'], { a: 1 }]);
  });

  it('trims spaces around comma-separated names', () => {
    assert.deepEqual(project([{ a: 1, b: 2, c: 3 }], ' a , c'), [{ a: 1, c: 3 }]);
  });

  it('keeps prototype-ish field names as data', () => {
    const item = JSON.parse('[{"__proto__":{"x":1},"constructor":2,"a":3}]');
    const projected = project(item, '__proto__,constructor') as JsonValue[];
    const row = projected[0] as Record<string, JsonValue>;
    assert.deepEqual(Object.keys(row), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    // biome-ignore lint/suspicious/noProto: the test is about an own property named __proto__
    assert.deepEqual(row['__proto__'], { x: 1 });
  });

  it('does not modify its input', () => {
    const input = structuredClone(places);
    project(places, 'name');
    omit(places, 'location.lat');
    assert.deepEqual(places, input);
  });

  it('rejects bad field specs with a TypeError that says what is wrong', () => {
    assert.throws(() => project(places, ''), { name: 'TypeError', message: /non-empty/ });
    assert.throws(() => project(places, 'a,,b'), { name: 'TypeError', message: /non-empty/ });
    assert.throws(() => project(places, 'a.'), TypeError);
    assert.throws(() => project(places, '.a'), TypeError);
    assert.throws(() => project(places, 'a..b'), TypeError);
    assert.throws(() => project(places, []), { name: 'TypeError', message: /at least one field/ });
    assert.throws(() => project(places, [1 as unknown as string]), {
      name: 'TypeError',
      message: /must be a string/,
    });
    assert.throws(() => project(places, 42 as unknown as string), TypeError);
    assert.throws(() => project(places, 'a', { envelope: [1 as unknown as string] }), TypeError);
  });
});

describe('omit', () => {
  it('removes the listed fields and keeps the rest in their original order', () => {
    assert.deepEqual(omit(places, 'url,reviews'), [
      { name: 'Cafe', rating: 4.5, location: { lat: 1, lng: 2 } },
      { name: 'Bar', location: { lng: 3 } },
    ]);
  });

  it('removes only the nested value for a dotted path', () => {
    assert.deepEqual(omit(places, 'location.lat,url,reviews,rating'), [
      { name: 'Cafe', location: { lng: 2 } },
      { name: 'Bar', location: { lng: 3 } },
    ]);
  });

  it('works on envelopes like project', () => {
    assert.deepEqual(omit({ total: 1, items: [{ a: 1, b: 2 }] }, 'b'), {
      total: 1,
      items: [{ a: 1 }],
    });
  });

  it('rejects bad field specs with a TypeError', () => {
    assert.throws(() => omit(places, 'a,'), TypeError);
  });
});
