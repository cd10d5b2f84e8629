// The types a user of the built package can name (field defect: the reference's
// ResolvedEncodeOptions / ResolvedDecodeOptions and a readonly JSON array type were missing).
// Each check compiles against dist/index.d.ts, as a user's code does (`npm run build` first;
// `npm test` builds), with the TypeScript compiler API.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const builtRoot = path.join(root, 'dist/index.d.ts');
const referenceTypes = createRequire(import.meta.url)
  .resolve('@toon-format/toon')
  .replace(/index\.mjs$/, 'index.d.mts');

const compilerOptions = (strictest: boolean): ts.CompilerOptions => ({
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: strictest,
  noEmit: true,
  skipLibCheck: true,
  types: [],
});

/** The compiler's complaints about `file` alone, as text. */
function errorsIn(program: ts.Program, file: string): string[] {
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === file)
    .map((diagnostic) => {
      const at = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `line ${at.line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
}

/** The export names of a declaration file, types and values alike. */
function exportNames(file: string): Set<string> {
  const program = ts.createProgram([file], compilerOptions(false));
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return new Set(checker.getExportsOfModule(module).map((symbol) => symbol.name));
}

// What code written for the reference does with its types, compiled against toonwire's: a value of
// each reference type passed where toonwire takes the type of the same name, the resolved options
// written out by hand, readonly data, and the options `JSON.stringify` habits produce.
const userCode = `import type * as reference from '@toon-format/toon';
import { decode, encode, encodeLines, ToonDecodeError } from 'toonwire';
import type * as toonwire from 'toonwire';

declare const theirs: {
  encodeOptions: reference.EncodeOptions;
  decodeOptions: reference.DecodeOptions;
  streamOptions: reference.DecodeStreamOptions;
  resolvedEncode: reference.ResolvedEncodeOptions;
  resolvedDecode: reference.ResolvedDecodeOptions;
  value: reference.JsonValue;
  object: reference.JsonObject;
  array: reference.JsonArray;
  primitive: reference.JsonPrimitive;
  replacer: reference.EncodeReplacer;
  delimiter: reference.Delimiter;
  delimiterKey: reference.DelimiterKey;
  event: reference.JsonStreamEvent;
};
export const encodeOptions: toonwire.EncodeOptions = theirs.encodeOptions;
export const decodeOptions: toonwire.DecodeOptions = theirs.decodeOptions;
export const streamOptions: toonwire.DecodeStreamOptions = theirs.streamOptions;
export const resolvedEncode: toonwire.ResolvedEncodeOptions = theirs.resolvedEncode;
export const resolvedDecode: toonwire.ResolvedDecodeOptions = theirs.resolvedDecode;
export const value: toonwire.ReadonlyJsonValue = theirs.value;
export const object: toonwire.ReadonlyJsonObject = theirs.object;
export const array: toonwire.ReadonlyJsonArray = theirs.array;
export const primitive: toonwire.JsonPrimitive = theirs.primitive;
export const replacer: toonwire.EncodeReplacer = theirs.replacer;
export const delimiter: toonwire.Delimiter = theirs.delimiter;
export const delimiterKey: toonwire.DelimiterKey = theirs.delimiterKey;
export const event: toonwire.JsonStreamEvent = theirs.event;

// Resolved options, written out and passed back in.
const resolved: toonwire.ResolvedEncodeOptions = { indentSize: 4, delimiter: '|' };
export const text: string = encode(theirs.value, resolved);
const lenient: toonwire.ResolvedDecodeOptions = { indentSize: 2, strict: false };
export const decoded: toonwire.JsonValue = decode('a: 1', lenient);
export const withOurs: toonwire.ResolvedEncodeOptions = { indentSize: 2, delimiter: ',', bigint: 'string' };

// Readonly data, at any depth, typed before it is encoded.
const data = { tags: ['a', 'b'], nested: { rows: [{ id: 1 }, { id: 2 }] } } as const;
const typed: toonwire.ReadonlyJsonValue = data;
export const lines: Iterable<string> = encodeLines(typed);
const frozen: toonwire.ReadonlyJsonArray = Object.freeze([1, 'two', null, Object.freeze([true])]);
export const mutableIsReadonlyToo: toonwire.ReadonlyJsonValue = decode('a: 1');
encode(frozen);
// @ts-expect-error JsonValue is what decode returns, arrays you may change; readonly data is not one
export const notMutable: toonwire.JsonValue = data;

// No replacer, the JSON.stringify way.
encode(data, { replacer: null });
encode(data, { replacer: false });
encode(data, { replacer: (key, value) => (key === 'id' ? undefined : value) });

// The error's constructor contexts and the removed options, named.
const context: toonwire.ReferenceErrorContext = { line: 1, source: 'a', cause: 1 };
const ownContext: toonwire.ToonDecodeErrorContext = { source: 'a', offset: 0 };
export const errors = [new ToonDecodeError('x', context), new ToonDecodeError('x', 1, 1, ownContext)];
const removed: toonwire.RemovedReferenceOptions = { keyFolding: 'safe' };
encode(data, removed);
`;

describe('the public types of the built package root', () => {
  it("exports every type and value the reference exports, under the reference's names", () => {
    const ours = exportNames(builtRoot);
    const missing = [...exportNames(referenceTypes)].filter((name) => !ours.has(name));
    assert.deepEqual(missing, []);
  });

  it('compiles code written for the reference and readonly data, under strict and exactOptionalPropertyTypes', () => {
    // The fixture sits in the checkout (.tmp is ignored by git) so that `toonwire` resolves to this
    // package's built declarations, as it does for a user.
    mkdirSync(path.join(root, '.tmp'), { recursive: true });
    const dir = mkdtempSync(path.join(root, '.tmp', 'public-types-'));
    try {
      const file = path.join(dir, 'user.ts');
      writeFileSync(file, userCode);
      for (const strictest of [false, true]) {
        const program = ts.createProgram([file], compilerOptions(strictest));
        const resolvedTo = program
          .getSourceFiles()
          .map((source) => source.fileName)
          .filter((name) => name.endsWith('/dist/index.d.ts'));
        assert.deepEqual(resolvedTo, [builtRoot.split(path.sep).join('/')]);
        assert.deepEqual(errorsIn(program, file), [], `exactOptionalPropertyTypes: ${strictest}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('can name every type of its own that a public signature uses', () => {
    // Walks every export's declaration for references to the package's own types; one a user
    // meets in a signature (a constructor's context, a base interface) but cannot import is a
    // type they cannot write down.
    const program = ts.createProgram([builtRoot], compilerOptions(false));
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(builtRoot)!)!;
    const target = (symbol: ts.Symbol) =>
      symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const isOwn = (declaration: ts.Declaration) =>
      declaration
        .getSourceFile()
        .fileName.startsWith(path.join(root, 'dist').split(path.sep).join('/'));
    const exported = new Set(checker.getExportsOfModule(module).map(target));
    const seen = new Set<ts.Symbol>();
    const unnamed = new Map<string, string>();
    const visit = (symbol: ts.Symbol, via: string) => {
      if (seen.has(symbol)) return;
      seen.add(symbol);
      const walk = (node: ts.Node) => {
        const name = ts.isTypeReferenceNode(node)
          ? node.typeName
          : ts.isExpressionWithTypeArguments(node)
            ? node.expression
            : ts.isTypeQueryNode(node)
              ? node.exprName
              : undefined;
        const referenced = name === undefined ? undefined : checker.getSymbolAtLocation(name);
        if (referenced !== undefined) {
          const type = target(referenced);
          if (
            !(type.flags & ts.SymbolFlags.TypeParameter) &&
            (type.declarations ?? []).some(isOwn)
          ) {
            if (!exported.has(type)) unnamed.set(type.name, `${via} > ${symbol.name}`);
            visit(type, `${via} > ${symbol.name}`);
          }
        }
        ts.forEachChild(node, walk);
      };
      for (const declaration of (symbol.declarations ?? []).filter(isOwn)) walk(declaration);
    };
    for (const symbol of checker.getExportsOfModule(module)) visit(target(symbol), 'toonwire');
    assert.deepEqual(Object.fromEntries(unnamed), {});
  });
});
