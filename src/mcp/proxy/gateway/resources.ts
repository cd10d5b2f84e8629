// Which server a resource URI belongs to. `ui://` URIs (MCP Apps) are qualified like names,
// `ui://server__rest`, so two servers' equal URIs stay apart and route themselves; any other URI
// is owned by the server that listed it, gave a link to it, or has a template it fits. What is
// qualified on the way to the client: list items, tools' `_meta.ui.resourceUri`, read results'
// contents, resource links and embedded resources, `notifications/resources/updated`.

import { isPlainObject } from '../../../codec/objects.js';
import { qualifyUri, unqualifyUri } from '../config/names.js';

/**
 * The owners of the URIs a gateway has seen, and the rewriting of `ui://` URIs both ways.
 *
 * @example
 * const owners = new ResourceOwners('__');
 * owners.learnUri('memory', 'memory://knowledge-graph');
 * owners.ownerOf('memory://knowledge-graph'); // 'memory'
 * owners.toServer('ui://react__get-time/app.html'); // { server: 'react', uri: 'ui://get-time/app.html' }
 */
export class ResourceOwners {
  private readonly owners = new Map<string, string>();
  private readonly templates: { server: string; prefix: string }[] = [];
  /** Servers whose resource lists the gateway has read in full. */
  readonly listed = new Set<string>();

  constructor(private readonly separator: string) {}

  /** A server's URI as the client sees it. */
  toClient(server: string, uri: string): string {
    return qualifyUri(server, uri, this.separator);
  }

  /** The server a client's URI names itself (a qualified `ui://` URI), with the server's URI. */
  toServer(uri: string): { server: string; uri: string } | undefined {
    const parts = unqualifyUri(uri, this.separator);
    return parts === undefined ? undefined : { server: parts.server, uri: parts.name };
  }

  /** `server` has the resource `uri` (its own form); the first server to show one keeps it. */
  learnUri(server: string, uri: string): void {
    if (!this.owners.has(uri)) this.owners.set(uri, server);
  }

  /** `server` has resources whose URIs fit `uriTemplate`. */
  learnTemplate(server: string, uriTemplate: string): void {
    const prefix = uriTemplate.split('{')[0]!;
    if (!this.templates.some((t) => t.prefix === prefix && t.server === server))
      this.templates.push({ server, prefix });
  }

  /** The server known to have `uri`: listed or linked, else the longest template prefix it fits. */
  ownerOf(uri: string): string | undefined {
    const owner = this.owners.get(uri);
    if (owner !== undefined) return owner;
    let best: { server: string; prefix: string } | undefined;
    for (const template of this.templates)
      if (
        uri.startsWith(template.prefix) &&
        template.prefix.length > (best?.prefix.length ?? -1) &&
        template.prefix.length > 0
      )
        best = template;
    return best?.server;
  }

  /** A list item of `server` as the client sees it (its URI or template qualified), learned. */
  listItem(server: string, item: Record<string, unknown>): Record<string, unknown> {
    if (typeof item.uri === 'string') {
      this.learnUri(server, item.uri);
      const uri = this.toClient(server, item.uri);
      if (uri !== item.uri) return { ...item, uri };
    }
    if (typeof item.uriTemplate === 'string') {
      this.learnTemplate(server, item.uriTemplate);
      const uriTemplate = this.toClient(server, item.uriTemplate);
      if (uriTemplate !== item.uriTemplate) return { ...item, uriTemplate };
    }
    return item;
  }

  /** A tool's `_meta` with its UI resource URIs as the client sees them. */
  toolMeta(server: string, meta: unknown): unknown {
    if (!isPlainObject(meta)) return meta;
    let changed = false;
    const rewrite = (value: unknown) => {
      if (typeof value !== 'string') return value;
      const uri = this.toClient(server, value);
      if (uri !== value) changed = true;
      return uri;
    };
    const ui = isPlainObject(meta.ui) && 'resourceUri' in meta.ui ? meta.ui : undefined;
    const out: Record<string, unknown> = { ...meta };
    if (ui !== undefined) out.ui = { ...ui, resourceUri: rewrite(ui.resourceUri) };
    for (const key of ['ui/resourceUri', 'openai/outputTemplate'])
      if (key in meta) out[key] = rewrite(meta[key]);
    return changed ? out : meta;
  }

  /**
   * A result of `server` with the URIs it names learned and `ui://` ones qualified: a tool
   * result's resource links and embedded resources, a read result's contents. The result itself
   * when nothing changed.
   */
  result(server: string, result: Record<string, unknown>): Record<string, unknown> {
    let changed = false;
    const block = (value: unknown): unknown => {
      if (!isPlainObject(value)) return value;
      if (typeof value.uri === 'string') {
        this.learnUri(server, value.uri);
        const uri = this.toClient(server, value.uri);
        if (uri !== value.uri) {
          changed = true;
          return { ...value, uri };
        }
        return value;
      }
      if (isPlainObject(value.resource)) {
        const resource = block(value.resource);
        return resource === value.resource ? value : { ...value, resource };
      }
      return value;
    };
    const out: Record<string, unknown> = { ...result };
    for (const key of ['content', 'contents'])
      if (Array.isArray(result[key])) out[key] = (result[key] as unknown[]).map(block);
    return changed ? out : result;
  }
}
