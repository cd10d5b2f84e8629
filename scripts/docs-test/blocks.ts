// The code blocks of a Markdown file, with the docs test's marker for each: which blocks run,
// how, and which are exceptions the test lists by name.
//
// A marker is an HTML comment on the line right before the opening fence (invisible when the
// Markdown is rendered):
//
//   <!-- docs-test: skip REASON -->   not run; REASON is printed with the count (an external server,
//                                      the network, a command that runs the whole test suite)
//   <!-- docs-test: continues -->     a TypeScript block that goes on from the previous one in the
//                                      same file: runs with that block's code in front of it
//   <!-- docs-test: clone -->         a shell block that runs in a clone of the repository (a copy
//                                      of this checkout's files), not in the installed-package project
//
// Everything else that is `ts`/`typescript`/`js`/`javascript` or `sh`/`bash`/`shell` runs;
// `json` blocks must parse; untagged blocks (program output) and `jsonc` are text. MCP client
// configurations (`json` with `mcpServers`/`servers`, `toml` with `[mcp_servers.NAME]`, a `sh`
// line `claude mcp add ...`) are started and talked to (scripts/docs-test/clients.ts).

/** How the docs test treats a block. */
export type BlockKind = 'typescript' | 'shell' | 'json' | 'toml' | 'text';

/** One fenced code block. */
export interface CodeBlock {
  /** The Markdown file, as given. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`ts`, `sh`, ...), or '' for none. */
  lang: string;
  kind: BlockKind;
  code: string;
  marker?: BlockMarker;
}

export type BlockMarker =
  | { type: 'skip'; reason: string }
  | { type: 'continues' }
  | { type: 'clone' };

const KINDS: Record<string, BlockKind> = {
  ts: 'typescript',
  typescript: 'typescript',
  js: 'typescript',
  javascript: 'typescript',
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  json: 'json',
  toml: 'toml',
};

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^\s*<!--\s*docs-test:\s*(skip|continues|clone)\b\s*(.*?)\s*-->\s*$/;

/**
 * The fenced code blocks of a Markdown text, in order.
 *
 * @example
 * extractBlocks('x.md', '<!-- docs-test: skip needs a server -->\n```sh\ncurl localhost\n```\n');
 * // [{ file: 'x.md', line: 2, lang: 'sh', kind: 'shell', code: 'curl localhost\n',
 * //    marker: { type: 'skip', reason: 'needs a server' } }]
 */
export function extractBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index]!);
    if (!open) continue;
    const [, indent, fence, lang = ''] = open;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence!)) {
      body.push(lines[end]!.slice(Math.min(indent!.length, leadingSpaces(lines[end]!))));
      end++;
    }
    const marker = markerBefore(lines, index, file);
    blocks.push({
      file,
      line: index + 1,
      lang,
      kind: KINDS[lang] ?? 'text',
      code: body.length > 0 ? `${body.join('\n')}\n` : '',
      ...(marker ? { marker } : {}),
    });
    index = end;
  }
  return blocks;
}

function leadingSpaces(line: string): number {
  return line.length - line.trimStart().length;
}

function markerBefore(lines: string[], fenceIndex: number, file: string): BlockMarker | undefined {
  const previous = lines[fenceIndex - 1];
  if (previous === undefined) return undefined;
  if (!previous.includes('docs-test')) return undefined;
  const match = MARKER.exec(previous);
  if (!match)
    throw new Error(
      `${file}:${fenceIndex}: unreadable docs-test marker: ${previous.trim()} (write <!-- docs-test: skip REASON -->, <!-- docs-test: continues --> or <!-- docs-test: clone -->)`,
    );
  const [, type, rest = ''] = match;
  if (type === 'skip') {
    if (rest === '') throw new Error(`${file}:${fenceIndex}: a skip marker must give its reason`);
    return { type: 'skip', reason: rest };
  }
  return type === 'continues' ? { type: 'continues' } : { type: 'clone' };
}

/**
 * The code a TypeScript block runs: its own, after the code of the blocks it continues.
 *
 * @example
 * withContinued(blocks, 3); // blocks[2].code + blocks[3].code when blocks[3] continues blocks[2]
 */
export function withContinued(blocks: readonly CodeBlock[], index: number): string {
  const block = blocks[index]!;
  if (block.marker?.type !== 'continues') return block.code;
  for (let before = index - 1; before >= 0; before--) {
    if (blocks[before]!.kind === block.kind && blocks[before]!.file === block.file)
      return withContinued(blocks, before) + block.code;
  }
  throw new Error(`${block.file}:${block.line}: 'continues', but no earlier ${block.lang} block`);
}

/**
 * The npm packages a TypeScript block imports, other than toonwire itself and Node's built-ins.
 *
 * @example
 * importedPackages("import { Hono } from 'hono';\nimport { z } from 'zod/v4';"); // ['hono', 'zod']
 */
export function importedPackages(code: string): string[] {
  const names = new Set<string>();
  for (const match of code.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/g)) {
    const specifier = match[1] ?? match[2]!;
    if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
    if (name !== 'toonwire') names.add(name);
  }
  return [...names];
}
