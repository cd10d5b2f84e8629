// A missing MCP SDK is an error that says what to install.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSdkModule } from '../../src/mcp/proxy/transport/sdk.js';

function moduleNotFound(specifier: string): Error {
  return Object.assign(
    new Error(`Cannot find package '${specifier}' imported from /app/dist/mcp/proxy/listen.js`),
    {
      code: 'ERR_MODULE_NOT_FOUND',
    },
  );
}

describe('loadSdkModule', () => {
  it('says to install @modelcontextprotocol/sdk when it is missing', async () => {
    await assert.rejects(
      loadSdkModule(
        () => Promise.reject(moduleNotFound('@modelcontextprotocol/sdk')),
        'Serving the proxy over HTTP (--listen)',
      ),
      {
        message:
          'Serving the proxy over HTTP (--listen) needs the official MCP SDK, which is not installed beside toonwire; run `npm install @modelcontextprotocol/sdk` in the project that has toonwire, or under npx add `--package=@modelcontextprotocol/sdk` (npx installs only the packages it is given)',
      },
    );
  });

  it('passes other failures through unchanged', async () => {
    const other = moduleNotFound('some-other-package');
    await assert.rejects(
      loadSdkModule(() => Promise.reject(other), 'x'),
      (error) => error === other,
    );
  });

  it('returns the module when it loads', async () => {
    const { StreamableHTTPServerTransport } = await loadSdkModule(
      () => import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      'x',
    );
    assert.equal(typeof StreamableHTTPServerTransport, 'function');
  });
});
