// npm run conformance: the official TOON conformance suite (../shared/conformance, beside a
// clone), checked against what toonwire promises. toonwire targets TOON 4.4, and the suite's
// fixtures are v4.0's: the 4 cases below expect a malformed header to read, in non-strict mode,
// as a key with a literal name, which v4.4 made an error in both modes (docs/codec.md, "TOON
// 4.4", lists them). The check passes when exactly those fail; any other failure fails it, and
// so does one of the four passing again (the decoder changed, and the docs must say so).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CHANGED_BY_V4_4 = [
  'decode/objects.json §6: treats extra brackets after valid array segment as literal key (non-strict)',
  'decode/objects.json §6: treats bracket segment without a length as literal key (non-strict)',
  'decode/objects.json §6: treats non-integer bracket content as literal key (non-strict)',
  'decode/objects.json §6: treats text between bracket segment and colon as literal key (non-strict)',
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runner = path.resolve(root, '../shared/conformance/run.mjs');
if (!existsSync(runner)) {
  console.error(`conformance: ${runner} not found; put the shared folder beside the clone`);
  process.exit(2);
}
const run = spawnSync(process.execPath, [runner, ...process.argv.slice(2)], {
  cwd: root,
  encoding: 'utf8',
});
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
const failed = run.stdout
  .split('\n')
  .filter((line) => line.startsWith('FAIL '))
  .map((line) => line.slice('FAIL '.length));
const unexpected = failed.filter((name) => !CHANGED_BY_V4_4.includes(name));
const nowPassing = CHANGED_BY_V4_4.filter((name) => !failed.includes(name));
if (run.status !== 0 && failed.length === 0) {
  console.error(`conformance: the runner exited ${run.status} without a failing case`);
  process.exit(1);
}
if (unexpected.length > 0) {
  console.error(`conformance: ${unexpected.length} failure(s) beyond the 4 cases TOON 4.4 changed`);
  process.exit(1);
}
if (nowPassing.length > 0) {
  console.error(
    `conformance: ${nowPassing.length} of the cases TOON 4.4 changed now pass; update this list and docs/codec.md:\n  ${nowPassing.join('\n  ')}`,
  );
  process.exit(1);
}
console.log('conformance: as promised (the 4 failures are the v4.0 cases TOON 4.4 changed)');
