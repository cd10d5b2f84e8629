// The layers of ARCHITECTURE.md, checked in the imports: each layer imports only itself and the
// layers below it (codec <- compact <- mcp, http; mcp <- cli), mcp and http never import each
// other, the codec imports no package at all and the compact engine no Node built-in.
// `import type` and re-exports count: a type-only edge still couples the layers.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** What each top-level part of src/ may import from src/ (itself included). */
const ALLOWED: Record<string, readonly string[]> = {
  codec: ['codec'],
  compact: ['compact', 'codec'],
  mcp: ['mcp', 'compact', 'codec'],
  http: ['http', 'compact', 'codec'],
  // The CLI has no HTTP command: it reaches the proxy through mcp, never the HTTP adapters.
  cli: ['cli', 'mcp', 'compact', 'codec'],
  // The package root (src/index.ts) is the portable core: codec and compact engine only.
  '(root)': ['compact', 'codec'],
};

/** `from '...'`, `import '...'` and `import('...')`, in imports and re-exports alike. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

interface Edge {
  file: string;
  layer: string;
  specifier: string;
  /** The src/ part a relative specifier lands in; undefined for packages. */
  target: string | undefined;
}

function layerOf(pathInSrc: string): string {
  const [first, ...rest] = pathInSrc.split('/');
  return rest.length === 0 ? '(root)' : (first ?? '(root)');
}

function edges(): Edge[] {
  const found: Edge[] = [];
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.d.ts'),
  );
  for (const file of files) {
    const path = file.split('\\').join('/');
    // Comment lines are left out: an `@example` may well show `import ... from 'toonwire'`.
    const source = readFileSync(join(SRC, file), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
      .join('\n');
    for (const match of source.matchAll(SPECIFIER)) {
      const specifier = match[1]!;
      const target = specifier.startsWith('.')
        ? layerOf(
            relative(SRC, resolve(dirname(join(SRC, file)), specifier))
              .split('\\')
              .join('/'),
          )
        : undefined;
      found.push({ file: path, layer: layerOf(path), specifier, target });
    }
  }
  return found;
}

describe('layers', () => {
  const all = edges();

  it('finds the imports it checks', () => {
    assert.ok(all.length > 200, `only ${all.length} imports found under src/`);
    for (const layer of ['codec', 'compact', 'mcp', 'http', 'cli']) {
      assert.ok(
        all.some((edge) => edge.layer === layer),
        `no imports found in src/${layer}`,
      );
    }
  });

  it('each layer imports only itself and the layers below it', () => {
    const upward = all
      .filter((edge) => edge.target !== undefined)
      .filter((edge) => !(ALLOWED[edge.layer] ?? []).includes(edge.target!))
      .map((edge) => `src/${edge.file} (${edge.layer}) imports ${edge.specifier} (${edge.target})`);
    assert.deepEqual(upward, []);
  });

  it('the codec imports no package, the compact engine no Node built-in', () => {
    const outside = all
      .filter((edge) => edge.target === undefined)
      .filter(
        (edge) =>
          edge.layer === 'codec' ||
          ((edge.layer === 'compact' || edge.layer === '(root)') &&
            edge.specifier.startsWith('node:')),
      )
      .map((edge) => `src/${edge.file} imports ${edge.specifier}`);
    assert.deepEqual(outside, []);
  });
});
