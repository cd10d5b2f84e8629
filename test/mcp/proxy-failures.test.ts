// How `toonwire proxy` ends: normally when the client leaves, and with a JSON-RPC error for the
// client, a message on stderr and exit code 1 when the upstream crashes, hangs or breaks the
// protocol. Never a silent hang.

import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  connectStdio,
  INITIALIZE,
  LineProcess,
  proxyArgs,
  proxyCli,
  type StdioConnection,
  type ToolResult,
  UPSTREAM,
} from './helpers.js';

/** The text of the first content of `tool`'s result, called without arguments. */
async function firstText(connection: StdioConnection, tool: string): Promise<string | undefined> {
  const result = (await connection.client.callTool({ name: tool })) as ToolResult;
  return result.content[0]?.text;
}

async function callAndFail(
  options: string[],
  tool: string,
): Promise<{ error: McpError; exitCode: number | null; stderr: string }> {
  const connection = await connectStdio(process.execPath, proxyArgs(options));
  try {
    const error = await connection.client.callTool({ name: tool }).then(
      () => assert.fail(`${tool} should not have succeeded`),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof McpError, String(error));
    const exitCode = await connection.exited;
    return { error, exitCode, stderr: connection.stderr() };
  } finally {
    await connection.client.close();
  }
}

describe('toonwire proxy when the upstream fails', () => {
  it('answers the pending call with an error when the upstream crashes, and exits 1', async () => {
    const { error, exitCode, stderr } = await callAndFail([], 'crash');
    assert.equal(error.code, -32000);
    assert.match(
      error.message,
      /upstream MCP server `.*upstream-server\.mjs` closed the connection \(it exited with code 3\)/,
    );
    assert.match(error.message, /'tools\/call crash' \(id \d+\) got no answer/);
    assert.match(stderr, /toonwire proxy: .*exited with code 3/);
    assert.equal(exitCode, 1);
  });

  it('answers with a timeout error when the upstream hangs past --timeout, and exits 1', async () => {
    // Long enough for the upstream to start and answer initialize on a busy machine.
    const { error, exitCode, stderr } = await callAndFail(['--timeout', '2000'], 'hang');
    assert.equal(error.code, -32001);
    assert.match(
      error.message,
      /did not answer 'tools\/call hang' \(id \d+\) within 2000 ms \(--timeout\)$/,
    );
    assert.match(stderr, /did not answer 'tools\/call hang'/);
    assert.equal(exitCode, 1);
  });

  it('waits out a 6 s cold start under --init-timeout, while --timeout 2000 times the calls', async () => {
    const slowStart = ['env', 'START_DELAY_MS=6000', ...UPSTREAM];
    const connection = await connectStdio(
      process.execPath,
      proxyArgs(['--timeout', '2000'], slowStart),
    );
    try {
      const { tools } = await connection.client.listTools();
      assert.ok(tools.length > 0);
      const error = await connection.client.callTool({ name: 'hang' }).catch((caught) => caught);
      assert.ok(error instanceof McpError && error.code === -32001, String(error));
      assert.match(error.message, /within 2000 ms \(--timeout\)$/);
    } finally {
      await connection.client.close();
    }
  });

  it('answers initialize with a timeout error naming --init-timeout when the start takes longer', async () => {
    const slowStart = ['env', 'START_DELAY_MS=30000', ...UPSTREAM];
    const error = await connectStdio(
      process.execPath,
      proxyArgs(['--init-timeout', '1500'], slowStart),
    ).then(
      (connection) => connection.client.close().then(() => assert.fail('initialize succeeded')),
      (caught: unknown) => caught,
    );
    assert.match(
      String(error),
      /did not answer 'initialize' \(id 0\) within 1500 ms \(--init-timeout\)/,
    );
  });

  it('answers with an error when the upstream writes a JSON-RPC line that is no valid message, and exits 1', async () => {
    const { error, exitCode, stderr } = await callAndFail([], 'bad_rpc');
    assert.equal(error.code, -32000);
    assert.match(
      error.message,
      /broke the MCP protocol: it sent a line that is not a JSON-RPC 2\.0 message: "\{\\"jsonrpc\\":\\"2\.0\\",\\"debug\\"/,
    );
    assert.match(stderr, /broke the MCP protocol/);
    assert.equal(exitCode, 1);
  });

  it('skips a stdout line that is not JSON (a banner, a stray log), logs it and counts it in --stats', async () => {
    const connection = await connectStdio(process.execPath, proxyArgs(['--stats']));
    try {
      assert.equal(await firstText(connection, 'garbage'), 'answered after the stray line');
      await connection.client.close();
      assert.equal(await connection.exited, 0);
      assert.match(
        connection.stderr(),
        /toonwire proxy: skipped a line that is not JSON: "Debug: this line is not JSON" from the upstream/,
      );
      assert.match(
        connection.stderr(),
        /skipped 1 line of the upstream's stdout that was no MCP message/,
      );
    } finally {
      await connection.client.close();
    }
  });

  it("skips JSON lines without a jsonrpc member (a logger's record, a number) as the SDK's client does, and carries on", async () => {
    const connection = await connectStdio(process.execPath, proxyArgs(['--stats']));
    try {
      assert.equal(await firstText(connection, 'json_log'), 'answered after the log record');
      assert.equal(await firstText(connection, 'garbage'), 'answered after the stray line');
      await connection.client.close();
      assert.equal(await connection.exited, 0);
      assert.match(
        connection.stderr(),
        /skipped a JSON line that is no JSON-RPC message: "\{\\"level\\":30,.*" from the upstream/,
      );
      assert.match(connection.stderr(), /skipped a JSON line that is no JSON-RPC message: "42"/);
      assert.match(
        connection.stderr(),
        /skipped 3 lines of the upstream's stdout that were no MCP message/,
      );
    } finally {
      await connection.client.close();
    }
  });

  it('answers initialize with an error when the upstream command cannot start, and exits 1', async () => {
    const proxy = new LineProcess(
      process.execPath,
      proxyArgs([], ['toonwire-no-such-command-for-tests']),
    );
    try {
      proxy.write(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      );
      const index = await proxy.waitFor((line) => line.includes('"id":1'));
      const response = JSON.parse(proxy.lines[index]!) as {
        error?: { code: number; message: string };
      };
      assert.equal(response.error?.code, -32000);
      assert.match(
        response.error!.message,
        /could not start the upstream MCP server `toonwire-no-such-command-for-tests`: spawn .*ENOENT/,
      );
      assert.equal(await proxy.exited, 1);
      assert.match(proxy.stderr, /check that the command is installed and on PATH/);
    } finally {
      proxy.kill();
    }
  });
});

describe('toonwire proxy exit', () => {
  it('exits 0 and stops the upstream when the client disconnects', async () => {
    const connection = await connectStdio(process.execPath, proxyArgs());
    const pidResult = (await connection.client.callTool({ name: 'pid' })) as {
      content: Array<{ text: string }>;
    };
    const pid = Number(pidResult.content[0]!.text);
    assert.ok(Number.isInteger(pid) && pid > 0);
    await connection.client.close();
    assert.equal(await connection.exited, 0);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });

  it('exits 0 on SIGTERM', async () => {
    const proxy = new LineProcess(process.execPath, proxyArgs());
    try {
      proxy.write('{"jsonrpc":"2.0","id":"p","method":"ping"}');
      await proxy.waitFor((line) => line.includes('"id":"p"'));
      proxy.child.kill('SIGTERM');
      assert.equal(await proxy.exited, 0);
    } finally {
      proxy.kill();
    }
  });

  it('answers a call in flight with an error on SIGTERM, then exits 0', async () => {
    const proxy = new LineProcess(process.execPath, proxyArgs());
    try {
      proxy.write(
        '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
      );
      await proxy.waitFor((line) => line.includes('"id":"i"'));
      proxy.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      proxy.write('{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"hang"}}');
      // The upstream has the call once it answers the ping sent after it.
      proxy.write('{"jsonrpc":"2.0","id":"p","method":"ping"}');
      await proxy.waitFor((line) => line.includes('"id":"p"'));
      proxy.child.kill('SIGTERM');
      const answer = JSON.parse(
        proxy.lines[await proxy.waitFor((line) => line.includes('"id":"h"'))]!,
      );
      assert.equal(answer.error.code, -32000);
      assert.match(
        answer.error.message,
        /^toonwire proxy: the proxy was stopped, so 'tools\/call hang' \(id "h"\) got no answer$/,
      );
      assert.equal(await proxy.exited, 0);
    } finally {
      proxy.kill();
    }
  });

  it('exits 2 with a usage message when no upstream is given', async () => {
    const proxy = new LineProcess(process.execPath, [proxyCli(), 'proxy']);
    assert.equal(await proxy.exited, 2);
    assert.match(proxy.stderr, /no upstream MCP server; give its command after --/);
  });

  it('exits 2 for an unknown candidate', async () => {
    const proxy = new LineProcess(process.execPath, [
      proxyCli(),
      'proxy',
      '--candidates',
      'json,yaml',
      '--',
      ...UPSTREAM,
    ]);
    assert.equal(await proxy.exited, 2);
    assert.match(proxy.stderr, /unknown candidate 'yaml'/);
  });

  it('exits 2 for an unknown tokenizer', async () => {
    const proxy = new LineProcess(process.execPath, [
      proxyCli(),
      'proxy',
      '--tokenizer',
      'p50k',
      '--',
      ...UPSTREAM,
    ]);
    assert.equal(await proxy.exited, 2);
    assert.match(proxy.stderr, /o200k_base/);
  });

  describe('an upstream that stops reading and then exits', () => {
    // It closes its stdin at once (the proxy's next write fails with EPIPE), says so on stderr,
    // and exits 3 a moment later: the client is to hear how it ended, not about the pipe.
    const DYING = [
      process.execPath,
      '-e',
      // wait-ok: the upstream's own life after closing its stdin, what the test is about (any length works)
      "require('node:fs').closeSync(0); process.stderr.write('stdin closed\\n'); setTimeout(() => process.exit(3), 100);",
    ];

    /** Sends initialize once the upstream has closed its stdin; the proxy's answer to it. */
    async function initializeAfterClose(proxy: LineProcess): Promise<string> {
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (!proxy.stderr.includes('stdin closed')) return;
          proxy.child.stderr!.off('data', check);
          resolve();
        };
        proxy.child.stderr!.on('data', check);
        check();
      });
      proxy.child.stdin!.write(`${JSON.stringify(INITIALIZE)}\n`);
      return proxy.lines[await proxy.waitFor((line) => line.includes('"id":1'))]!;
    }

    it('tells the client of a proxy that it exited with code 3, not EPIPE', async () => {
      const proxy = new LineProcess(process.execPath, [proxyCli(), 'proxy', '--', ...DYING]);
      const answer = await initializeAfterClose(proxy);
      assert.match(answer, /closed the connection \(it exited with code 3\)/);
      assert.doesNotMatch(answer, /EPIPE/);
      assert.equal(await proxy.exited, 1);
    });

    it('logs of a gateway that its server exited with code 3, not EPIPE', async () => {
      const config = join(tmpdir(), `toonwire-dying-gateway-${process.pid}.json`);
      await writeFile(
        config,
        JSON.stringify({ servers: { dying: { command: DYING[0], args: DYING.slice(1) } } }),
      );
      try {
        const proxy = new LineProcess(process.execPath, [proxyCli(), 'proxy', '--config', config]);
        await initializeAfterClose(proxy);
        await proxy.close();
        assert.match(proxy.stderr, /the server "dying" .* it exited with code 3/);
        assert.doesNotMatch(proxy.stderr, /EPIPE/);
      } finally {
        await rm(config, { force: true });
      }
    });
  });
});
