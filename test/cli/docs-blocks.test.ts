// The docs test's own parts (scripts/docs-test/): which blocks of a page run and how, and the
// `// =>` checks. The docs test itself runs in CI (`npm run test:docs`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractBlocks, importedPackages, withContinued } from '../../scripts/docs-test/blocks.js';
import { EXPECT_GLOBAL, rewriteExpectations } from '../../scripts/docs-test/expect.js';

const page = [
  '# A page',
  '',
  '```ts',
  "import { encode } from 'toonwire';",
  'const x = 1;',
  '```',
  '',
  '<!-- docs-test: continues -->',
  '```ts',
  'encode(x);',
  '```',
  '',
  '<!-- docs-test: skip needs a server on port 3000 -->',
  '```sh',
  'curl http://127.0.0.1:3000/',
  '```',
  '',
  '- a list item:',
  '',
  '  ```sh',
  '  npx toonwire --version',
  '  ```',
  '',
  '```',
  'output, not code',
  '```',
].join('\n');

describe('docs test: extracting blocks', () => {
  it('finds every fenced block with its line, kind and marker, indented ones included', () => {
    const blocks = extractBlocks('page.md', page);
    assert.deepEqual(
      blocks.map((b) => [b.line, b.kind, b.marker?.type ?? '']),
      [
        [3, 'typescript', ''],
        [9, 'typescript', 'continues'],
        [14, 'shell', 'skip'],
        [20, 'shell', ''],
        [24, 'text', ''],
      ],
    );
    assert.deepEqual(blocks[2]!.marker, { type: 'skip', reason: 'needs a server on port 3000' });
    assert.equal(blocks[3]!.code, 'npx toonwire --version\n', 'the list indentation is removed');
  });

  it('runs a continuing block after the code it continues', () => {
    const blocks = extractBlocks('page.md', page);
    assert.equal(
      withContinued(blocks, 1),
      "import { encode } from 'toonwire';\nconst x = 1;\nencode(x);\n",
    );
  });

  it('refuses a marker it cannot read, and a skip without a reason', () => {
    assert.throws(
      () => extractBlocks('p.md', '<!-- docs-test: skipp -->\n```sh\nls\n```\n'),
      /p\.md:1: unreadable docs-test marker/,
    );
    assert.throws(
      () => extractBlocks('p.md', '<!-- docs-test: skip -->\n```sh\nls\n```\n'),
      /must give its reason/,
    );
  });

  it('lists the packages a block imports, not toonwire or Node built-ins', () => {
    const code = [
      "import { z } from 'zod';",
      "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
      "import { validator } from 'hono/validator';",
      "import { readFile } from 'node:fs/promises';",
      "import toon from 'toonwire/fastify';",
      "const lazy = await import('prom-client');",
    ].join('\n');
    assert.deepEqual(importedPackages(code), [
      'zod',
      '@modelcontextprotocol/sdk',
      'hono',
      'prom-client',
    ]);
  });
});

describe("docs test: '// =>' checks", () => {
  it('turns a stated value into a check at the same line, on the same line or the next', () => {
    const code = "decode('[2]: a,b'); // => ['a', 'b']\nresult.size;\n// => 57  (UTF-8 bytes)\n";
    const { code: rewritten, checks } = rewriteExpectations(code, 'README.md', 10);
    assert.equal(checks, 2);
    assert.deepEqual(rewritten.split('\n'), [
      `${EXPECT_GLOBAL}((decode('[2]: a,b')), (['a', 'b']), 'README.md:11');`,
      `${EXPECT_GLOBAL}((result.size), (57), 'README.md:12');`,
      '',
      '',
    ]);
  });

  it('leaves other comments alone', () => {
    const code = "pick(rows); // { text, strategy: 'toon', ... }\n// prose\n";
    assert.deepEqual(rewriteExpectations(code, 'a.md', 1), { code, checks: 0 });
  });

  it('refuses a stated value after a declaration or a statement it cannot check', () => {
    assert.throws(
      () => rewriteExpectations('const x = f(); // => 1\n', 'a.md', 1),
      /a\.md:2: '\/\/ =>' must follow an expression statement/,
    );
    assert.throws(
      () => rewriteExpectations('f({\n  a: 1,\n});\n// => 2\n', 'a.md', 1),
      /a\.md:5: '\/\/ =>' must follow a one-line expression statement/,
    );
  });
});
