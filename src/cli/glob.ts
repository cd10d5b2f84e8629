// Expands the report's file arguments. Node 20 has no fs.glob, so quoted patterns are matched
// here with a small matcher: `*` and `?` within one path segment, `**` across directories, and
// `[abc]` / `[!abc]` character classes. Unquoted patterns are usually expanded by the shell
// before toonwire sees them; both work.
import { readdir, stat } from 'node:fs/promises';
import { CliError, EXIT_DATA } from './errors.js';

const MAGIC = /[*?[]/;

/** File extensions a directory argument contributes. */
const DATA_FILE = /\.(json|jsonl|ndjson)$/i;

/** True when `argument` contains glob syntax. */
export function isPattern(argument: string): boolean {
  return MAGIC.test(argument);
}

/**
 * Turns a glob pattern into an anchored regular expression over `/`-separated paths. Wildcards
 * do not match a leading `.` in a segment, as in the shell.
 *
 * @example
 * globToRegExp('corpus/**\/*.json').test('corpus/a/b.json'); // true
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const segmentStart = i === 0 || pattern[i - 1] === '/';
    if (ch === '*' && pattern[i + 1] === '*') {
      const slashAfter = pattern[i + 2] === '/';
      source += slashAfter ? '(?:[^/.][^/]*/)*' : '(?:[^/.][^/]*(?:/[^/.][^/]*)*)?';
      i += slashAfter ? 2 : 1;
    } else if (ch === '*') {
      source += segmentStart ? '(?:[^/.][^/]*)?' : '[^/]*';
    } else if (ch === '?') {
      source += segmentStart ? '[^/.]' : '[^/]';
    } else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) {
        source += '\\[';
      } else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else {
      source += ch.replace(/[.+^${}()|\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/**
 * Expands report arguments into a sorted, de-duplicated list of files: a file stands for itself,
 * a directory for the JSON/JSONL files beneath it, and a pattern for the files it matches.
 *
 * @throws {CliError} exit 1 for a missing path or a pattern that matches nothing.
 * @example
 * await expandArguments(['corpus/get-actor-run-list', 'mine/*.json']);
 */
export async function expandArguments(args: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const argument of args) {
    if (isPattern(argument)) {
      const matches = await expandPattern(argument);
      if (matches.length === 0)
        throw new CliError(`${argument}: no files match this pattern`, EXIT_DATA);
      files.push(...matches);
      continue;
    }
    const info = await stat(argument).catch(() => undefined);
    if (info?.isDirectory()) {
      const found = (await walk(argument, Infinity)).filter((file) => DATA_FILE.test(file));
      if (found.length === 0)
        throw new CliError(
          `${argument}: no .json, .jsonl or .ndjson files in this directory`,
          EXIT_DATA,
        );
      files.push(...found.sort());
    } else {
      // A missing file is reported when it is read, with the other input errors.
      files.push(argument);
    }
  }
  return [...new Set(files)];
}

async function expandPattern(pattern: string): Promise<string[]> {
  const segments = pattern.split('/');
  const firstMagic = segments.findIndex((segment) => MAGIC.test(segment));
  const baseSegments = segments.slice(0, firstMagic);
  const base = baseSegments.length === 0 ? '.' : baseSegments.join('/') || '/';
  const rest = segments.slice(firstMagic);
  const depth = rest.includes('**') || rest.some((s) => s.includes('**')) ? Infinity : rest.length;
  const matcher = globToRegExp(pattern);
  const candidates = await walk(base, depth);
  return candidates
    .map((file) => (baseSegments.length === 0 ? file.replace(/^\.\//, '') : file))
    .filter((file) => matcher.test(file))
    .sort();
}

/** Files under `dir` (as `dir/...` paths), at most `depth` levels down, hidden entries skipped. */
async function walk(dir: string, depth: number): Promise<string[]> {
  if (depth <= 0) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    // Concatenated, not path.join: the result must keep the pattern's own spelling ('./a', 'a//b').
    const path = dir.endsWith('/') ? `${dir}${entry.name}` : `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await walk(path, depth - 1)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}
