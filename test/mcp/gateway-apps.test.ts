// MCP Apps and resources behind the proxy, with the ext-apps example servers from npm
// (server-basic-vanillajs and server-basic-react both serve `ui://get-time/mcp-app.html`;
// server-system-monitor has the app-only tool `poll-system-stats`, `_meta.ui.visibility: ["app"]`
// and no resourceUri) beside server-memory and server-everything:
// - a gateway reads every server's resource before any list, the two equal `ui://` URIs apart;
// - app-only tools keep `outputSchema` and `structuredContent` and answer under every mode.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { hangGuardMs } from '../support/patience.js';
import { connectStdio, proxyCli, ROOT, type ToolResult } from './helpers.js';

const bin = (name: string, ...args: string[]) => [
  join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js'),
  ...args,
];
const dir = mkdtempSync(join(tmpdir(), 'toonwire-gateway-apps-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SERVERS = {
  everything: bin('server-everything', 'stdio'),
  memory: bin('server-memory'),
  vanilla: bin('server-basic-vanillajs', '--stdio'),
  react: bin('server-basic-react', '--stdio'),
  monitor: bin('server-system-monitor', '--stdio'),
};
const env = { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };

function gatewayConfig(): string {
  const file = join(dir, 'gateway.json');
  writeFileSync(
    file,
    JSON.stringify({
      servers: Object.fromEntries(
        Object.entries(SERVERS).map(([name, [script, ...args]]) => [
          name,
          { command: process.execPath, args: [script, ...args], env },
        ]),
      ),
    }),
  );
  return file;
}

/** `uri` read straight from a server, without the proxy. */
async function readDirect(server: keyof typeof SERVERS, uri: string): Promise<unknown> {
  process.env.MEMORY_FILE_PATH = env.MEMORY_FILE_PATH;
  const direct = await connectStdio(process.execPath, SERVERS[server]);
  try {
    return (await direct.client.readResource({ uri })).contents;
  } finally {
    await direct.client.close();
  }
}

describe('a gateway routes resources/read by URI', () => {
  it("reads every server's resource before any list, two servers' equal ui:// URIs apart", {
    timeout: hangGuardMs(180_000),
  }, async () => {
    const reads: Array<[server: keyof typeof SERVERS, own: string, asked: string]> = [
      ['memory', 'memory://knowledge-graph', 'memory://knowledge-graph'],
      [
        'everything',
        'demo://resource/static/document/architecture.md',
        'demo://resource/static/document/architecture.md',
      ],
      ['vanilla', 'ui://get-time/mcp-app.html', 'ui://vanilla__get-time/mcp-app.html'],
      ['react', 'ui://get-time/mcp-app.html', 'ui://react__get-time/mcp-app.html'],
      ['monitor', 'ui://system-monitor/mcp-app.html', 'ui://monitor__system-monitor/mcp-app.html'],
    ];
    const expected = new Map<string, unknown>();
    for (const [server, own, asked] of reads) expected.set(asked, await readDirect(server, own));
    const gateway = await connectStdio(process.execPath, [
      proxyCli(),
      'proxy',
      '--config',
      gatewayConfig(),
    ]);
    try {
      for (const [, own, asked] of reads) {
        const { contents } = await gateway.client.readResource({ uri: asked });
        const want = (expected.get(asked) as Array<Record<string, unknown>>).map((item) => ({
          ...item,
          uri: item.uri === own ? asked : item.uri,
        }));
        assert.deepEqual(contents, want, asked);
      }
      const vanilla = (
        expected.get('ui://vanilla__get-time/mcp-app.html') as [{ text: string }]
      )[0];
      const react = (expected.get('ui://react__get-time/mcp-app.html') as [{ text: string }])[0];
      assert.notEqual(vanilla.text, react.text, 'the two apps are different pages');
      // The lists name the same URIs, and each UI tool points at its own server's page.
      const { resources } = await gateway.client.listResources();
      for (const [, , asked] of reads.slice(2))
        assert.ok(
          resources.some((resource) => resource.uri === asked),
          `${asked} not listed: ${resources.map((r) => r.uri).join(', ')}`,
        );
      const { tools } = await gateway.client.listTools();
      const uiOf = (name: string) =>
        (tools.find((tool) => tool.name === name)?._meta as { ui?: { resourceUri?: string } })?.ui
          ?.resourceUri;
      assert.equal(uiOf('vanilla__get-time'), 'ui://vanilla__get-time/mcp-app.html');
      assert.equal(uiOf('react__get-time'), 'ui://react__get-time/mcp-app.html');
      // A URI no server has is "not found", after every server was asked.
      await assert.rejects(
        gateway.client.readResource({ uri: 'nowhere://nothing' }),
        /nothing|not found/i,
      );
    } finally {
      await gateway.client.close();
    }
  });
});

describe('MCP Apps app-only tools (server-system-monitor poll-system-stats)', () => {
  const monitor = [process.execPath, ...SERVERS.monitor] as const;
  const cases: Array<{ what: string; args: string[]; client: string; name: string }> = [
    {
      what: '--structured-content strip',
      args: ['--structured-content', 'strip', '--', ...monitor],
      client: 'toonwire-apps-test',
      name: 'poll-system-stats',
    },
    {
      what: '--structured-content auto, as Claude Code',
      args: ['--', ...monitor],
      client: 'claude-code',
      name: 'poll-system-stats',
    },
    {
      what: '--lazy-tools --structured-content strip',
      args: ['--lazy-tools', '--structured-content', 'strip', '--', ...monitor],
      client: 'toonwire-apps-test',
      name: 'poll-system-stats',
    },
    {
      what: 'an app-only fixture tool, --lazy-tools --structured-content strip',
      args: [
        '--lazy-tools',
        '--structured-content',
        'strip',
        '--',
        process.execPath,
        join(ROOT, 'test', 'mcp', 'fixtures', 'app-only-upstream.mjs'),
      ],
      client: 'toonwire-apps-test',
      name: 'read-counter',
    },
    {
      what: 'a gateway with --lazy-tools, as Claude Code',
      args: ['--lazy-tools', '--config', '<gateway>'],
      client: 'claude-code',
      name: 'monitor__poll-system-stats',
    },
  ];
  for (const { what, args, client, name } of cases)
    it(`keeps outputSchema and structuredContent, and answers calls (${what})`, {
      timeout: hangGuardMs(120_000),
    }, async () => {
      const proxyArgs = args.map((arg) => (arg === '<gateway>' ? gatewayConfig() : arg));
      process.env.MEMORY_FILE_PATH = env.MEMORY_FILE_PATH;
      const connection = await connectStdio(process.execPath, [proxyCli(), 'proxy', ...proxyArgs], {
        name: client,
        version: '1.0.0',
      });
      try {
        const { tools } = await connection.client.listTools();
        const tool = tools.find((candidate) => candidate.name === name);
        assert.ok(tool, `${name} not listed: ${tools.map((t) => t.name).join(', ')}`);
        assert.ok(tool.outputSchema !== undefined, 'outputSchema removed');
        assert.deepEqual((tool._meta as { ui?: unknown }).ui, { visibility: ['app'] });
        const result = (await connection.client.callTool({ name, arguments: {} })) as ToolResult;
        assert.notEqual(result.isError, true, JSON.stringify(result));
        const structured = result.structuredContent as
          | { cpu?: { cores?: unknown }; count?: unknown }
          | undefined;
        const shown = name === 'read-counter' ? structured?.count : structured?.cpu?.cores;
        assert.ok(
          Array.isArray(shown) || typeof shown === 'number',
          `the widget's data is gone: ${JSON.stringify(result)}`,
        );
        if (args.includes('--lazy-tools')) {
          // Kept from the model: the search never offers a widget's own tool.
          const found = (await connection.client.callTool({
            name: 'toonwire_find_tools',
            arguments: { query: `${name} poll system stats cpu memory counter`, limit: 20 },
          })) as ToolResult;
          assert.ok(!found.content[0]!.text.includes(`"${name}"`), found.content[0]!.text);
        }
      } finally {
        await connection.client.close();
      }
    });
});
