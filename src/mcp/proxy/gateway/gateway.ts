// Several MCP servers behind one proxy: a `Transport` that looks like one upstream to the
// session, and fans out to many. Tools, prompts and resources are named `server__name`; requests
// are routed by that name (resources by their URI), list requests are asked of every server and
// merged, and what a server asks of the client (sampling, elicitation, roots) goes to the client
// under an id of the gateway's own. A server that fails takes only its own tools with it.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../../../codec/objects.js';
import { checkServerNames } from '../config/config.js';
import { errorResponse, messageKind, ProxyErrorCode } from '../transport/json-rpc.js';

/** One server of a gateway: its name (the prefix of its tools) and a transport to it. */
export interface GatewayMember {
  name: string;
  transport: Transport;
  /** How messages name it, e.g. "`npx -y @modelcontextprotocol/server-memory`". */
  description: string;
}

/** The separator between a server's name and its tools' names, unless configured. */
export const DEFAULT_SEPARATOR = '__';

/** What the gateway answers for itself in `initialize`. */
const GATEWAY_INFO = { name: 'toonwire-gateway', version: '1.0.0' };

/** The list methods asked of every server, with the member each result lists under. */
const LISTS: Readonly<Record<string, { key: string; kind: 'name' | 'uri' | 'template' }>> = {
  'tools/list': { key: 'tools', kind: 'name' },
  'prompts/list': { key: 'prompts', kind: 'name' },
  'resources/list': { key: 'resources', kind: 'uri' },
  'resources/templates/list': { key: 'resourceTemplates', kind: 'template' },
};

/** The capability a server needs for each list, so that servers without it are not asked. */
const LIST_CAPABILITY: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
};

interface Member extends GatewayMember {
  /** Why it is down (it failed to start, exited or hung); `undefined` while it runs. */
  down: string | undefined;
  capabilities: Record<string, unknown>;
  /** Client request ids forwarded to it and not yet answered. */
  pending: Set<RequestId>;
}

/** A request the gateway asked of one server on the client's behalf, to merge the answers. */
interface FanOut {
  clientId: RequestId;
  method: string;
  answers: Map<string, Outcome>;
  waiting: Set<string>;
  /** For lists: the items gathered so far from each server, across its pages. */
  items: Map<string, unknown[]>;
  params: Record<string, unknown> | undefined;
}

/**
 * Names a server's item for the client: `server__name`.
 *
 * @example
 * qualify('memory', 'read_graph', '__'); // 'memory__read_graph'
 */
export function qualify(server: string, name: string, separator: string): string {
  return `${server}${separator}${name}`;
}

/**
 * The server and its own name of a qualified name, or `undefined` when there is no separator.
 * Server names never hold the separator, so the first one splits.
 *
 * @example
 * unqualify('memory__read_graph', '__'); // { server: 'memory', name: 'read_graph' }
 */
export function unqualify(
  qualified: string,
  separator: string,
): { server: string; name: string } | undefined {
  const at = qualified.indexOf(separator);
  if (at <= 0) return undefined;
  return { server: qualified.slice(0, at), name: qualified.slice(at + separator.length) };
}

/**
 * A fan-out's parameters for every server: a list asks for all of each server's pages itself
 * (answered() follows their cursors), so the client's cursor, which is the gateway's, is dropped.
 */
function listParams(
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (params === undefined || !(method in LISTS) || !('cursor' in params)) return params;
  const { cursor: _clientCursor, ...rest } = params;
  return rest;
}

/**
 * One upstream for a session, made of several servers. Start it and hand it to a `ProxySession`
 * like any upstream transport.
 *
 * @example
 * const gateway = new GatewayTransport([
 *   { name: 'memory', transport: new ChildProcessTransport({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }), description: 'server-memory' },
 *   { name: 'files', transport: new ChildProcessTransport({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] }), description: 'server-filesystem' },
 * ]);
 */
export class GatewayTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private readonly members: Member[];
  private readonly byName: Map<string, Member>;
  private readonly separator: string;
  private readonly log: (message: string) => void;
  private readonly fanOuts = new Map<string, { fanOut: FanOut; server: string }>();
  /** Server-to-client requests, by the id the client sees. */
  private readonly serverRequests = new Map<string, { server: string; id: RequestId }>();
  /** Which server holds each resource URI, learned from the lists it answered. */
  private readonly resourceOwners = new Map<string, string>();
  private readonly templateOwners: { server: string; prefix: string }[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    members: readonly GatewayMember[],
    options: { separator?: string; log?: (message: string) => void } = {},
  ) {
    this.separator = options.separator ?? DEFAULT_SEPARATOR;
    checkServerNames(
      members.map((member) => member.name),
      this.separator,
    );
    this.members = members.map((member) => ({
      ...member,
      down: undefined,
      capabilities: {},
      pending: new Set(),
    }));
    this.byName = new Map(this.members.map((member) => [member.name, member]));
    this.log = options.log ?? ((message) => process.stderr.write(`${message}\n`));
  }

  /** The servers and, for those down, why. */
  get servers(): { name: string; down: string | undefined }[] {
    return this.members.map(({ name, down }) => ({ name, down }));
  }

  /** Starts every server; one that cannot start is down, and only all of them failing fails. */
  async start(): Promise<void> {
    await Promise.all(
      this.members.map(async (member) => {
        member.transport.onmessage = (message) => this.fromServer(member, message);
        member.transport.onerror = (error) =>
          this.onerror?.(new Error(`${member.name}: ${error.message}`));
        member.transport.onclose = () => this.serverDown(member, 'closed the connection');
        try {
          await member.transport.start();
        } catch (error) {
          member.down = error instanceof Error ? error.message : String(error);
          this.log(`toonwire gateway: the server "${member.name}" did not start: ${member.down}`);
        }
      }),
    );
    if (this.live().length === 0)
      throw new Error(
        `no server of the gateway started (${this.members.map((m) => `${m.name}: ${m.down}`).join('; ')})`,
      );
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const kind = messageKind(message);
    if (kind === 'request') return this.request(message as Request);
    if (kind === 'response') return this.answerToServer(message as { id: RequestId });
    return this.notification(message as Notification);
  }

  /** Closes every server. */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.members.map((member) => {
        member.transport.onclose = undefined;
        const transport = member.transport as Transport & {
          close(options?: { graceMs?: number }): Promise<void>;
        };
        return transport.close(options).catch(() => {});
      }),
    );
    this.onclose?.();
  }

  private live(): Member[] {
    return this.members.filter((member) => member.down === undefined);
  }

  private async request(message: Request): Promise<void> {
    const { method, id } = message;
    if (method === 'initialize' || method === 'logging/setLevel' || method in LISTS)
      return this.fanOut(message);
    if (method === 'ping') return this.reply(id, {});
    const target = this.route(message);
    if ('error' in target) {
      if (method === 'tools/call')
        return this.reply(id, { isError: true, content: [{ type: 'text', text: target.error }] });
      return this.deliver(errorResponse(id, target.code, target.error));
    }
    target.member.pending.add(id);
    await this.forward(target.member, target.message);
  }

  /** The server a routed request goes to, with the request as that server names things. */
  private route(
    message: Request,
  ): { member: Member; message: JSONRPCMessage } | { error: string; code: number } {
    const params = isPlainObject(message.params) ? message.params : {};
    const named = (name: unknown, rewrite: (own: string) => Record<string, unknown>) => {
      const parts = typeof name === 'string' ? unqualify(name, this.separator) : undefined;
      const member = parts === undefined ? undefined : this.byName.get(parts.server);
      if (parts === undefined || member === undefined)
        return {
          error: `toonwire gateway: ${JSON.stringify(name)} names no server's ${message.method.split('/')[0]!.replace(/s$/, '')}; names are server${this.separator}name, the servers are ${this.members.map((m) => m.name).join(', ')}`,
          code: -32602,
        };
      if (member.down !== undefined)
        return { error: this.downText(member), code: ProxyErrorCode.UpstreamClosed };
      return { member, message: { ...message, params: rewrite(parts.name) } as JSONRPCMessage };
    };
    switch (message.method) {
      case 'tools/call':
      case 'prompts/get':
        return named(params.name, (name) => ({ ...params, name }));
      case 'completion/complete': {
        const ref = isPlainObject(params.ref) ? params.ref : {};
        if (ref.type === 'ref/prompt')
          return named(ref.name, (name) => ({ ...params, ref: { ...ref, name } }));
        return this.byUri(message, ref.uri);
      }
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.byUri(message, params.uri);
      default: {
        const live = this.live();
        if (this.members.length === 1 && live.length === 1)
          return { member: live[0]!, message: message as unknown as JSONRPCMessage };
        return {
          error: `toonwire gateway: ${message.method} cannot be routed to one of several servers`,
          code: -32601,
        };
      }
    }
  }

  private byUri(
    message: Request,
    uri: unknown,
  ): { member: Member; message: JSONRPCMessage } | { error: string; code: number } {
    const text = typeof uri === 'string' ? uri : '';
    const owner =
      this.resourceOwners.get(text) ??
      this.templateOwners.find((template) => text.startsWith(template.prefix))?.server;
    const member =
      owner === undefined
        ? this.live().find((candidate) => candidate.capabilities.resources !== undefined)
        : this.byName.get(owner);
    if (member === undefined)
      return {
        error: `toonwire gateway: no server serves the resource ${JSON.stringify(uri)}`,
        code: -32002,
      };
    if (member.down !== undefined)
      return { error: this.downText(member), code: ProxyErrorCode.UpstreamClosed };
    return { member, message: message as unknown as JSONRPCMessage };
  }

  /** Asks every live server that can answer `message`, and answers the client once all have. */
  private async fanOut(message: Request): Promise<void> {
    const { method, id } = message;
    const capability = LIST_CAPABILITY[method];
    const asked = this.live().filter(
      (member) =>
        method === 'initialize' ||
        (capability === undefined
          ? member.capabilities.logging !== undefined
          : member.capabilities[capability] !== undefined),
    );
    const fanOut: FanOut = {
      clientId: id,
      method,
      answers: new Map(),
      waiting: new Set(asked.map((member) => member.name)),
      items: new Map(),
      params: listParams(method, isPlainObject(message.params) ? message.params : undefined),
    };
    if (asked.length === 0) return this.finish(fanOut);
    for (const member of asked) await this.ask(member, fanOut, fanOut.params);
  }

  /** Sends one server the fan-out's request (or a later page of a list) under a gateway id. */
  private async ask(
    member: Member,
    fanOut: FanOut,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    const id = `toonwire-gateway:${this.nextId++}`;
    this.fanOuts.set(id, { fanOut, server: member.name });
    await this.forward(member, {
      jsonrpc: '2.0',
      id,
      method: fanOut.method,
      ...(params === undefined || Object.keys(params).length === 0 ? {} : { params }),
    } as JSONRPCMessage);
  }

  private fromServer(member: Member, message: JSONRPCMessage): void {
    if (this.closed) return;
    const kind = messageKind(message);
    if (kind === 'response') {
      const id = (message as { id: RequestId }).id;
      const asked = typeof id === 'string' ? this.fanOuts.get(id) : undefined;
      if (asked !== undefined) {
        this.fanOuts.delete(id as string);
        void this.answered(member, asked.fanOut, message as Answer);
        return;
      }
      member.pending.delete(id);
      this.learnFrom(member, message as Answer);
      this.deliver(message);
      return;
    }
    if (kind === 'request') {
      const own = (message as { id: RequestId }).id;
      const id = `toonwire-gateway:${this.nextId++}`;
      this.serverRequests.set(id, { server: member.name, id: own });
      this.deliver({ ...message, id } as JSONRPCMessage);
      return;
    }
    this.deliver(this.fromServerNotification(member, message as Notification));
  }

  /** A server's notification as the client sees it. */
  private fromServerNotification(member: Member, message: Notification): JSONRPCMessage {
    const params = isPlainObject(message.params) ? message.params : {};
    if (message.method === 'notifications/cancelled') {
      // The server withdraws one of its own requests: the client knows it by the gateway's id.
      for (const [id, request] of this.serverRequests)
        if (request.server === member.name && request.id === params.requestId) {
          this.serverRequests.delete(id);
          return { ...message, params: { ...params, requestId: id } } as JSONRPCMessage;
        }
    }
    if (message.method === 'notifications/message') {
      const logger =
        typeof params.logger === 'string' ? `${member.name}/${params.logger}` : member.name;
      return { ...message, params: { ...params, logger } } as JSONRPCMessage;
    }
    return message as JSONRPCMessage;
  }

  /** One server's answer to a fan-out; the next page of its list, or the merged answer. */
  private async answered(member: Member, fanOut: FanOut, answer: Answer): Promise<void> {
    const list = LISTS[fanOut.method];
    if (answer.result !== undefined && list !== undefined) {
      const items = answer.result[list.key];
      const gathered = fanOut.items.get(member.name) ?? [];
      if (Array.isArray(items)) gathered.push(...items);
      fanOut.items.set(member.name, gathered);
      const cursor = answer.result.nextCursor;
      if (typeof cursor === 'string' && cursor !== '')
        return this.ask(member, fanOut, { ...fanOut.params, cursor });
    }
    if (fanOut.method === 'initialize' && answer.result === undefined) {
      fanOut.answers.set(member.name, answer);
      this.settle(fanOut, member.name);
      this.serverDown(member, `refused initialize (${JSON.stringify(answer.error)})`);
      return;
    }
    if (fanOut.method === 'initialize' && answer.result !== undefined) {
      member.capabilities = isPlainObject(answer.result.capabilities)
        ? answer.result.capabilities
        : {};
      const version = answer.result.protocolVersion;
      const transport = member.transport as { setProtocolVersion?: (version: string) => void };
      if (typeof version === 'string') transport.setProtocolVersion?.(version);
    }
    fanOut.answers.set(member.name, answer);
    this.settle(fanOut, member.name);
  }

  /** `server` is done with `fanOut` (answered, or went down): answers the client when all are. */
  private settle(fanOut: FanOut, server: string): void {
    if (!fanOut.waiting.delete(server) || fanOut.waiting.size > 0) return;
    this.finish(fanOut);
  }

  private finish(fanOut: FanOut): void {
    const answered = [...fanOut.answers].filter(([, answer]) => answer.result !== undefined);
    if (answered.length === 0 && fanOut.answers.size > 0 && fanOut.method === 'initialize') {
      const [, first] = [...fanOut.answers][0]!;
      this.deliver({ jsonrpc: '2.0', id: fanOut.clientId, error: first.error } as JSONRPCMessage);
      return;
    }
    const list = LISTS[fanOut.method];
    const result =
      list !== undefined
        ? this.mergedList(fanOut, list)
        : fanOut.method === 'initialize'
          ? this.mergedInitialize(answered)
          : {};
    this.reply(fanOut.clientId, result);
  }

  private mergedList(fanOut: FanOut, list: { key: string; kind: string }): Record<string, unknown> {
    const merged: unknown[] = [];
    for (const member of this.members) {
      for (const item of fanOut.items.get(member.name) ?? []) {
        if (!isPlainObject(item)) continue;
        merged.push(this.qualified(member, item, list.kind));
      }
    }
    return { [list.key]: merged };
  }

  /** An item of a server's list as the client sees it: its name qualified, its URI learned. */
  private qualified(member: Member, item: Record<string, unknown>, kind: string): unknown {
    if (kind === 'uri' && typeof item.uri === 'string') {
      if (!this.resourceOwners.has(item.uri)) this.resourceOwners.set(item.uri, member.name);
    }
    if (kind === 'template' && typeof item.uriTemplate === 'string') {
      const prefix = item.uriTemplate.split('{')[0]!;
      if (!this.templateOwners.some((t) => t.prefix === prefix && t.server === member.name))
        this.templateOwners.push({ server: member.name, prefix });
    }
    if (typeof item.name !== 'string') return item;
    return { ...item, name: qualify(member.name, item.name, this.separator) };
  }

  private mergedInitialize(answered: [string, Outcome][]): Record<string, unknown> {
    const results = answered.map(([, answer]) => answer.result!);
    const versions = results
      .map((result) => result.protocolVersion)
      .filter((version): version is string => typeof version === 'string')
      .sort();
    const capabilities: Record<string, unknown> = {};
    const has = (name: string) =>
      results.some(
        (result) =>
          isPlainObject(result.capabilities) &&
          (result.capabilities as Record<string, unknown>)[name] !== undefined,
      );
    if (has('tools')) capabilities.tools = { listChanged: true };
    if (has('prompts')) capabilities.prompts = { listChanged: true };
    if (has('resources'))
      capabilities.resources = {
        listChanged: true,
        subscribe: results.some(
          (result) =>
            isPlainObject(result.capabilities) &&
            isPlainObject(result.capabilities.resources) &&
            result.capabilities.resources.subscribe === true,
        ),
      };
    if (has('logging')) capabilities.logging = {};
    if (has('completions')) capabilities.completions = {};
    const instructions = answered
      .filter(([, answer]) => typeof answer.result!.instructions === 'string')
      .map(([server, answer]) => `## ${server}\n${answer.result!.instructions as string}`);
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

  /** Resource links in a tool result name URIs the client may read: their server is known now. */
  private learnFrom(member: Member, answer: Answer): void {
    const content = answer.result?.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (!isPlainObject(block)) continue;
      const uri =
        block.type === 'resource_link'
          ? block.uri
          : isPlainObject(block.resource)
            ? block.resource.uri
            : undefined;
      if (typeof uri === 'string' && !this.resourceOwners.has(uri))
        this.resourceOwners.set(uri, member.name);
    }
  }

  /** The client's answer to a server's request goes back to that server, under its own id. */
  private async answerToServer(message: { id: RequestId }): Promise<void> {
    const request =
      typeof message.id === 'string' ? this.serverRequests.get(message.id) : undefined;
    if (request === undefined) return;
    this.serverRequests.delete(message.id as string);
    const member = this.byName.get(request.server)!;
    if (member.down === undefined)
      await this.forward(member, { ...message, id: request.id } as JSONRPCMessage);
  }

  private async notification(message: Notification): Promise<void> {
    const params = isPlainObject(message.params) ? message.params : {};
    if (message.method === 'notifications/cancelled') {
      const requestId = params.requestId as RequestId;
      const holder = this.live().find((member) => member.pending.has(requestId));
      if (holder !== undefined) {
        holder.pending.delete(requestId);
        await this.forward(holder, message as JSONRPCMessage);
      }
      return;
    }
    await Promise.all(this.live().map((member) => this.forward(member, message as JSONRPCMessage)));
  }

  private async forward(member: Member, message: JSONRPCMessage): Promise<void> {
    try {
      await member.transport.send(message);
    } catch (error) {
      this.serverDown(
        member,
        `stopped taking messages (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  /**
   * `member` has failed: its pending requests are answered with errors, fan-outs go on without
   * it, and the client is told the lists changed. Only the last server going down closes the
   * gateway.
   */
  private serverDown(member: Member, what: string): void {
    if (member.down !== undefined || this.closed) return;
    const child = member.transport as { exitDescription?: unknown; exited?: boolean };
    const exit = child.exited === true ? child.exitDescription : undefined;
    member.down = `${what}${typeof exit === 'string' ? `: it ${exit}` : ''}`;
    this.log(
      `toonwire gateway: the server "${member.name}" (${member.description}) ${member.down}; its tools are gone, the other servers go on`,
    );
    for (const id of member.pending)
      this.deliver(errorResponse(id, ProxyErrorCode.UpstreamClosed, this.downText(member)));
    member.pending.clear();
    for (const [id, { fanOut, server }] of this.fanOuts) {
      if (server !== member.name) continue;
      this.fanOuts.delete(id);
      this.settle(fanOut, server);
    }
    if (this.live().length === 0) {
      this.closed = true;
      this.onclose?.();
      return;
    }
    for (const [capability, method] of [
      ['tools', 'notifications/tools/list_changed'],
      ['prompts', 'notifications/prompts/list_changed'],
      ['resources', 'notifications/resources/list_changed'],
    ] as const)
      if (member.capabilities[capability] !== undefined)
        this.deliver({ jsonrpc: '2.0', method } as JSONRPCMessage);
  }

  /**
   * A request the session gave up waiting for: its server is taken for hung and stopped, and the
   * request answered with an error; the other servers go on. `false` when the id is not one the
   * gateway forwarded (the session then handles the timeout as for any upstream).
   */
  timedOut(id: RequestId): boolean {
    const holder = this.live().find((member) => member.pending.has(id));
    if (holder === undefined) return false;
    void (holder.transport.close() as Promise<void>).catch(() => {});
    this.serverDown(holder, `did not answer in time`);
    return this.live().length > 0;
  }

  private downText(member: Member): string {
    return `toonwire gateway: the server "${member.name}" is not running (it ${member.down}); its tools are unavailable, the other servers' tools work`;
  }

  private reply(id: RequestId, result: Record<string, unknown>): void {
    this.deliver({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
  }

  private deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }
}

type Request = { jsonrpc: '2.0'; id: RequestId; method: string; params?: unknown };
type Notification = { jsonrpc: '2.0'; method: string; params?: unknown };
type Outcome = { result?: Record<string, unknown>; error?: unknown };
type Answer = Outcome & { id: RequestId };
