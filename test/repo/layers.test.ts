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

/** Every import under src/: the importing file and the specifier (paths relative to src/). */
function imports(): { file: string; specifier: string; targetPath: string | undefined }[] {
  const found: { file: string; specifier: string; targetPath: string | undefined }[] = [];
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
      const targetPath = specifier.startsWith('.')
        ? relative(SRC, resolve(dirname(join(SRC, file)), specifier))
            .split('\\')
            .join('/')
            .replace(/\.js$/, '.ts')
        : undefined;
      found.push({ file: path, specifier, targetPath });
    }
  }
  return found;
}

function edges(): Edge[] {
  return imports().map(({ file, specifier, targetPath }) => ({
    file,
    layer: layerOf(file),
    specifier,
    target: targetPath === undefined ? undefined : layerOf(targetPath),
  }));
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

/**
 * The proxy's folders, lowest first (ARCHITECTURE.md, "The proxy's layers"): a file imports
 * only its own folder and the folders before it. The modules of `src/mcp` outside `proxy/`
 * (clients, defaults, model text, compact results) are below every folder, and only the entry
 * point `src/mcp/proxy.ts` imports the folders from above.
 */
const PROXY_ORDER = [
  'transport',
  'config',
  'paging',
  'telemetry',
  'result',
  'tools',
  'gateway',
  'session',
  'serve',
] as const;

/** The proxy folder a path under src/ is in, or undefined outside `src/mcp/proxy/`. */
function proxyFolder(pathInSrc: string): string | undefined {
  const match = /^mcp\/proxy\/([^/]+)\//.exec(pathInSrc);
  return match?.[1];
}

/** Every relative import under src/, as file → imported file (both relative to src/, .ts). */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { file, targetPath } of imports()) {
    const targets = graph.get(file) ?? [];
    if (targetPath !== undefined) targets.push(targetPath);
    graph.set(file, targets);
  }
  return graph;
}

describe('the proxy layers', () => {
  const graph = fileGraph();

  it('finds every folder of the order, and no file outside them but at most 8', () => {
    const inProxy = [...graph.keys()].filter((file) => file.startsWith('mcp/proxy/'));
    const folders = new Set(inProxy.map(proxyFolder).filter((f) => f !== undefined));
    assert.deepEqual([...folders].sort(), [...PROXY_ORDER].sort());
    const loose = inProxy.filter((file) => proxyFolder(file) === undefined);
    assert.ok(loose.length <= 8, `files directly in src/mcp/proxy: ${loose.join(', ')}`);
  });

  it('a folder imports only itself and the folders before it', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = proxyFolder(file);
      for (const target of targets) {
        const to = proxyFolder(target);
        if (to === undefined) continue;
        const allowed =
          file === 'mcp/proxy.ts' ||
          !file.startsWith('mcp/') ||
          (from !== undefined &&
            PROXY_ORDER.indexOf(to as never) <= PROXY_ORDER.indexOf(from as never));
        if (!allowed)
          upward.push(`src/${file} (${from ?? 'outside'}) imports src/${target} (${to})`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('no import cycle anywhere in src/', () => {
    // Tarjan's strongly connected components: any component of more than one file is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let next = 0;
    const visit = (file: string): void => {
      index.set(file, next);
      low.set(file, next);
      next += 1;
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file) ?? []) {
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          visit(target);
          low.set(file, Math.min(low.get(file)!, low.get(target)!));
        } else if (onStack.has(target)) {
          low.set(file, Math.min(low.get(file)!, index.get(target)!));
        }
      }
      if (low.get(file) === index.get(file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== file);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const file of graph.keys()) if (!index.has(file)) visit(file);
    assert.deepEqual(cycles, []);
  });
});
