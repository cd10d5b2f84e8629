// Docs as tests: runs every runnable code block of README.md and docs/*.md as a user would.
//
//   npm run build && npm run test:docs       (CI: after its own build)
//   node --import tsx scripts/docs-test.ts [--only README.md] [--clients] [--keep]
//
// It packs the package (`npm pack` of the built dist/), installs the tarball into a new project
// made as README's Install makes one (`npm init -y`, `npm pkg set type=module`) in a temporary
// directory with the packages the blocks import (each at the version this
// checkout has, so the npm cache usually serves them), writes the example files the docs name
// (scripts/docs-test/fixtures.ts), then runs each block there:
//
// - TypeScript (`ts`) blocks with tsx, as modules of that project (`import ... from 'toonwire'`
//   resolves to the installed tarball); `EXPR; // => VALUE` comments are checked
//   (scripts/docs-test/expect.ts);
// - shell (`sh`) blocks with `bash -e`, in that project with its node_modules/.bin on PATH (so
//   `toonwire` and `npx toonwire` are the installed bin), or, when marked `clone`, in a copy of
//   this checkout's files as a fresh clone has them (so the README's `npm ci && npm pack` install
//   runs for real, without touching this checkout);
// - `json` blocks must parse.
//
// Markers (scripts/docs-test/blocks.ts) skip a block with a reason, or chain one block onto the
// previous. It prints one line per failure and the counts, the skipped blocks listed with their
// reasons, and exits 1 when any block fails.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hangGuardMs } from '../test/support/patience.js';
import {
  type CodeBlock,
  extractBlocks,
  importedPackages,
  withContinued,
} from './docs-test/blocks.js';
import {
  helpOptionProblems,
  reportOpeningProblems,
  shippedLinkProblems,
} from './docs-test/claims.js';
import {
  type ClientServer,
  clientServers,
  REMOTE_PLACEHOLDER,
  startRemote,
  TARBALL_PLACEHOLDER,
  talkTo,
} from './docs-test/clients.js';
import { expectPreload, rewriteExpectations } from './docs-test/expect.js';
import { writeFixtures } from './docs-test/fixtures.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const keep = args.includes('--keep');
/** `--clients`: only the MCP client snippets (quicker, while working on them). */
const clientsOnly = args.includes('--clients');
/**
 * A hang guard per block, not a speed limit: 3 minutes (an `npm ci` in a clone takes about one on
 * an idle machine) times the machine's measured slowdown (test/support/patience.ts).
 */
const BLOCK_LIMIT_MS = hangGuardMs(3 * 60_000);

interface Outcome {
  block: CodeBlock;
  status: 'passed' | 'failed' | 'skipped' | 'text';
  detail?: string;
  checks?: number;
}

const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)]
  .filter((file) => file.endsWith('.md'))
  .filter((file) => only === undefined || file === only);
const blocks = docs
  .flatMap((file) => extractBlocks(file, readFileSync(join(ROOT, file), 'utf8')))
  .filter((block) => !clientsOnly || isClientSnippet(block));

function isClientSnippet(block: CodeBlock): boolean {
  try {
    return clientServers(block) !== undefined;
  } catch {
    return true; // unreadable: let the run report it
  }
}

const app = mkdtempSync(join(tmpdir(), 'toonwire-docs-test-'));
/** The packed tarball, which the client snippets' `--package=` names. */
let tarball = '';
/** The local MCP server over HTTP that remote snippets reach, started on first use. */
let remote: { url: string; stop: () => void } | undefined;
try {
  tarball = install(app, blocks);
  writeFileSync(join(app, 'docs-test-expect.mjs'), expectPreload());
  writeFixtures(app, join(ROOT, 'corpus'));
  const outcomes: Outcome[] = [];
  for (let index = 0; index < blocks.length; index++) {
    const outcome = await runBlock(blocks, index, app);
    outcomes.push(outcome);
    if (outcome.status === 'failed')
      console.log(
        `FAIL ${where(outcome.block)} (${outcome.block.lang})\n${indent(outcome.detail)}`,
      );
  }
  summarize(outcomes);
  if (only === undefined && !clientsOnly) checkClaims();
} finally {
  remote?.stop();
  if (keep) console.log(`kept the scratch project: ${app}`);
  else rmSync(app, { recursive: true, force: true });
}

/**
 * What the docs claim beside their blocks (scripts/docs-test/claims.ts): the report's opening,
 * every `--help` option in an option table, no shipped link out of the package.
 */
function checkClaims(): void {
  const problems = [
    ...reportOpeningProblems(ROOT, docs),
    ...helpOptionProblems(ROOT),
    ...shippedLinkProblems(ROOT),
  ];
  for (const problem of problems) console.log(`FAIL ${problem}`);
  console.log(
    `claims: the report's opening, --help options in the option tables, shipped links: ${problems.length} failed`,
  );
  if (problems.length > 0) process.exitCode = 1;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function where(block: CodeBlock): string {
  return `${block.file}:${block.line}`;
}

function indent(text = ''): string {
  const lines = text.trimEnd().split('\n');
  const shown =
    lines.length > 30 ? [...lines.slice(0, 30), `... (${lines.length - 30} more lines)`] : lines;
  return shown.map((line) => `    ${line}`).join('\n');
}

/** Packs dist/ and installs the tarball with the packages the blocks import; returns its path. */
function install(dir: string, all: readonly CodeBlock[]): string {
  if (!readdirSync(ROOT).includes('dist'))
    throw new Error('dist/ is missing: run `npm run build` first');
  const pack = spawnSync(
    'npm',
    ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = join(dir, pack.stdout.trim().split('\n').at(-1)!);
  // The project as README's Install makes it: `npm init -y`, then `npm pkg set type=module`.
  for (const step of [
    ['init', '-y'],
    ['pkg', 'set', 'type=module'],
  ]) {
    const made = spawnSync('npm', step, { cwd: dir, encoding: 'utf8', env: userEnvironment() });
    if (made.status !== 0) throw new Error(`npm ${step.join(' ')} failed: ${made.stderr}`);
  }
  const names = new Set(
    all
      .filter((block) => block.kind === 'typescript')
      .flatMap((block) => importedPackages(block.code)),
  );
  // The peers too: a block that imports toonwire/mcp needs the SDK without importing it.
  const manifest = readJson(join(ROOT, 'package.json')) as { peerDependencies?: object };
  for (const name of Object.keys(manifest.peerDependencies ?? {})) names.add(name);
  const specs = [...names].sort().map((name) => {
    try {
      const installed = readJson(join(ROOT, 'node_modules', name, 'package.json'));
      return `${name}@${(installed as { version: string }).version}`;
    } catch {
      return name;
    }
  });
  console.log(
    `docs test: installing ${tarball.split('/').at(-1)} with ${specs.join(' ') || 'nothing else'}`,
  );
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      tarball,
      ...specs,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (npm.status !== 0) throw new Error(`npm install failed:\n${npm.stderr}`);
  return tarball;
}

async function runBlock(all: readonly CodeBlock[], index: number, dir: string): Promise<Outcome> {
  const block = all[index]!;
  if (block.marker?.type === 'skip')
    return { block, status: 'skipped', detail: block.marker.reason };
  if (block.kind === 'text') return { block, status: 'text' };
  let servers: ClientServer[] | undefined;
  try {
    servers = clientServers(block);
  } catch (error) {
    return { block, status: 'failed', detail: `unreadable: ${(error as Error).message}` };
  }
  if (servers !== undefined) return runClient(block, servers, dir);
  if (block.kind === 'toml') return { block, status: 'text' };
  if (block.kind === 'json') return { block, status: 'passed' }; // clientServers parsed it
  if (block.kind === 'shell') {
    const cwd = block.marker?.type === 'clone' ? cloneOf(ROOT, join(dir, 'clone')) : dir;
    const env = {
      ...userEnvironment(),
      PATH: `${join(dir, 'node_modules', '.bin')}:${process.env['PATH']}`,
    };
    const run = await runProcess('bash', ['-e', '-o', 'pipefail', '-c', block.code], cwd, env);
    return run.code === 0
      ? { block, status: 'passed' }
      : { block, status: 'failed', detail: `exit ${run.code}\n${run.output}` };
  }
  let source: { code: string; checks: number };
  try {
    source = rewriteExpectations(withContinued(all, index), block.file, block.line);
  } catch (error) {
    return { block, status: 'failed', detail: (error as Error).message };
  }
  const file = join(dir, 'blocks', `${block.file.replaceAll('/', '-')}-${block.line}.ts`);
  mkdirSync(join(dir, 'blocks'), { recursive: true });
  // Blocks that end with the `export {}` of a module need none: the project is ESM already.
  writeFileSync(file, source.code);
  const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
  const run = await runProcess(
    process.execPath,
    ['--import', tsx, '--import', './docs-test-expect.mjs', file],
    dir,
    userEnvironment(),
  );
  return run.code === 0
    ? { block, status: 'passed', checks: source.checks }
    : { block, status: 'failed', detail: `exit ${run.code}\n${run.output}` };
}

/**
 * A client snippet, run as the client runs it: each server's exact command and args, with the
 * packed tarball for the placeholder path and a local HTTP MCP server for the placeholder URL,
 * in the user's environment (plus a MEMORY_FILE_PATH in the scratch project), through
 * initialize, tools/list and tools/call. A server for which no stand-in exists here (a database)
 * is named in the outcome and not run.
 */
async function runClient(
  block: CodeBlock,
  servers: readonly ClientServer[],
  dir: string,
): Promise<Outcome> {
  const notes: string[] = [];
  const env = { ...userEnvironment(), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
  // Clients start servers in a folder of their own, not in a project that has toonwire's peers
  // installed (there npx would take the SDK as present and not install it beside toonwire).
  const clientCwd = mkdtempSync(join(tmpdir(), 'toonwire-docs-test-client-'));
  for (const server of servers) {
    const line = [server.command, ...server.args].join(' ');
    if (!line.includes(TARBALL_PLACEHOLDER))
      return { block, status: 'failed', detail: `${server.name}: no ${TARBALL_PLACEHOLDER}` };
    if (!line.includes('server-memory') && !line.includes(REMOTE_PLACEHOLDER)) {
      notes.push(`${server.name} not run (needs ${server.args.at(-1)})`);
      continue;
    }
    try {
      if (line.includes(REMOTE_PLACEHOLDER)) remote ??= await startRemote(ROOT, env, 60_000);
      const args = server.args.map((arg) =>
        arg.replace(TARBALL_PLACEHOLDER, tarball).replace(REMOTE_PLACEHOLDER, remote?.url ?? ''),
      );
      await talkTo({ ...server, args }, { cwd: clientCwd, env, baseMs: 3 * 60_000 });
      notes.push(`${server.name}: tools/call answered`);
    } catch (error) {
      rmSync(clientCwd, { recursive: true, force: true });
      return { block, status: 'failed', detail: `${server.name}: ${(error as Error).message}` };
    }
  }
  rmSync(clientCwd, { recursive: true, force: true });
  return { block, status: 'passed', detail: notes.join('; ') };
}

/**
 * A copy of this checkout as a fresh clone has it (tracked and new files, nothing ignored: no
 * node_modules, no dist), made on first use at `parent`/toonwire; `clone` blocks run there, so
 * `npm ci` or `npm pack` in the docs never touch the checkout the test runs from.
 */
function cloneOf(checkout: string, parent: string): string {
  const target = join(parent, 'toonwire');
  if (existsSync(target)) return target;
  const listed = spawnSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: checkout,
      encoding: 'utf8',
    },
  );
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(checkout, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(checkout, file), join(target, file));
  }
  return target;
}

/**
 * The environment of a user's shell: this process's, less what `npm run` adds for its scripts.
 * `npm run test:docs --ignore-scripts` exports npm_config_ignore_scripts=true, which a block's own
 * `npm start` would inherit and so skip its prestart build (CI failed on exactly that).
 */
function userEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/** Runs a command to its end (or the hang guard), with stdout and stderr interleaved. */
function runProcess(
  command: string,
  argv: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const guard = setTimeout(() => {
      output += `\n(stopped as hung: still running after ${(BLOCK_LIMIT_MS / 60_000).toFixed(1)} minutes; TOONWIRE_TEST_PATIENCE raises the limit)`;
      child.kill('SIGKILL');
    }, BLOCK_LIMIT_MS);
    child.on('close', (code) => {
      clearTimeout(guard);
      done({ code, output });
    });
  });
}

function summarize(outcomes: readonly Outcome[]): void {
  const count = (status: Outcome['status']) => outcomes.filter((o) => o.status === status).length;
  const ran = outcomes.filter((o) => o.status === 'passed' || o.status === 'failed');
  const byKind = (kind: string) => ran.filter((o) => o.block.kind === kind).length;
  const checks = outcomes.reduce((sum, o) => sum + (o.checks ?? 0), 0);
  console.log(
    `\ndocs test: ${docs.length} files, ${outcomes.length} code blocks: ran ${ran.length} (${byKind('typescript')} TypeScript, ${byKind('shell')} shell, ${byKind('json')} JSON; ${checks} '// =>' values checked), ${count('skipped')} skipped by marker, ${count('text')} output or text blocks`,
  );
  for (const outcome of outcomes.filter((o) => o.status === 'skipped'))
    console.log(`  skipped ${where(outcome.block)}: ${outcome.detail}`);
  for (const outcome of outcomes.filter((o) => o.status === 'passed' && o.detail))
    console.log(`  client ${where(outcome.block)}: ${outcome.detail}`);
  console.log(`${count('passed')} passed, ${count('failed')} failed`);
  if (count('failed') > 0) process.exitCode = 1;
}
