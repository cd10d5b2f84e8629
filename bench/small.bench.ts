// npm run bench:small: the default pick() against JSON.stringify on every real payload the
// project has (bench/payloads.ts: small API bodies under 1 KB, the recorded GitHub responses of
// @octokit/fixtures, the generated corpus, the npm datasets, the shared corpus), side by side in
// one process (bench/harness.ts: interleaved rounds, ratios per round, medians). Issue 31's
// targets: pick() at most 3x JSON.stringify's time on every payload, and at most 2x where JSON
// ships; the last column says which payloads miss theirs.
//
// It measures the build (dist/index.js, as users run it): run `npm run build` first.
//
// Options: `-- --max-bytes 1024` for the payloads under 1 KB only, `-- --only octokit` for the
// payloads whose name holds a word, `-- --rounds 3` (default 5).
import os from 'node:os';
import { compare, formatTime, printTable } from './harness.js';
import { loadAllPayloads } from './payloads.js';

// The built package, as users run it (`npm run build` first): under tsx every function made at
// run time is wrapped to keep its name, which alone costs small picks more than the pick.
const builtAt = new URL('../dist/index.js', import.meta.url);
const { pick } = (await import(builtAt.href).catch(() => {
  console.error('dist/index.js is missing: run `npm run build` first');
  process.exit(1);
})) as typeof import('../src/index.js');

const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const maxBytes = Number(option('--max-bytes') ?? Number.POSITIVE_INFINITY);
const only = option('--only') ?? '';
const rounds = Number(option('--rounds') ?? 5);

const payloads = loadAllPayloads().filter(
  ({ name, value }) => name.includes(only) && JSON.stringify(value).length <= maxBytes,
);

console.log(
  `node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}; ${payloads.length} payloads, ${rounds} rounds; sizes in UTF-8 bytes\n`,
);
const rows: string[][] = [];
let misses = 0;
for (const { name, value } of payloads) {
  const { nanoseconds, ratioToBaseline } = await compare(
    [
      { name: 'json', fn: () => JSON.stringify(value) },
      { name: 'pick', fn: () => pick(value) },
    ],
    'json',
    { rounds, cpuTimeMs: 60 },
  );
  const picked = pick(value);
  const ratio = ratioToBaseline['pick']!;
  const target = picked.strategy === 'json' ? 2 : 3;
  const within = ratio <= target;
  if (!within) misses++;
  rows.push([
    name,
    String(picked.sizes['json']),
    picked.strategy,
    formatTime(nanoseconds['json']!),
    formatTime(nanoseconds['pick']!),
    `${ratio.toFixed(2)}x`,
    within ? `within ${target}x` : `over ${target}x`,
  ]);
}
printTable(
  ['payload', 'JSON bytes', 'picked', 'JSON.stringify', 'pick()', 'pick() / JSON', 'target'],
  rows,
);
console.log(`\n${payloads.length - misses} of ${payloads.length} payloads within their target`);
console.log(`load average ${os.loadavg()[0]!.toFixed(1)} at the end`);
