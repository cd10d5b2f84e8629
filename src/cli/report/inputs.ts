// What a report measures: the bundled corpus (from its manifest) or the user's files.
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT_DATA, EXIT_USAGE, messageOf } from '../errors.js';
import { expandArguments } from '../glob.js';
import { formatOfPath, type InputFormat } from '../json-input.js';
import { STDIN_NAME } from '../stream/read.js';

/** One payload to measure. */
export interface FixtureInput {
  name: string;
  group: string;
  /** Path shown to the user. */
  path: string;
  /** Path to read. */
  file: string;
  format: InputFormat;
}

/** A payload to measure whole and projected to `fields`. */
export interface ProjectionInput {
  name: string;
  path: string;
  file: string;
  format: InputFormat;
  fields: string[];
}

/** The report's work list. */
export interface ReportInputs {
  source: 'bundled-corpus' | 'files';
  fixtures: FixtureInput[];
  /** Projections of payloads that are not fixtures themselves (the bundled scenario). */
  projections: ProjectionInput[];
  /** With `--fields`: every fixture is also projected. */
  projectFixtures?: string[];
}

interface Manifest {
  fixtures: Array<{ group: string; file: string }>;
  projections: Array<{ file: string; fields: string[] }>;
}

/**
 * The bundled corpus directory, found relative to this module: dist/cli/report/inputs.js (or
 * src/cli/report/inputs.ts) -> ../../../corpus. It exists only in a checkout: the published
 * package leaves the 3.9 MB corpus out, so there it is missing and `report` asks for files.
 */
export function bundledCorpusDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'corpus');
}

/**
 * The bundled corpus as listed in its manifest.
 *
 * @throws {CliError} exit 2 when there is no corpus (an installed package: it ships only in a
 * checkout); exit 1 when its manifest cannot be read or parsed.
 */
export async function bundledInputs(corpusDir = bundledCorpusDir()): Promise<ReportInputs> {
  const manifestPath = join(corpusDir, 'manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        'no files given, and the sample corpus is not installed (it is only in a checkout of toonwire, where `npm start` measures it); pass JSON or JSONL files, directories or globs, e.g. `toonwire report my-responses/`',
        EXIT_USAGE,
      );
    }
    throw new CliError(
      `${manifestPath}: cannot read the bundled corpus manifest (${messageOf(error)}); regenerate it with \`npm run corpus\` in a checkout`,
      EXIT_DATA,
    );
  }
  return {
    source: 'bundled-corpus',
    fixtures: manifest.fixtures.map((entry) => ({
      name: basename(entry.file, extname(entry.file)),
      group: entry.group,
      path: `corpus/${entry.file}`,
      file: join(corpusDir, entry.file),
      format: formatOfPath(entry.file),
    })),
    projections: manifest.projections.map((entry) => ({
      name: basename(entry.file, extname(entry.file)),
      path: `corpus/${entry.file}`,
      file: join(corpusDir, entry.file),
      format: formatOfPath(entry.file),
      fields: entry.fields,
    })),
  };
}

/**
 * The user's files: each argument is a file, a directory (its JSON and JSONL files), a glob
 * pattern or `-` (standard input, named `<stdin>`). A file's group is the name of the directory
 * it is in. `format` reads every file as that, rather than by its extension.
 *
 * @example
 * await fileInputs(['exports/*.json'], ['title', 'url']);
 */
export async function fileInputs(
  args: readonly string[],
  fields?: string[],
  format?: InputFormat,
): Promise<ReportInputs> {
  const files = await expandArguments(args);
  return {
    source: 'files',
    fixtures: files.map((file) =>
      file === '-'
        ? { name: 'stdin', group: 'stdin', path: STDIN_NAME, file, format: format ?? 'json' }
        : {
            name: basename(file, extname(file)),
            group: basename(dirname(resolve(file))) || '/',
            path: file,
            file,
            format: format ?? formatOfPath(file),
          },
    ),
    projections: [],
    ...(fields ? { projectFixtures: fields } : {}),
  };
}
