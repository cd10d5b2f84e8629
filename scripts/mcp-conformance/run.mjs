// `npm run conformance:mcp`: the official MCP conformance suite's server scenarios
// (@modelcontextprotocol/conformance, which needs Node 22: both come through npx) against
// scripts/mcp-conformance/server.mjs three ways, printing the three scores:
//
//   direct              the server over Streamable HTTP
//   --listen, stdio     toonwire proxy --listen in front of the server over stdio
//   --listen, HTTP      toonwire proxy --listen --upstream-url in front of the HTTP server
//
// Exits 1 when a proxied score differs from the direct one. Needs the built CLI (npm run build).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const server = join(here, 'server.mjs');
const SUITE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16', '--'];

if (!existsSync(cli)) {
  process.stderr.write('dist/cli/main.js is missing: run `npm run build` first\n');
  process.exit(2);
}

/** Starts `args` with node; resolves with the process once a stderr line matches `ready`. */
function start(args, ready) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line from ${args.join(' ')}:\n${stderr}`)),
      20_000,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = ready.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`)),
    );
  });
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

/** Runs the suite against `url`; resolves with its "Total: N passed, M failed" line and the failures. */
function suite(url) {
  return new Promise((resolve) => {
    const child = spawn('npx', [...SUITE, 'conformance', 'server', '--url', url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('exit', () => {
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
      const failed = output.split('\n').filter((line) => line.startsWith('✗'));
      resolve(
        total === null
          ? { score: 'no score', failed: [output.slice(-2000)] }
          : { score: `${total[1]}/${Number(total[1]) + Number(total[2])}`, failed },
      );
    });
  });
}

const URL_LINE = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/;
const results = [];
const upstream = await start([server, '--port', '0'], URL_LINE);
try {
  results.push(['direct (HTTP)', await suite(upstream.url)]);
  const viaStdio = await start(
    [cli, 'proxy', '--listen', '127.0.0.1:0', '--', process.execPath, server],
    URL_LINE,
  );
  try {
    results.push(['toonwire proxy --listen -- <stdio server>', await suite(viaStdio.url)]);
  } finally {
    await stop(viaStdio.child);
  }
  const viaHttp = await start(
    [cli, 'proxy', '--listen', '127.0.0.1:0', '--upstream-url', upstream.url],
    /serving MCP at (\S+)/,
  );
  try {
    results.push([
      'toonwire proxy --listen --upstream-url <HTTP server>',
      await suite(viaHttp.url),
    ]);
  } finally {
    await stop(viaHttp.child);
  }
} finally {
  await stop(upstream.child);
}

for (const [name, { score, failed }] of results) {
  process.stdout.write(`${score.padEnd(8)} ${name}\n`);
  for (const line of failed) process.stdout.write(`         ${line}\n`);
}
const direct = results[0][1].score;
process.exitCode = results.every(([, { score }]) => score === direct) ? 0 : 1;
