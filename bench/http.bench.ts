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
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
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
const TARGET = 0.8;
const PATH = '/orders?limit=100';

const SIDES = {
  json: { accept: 'application/json' },
  toon: { accept: 'text/toon' },
} as const;
type Side = keyof typeof SIDES;

async function startExample(
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const example = fileURLToPath(new URL(`../examples/http/${app}.ts`, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', example], {
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
}

async function load(side: LoadSide, seconds: number): Promise<AutocannonResult> {
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
  return result;
}

const mean = (numbers: readonly number[]): number =>
  numbers.reduce((sum, n) => sum + n, 0) / numbers.length;

/** Loads two sides alternately (swapping which goes first each round); returns their mean req/s. */
async function compareSides([a, b]: readonly [LoadSide, LoadSide]): Promise<[number, number]> {
  console.log(
    `autocannon: ${connections} connections, ${duration} s per run, ${rounds} rounds, alternating sides\n`,
  );
  await load(a, warmup);
  await load(b, warmup);
  const rps = new Map<LoadSide, number[]>([
    [a, []],
    [b, []],
  ]);
  const p99 = new Map<LoadSide, number[]>([
    [a, []],
    [b, []],
  ]);
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? [a, b] : [b, a]) {
      const result = await load(side, duration);
      rps.get(side)!.push(result.requests.average);
      p99.get(side)!.push(result.latency.p99);
      console.log(
        `round ${round + 1} ${side.name.padEnd(4)}  ${result.requests.average.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`,
      );
    }
  }
  const means: [number, number] = [mean(rps.get(a)!), mean(rps.get(b)!)];
  console.log(`\nmean req/s: ${a.name} ${means[0].toFixed(0)}, ${b.name} ${means[1].toFixed(0)}`);
  console.log(
    `mean p99 latency: ${a.name} ${mean(p99.get(a)!).toFixed(1)} ms, ${b.name} ${mean(p99.get(b)!).toFixed(1)} ms`,
  );
  return means;
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
      { name: 'plugin', url: withPlugin.url, headers: SIDES.json },
      { name: 'plain', url: without.url, headers: SIDES.json },
    ]);
    console.log(`ratio with/without the plugin, JSON req/s: ${(plugin / plain).toFixed(3)}`);
  } finally {
    await Promise.all([stop(withPlugin.child), stop(without.child)]);
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
      { name: 'json', url, headers: SIDES.json },
      { name: 'toon', url, headers: SIDES.toon },
    ]);
    const ratio = toon / json;
    console.log(
      `ratio TOON/JSON req/s: ${ratio.toFixed(3)} (target >= ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'})`,
    );
  } finally {
    await stop(child);
  }
}
