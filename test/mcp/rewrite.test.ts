// The proxy's rewrite of one tools/call result, and the precision guard behind it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCompact } from '../../src/index.js';
import { losesPrecision } from '../../src/mcp/proxy/json-numbers.js';
import { createToolResultCompactor } from '../../src/mcp/proxy.js';

const rows = Array.from({ length: 12 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 }));
const jsonResult = (value: unknown, extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  ...extra,
});

describe('ToolResultCompactor', () => {
  it('rewrites JSON text to the smaller encoding and names the strategy in _meta', async () => {
    const compactor = await createToolResultCompactor();
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
    const compactor = await createToolResultCompactor();
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
    const compactor = await createToolResultCompactor();
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
      { before: input.content[1]!.text, after: shipped, strategy: 'toon' },
    ]);
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
