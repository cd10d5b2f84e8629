import assert from 'node:assert/strict';
import { delimiter } from 'node:path';
import { test } from 'node:test';
import { upstreamEnvironment } from '../../src/mcp/proxy/transport/upstream-env.js';

// What `npx -y --package=<tarball> toonwire proxy -- ...` exports (npm 11.19, Linux).
const underNpx = {
  HOME: '/home/ada',
  PATH: [
    '/home/ada/.npm/_npx/0f98d9f115c149dd/node_modules/.bin',
    '/home/ada/app/node_modules/.bin',
    '/home/node_modules/.bin',
    '/node_modules/.bin',
    '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
    '/usr/local/bin',
    '/usr/bin',
  ].join(delimiter),
  INIT_CWD: '/home/ada/app',
  NODE: '/usr/bin/node',
  MEMORY_FILE_PATH: '/home/ada/memory.jsonl',
  npm_command: 'exec',
  npm_config_cache: '/home/ada/.npm',
  npm_config_call: '',
  npm_config_local_prefix: '/home/ada/app',
  npm_config_package: '/home/ada/toonwire-0.1.0.tgz',
  npm_config_registry: 'https://registry.example/',
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_config_yes: 'true',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_lifecycle_event: 'npx',
  npm_lifecycle_script: 'toonwire',
  npm_node_execpath: '/usr/bin/node',
  npm_package_json: '/home/ada/app/package.json',
};

test("an upstream started under npx gets the shell's environment: npm's per-run variables and PATH entries are gone", () => {
  assert.deepEqual(upstreamEnvironment(underNpx), {
    HOME: '/home/ada',
    PATH: ['/usr/local/bin', '/usr/bin'].join(delimiter),
    MEMORY_FILE_PATH: '/home/ada/memory.jsonl',
    npm_config_cache: '/home/ada/.npm',
    npm_config_registry: 'https://registry.example/',
  });
});

test('a proxy that npm did not start passes its environment on unchanged, npm_config_* included', () => {
  const env = { PATH: '/usr/bin', npm_config_package: 'set-by-the-user', INIT_CWD: '/x' };
  assert.equal(upstreamEnvironment(env), env);
});

test("PATH keeps its node_modules/.bin entries when npm's node-gyp-bin is not right after them", () => {
  const path = ['./node_modules/.bin', '/usr/bin'].join(delimiter);
  assert.equal(upstreamEnvironment({ npm_command: 'exec', PATH: path })['PATH'], path);
});
