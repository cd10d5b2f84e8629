// Outputs in comments, checked: in a TypeScript block, `EXPR; // => VALUE` (or `// => VALUE` on
// the line right after a one-line `EXPR;`) states what EXPR evaluates to, and the docs test checks
// it. Other comments are prose and are not checked, so write `// =>` only before a real value
// (a JavaScript literal: strings, numbers, arrays, objects, or a name the block defined). A note
// in parentheses may follow the value after two spaces: `x.line; // => 2  (1-based)`.

/** The global the rewritten code calls; set by the preload that `expectPreload` writes. */
export const EXPECT_GLOBAL = '__docsTestExpect';

const SAME_LINE = /^(\s*)(.+?);\s*\/\/ => (.+?)\s*$/;
const OWN_LINE = /^\s*\/\/ => (.+?)\s*$/;
const STATEMENT = /^(\s*)(.+?);\s*(?:\/\/.*)?$/;
const NOTE = /\s{2,}\(.*\)$/;
const DECLARATION = /^(const|let|var|return|import|export|throw|if|for|while|function|class)\b/;

/**
 * The block's code with each `// =>` comment turned into a check, and how many there are. Line
 * numbers stay the same, so errors point at the Markdown line.
 *
 * @example
 * rewriteExpectations("decode('[2]: a,b'); // => ['a', 'b']", 'README.md', 10).code;
 * // "__docsTestExpect((decode('[2]: a,b')), (['a', 'b']), 'README.md:11');"
 * @throws {Error} when a `// =>` comment follows no one-line expression statement.
 */
export function rewriteExpectations(
  code: string,
  file: string,
  fenceLine: number,
): { code: string; checks: number } {
  const lines = code.split('\n');
  let checks = 0;
  const where = (index: number) => `${file}:${fenceLine + 1 + index}`;
  const check = (indent: string, expression: string, value: string, index: number) =>
    `${indent}${EXPECT_GLOBAL}((${expression}), (${value.replace(NOTE, '')}), '${where(index)}');`;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const own = OWN_LINE.exec(line);
    if (own) {
      const previous = lines[index - 1];
      const statement = previous === undefined ? null : STATEMENT.exec(previous);
      if (!statement || !isExpression(statement[2]!))
        throw new Error(
          `${where(index)}: '// =>' must follow a one-line expression statement (\`expr;\`) on the line above`,
        );
      lines[index - 1] = check(statement[1]!, statement[2]!, own[1]!, index - 1);
      lines[index] = '';
      checks++;
      continue;
    }
    const same = SAME_LINE.exec(line);
    if (same && !line.trimStart().startsWith('//')) {
      if (!isExpression(same[2]!))
        throw new Error(`${where(index)}: '// =>' must follow an expression statement (\`expr;\`)`);
      lines[index] = check(same[1]!, same[2]!, same[3]!, index);
      checks++;
    }
  }
  return { code: lines.join('\n'), checks };
}

/** A one-line expression: not a declaration, and its brackets balance outside strings. */
function isExpression(text: string): boolean {
  if (DECLARATION.test(text.trim())) return false;
  let depth = 0;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote) {
      if (char === '\\') index++;
      else if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && --depth < 0) return false;
  }
  return depth === 0 && quote === undefined;
}

/**
 * The preload module (loaded with `--import`) that defines the check: JSON-model equality of
 * the value (a structured clone of it, so null-prototype objects compare as plain ones) and the
 * comment's value.
 */
export function expectPreload(): string {
  return `import { inspect, isDeepStrictEqual } from 'node:util';
const plain = (value) => { try { return structuredClone(value); } catch { return value; } };
globalThis.${EXPECT_GLOBAL} = (actual, expected, where) => {
  if (!isDeepStrictEqual(plain(actual), plain(expected)))
    throw new Error(where + ': the comment says ' + inspect(expected, { depth: 6 }) + ', the code gives ' + inspect(actual, { depth: 6 }));
};
`;
}
