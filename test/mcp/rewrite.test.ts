// The proxy's rewrite of one tools/call result, and the precision guard behind it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCompact } from '../../src/index.js';
import { losesPrecision } from '../../src/mcp/proxy/json-numbers.js';
import { contentToolReason, createToolResultCompactor } from '../../src/mcp/proxy.js';

const rows = Array.from({ length: 12 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 }));
const jsonResult = (value: unknown, extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  ...extra,
});

describe('ToolResultCompactor', () => {
  it('rewrites JSON text to the smaller encoding and names the strategy in _meta', async () => {
    const compactor = await createToolResultCompactor({ structuredContent: 'add' });
    const outcome = compactor.compact(
      jsonResult({ items: rows }, { _meta: { kept: 1 } }),
      'list',
      'none',
    );
    assert.equal(outcome.changed, true);
    const result = outcome.result as {
      content: [{ text: string }];
      _meta: Record<string, unknown>;
      structuredContent: unknown;
    };
    assert.equal(result._meta.kept, 1);
    assert.deepEqual(
      parseCompact(result.content[0].text, result._meta['toonwire/encodingStrategy'] as string),
      { items: rows },
    );
    assert.deepEqual(result.structuredContent, { items: rows });
  });

  it('adds structuredContent only when the tool is known to declare no outputSchema', async () => {
    const compactor = await createToolResultCompactor({ structuredContent: 'add' });
    for (const knowledge of ['declared', 'unknown'] as const) {
      const result = compactor.compact(jsonResult({ items: rows }), 'list', knowledge)
        .result as Record<string, unknown>;
      assert.equal('structuredContent' in result, false, knowledge);
    }
  });

  it('keeps the structuredContent a result already has, as the same object', async () => {
    const compactor = await createToolResultCompactor();
    const structuredContent = { items: [{ different: true }] };
    const result = compactor.compact(
      jsonResult({ items: rows }, { structuredContent }),
      'list',
      'none',
    ).result as Record<string, unknown>;
    assert.equal(result.structuredContent, structuredContent);
  });

  it('adds no structuredContent when two text contents hold JSON', async () => {
    const compactor = await createToolResultCompactor({ structuredContent: 'add' });
    const input = {
      content: [jsonResult({ items: rows }).content[0], jsonResult({ items: rows }).content[0]],
    };
    const outcome = compactor.compact(input, 'list', 'none');
    const result = outcome.result as {
      _meta: Record<string, unknown>;
      structuredContent?: unknown;
    };
    assert.equal(result.structuredContent, undefined);
    assert.equal(result._meta['toonwire/encodingStrategy'], 'toon,toon');
  });

  it('leaves the result itself untouched', async () => {
    const compactor = await createToolResultCompactor();
    const input = jsonResult({ items: rows });
    const snapshot = structuredClone(input);
    compactor.compact(input, 'list', 'none');
    assert.deepEqual(input, snapshot);
  });

  for (const [why, result] of [
    ['an isError result', jsonResult({ items: rows }, { isError: true })],
    ['a result without content (a task handle)', { task: { taskId: 't1', status: 'working' } }],
    ['text that is not JSON', { content: [{ type: 'text', text: 'All 12 rows are fine.' }] }],
    ['text that only starts like JSON', { content: [{ type: 'text', text: '{ not json' }] }],
    [
      'JSON that is a string or number, not an object or array',
      {
        content: [
          { type: 'text', text: '"a string"' },
          { type: 'text', text: '42' },
        ],
      },
    ],
    [
      'JSON with integers beyond 2^53',
      { content: [{ type: 'text', text: '[{"id": 9007199254740993}]' }] },
    ],
    [
      'already compact JSON that no candidate beats',
      { content: [{ type: 'text', text: '{"a":[1,{"b":2}]}' }] },
    ],
    ['an image', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }],
  ] as const) {
    it(`passes ${why} through as the same object`, async () => {
      const compactor = await createToolResultCompactor();
      const outcome = compactor.compact(result, 'list', 'none');
      assert.equal(outcome.changed, false);
      assert.equal(outcome.result, result);
    });
  }

  it('compacts only the tools it is told to', async () => {
    const compactor = await createToolResultCompactor({ tools: ['a'] });
    assert.equal(compactor.compact(jsonResult(rows), 'a', 'none').changed, true);
    assert.equal(compactor.compact(jsonResult(rows), 'b', 'none').changed, false);
  });

  it('reports every text content before and after', async () => {
    const compactor = await createToolResultCompactor();
    const input = { content: [{ type: 'text', text: 'note' }, jsonResult(rows).content[0]] };
    const { blocks, result } = compactor.compact(input, 'list', 'none');
    const shipped = (result as { content: Array<{ text: string }> }).content[1]!.text;
    assert.deepEqual(blocks, [
      { before: 'note', after: 'note', strategy: undefined },
      {
        before: input.content[1]!.text,
        after: shipped,
        strategy: 'toon',
        beforeSize: undefined,
        afterSize: Buffer.byteLength(shipped),
      },
    ]);
  });

  it('adds no structuredContent by default (keep)', async () => {
    const compactor = await createToolResultCompactor();
    const outcome = compactor.compact(jsonResult({ items: rows }), 'list', 'none');
    assert.equal(outcome.changed, true);
    assert.equal('structuredContent' in (outcome.result as object), false);
  });

  it('strip removes structuredContent from results and outputSchema from tools/list', async () => {
    const compactor = await createToolResultCompactor({ structuredContent: 'strip' });
    const structuredContent = { items: rows };
    const outcome = compactor.compact(
      jsonResult({ items: rows }, { structuredContent }),
      'list',
      'declared',
    );
    assert.equal('structuredContent' in (outcome.result as object), false);
    const error = compactor.compact(
      { content: [{ type: 'text', text: 'no' }], isError: true, structuredContent },
      'list',
      'declared',
    );
    assert.equal('structuredContent' in (error.result as object), false);
    const listed = compactor.toolsList({
      tools: [
        { name: 'list', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
        { name: 'other', inputSchema: { type: 'object' } },
      ],
      nextCursor: 'c',
    });
    assert.deepEqual(listed, {
      tools: [
        { name: 'list', inputSchema: { type: 'object' } },
        { name: 'other', inputSchema: { type: 'object' } },
      ],
      nextCursor: 'c',
    });
    const kept = await createToolResultCompactor();
    assert.equal(kept.toolsList({ tools: [{ name: 'list', outputSchema: {} }] }), undefined);
  });

  it('passes file and document contents through: the content policy', async () => {
    const compactor = await createToolResultCompactor();
    const file = JSON.stringify(
      { name: 'pkg', version: '1.0.0', dependencies: { a: '^1' } },
      null,
      2,
    );
    const fileResult = { content: [{ type: 'text', text: file }] };
    for (const name of ['read_text_file', 'read_file', 'get_file_contents', 'fetch']) {
      const outcome = compactor.compact(fileResult, name, 'none');
      assert.equal(outcome.changed, false, name);
      assert.equal(outcome.result, fileResult, name);
      assert.equal(outcome.passedThrough, 'content', name);
      assert.deepEqual(outcome.blocks, [{ before: file, after: file, strategy: undefined }]);
    }
    // A read verb and a path argument, found in the tools/list input schema.
    const schema = { type: 'object', properties: { path: { type: 'string' } } };
    assert.equal(compactor.compact(fileResult, 'open_note', 'none', schema).changed, false);
    // A path argument alone does not make contents: directory_tree lists a directory as JSON.
    const tree = jsonResult([
      { name: 'a', type: 'file' },
      { name: 'b', type: 'directory', children: [] },
    ]);
    assert.equal(compactor.compact(tree, 'directory_tree', 'none', schema).changed, true);
    // The user's word wins either way.
    const included = await createToolResultCompactor({ includeTools: ['read_text_file'] });
    assert.equal(included.compact(fileResult, 'read_text_file', 'none').changed, true);
    const listed = await createToolResultCompactor({ tools: ['read_text_file'] });
    assert.equal(listed.compact(fileResult, 'read_text_file', 'none').changed, true);
    const excluded = await createToolResultCompactor({ excludeTools: ['directory_tree'] });
    assert.equal(excluded.compact(tree, 'directory_tree', 'none').passedThrough, 'excluded');
    const off = await createToolResultCompactor({ contentPolicy: false });
    assert.equal(off.compact(fileResult, 'read_text_file', 'none').changed, true);
  });

  it('recognises content tools by name, name words and location arguments', () => {
    const withArgument = (name: string) => ({
      name,
      inputSchema: { properties: { uri: { type: 'string' } } },
    });
    assert.equal(contentToolReason({ name: 'read_multiple_files' }), 'name');
    assert.equal(contentToolReason({ name: 'getDocumentBody' }), 'name-words');
    assert.equal(contentToolReason({ name: 'download-blob' }), 'name-words');
    assert.equal(contentToolReason(withArgument('view')), 'location-argument');
    for (const name of ['read_graph', 'search_nodes', 'open_nodes', 'query', 'list_directory'])
      assert.equal(contentToolReason({ name }), undefined, name);
    assert.equal(contentToolReason(withArgument('search')), undefined);
  });

  it('reports passed-through text with its reason: errors and excluded tools', async () => {
    const compactor = await createToolResultCompactor({ excludeTools: ['list'] });
    const text = JSON.stringify(rows, null, 2);
    const error = compactor.compact(
      { content: [{ type: 'text', text }], isError: true },
      'other',
      'none',
    );
    assert.equal(error.passedThrough, 'error');
    assert.deepEqual(error.blocks, [{ before: text, after: text, strategy: undefined }]);
    assert.equal(compactor.compact(jsonResult(rows), 'list', 'none').passedThrough, 'excluded');
  });

  it('says why it rewrote no text: none, not JSON, unsafe numbers, not smaller', async () => {
    const compactor = await createToolResultCompactor();
    const kept = (...texts: string[]) =>
      compactor.compact({ content: texts.map((text) => ({ type: 'text', text })) }, 'q', 'none')
        .kept;
    assert.equal(kept(), 'no-text');
    assert.equal(kept('plain words', '"a JSON string"'), 'not-json');
    assert.equal(kept('{"id": 12345678901234567891}', 'plain words'), 'unsafe-numbers');
    assert.equal(kept('{"a":1}'), 'not-smaller');
    assert.equal(kept('{"a": 1, broken'), 'not-smaller'); // looks like JSON, is not
    assert.equal(compactor.compact(jsonResult({ items: rows }), 'q', 'none').kept, undefined);
  });

  it('uses the texts a caller has read, and ships values that replace them', async () => {
    const compactor = await createToolResultCompactor();
    const text = JSON.stringify({ items: rows });
    const result = { content: [{ type: 'text', text }] };
    // Read already: its verdict stands, the text is not read again.
    const unsafe = { reads: new Map([[0, { failed: 'unsafe-numbers' as const }]]), replace: false };
    assert.equal(compactor.compact(result, 'q', 'none', undefined, unsafe).kept, 'unsafe-numbers');
    // A replacing value ships as its own text, JSON where JSON wins.
    const small = { reads: new Map([[0, { value: { items: [{ id: 1 }] } }]]), replace: true };
    const replaced = compactor.compact(result, 'q', 'none', undefined, small);
    assert.equal(replaced.changed, true);
    assert.deepEqual(replaced.blocks, [
      { before: text, after: '{"items":[{"id":1}]}', strategy: undefined },
    ]);
    const long = { reads: new Map([[0, { value: { items: rows.slice(6) } }]]), replace: true };
    const shipped = compactor.compact(result, 'q', 'none', undefined, long).result as {
      content: [{ text: string }];
      _meta: Record<string, string>;
    };
    const strategy = shipped._meta['toonwire/encodingStrategy']!;
    assert.notEqual(strategy, 'json');
    assert.deepEqual(parseCompact(shipped.content[0].text, strategy), { items: rows.slice(6) });
  });

  it('ships a rewritten result with _meta and structuredContent as its mode says', async () => {
    const content = [{ type: 'text', text: 'a: 1' }];
    const result = { content: [], structuredContent: { a: 1 }, _meta: { kept: 1 } };
    const keep = await createToolResultCompactor();
    assert.deepEqual(keep.shipped(result, content, 'toon', 'none', { b: 2 }), {
      content,
      structuredContent: { a: 1 },
      _meta: { kept: 1, 'toonwire/encodingStrategy': 'toon' },
    });
    const add = await createToolResultCompactor({ structuredContent: 'add' });
    assert.deepEqual(add.shipped({ content: [] }, content, 'toon', 'none', { b: 2 }), {
      content,
      _meta: { 'toonwire/encodingStrategy': 'toon' },
      structuredContent: { b: 2 },
    });
    assert.equal('structuredContent' in add.shipped({}, content, 'toon', 'declared', {}), false);
    const strip = await createToolResultCompactor({ structuredContent: 'strip' });
    assert.equal('structuredContent' in strip.shipped(result, content, 'toon', 'none'), false);
  });

  it('refuses invalid options up front', async () => {
    await assert.rejects(
      createToolResultCompactor({ candidates: ['yaml' as never] }),
      /unknown candidate "yaml"/,
    );
    await assert.rejects(
      createToolResultCompactor({ metaKey: '' }),
      /metaKey must be a non-empty string/,
    );
    await assert.rejects(
      createToolResultCompactor({ structuredContent: 'drop' as never }),
      /structuredContent must be 'keep', 'add' or 'strip'/,
    );
    await assert.rejects(createToolResultCompactor({ hint: 'two\nlines' }), /hint must be/);
    await assert.rejects(
      createToolResultCompactor({ by: 'chars' as never }),
      /by must be 'auto', 'bytes' or 'tokens'/,
    );
  });

  it("by: 'auto' (the default) keeps JSON where TOON saves bytes but costs tokens", async () => {
    // Two short rows: TOON is 20 bytes smaller, yet the picker's token guard keeps JSON.
    const rows = {
      data: [
        { id: 1, sku: 'TEA' },
        { id: 2, sku: 'SCONE' },
      ],
    };
    const result = { content: [{ type: 'text', text: JSON.stringify(rows, null, 2) }] };
    const textOf = (outcome: { result: unknown }) =>
      (outcome.result as { content: [{ text: string }] }).content[0].text;
    for (const by of [undefined, 'auto'] as const) {
      const compactor = await createToolResultCompactor({ by });
      assert.equal(
        textOf(compactor.compact(result, 'list', 'none')),
        JSON.stringify(rows),
        `${by}`,
      );
    }
    const bytes = await createToolResultCompactor({ by: 'bytes' });
    const text = textOf(bytes.compact(result, 'list', 'none'));
    assert.notEqual(text, JSON.stringify(rows));
    assert.deepEqual(parseCompact(text, 'toon'), rows);
  });
});

describe('losesPrecision', () => {
  it('is false for numbers a double carries exactly', () => {
    assert.equal(
      losesPrecision(
        '[0, -0, 1, -12.5, 0.1, 1e300, 2.5E-7, 9007199254740991, 123456789012345.6, 1.0]',
      ),
      false,
    );
  });

  it('is true for integers beyond 2^53, too many digits, and out-of-range exponents', () => {
    for (const text of [
      '[9007199254740993]',
      '{"id":12345678901234567891}',
      '[0.12345678901234567891]',
      '[1e400]',
      '[1e-400]',
    ]) {
      assert.equal(losesPrecision(text), true, text);
    }
  });

  it('gives the same answer with or without its quick pre-check', () => {
    // A string holding "0e0" always passes the pre-check, so the second text is always scanned.
    const digits = (min: number, max: number) =>
      fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.oneof(
          fc.constant('0'),
          fc.tuple(fc.constantFrom(...'123456789'), digits(0, 24)).map(([a, b]) => a + b),
        ),
        fc.option(digits(1, 24)),
        fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))),
      )
      .map(
        ([negative, whole, fraction, exponent]) =>
          `${negative ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : exponent.join('')}`,
      );
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 4 }), (literals) => {
        const text = `[${literals.join(',')}]`;
        assert.equal(losesPrecision(text), losesPrecision(`[${literals.join(',')},"0e0"]`), text);
      }),
      { numRuns: 2000 },
    );
  });

  it('ignores digits inside strings, escaped quotes included', () => {
    assert.equal(
      losesPrecision('{"id":"12345678901234567891","q":"say \\"9007199254740993\\""}'),
      false,
    );
  });
});
