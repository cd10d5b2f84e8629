// Differential test against the reference implementation, @toon-format/toon 4.4.0 (issue 22):
// both decoders read the same documents, generated and mutated, in both modes; they must agree
// (the same value, or both an error), and every disagreement left must fall in one of the
// documented classes below, each naming the spec section that decides it. docs/codec.md lists
// the same classes. Quick at the default run count; TOON_DIFF_RUNS=40000 for a long run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode as referenceDecode } from '@toon-format/toon';
import fc from 'fast-check';
import { decode } from '../../src/codec/decode.js';
import { encode } from '../../src/codec/encode.js';
import { ToonDecodeError } from '../../src/codec/errors.js';
import { loneSurrogateAt } from '../../src/codec/lexical.js';
import type { DecodeOptions, JsonValue } from '../../src/codec/types.js';
import { canonical, isWellFormedJson, jsonValue } from '../support/json.js';
import { applySplice, type Splice, splice, syntaxSoup } from './syntax-soup.js';

const runs = Number(process.env.TOON_DIFF_RUNS ?? 1500);

/** What one decoder made of a document: its value (canonical JSON text) or its error. */
type Outcome = { value: string } | { error: unknown };

function outcome(run: () => unknown): Outcome {
  try {
    return { value: canonical(run() as JsonValue) };
  } catch (error) {
    return { error };
  }
}

interface Case {
  text: string;
  options: DecodeOptions;
  ours: Outcome;
  theirs: Outcome;
}

/** A documented disagreement: where toonwire departs from the reference, and why. */
interface DisagreementClass {
  name: string;
  /** The spec section that decides the case, and how. */
  decidedBy: string;
  matches(c: Case): boolean;
}

const ourReason = (c: Case): string =>
  'error' in c.ours && c.ours.error instanceof ToonDecodeError ? c.ours.error.reason : '';

const DISAGREEMENTS: readonly DisagreementClass[] = [
  {
    name: 'unpaired surrogate in string input',
    decidedBy:
      '§7.1 (and §1.2): TOON text is Unicode scalar values, the grammar excludes U+D800-DFFF; strict toonwire refuses it with line and column, the reference decodes it into a string its own encode refuses',
    matches: (c) =>
      c.options.strict !== false &&
      'value' in c.theirs &&
      loneSurrogateAt(c.text) >= 0 &&
      /^unpaired surrogate/.test(ourReason(c)),
  },
  {
    name: 'duplicate empty field name',
    decidedBy:
      '§14.3: duplicate field names in one group are a strict-mode error; the reference checks every name but the empty one ("" is falsy in its check)',
    matches: (c) =>
      c.options.strict !== false &&
      'value' in c.theirs &&
      /^duplicate field name ""/.test(ourReason(c)),
  },
];

/** The class a disagreement belongs to, or undefined when it is not documented. */
function classify(c: Case): DisagreementClass | undefined {
  return DISAGREEMENTS.find((d) => d.matches(c));
}

// ---- documents --------------------------------------------------------------------------------

/** An edit of a document: text spliced in, or a whole line dropped, repeated, moved or recounted. */
type Edit =
  | ({ kind: 'splice' } & Splice)
  | {
      kind: 'line';
      at: number;
      op: 'drop' | 'repeat' | 'indent' | 'dedent' | 'blank' | 'tab' | 'count';
    };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  splice(12).map((s): Edit => ({ kind: 'splice', ...s })),
  fc.record({
    kind: fc.constant('line' as const),
    at: fc.nat(),
    op: fc.constantFrom(
      'drop' as const,
      'repeat' as const,
      'indent' as const,
      'dedent' as const,
      'blank' as const,
      'tab' as const,
      'count' as const,
    ),
  }),
);

function applyEdit(text: string, e: Edit): string {
  if (e.kind === 'splice') return applySplice(text, e);
  const lines = text.split('\n');
  const i = e.at % lines.length;
  const line = lines[i]!;
  switch (e.op) {
    case 'drop':
      lines.splice(i, 1);
      break;
    case 'repeat':
      lines.splice(i, 0, line);
      break;
    case 'indent':
      lines[i] = ' '.repeat(1 + (e.at % 4)) + line;
      break;
    case 'dedent':
      lines[i] = line.replace(/^ {1,2}/, '');
      break;
    case 'blank':
      lines.splice(i, 0, '');
      break;
    case 'tab':
      lines[i] = line.replace(/^ /, '\t');
      break;
    case 'count':
      lines[i] = line.replace(
        /\[(\d+)/,
        (_, n) => `[${Math.max(0, Number(n) + (e.at % 2 ? 1 : -1))}`,
      );
      break;
  }
  return lines.join('\n');
}

/** Encoded values, edited; and documents of random lines of syntax. */
const documents: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(jsonValue(), fc.array(edit, { maxLength: 3 }), fc.boolean())
      .filter(([value]) => isWellFormedJson(value))
      .map(([value, edits, bom]) => {
        const text = edits.reduce(applyEdit, encode(value));
        return bom ? `\uFEFF${text}` : text;
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom('', ' ', '  ', '   ', '    ', '\t'), syntaxSoup(12)), {
        maxLength: 8,
      })
      .map((lines) => lines.map(([indent, line]) => indent + line).join('\n')),
  },
);

const decodeOptions: fc.Arbitrary<DecodeOptions> = fc.record({
  strict: fc.boolean(),
  indentSize: fc.constantFrom(1, 2, 2, 4),
});

describe('differential: toonwire and @toon-format/toon 4.4.0 read the same documents alike', () => {
  it(`agree on generated and mutated documents, but for the documented classes (${runs} runs)`, (t) => {
    const seen = new Map<string, number>();
    let agreed = 0;
    fc.assert(
      fc.property(documents, decodeOptions, (text, options) => {
        const c: Case = {
          text,
          options,
          ours: outcome(() => decode(text, options)),
          theirs: outcome(() => referenceDecode(text, options)),
        };
        if ('error' in c.ours && 'error' in c.theirs) {
          // Every failure of ours is a ToonDecodeError; the reference's may be anything.
          assert.ok(c.ours.error instanceof ToonDecodeError, String(c.ours.error));
          agreed++;
          return;
        }
        if ('value' in c.ours && 'value' in c.theirs && c.ours.value === c.theirs.value) {
          agreed++;
          return;
        }
        const known = classify(c);
        assert.ok(
          known !== undefined,
          `undocumented disagreement on ${JSON.stringify(text)} ${JSON.stringify(options)}: toonwire ${describeOutcome(c.ours)}, reference ${describeOutcome(c.theirs)}`,
        );
        seen.set(known.name, (seen.get(known.name) ?? 0) + 1);
      }),
      { numRuns: runs },
    );
    t.diagnostic(
      `agreed on ${agreed} of ${runs}; documented disagreements: ${[...seen].map(([name, n]) => `${name} ${n}`).join(', ') || 'none'}`,
    );
  });

  it('each documented class is a real disagreement, shown by an example', () => {
    const examples: [string, DecodeOptions][] = [
      ['a: x\ud800', {}],
      ['t[1]{"","",b}:\n  1,2,3', {}],
    ];
    for (const [text, options] of examples) {
      const c: Case = {
        text,
        options,
        ours: outcome(() => decode(text, options)),
        theirs: outcome(() => referenceDecode(text, options)),
      };
      assert.ok('error' in c.ours && 'value' in c.theirs, text);
      assert.ok(classify(c), text);
    }
    assert.equal(examples.length, DISAGREEMENTS.length);
  });
});

function describeOutcome(o: Outcome): string {
  return 'value' in o
    ? `gives ${o.value}`
    : `throws ${String((o.error as Error)?.message ?? o.error)}`;
}
