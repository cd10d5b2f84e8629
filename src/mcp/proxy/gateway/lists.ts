// What the gateway asks of every server and how the answers merge: the list methods (one table
// says, for each, what it lists, which capability a server needs to be asked, and the
// notification that says it changed) and the merged `initialize`.

import { isPlainObject } from '../../../codec/objects.js';

/** One list method a gateway asks of every server. */
export interface ListMethod {
  /** The member of the result that holds the items, e.g. `tools`. */
  key: string;
  /** How an item is named for the client: by `name` (qualified), `uri` or `uriTemplate`. */
  kind: 'name' | 'uri' | 'template';
  /** The capability a server must have to be asked. */
  capability: string;
  /** The notification that tells the client this list changed. */
  changed: string;
}

/** Every list method, by method name. */
export const LISTS: Readonly<Record<string, ListMethod>> = {
  'tools/list': {
    key: 'tools',
    kind: 'name',
    capability: 'tools',
    changed: 'notifications/tools/list_changed',
  },
  'prompts/list': {
    key: 'prompts',
    kind: 'name',
    capability: 'prompts',
    changed: 'notifications/prompts/list_changed',
  },
  'resources/list': {
    key: 'resources',
    kind: 'uri',
    capability: 'resources',
    changed: 'notifications/resources/list_changed',
  },
  'resources/templates/list': {
    key: 'resourceTemplates',
    kind: 'template',
    capability: 'resources',
    changed: 'notifications/resources/list_changed',
  },
};

/**
 * The list-changed notifications for a server's capabilities: what the client is told when the
 * server goes down and its items leave the lists.
 *
 * @example
 * changedNotifications({ tools: {}, resources: {} }); // ['notifications/tools/list_changed', 'notifications/resources/list_changed']
 */
export function changedNotifications(capabilities: Record<string, unknown>): string[] {
  const methods = Object.values(LISTS)
    .filter((list) => capabilities[list.capability] !== undefined)
    .map((list) => list.changed);
  return [...new Set(methods)];
}

/**
 * A fan-out's parameters for every server: a list asks for all of each server's pages itself
 * (the gateway follows their cursors), so the client's cursor, which is the gateway's, is dropped.
 *
 * @example
 * listParams('tools/list', { cursor: 'x', _meta: {} }); // { _meta: {} }
 */
export function listParams(
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (params === undefined || !(method in LISTS) || !('cursor' in params)) return params;
  const { cursor: _clientCursor, ...rest } = params;
  return rest;
}

/**
 * The fields MCP 2026-07-28 requires of a result the gateway writes itself (`resultType`), and of
 * a list it merges (also `ttlMs` and `cacheScope`), from the servers' answers that went into it:
 * fresh for as long as the least fresh of them, public only if every one of them is.
 *
 * @example
 * modernFields('tools/list', [{ tools: [], ttlMs: 60000, cacheScope: 'public' }, { tools: [], ttlMs: 0, cacheScope: 'private' }]);
 * // { resultType: 'complete', ttlMs: 0, cacheScope: 'private' }
 * modernFields('logging/setLevel', []); // { resultType: 'complete' }
 */
export function modernFields(
  method: string,
  answered: readonly Record<string, unknown>[],
): Record<string, unknown> {
  if (!(method in LISTS)) return { resultType: 'complete' };
  const ttls = answered.map((result) =>
    typeof result.ttlMs === 'number' && result.ttlMs >= 0 ? result.ttlMs : 0,
  );
  const isPublic =
    answered.length > 0 && answered.every((result) => result.cacheScope === 'public');
  return {
    resultType: 'complete',
    ttlMs: ttls.length === 0 ? 0 : Math.min(...ttls),
    cacheScope: isPublic ? 'public' : 'private',
  };
}

/** What the gateway answers for itself in `initialize`. */
const GATEWAY_INFO = { name: 'toonwire-gateway', version: '1.0.0' };

/**
 * The gateway's `initialize` result from the servers' own (by server name): the oldest protocol
 * version any server settled on, the union of their capabilities, their instructions under
 * their names.
 *
 * @example
 * mergedInitialize([['memory', { protocolVersion: '2025-06-18', capabilities: { tools: {} } }]]).capabilities; // { tools: { listChanged: true } }
 */
export function mergedInitialize(
  answered: readonly (readonly [string, Record<string, unknown>])[],
): Record<string, unknown> {
  const results = answered.map(([, result]) => result);
  const versions = results
    .map((result) => result.protocolVersion)
    .filter((version): version is string => typeof version === 'string')
    .sort();
  const capabilitiesOf = (result: Record<string, unknown>) =>
    isPlainObject(result.capabilities) ? result.capabilities : {};
  const has = (name: string) =>
    results.some((result) => capabilitiesOf(result)[name] !== undefined);
  const capabilities: Record<string, unknown> = {};
  if (has('tools')) capabilities.tools = { listChanged: true };
  if (has('prompts')) capabilities.prompts = { listChanged: true };
  if (has('resources'))
    capabilities.resources = {
      listChanged: true,
      subscribe: results.some((result) => {
        const resources = capabilitiesOf(result).resources;
        return isPlainObject(resources) && resources.subscribe === true;
      }),
    };
  if (has('logging')) capabilities.logging = {};
  if (has('completions')) capabilities.completions = {};
  const instructions = answered
    .filter(([, result]) => typeof result.instructions === 'string')
    .map(([server, result]) => `## ${server}\n${result.instructions as string}`);
  return {
    // The oldest version any server settled on: every server speaks it.
    protocolVersion: versions[0],
    capabilities,
    serverInfo: {
      ...GATEWAY_INFO,
      title: `toonwire gateway: ${answered.map(([server]) => server).join(', ')}`,
    },
    ...(instructions.length === 0 ? {} : { instructions: instructions.join('\n\n') }),
  };
}
