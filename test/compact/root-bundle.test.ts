// The built package root is one module (scripts/bundle-root.mjs): a fresh process imports one
// file, not thirty. These checks read the build (`npm run build`, which `npm test` runs first):
// the root imports no module of its own, and the subpaths, which import the codec and the
// compact engine by relative path, reach the very same bindings, so that a class or a loaded
// tokenizer is one thing whichever entry it came through.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');
const load = (file: string) =>
  import(pathToFileURL(path.join(dist, file)).href) as Promise<Record<string, unknown>>;

describe('the bundled package root', () => {
  it('is one file: no relative import or export', () => {
    const text = fs.readFileSync(path.join(dist, 'index.js'), 'utf8');
    assert.doesNotMatch(text, /\bfrom\s*["']\.{1,2}\//);
    assert.doesNotMatch(text, /\bimport\s*\(\s*["']\.{1,2}\//);
  });

  it('is minified, with a source map that gives stack frames their own file back', () => {
    const text = fs.readFileSync(path.join(dist, 'index.js'), 'utf8');
    assert.match(text, /\n\/\/# sourceMappingURL=index\.js\.map\n?$/);
    const script = `import(${JSON.stringify(pathToFileURL(path.join(dist, 'index.js')).href)}).then((m) => {
      try { m.decode('a[2]: 1'); } catch (error) { console.log(error.stack); }
    });`;
    const plain = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    const mapped = execFileSync(process.execPath, ['--enable-source-maps', '-e', script], {
      encoding: 'utf8',
    });
    assert.match(plain, /^ToonDecodeError: Line 1: expected 2 values/);
    assert.match(plain, /dist\/index\.js:\d+:\d+/);
    // Through the map, each frame names the module and line of tsc's output it came from.
    assert.match(mapped, /dist\/codec\/decode\/reader\.js:\d+:\d+/);
    assert.match(mapped, /dist\/codec\/decode\.js:\d+:\d+/);
    const map = JSON.parse(fs.readFileSync(path.join(dist, 'index.js.map'), 'utf8')) as {
      sources: string[];
      sourcesContent: string[];
    };
    const reader = map.sources.indexOf('codec/decode/reader.js');
    assert.ok(reader >= 0, 'the map names codec/decode/reader.js');
    assert.match(map.sourcesContent[reader]!, /countError/);
  });

  it('shares its classes and state with the modules the subpaths import', async () => {
    const main = await load('index.js');
    const errors = await load('codec/errors.js');
    const raw = await load('codec/raw-string.js');
    const size = await load('compact/size.js');
    assert.equal(errors['ToonDecodeError'], main['ToonDecodeError']);
    const made = (main['rawString'] as (text: string) => unknown)('x');
    assert.ok(made instanceof (raw['RawString'] as new (text: string) => unknown));
    assert.equal(size['loadTokenizer'], main['loadTokenizer']);
  });

  it('keeps every runtime export of every module it replaced', async () => {
    const modules = (await load('index.js'))['__toonwireModules'] as Record<string, object>;
    const files = Object.keys(modules);
    assert.ok(files.includes('codec/decode.js') && files.includes('compact/pick.js'));
    for (const file of files) {
      const source = (await import(
        pathToFileURL(path.join(root, 'src', file.replace(/\.js$/, '.ts'))).href
      )) as Record<string, unknown>;
      const shim = await load(file);
      assert.deepEqual(Object.keys(shim).sort(), Object.keys(source).sort(), file);
    }
  });
});
