// A gateway's qualified names: `server__tool`. The one place that joins a server's name to the
// names of its tools, prompts and `ui://` resources, and splits them again; the gateway, the
// per-tool settings and the tool rules all read names through it.

/** The separator between a server's name and its tools' names, unless configured. */
export const DEFAULT_SEPARATOR = '__';

/**
 * Names a server's item for the client: `server__name`.
 *
 * @example
 * qualify('memory', 'read_graph', '__'); // 'memory__read_graph'
 */
export function qualify(server: string, name: string, separator = DEFAULT_SEPARATOR): string {
  return `${server}${separator}${name}`;
}

/**
 * The server and its own name of a qualified name, or `undefined` when there is no separator.
 * Server names never hold the separator, so the first one splits.
 *
 * @example
 * unqualify('memory__read_graph', '__'); // { server: 'memory', name: 'read_graph' }
 * unqualify('read_graph', '__'); // undefined
 */
export function unqualify(
  qualified: string,
  separator = DEFAULT_SEPARATOR,
): { server: string; name: string } | undefined {
  const at = qualified.indexOf(separator);
  if (at <= 0) return undefined;
  return { server: qualified.slice(0, at), name: qualified.slice(at + separator.length) };
}

/** The scheme of MCP Apps UI resources, which a gateway qualifies like names. */
const UI_SCHEME = 'ui://';

/**
 * A server's `ui://` resource URI as a gateway's client sees it, the server's name put after the
 * scheme (`ui://server__rest`), so two servers' equal URIs stay two resources. Other URIs are
 * returned as they are: they name their owner themselves (`file://`, `memory://`).
 *
 * @example
 * qualifyUri('react', 'ui://get-time/mcp-app.html', '__'); // 'ui://react__get-time/mcp-app.html'
 * qualifyUri('memory', 'memory://knowledge-graph', '__'); // 'memory://knowledge-graph'
 */
export function qualifyUri(server: string, uri: string, separator = DEFAULT_SEPARATOR): string {
  if (!uri.startsWith(UI_SCHEME)) return uri;
  return `${UI_SCHEME}${qualify(server, uri.slice(UI_SCHEME.length), separator)}`;
}

/**
 * The server and its own URI of a URI made by {@link qualifyUri}, or `undefined` for any other.
 *
 * @example
 * unqualifyUri('ui://react__get-time/mcp-app.html', '__'); // { server: 'react', name: 'ui://get-time/mcp-app.html' }
 * unqualifyUri('memory://knowledge-graph', '__'); // undefined
 */
export function unqualifyUri(
  uri: string,
  separator = DEFAULT_SEPARATOR,
): { server: string; name: string } | undefined {
  if (!uri.startsWith(UI_SCHEME)) return undefined;
  const parts = unqualify(uri.slice(UI_SCHEME.length), separator);
  return parts === undefined ? undefined : { ...parts, name: `${UI_SCHEME}${parts.name}` };
}
