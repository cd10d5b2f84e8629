// Load benchmark of an orders example app (Fastify by default): GET /orders?limit=100 (100
// orders) with Accept: text/toon against Accept: application/json, side by side. The server runs
// in a child process on 127.0.0.1 so the load generator does not share its event loop; runs
// alternate between the two sides (and swap which goes first each round) so drift hits both
// equally.
//
//   npm run bench:http                       # Fastify, 3 rounds x 5 s per side
//   npm run bench:http -- --duration 3 --rounds 2 --connections 10
//   npm run bench:http -- --app express      # or hono: the adapters without response schemas
//   npm run bench:http -- --overhead         # JSON clients: Fastify example with the plugin vs without
//   npm run bench:http -- --against ../old   # also another checkout's example, interleaved with this one
//
// On Linux each run also reports the server's CPU time per request (from /proc), which moves
// less than requests per second when other work shares the machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measure } from 'mitata';
import { orderPage } from '../examples/http/fastify.js';
import { OrderStore } from '../examples/http/orders.js';
import { decode } from '../src/codec/decode.js';
import { renderBody } from '../src/http/render.js';
import { compileProjection } from '../src/http/schema-projection.js';
import { compileToonSerializer } from '../src/http/toon-serializer.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  throughput: { average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations; this is the slice of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '1' },
    app: { type: 'string', default: 'fastify' },
    overhead: { type: 'boolean', default: false },
    against: { type: 'string' },
  },
});
const APPS = { fastify: 'Fastify', express: 'Express', hono: 'Hono' } as const;
type App = keyof typeof APPS;
if (!Object.hasOwn(APPS, values.app))
  throw new Error(`--app must be fastify, express or hono, got ${values.app}`);
const app = values.app as App;
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
// Issue 15's bar for the Fastify example (issue 6 set 0.8; it has been met since).
const TARGET = 0.9;
const PATH = '/orders?limit=100';

const SIDES = {
  json: { accept: 'application/json' },
  toon: { accept: 'text/toon' },
} as const;
type Side = keyof typeof SIDES;

const THIS_TREE = fileURLToPath(new URL('..', import.meta.url));

/** Starts `tree`'s example app (this checkout's by default) in a child process. */
async function startExample(
  env: Record<string, string> = {},
  tree = THIS_TREE,
): Promise<{ child: ChildProcess; url: string }> {
  const example = resolve(tree, `examples/http/${app}.ts`);
  const child = spawn(process.execPath, ['--import', 'tsx', example], {
    cwd: tree,
    env: { ...process.env, ...env, PORT: '0', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`example did not start within 20 s; output: ${output}`)),
      20_000,
    );
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`example exited with code ${code}; output: ${output}`)),
    );
  });
  return { child, url };
}

// Both sides must carry the same 100 orders, or the comparison means nothing.
async function checkResponses(url: string): Promise<Record<Side, number>> {
  const json = await fetch(url + PATH, { headers: SIDES.json });
  const toon = await fetch(url + PATH, { headers: SIDES.toon });
  if (!json.headers.get('content-type')?.startsWith('application/json'))
    throw new Error('JSON side is not JSON');
  if (toon.headers.get('content-type') !== 'text/toon; charset=utf-8')
    throw new Error('TOON side is not TOON');
  const jsonText = await json.text();
  const toonText = await toon.text();
  const fromJson = JSON.parse(jsonText) as { data: unknown[] };
  if (fromJson.data.length !== 100)
    throw new Error(`expected 100 orders, got ${fromJson.data.length}`);
  if (JSON.stringify(decode(toonText)) !== JSON.stringify(fromJson))
    throw new Error('TOON and JSON carry different data');
  return { json: Buffer.byteLength(jsonText), toon: Buffer.byteLength(toonText) };
}

/** One side of a comparison: a server and the Accept header its load carries. */
interface LoadSide {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server's process, for its CPU time. */
  pid?: number;
}

// User plus system CPU time of a process in ms, from /proc (Linux); undefined elsewhere.
function cpuTimeMs(pid: number | undefined): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(stat)) return undefined;
  // Fields after the parenthesized command name; utime and stime are the 14th and 15th fields.
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
}

async function load(
  side: LoadSide,
  seconds: number,
): Promise<AutocannonResult & { cpuPerRequest?: number }> {
  const before = cpuTimeMs(side.pid);
  const result = await autocannon({
    url: side.url + PATH,
    connections,
    duration: seconds,
    headers: side.headers,
  });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${side.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`,
    );
  }
  const after = cpuTimeMs(side.pid);
  if (before === undefined || after === undefined) return result;
  return { ...result, cpuPerRequest: ((after - before) * 1000) / result.requests.total };
}

const mean = (numbers: readonly number[]): number =>
  numbers.reduce((sum, n) => sum + n, 0) / numbers.length;

/** Mean req/s of each side, and its server's mean CPU µs per request when known. */
interface SideMeans {
  rps: number;
  cpu?: number;
}

/**
 * Loads the sides in turn, reversing their order each round so that drift hits all alike (with
 * two sides: alternately, swapping which goes first); returns their means.
 */
async function compareSides(sides: readonly LoadSide[]): Promise<SideMeans[]> {
  console.log(
    `autocannon: ${connections} connections, ${duration} s per run, ${rounds} rounds, alternating sides\n`,
  );
  for (const side of sides) await load(side, warmup);
  const runs = new Map<LoadSide, Array<{ rps: number; p99: number; cpu?: number }>>(
    sides.map((side) => [side, []]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const result = await load(side, duration);
      const cpu = result.cpuPerRequest;
      runs.get(side)!.push({ rps: result.requests.average, p99: result.latency.p99, cpu });
      console.log(
        `round ${round + 1} ${side.name.padEnd(sides.length > 2 ? 9 : 4)}  ${result.requests.average.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms` +
          (cpu === undefined ? '' : `  server CPU ${cpu.toFixed(1)} µs/request`),
      );
    }
  }
  const means = sides.map((side) => {
    const sideRuns = runs.get(side)!;
    const cpus = sideRuns.flatMap((run) => (run.cpu === undefined ? [] : [run.cpu]));
    return {
      rps: mean(sideRuns.map((run) => run.rps)),
      p99: mean(sideRuns.map((run) => run.p99)),
      ...(cpus.length === sideRuns.length ? { cpu: mean(cpus) } : {}),
    };
  });
  const list = (pick: (m: (typeof means)[number]) => string) =>
    sides.map((side, i) => `${side.name} ${pick(means[i]!)}`).join(', ');
  console.log(`\nmean req/s: ${list((m) => m.rps.toFixed(0))}`);
  console.log(`mean p99 latency: ${list((m) => `${m.p99.toFixed(1)} ms`)}`);
  if (means.every((m) => m.cpu !== undefined))
    console.log(`mean server CPU per request: ${list((m) => `${m.cpu!.toFixed(1)} µs`)}`);
  return means;
}

/** The TOON/JSON line: req/s ratio, and the CPU ratio (JSON's µs per request over TOON's). */
function reportRatio(label: string, json: SideMeans, toon: SideMeans): void {
  const ratio = toon.rps / json.rps;
  const cpu =
    json.cpu === undefined || toon.cpu === undefined
      ? ''
      : `; JSON/TOON server CPU per request ${(json.cpu / toon.cpu).toFixed(3)}`;
  console.log(
    `${label}ratio TOON/JSON req/s: ${ratio.toFixed(3)} (target >= ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'})${cpu}`,
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

type Row = [name: string, serialize: () => unknown];

// What each side spends serializing one response in-process, to explain the load figures. With
// Fastify the JSON side is fast-json-stringify with the route's schema; the TOON side is the
// plugin's path (the schema-compiled serializer), and the two it falls back to: schema
// projection then encode, and the JSON round trip. Express and Hono have no response schemas:
// JSON.stringify against the generic encoder.
function fastifyRows(page: unknown): Row[] {
  const requireFromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const fastJsonStringify = requireFromFastify('fast-json-stringify') as (
    schema: object,
  ) => (value: unknown) => string;
  const json = fastJsonStringify(orderPage);
  const project = compileProjection(orderPage)!;
  const toon = compileToonSerializer(orderPage, ',')!;
  if (toon(page) === undefined)
    throw new Error('the schema-compiled TOON serializer gave up on the orders page');
  return [
    ['JSON: fast-json-stringify', () => json(page)],
    ['TOON: schema-compiled (plugin)', () => toon(page)],
    [
      'TOON: projection + encode',
      () => renderBody(project(page), 'toon', ',', { jsonModel: true }).body,
    ],
    ['TOON: encode only (no schema)', () => renderBody(page, 'toon', ',').body],
    [
      'TOON: JSON round trip + encode',
      () => renderBody(JSON.parse(json(page)), 'toon', ',', { jsonModel: true }).body,
    ],
  ];
}

async function serializerCosts(): Promise<void> {
  const page = new OrderStore().list(100);
  const rows: Row[] =
    app === 'fastify'
      ? fastifyRows(page)
      : [
          ['JSON: JSON.stringify', () => JSON.stringify(page)],
          [`TOON: encode (the ${APPS[app]} adapter)`, () => renderBody(page, 'toon', ',').body],
        ];
  console.log('serializer cost per response (in-process, median):');
  for (const [name, fn] of rows) {
    const stats = await measure(fn);
    console.log(`  ${name.padEnd(36)} ${(stats.p50 / 1000).toFixed(1).padStart(7)} µs`);
  }
  console.log('');
}

if (values.overhead) {
  // What installing the plugin costs clients that keep asking for JSON: the same example with and
  // without it, both serving JSON.
  if (app !== 'fastify') throw new Error('--overhead measures the Fastify example');
  const [withPlugin, without] = await Promise.all([
    startExample(),
    startExample({ TOONWIRE: 'off' }),
  ]);
  try {
    console.log(
      `Fastify example, GET ${PATH} with Accept: application/json, with the plugin and without`,
    );
    const [plugin, plain] = await compareSides([
      { name: 'plugin', url: withPlugin.url, headers: SIDES.json, pid: withPlugin.child.pid },
      { name: 'plain', url: without.url, headers: SIDES.json, pid: without.child.pid },
    ]);
    console.log(
      `ratio with/without the plugin, JSON req/s: ${(plugin!.rps / plain!.rps).toFixed(3)}`,
    );
  } finally {
    await Promise.all([stop(withPlugin.child), stop(without.child)]);
  }
} else if (values.against !== undefined) {
  // This checkout's example against another's (an older build, say), both serving JSON and
  // TOON, all four sides interleaved in one run: load moves the absolute figures, not this
  // comparison.
  const other = resolve(values.against);
  const [mine, theirs] = await Promise.all([startExample(), startExample({}, other)]);
  try {
    await checkResponses(mine.url);
    await checkResponses(theirs.url);
    console.log(`${APPS[app]} example, GET ${PATH}: this checkout (new) and ${other} (other)`);
    const sides = (name: string, server: { child: ChildProcess; url: string }): LoadSide[] =>
      (['json', 'toon'] as const).map((format) => ({
        name: `${name} ${format}`,
        url: server.url,
        headers: SIDES[format],
        pid: server.child.pid,
      }));
    const [otherJson, otherToon, newJson, newToon] = await compareSides([
      ...sides('other', theirs),
      ...sides('new', mine),
    ]);
    reportRatio('other: ', otherJson!, otherToon!);
    reportRatio('new:   ', newJson!, newToon!);
  } finally {
    await Promise.all([stop(mine.child), stop(theirs.child)]);
  }
} else {
  await serializerCosts();
  const { child, url } = await startExample();
  try {
    const bytes = await checkResponses(url);
    console.log(`${APPS[app]} example, GET ${PATH} (100 orders) on ${url}`);
    console.log(
      `response bytes: JSON ${bytes.json}, TOON ${bytes.toon} (${((bytes.toon / bytes.json) * 100).toFixed(1)}% of JSON)`,
    );
    const [json, toon] = await compareSides([
      { name: 'json', url, headers: SIDES.json, pid: child.pid },
      { name: 'toon', url, headers: SIDES.toon, pid: child.pid },
    ]);
    reportRatio('', json!, toon!);
  } finally {
    await stop(child);
  }
}
