// The package root (codec + compact engine) promises web-standard APIs only, so that
// stringifyCompact runs in Workers, Deno, browsers and sandboxed isolates (the seed's Code Mode).
// tsconfig.portable.json checks that at the type level; this checks it at run time: the root is
// bundled for a neutral platform (a Node built-in import fails the build) and run in a fresh V8
// context that has the JavaScript built-ins and TextEncoder, and nothing of Node.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { build } from 'esbuild';
import { decode, encode, parseCompact, pick, stringifyCompact } from '../../src/index.js';

const entry = fileURLToPath(new URL('../../src/index.ts', import.meta.url));

async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'toonwire',
    platform: 'neutral',
    // Loaded on demand by loadTokenizer() only, with a dynamic import that stays as it is.
    external: ['gpt-tokenizer/*'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** Runs `body` (a function body returning JSON text) in an isolate-like context with the bundle loaded. */
function runIsolated(code: string, body: string, globals: object = { TextEncoder }): unknown {
  const context = vm.createContext({ ...globals });
  vm.runInContext(code, context);
  return JSON.parse(vm.runInContext(`(() => { ${body} })()`, context) as string);
}

// Built inside the context too: objects from another realm have another Object.prototype.
const ROWS = `Array.from({ length: 12 }, (_, i) => ({ id: i, name: 'row ' + i, tags: ['a', 'b,c'], stats: { runs: i * 3, ok: i % 2 === 0 } }))`;
const rows = Array.from({ length: 12 }, (_, i) => ({
  id: i,
  name: `row ${i}`,
  tags: ['a', 'b,c'],
  stats: { runs: i * 3, ok: i % 2 === 0 },
}));

describe('the portable core', () => {
  it('bundles for a neutral platform and runs with no Node globals, writing what it writes in Node', async () => {
    const code = await bundle();
    const result = runIsolated(
      code,
      `const rows = ${ROWS};
       const picked = toonwire.pick(rows);
       return JSON.stringify({
         globals: [typeof process, typeof Buffer, typeof require, typeof setTimeout],
         text: toonwire.encode(rows, { delimiter: '|' }),
         back: toonwire.decode(toonwire.encode(rows)),
         strategy: picked.strategy,
         picked: picked.text,
         parsed: toonwire.parseCompact(picked.text, picked.strategy),
         compact: toonwire.stringifyCompact({ items: rows }, { fields: 'id,stats.ok' }),
         error: (() => { try { toonwire.decode('a[2]: 1'); } catch (error) { return [error.name, error.line, error.column]; } })(),
       });`,
    ) as Record<string, unknown>;

    assert.deepEqual(
      result.globals,
      ['undefined', 'undefined', 'undefined', 'undefined'],
      'the context has nothing of Node',
    );
    assert.equal(result.text, encode(rows, { delimiter: '|' }));
    assert.deepEqual(result.back, rows);
    assert.equal(result.strategy, pick(rows).strategy);
    assert.equal(result.picked, pick(rows).text);
    assert.deepEqual(result.parsed, parseCompact(pick(rows).text, pick(rows).strategy));
    assert.equal(result.compact, stringifyCompact({ items: rows }, { fields: 'id,stats.ok' }));
    assert.throws(() => decode('a[2]: 1'), { name: 'ToonDecodeError', line: 1, column: 3 });
    assert.deepEqual(result.error, ['ToonDecodeError', 1, 3]);
  });

  it('decodes UTF-8 bytes with the host TextDecoder, strictly, and needs it only for bytes', async () => {
    const code = await bundle();
    const result = runIsolated(
      code,
      `const bytes = new TextEncoder().encode('a: héllo');
       const broken = new Uint8Array([0x61, 0x3a, 0x20, 0xff]);
       let error;
       try { toonwire.decode(broken); } catch (e) { error = [e.name, e.offset]; }
       return JSON.stringify({ value: toonwire.decode(bytes), error });`,
      { TextEncoder, TextDecoder },
    ) as Record<string, unknown>;
    assert.deepEqual(result.value, { a: 'héllo' });
    assert.deepEqual(result.error, ['ToonDecodeError', 3]);
  });
});
