// The build's last step (after tsc): the package root, dist/index.js, as one module.
//
// Why: in a fresh process Node's ESM loader pays for every module it resolves, reads and links,
// and the root's ~30 modules cost several times the import of the whole reference implementation
// (a single file); a CLI run per file, a serverless cold start or an edge worker pays that on
// every start (issue 34, bench/startup.bench.ts). One file removes that cost.
//
// How, without two copies of anything: every module of the root's graph keeps its place in
// dist/ as a shim that re-exports the bundle's own bindings, so the subpaths (toonwire/mcp,
// /http, the CLI), which tsc emitted unbundled and which import those modules by relative path,
// share the root's classes (ToonDecodeError, RawString) and state (the tokenizers loaded by
// loadTokenizer). The bundle reaches the shims through one export the types do not declare,
// `__toonwireModules` (each module's bindings by its path under dist/, gathered on first use).
//
// Run: node scripts/bundle-root.mjs (npm run build runs it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const rootFile = path.join(dist, 'index.js');
const HIDDEN = '__toonwireModules';

/** The modules of dist/ that the root imports, directly or not, as paths under dist/. */
async function rootGraph() {
  const { metafile } = await esbuild.build({
    entryPoints: [rootFile],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    packages: 'external',
    logLevel: 'silent',
  });
  return Object.keys(metafile.inputs)
    .map((input) => path.relative(dist, path.resolve(input)).split(path.sep).join('/'))
    .filter((file) => file !== 'index.js' && !file.startsWith('..'))
    .sort();
}

const modules = await rootGraph();
// Each module's export names, read from tsc's output before it is replaced (these modules have no
// side effects at load: the codec and the compact engine only define things).
const names = new Map();
// The functions and classes among those bindings, each once (a re-export is the same object),
// with the name tsc's output gives it: the minifier renames every top-level binding, and a
// function's `name` comes from its binding, so `encode.name` would be one letter in stack traces,
// `fn.name` logging and code that dispatches on names. The entry below gives these names back:
// one property definition per exported function at import, not esbuild's `keepNames`, which
// would wrap every function and class of the bundle, closures in the hot paths included.
const ownNames = new Map();
for (const [i, file] of modules.entries()) {
  const namespace = await import(pathToFileURL(path.join(dist, file)).href);
  names.set(file, Object.keys(namespace));
  for (const [name, value] of Object.entries(namespace)) {
    if (typeof value === 'function' && value.name !== '' && !ownNames.has(value)) {
      ownNames.set(value, { binding: `m${i}_${name}`, name: value.name });
    }
  }
}

// Each module's bindings behind a getter that gathers them when a shim first asks: a namespace
// object per module (`import * as`), built at import whether or not any subpath is ever loaded,
// was a few hundred property definitions in every fresh process. A shim reads the bindings once,
// at its own load, as it did from the namespace.
const entry = [
  "export * from './index.js';",
  ...modules.map(
    (file, i) =>
      `import { ${names
        .get(file)
        .map((name) => `${name} as m${i}_${name}`)
        .join(', ')} } from './${file}';`,
  ),
  `export const ${HIDDEN} = {`,
  ...modules.map(
    (file, i) =>
      `  get ${JSON.stringify(file)}() { return { ${names
        .get(file)
        .map((name) => `${name}: m${i}_${name}`)
        .join(', ')} }; },`,
  ),
  '};',
  // An own property `name` exists on every function; redefining its value keeps its attributes.
  `for (const [fn, name] of [${[...ownNames.values()]
    .map(({ binding, name }) => `[${binding}, ${JSON.stringify(name)}]`)
    .join(', ')}]) Object.defineProperty(fn, 'name', { value: name });`,
].join('\n');

const { outputFiles } = await esbuild.build({
  stdin: { contents: entry, resolveDir: dist, sourcefile: 'bundle-root-entry.js', loader: 'js' },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  packages: 'external',
  target: 'es2022',
  legalComments: 'none',
  // Less text for V8 to compile at import: a fresh process tokenizes the whole file before running
  // a line of it, in time proportional to its tokens, so whitespace, long local names and
  // roundabout syntax all cost start-up (issue 34: the root's import went from 1.65-2.05x the
  // reference's to 1.62-1.91x in quiet runs of bench:startup). Stack traces keep their meaning through the source map written
  // beside it, which holds tsc's output in full: `node --enable-source-maps` (or any debugger)
  // shows each frame's own function, file and line.
  minify: true,
  sourcemap: 'linked',
  sourcesContent: true,
  banner: {
    js: "// toonwire's package root, bundled and minified by scripts/bundle-root.mjs from tsc's output.",
  },
  outfile: rootFile,
  logLevel: 'warning',
});
const bundle = outputFiles.find((file) => file.path === rootFile);
const map = outputFiles.find((file) => file.path === `${rootFile}.map`);
if (outputFiles.length !== 2 || bundle === undefined || map === undefined) {
  throw new Error(
    `expected the bundle and its source map, got ${outputFiles.map((file) => file.path)}`,
  );
}
fs.writeFileSync(rootFile, bundle.text);
fs.writeFileSync(map.path, map.text);

for (const file of modules) {
  const exported = names.get(file);
  const root = path.posix.relative(path.posix.dirname(file), 'index.js');
  const specifier = root.startsWith('.') ? root : `./${root}`;
  const lines = [
    `// A view of the bundled package root (scripts/bundle-root.mjs): the same bindings, one copy.`,
    `import { ${HIDDEN} as modules } from ${JSON.stringify(specifier)};`,
  ];
  if (exported.length > 0) {
    lines.push(`export const { ${exported.join(', ')} } = modules[${JSON.stringify(file)}];`);
  }
  fs.writeFileSync(path.join(dist, file), `${lines.join('\n')}\n`);
}
console.log(`dist/index.js: the root and ${modules.length} modules in one file`);
