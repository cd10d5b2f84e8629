// What the docs say about the package that a script can hold them to, besides their code blocks:
//
// - the report's opening, as README.md and docs/cli.md show it, is what `toonwire report` prints
//   on the bundled corpus (COLUMNS=100) up to the first table;
// - every option of every command's `--help` is in the docs' option tables (docs/cli.md for
//   report, encode, decode and pick; docs/mcp.md for proxy);
// - no relative link in a shipped file (README.md, CHANGELOG.md, docs/*.md) points at a file the
//   package does not ship.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { extractBlocks } from './blocks.js';

/** The opening line of the report on the bundled corpus, which marks a block as its excerpt. */
const REPORT_OPENING = 'toonwire report on the bundled corpus';

/**
 * Where the docs' excerpts of the report differ from the report's real opening (the lines before
 * its first table, "Per payload"). An excerpt is compared up to its own first `[...` line or
 * table title.
 *
 * @example
 * reportOpeningProblems('/path/to/toonwire', ['README.md', 'docs/cli.md']); // [] when they match
 */
export function reportOpeningProblems(root: string, files: readonly string[]): string[] {
  const run = spawnSync(process.execPath, [join(root, 'dist/cli/main.js'), 'report'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, COLUMNS: '100', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) return [`toonwire report exited ${run.status}: ${run.stderr}`];
  const real = opening(run.stdout);
  const problems: string[] = [];
  for (const file of files) {
    for (const block of extractBlocks(file, readFileSync(join(root, file), 'utf8'))) {
      if (block.kind !== 'text' || !block.code.startsWith(REPORT_OPENING)) continue;
      const shown = opening(block.code);
      const at = shown.findIndex((line, i) => line !== real[i]);
      if (at >= 0 || shown.length !== real.length)
        problems.push(
          `${file}:${block.line}: the report's opening differs at its line ${at < 0 ? shown.length + 1 : at + 1}: the docs show ${JSON.stringify(shown[at] ?? '(end)')}, the report prints ${JSON.stringify(real[at < 0 ? shown.length : at] ?? '(end)')}`,
        );
    }
  }
  return problems;
}

/** The lines of a report before its first table title or an excerpt's `[...` line. */
function opening(text: string): string[] {
  const lines = text.split('\n');
  const end = lines.findIndex((line) => line.startsWith('[...') || line === 'Per payload');
  return (end < 0 ? lines : lines.slice(0, end)).map((line) => line.trimEnd());
}

/**
 * The options of each command's `--help` that no row of its docs' option tables names.
 *
 * @example
 * helpOptionProblems('/path/to/toonwire'); // ["docs/mcp.md: proxy's --observe is in no option table row"]
 */
export function helpOptionProblems(root: string): string[] {
  const homes: Record<string, string> = {
    report: 'docs/cli.md',
    encode: 'docs/cli.md',
    decode: 'docs/cli.md',
    pick: 'docs/cli.md',
    proxy: 'docs/mcp.md',
  };
  const problems: string[] = [];
  for (const [command, file] of Object.entries(homes)) {
    const help = spawnSync(process.execPath, [join(root, 'dist/cli/main.js'), command, '--help'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, COLUMNS: '200' },
    });
    const options = new Set(
      help.stdout
        .split('\n')
        .filter((line) => /^\s+-/.test(line))
        .flatMap(
          (line) =>
            line
              .trim()
              .split(/\s{2,}/)[0]!
              .match(/--[a-z][\w-]*/g) ?? [],
        ),
    );
    options.delete('--help');
    const rows = readFileSync(join(root, file), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('|'));
    for (const option of options) {
      const named = new RegExp(`\`[^\`]*${option}(?![\\w-])`);
      if (!rows.some((row) => named.test(row)))
        problems.push(`${file}: ${command}'s ${option} is in no option table row`);
    }
    if (options.size === 0) problems.push(`toonwire ${command} --help listed no options`);
  }
  return problems;
}

/**
 * Relative links in the shipped Markdown files that point outside the package (or at nothing).
 *
 * @example
 * shippedLinkProblems('/path/to/toonwire'); // ["docs/cli.md: ../corpus/README.md is not in the package"]
 */
export function shippedLinkProblems(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    files: string[];
  };
  // What npm ships: the `files` entries, plus package.json, README and LICENSE always.
  const shipped = [...manifest.files, 'package.json', 'LICENSE'];
  const inPackage = (path: string) =>
    shipped.some((entry) => path === entry || path.startsWith(`${entry}/`));
  const markdown = shipped.flatMap((entry) => {
    if (entry.endsWith('.md')) return [entry];
    if (entry !== 'docs') return [];
    return extractDocs(root);
  });
  const problems: string[] = [];
  for (const file of markdown) {
    const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][\w+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const path = normalize(join(dirname(file), target.split('#')[0]!));
      if (path.startsWith('..') || !inPackage(path))
        problems.push(
          `${file}: the link ${target} points at ${path}, which the package does not ship`,
        );
      else if (!existsSync(join(root, path)))
        problems.push(`${file}: the link ${target} points at ${path}, which does not exist`);
    }
  }
  return problems;
}

function extractDocs(root: string): string[] {
  const listed = spawnSync('git', ['ls-files', 'docs'], { cwd: root, encoding: 'utf8' });
  return listed.stdout
    .split('\n')
    .filter((file) => file.endsWith('.md'))
    .map((file) => relative('.', file));
}
