// The environment an upstream command runs in: the one the user would get in a shell.
//
// A client that starts the proxy with `npx -y --package=<toonwire> toonwire proxy -- <server>`
// starts it inside `npm exec`, and npm exports variables that describe that one run:
// `npm_config_package` (the `--package` the proxy came from), `npm_config_call`,
// `npm_config_yes`, `npm_lifecycle_*`, `npm_package_*`, `npm_command`, `npm_execpath`, `INIT_CWD`,
// its `node_modules/.bin` directories in front of PATH, ... Passed on, they rewrite the upstream's
// own `npx`: it runs with toonwire's `--package` and looks for a binary named after the server's
// package (`sh: 1: @modelcontextprotocol/server-memory: not found`, exit 127).

import { delimiter } from 'node:path';

/** What npm exports for one run of a script or of `npm exec` / `npx`, whatever its settings. */
const PER_RUN = /^(npm_(lifecycle|package)_|npm_(command|execpath|node_execpath)$|INIT_CWD$)/;

/**
 * The `npm_config_*` values npm derives from this run (its own command line, its working
 * directory, itself) rather than from the user's settings. The other `npm_config_*` values
 * (`registry`, `cache`, `userconfig`, proxies, ...) are the user's npm settings, which npm reads
 * the same way in the upstream's own `npx`, so they pass.
 */
const PER_RUN_CONFIG = new Set([
  'call',
  'global_prefix',
  'include_workspace_root',
  'local_prefix',
  'node_gyp',
  'npm_version',
  'package',
  'prefix',
  'user_agent',
  'workspace',
  'workspaces',
  'yes',
]);

/** The directory of npm's node-gyp shim, the last entry npm puts in front of PATH. */
const NODE_GYP_BIN = /[\\/]node-gyp-bin[\\/]?$/;
const PACKAGE_BIN = /[\\/]node_modules[\\/]\.bin[\\/]?$/;

/**
 * The environment to start an upstream command in: `env` (the proxy's own) without what npm
 * exported for the run that started the proxy, so the upstream sees what the user's shell would
 * give it. When npm did not start the proxy (no `npm_execpath` and no `npm_command`), `env` is
 * returned unchanged. Otherwise these go: `npm_lifecycle_*`, `npm_package_*`, `npm_command`,
 * `npm_execpath`, `npm_node_execpath`, `INIT_CWD`, `NODE` when it names npm's node, the
 * `npm_config_*` values npm derives from that run (`package`, `call`, `yes`, `local_prefix`,
 * `prefix`, `global_prefix`, `user_agent`, `npm_version`, `node_gyp`, `workspace(s)`), and the
 * `node_modules/.bin` directories npm put in front of PATH (up to its `node-gyp-bin`). Variables
 * a client config's `env` sets for the proxy pass unless npm overwrote them (npm always sets the
 * ones above); a gateway server's `env` is added after this, so it passes whatever it names.
 *
 * @example
 * upstreamEnvironment({ PATH: '/usr/bin', npm_command: 'exec', npm_config_package: '/t.tgz', npm_config_registry: 'https://r.example/' });
 * // { PATH: '/usr/bin', npm_config_registry: 'https://r.example/' }
 */
export function upstreamEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env['npm_execpath'] === undefined && env['npm_command'] === undefined) return env;
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (PER_RUN.test(name)) continue;
    const config = /^npm_config_(.+)$/i.exec(name);
    if (config && PER_RUN_CONFIG.has(config[1]!.toLowerCase())) continue;
    if (name === 'NODE' && value === env['npm_node_execpath']) continue;
    kept[name] = value;
  }
  for (const name of Object.keys(kept).filter((key) => key.toUpperCase() === 'PATH')) {
    kept[name] = withoutNpmBins(kept[name]!);
  }
  return kept;
}

/** PATH without the leading `node_modules/.bin` directories and `node-gyp-bin` npm added. */
function withoutNpmBins(path: string): string {
  const entries = path.split(delimiter);
  const gyp = entries.findIndex((entry) => NODE_GYP_BIN.test(entry));
  if (gyp < 0 || !entries.slice(0, gyp).every((entry) => PACKAGE_BIN.test(entry))) return path;
  return entries.slice(gyp + 1).join(delimiter);
}
