// The results the proxy writes itself, read by the Python clients in their default mode, which
// speak MCP 2026-07-28 and check every result against that version's schema (where `resultType`
// is required): the Python SDK's `mcp.Client` and the `fastmcp` package's `fastmcp.Client`
// (test/mcp/fixtures/python/pager.py), through stdio, `--listen` and `--upstream-url`.
// - all pages of a 2,000-row result under `--max-tokens 1500`, through `toonwire_more`;
// - `toonwire_find_tools` answers, `toonwire_call_tool` calls and refusals, an expired cursor.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseCompact } from '../../src/index.js';
import { hangGuardMs } from '../support/patience.js';
import {
  type PythonHttpServer,
  pythonServerCommand,
  pythonWithFastmcp,
  pythonWithMcp,
  run,
  startPythonHttpServer,
} from '../support/python.js';
import { proxyCli, ROOT, startListening, stopListening } from './helpers.js';

const PAGER = join(ROOT, 'test', 'mcp', 'fixtures', 'python', 'pager.py');
const setup = await pythonWithMcp();

const fastmcp = (await pythonWithFastmcp()).skip;

type Result = {
  content: Array<{ type: string; text: string }>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
  resultType?: string;
};
interface PagerReport {
  protocolVersion: string;
  calls: Array<{ name: string; pages: Result[]; error: string | null }>;
}

/** The pager's report for `client` calling `calls` on `target` (a URL, or a command over stdio). */
async function pager(
  client: 'mcp' | 'fastmcp',
  target: { url: string } | { command: readonly string[] },
  calls: Array<[string, Record<string, unknown>]>,
): Promise<PagerReport> {
  const args = [PAGER, '--client', client];
  for (const [name, value] of calls) args.push('--call', name, JSON.stringify(value));
  if ('url' in target) args.push('--url', target.url);
  else args.push('--', ...target.command);
  const done = await run(setup.python!, args);
  assert.equal(done.code, 0, done.stderr.slice(-2000));
  return JSON.parse(done.stdout) as PagerReport;
}

/**
 * The version negotiated: 2026-07-28, as directly. Through `--listen` the client may fall back to
 * 2025-11-25 when the upstream takes longer to start than the client waits for `server/discover`
 * (10 s, issue 29 item 8), which a loaded machine can make happen; the results must be valid
 * either way.
 */
function expectVersion(kind: Setup, report: PagerReport): void {
  if (kind === '--listen') assert.match(report.protocolVersion, /^(2026-07-28|2025-11-25)$/);
  else assert.equal(report.protocolVersion, '2026-07-28');
}

/** The rows of every page of a paged result, in order. */
function rowsOf(pages: readonly Result[]): Array<{ id: number }> {
  return pages.flatMap((page) => {
    const strategy = page._meta?.['toonwire/encodingStrategy'] as string;
    return parseCompact(page.content[0]!.text, strategy) as Array<{ id: number }>;
  });
}

/** The three set-ups in front of the Python fixture server: how the client reaches the proxy. */
type Setup = 'stdio' | '--listen' | '--upstream-url';

async function through<T>(
  kind: Setup,
  proxyOptions: readonly string[],
  work: (target: { url: string } | { command: readonly string[] }) => Promise<T>,
): Promise<T> {
  const server = pythonServerCommand(setup.python!);
  if (kind === 'stdio')
    return work({
      command: [process.execPath, proxyCli(), 'proxy', ...proxyOptions, '--', ...server],
    });
  if (kind === '--listen') {
    const { proxy, url } = await startListening([...proxyOptions, '--', ...server]);
    try {
      return await work({ url });
    } finally {
      await stopListening(proxy);
    }
  }
  const upstream: PythonHttpServer = await startPythonHttpServer(setup.python!);
  try {
    return await work({
      command: [
        process.execPath,
        proxyCli(),
        'proxy',
        ...proxyOptions,
        '--upstream-url',
        upstream.url,
      ],
    });
  } finally {
    await upstream.close();
  }
}

for (const client of ['mcp', 'fastmcp'] as const) {
  const skip = client === 'fastmcp' ? fastmcp : setup.skip;
  describe(`the Python ${client === 'mcp' ? 'SDK client (mcp.Client)' : 'fastmcp.Client'} in its default mode (MCP 2026-07-28)`, {
    skip,
  }, () => {
    let direct: Array<{ id: number }> = [];
    before(async () => {
      const report = await pager(client, { command: pythonServerCommand(setup.python!) }, [
        ['list_orders', { count: 2000 }],
      ]);
      const only = report.calls[0]!;
      assert.equal(only.error, null);
      direct = (
        only.pages[0] as unknown as { structuredContent: { result: Array<{ id: number }> } }
      ).structuredContent.result;
      assert.equal(direct.length, 2000);
    });

    for (const kind of ['stdio', '--listen', '--upstream-url'] as const) {
      // One client run per set-up for both checks below (a Python client and server take about a
      // second of CPU each to start). list_orders is called by name: lazy mode lists only the
      // proxy's tools, yet still forwards a call of one it does not list.
      describe(`through ${kind}`, () => {
        let report: PagerReport;
        before(
          async () => {
            report = await through(kind, ['--lazy-tools', '--max-tokens', '1500'], (target) =>
              pager(client, target, [
                ['list_orders', { count: 2000 }],
                ['toonwire_find_tools', { query: 'list the orders' }],
                ['toonwire_call_tool', { name: 'list_orders', arguments: { count: 3 } }],
                ['toonwire_call_tool', { name: 'list_orders', arguments: { count: 'many' } }],
                ['toonwire_call_tool', { name: 'no_such_tool', arguments: {} }],
                ['toonwire_more', { cursor: 'expired.1' }],
              ]),
            );
          },
          { timeout: hangGuardMs(240_000) },
        );

        it(`gets every page of a 2,000-row result under --max-tokens 1500 (${kind})`, () => {
          expectVersion(kind, report);
          const call = report.calls[0]!;
          assert.equal(call.name, 'list_orders');
          assert.equal(call.error, null, call.error ?? '');
          assert.ok(call.pages.length > 10, `${call.pages.length} pages`);
          for (const page of call.pages.slice(1)) assert.equal(page.resultType, 'complete');
          assert.deepEqual(rowsOf(call.pages), direct);
        });

        it(`accepts toonwire_find_tools and toonwire_call_tool answers, refusals and an expired cursor (${kind})`, () => {
          expectVersion(kind, report);
          const calls = report.calls.slice(1);
          for (const call of calls) assert.equal(call.error, null, `${call.name}: ${call.error}`);
          const [found, called, invalid, unknown, expired] = calls.map((call) => call.pages[0]!);
          assert.match(found!.content[0]!.text, /"name":"list_orders"/);
          assert.equal(found!.resultType, 'complete');
          assert.notEqual(called!.isError, true, called!.content[0]!.text);
          for (const refused of [invalid, unknown, expired]) {
            assert.equal(refused!.isError, true);
            assert.equal(refused!.resultType, 'complete');
          }
          assert.match(invalid!.content[0]!.text, /do not match its inputSchema/);
          assert.match(unknown!.content[0]!.text, /there is no tool named/);
          assert.match(expired!.content[0]!.text, /has expired or is unknown/);
        });
      });
    }
  });
}
