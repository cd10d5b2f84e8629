// Several MCP servers behind one proxy: a `Transport` that looks like one upstream to the
// session, and fans out to many. Tools, prompts and `ui://` resources are named `server__name`;
// requests are routed by that name (other resources by their URI: `resources.ts`), list requests
// are sent to every server at once and merged (`fan-out.ts`, `lists.ts`), and what a server asks
// of the client (sampling, elicitation, roots) goes to the client under an id of the gateway's
// own. A server that fails takes only its own tools with it; the gateway ends when all have.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../../../codec/objects.js';
import { checkServerNames } from '../config/config.js';
import { DEFAULT_SEPARATOR, qualify, unqualify } from '../config/names.js';
import { EXIT_NEWS_MS, isBrokenPipe } from '../transport/endpoints.js';
import { errorResponse, messageKind, ProxyErrorCode } from '../transport/json-rpc.js';
import { envelopeVersion } from '../transport/modern-wire.js';
import { AskedBook, FanOut, type Outcome } from './fan-out.js';
import {
  changedNotifications,
  LISTS,
  type ListMethod,
  listParams,
  mergedInitialize,
  modernFields,
} from './lists.js';
import { ResourceOwners } from './resources.js';

/** One server of a gateway: its name (the prefix of its tools) and a transport to it. */
export interface GatewayMember {
  name: string;
  transport: Transport;
  /** How messages name it, e.g. "`npx -y @modelcontextprotocol/server-memory`". */
  description: string;
}

interface Member extends GatewayMember {
  /** Why it is down (it failed to start, exited or hung); `undefined` while it runs. */
  down: string | undefined;
  capabilities: Record<string, unknown>;
  /** Client request ids forwarded to it and not yet answered. */
  pending: Set<RequestId>;
}

/** JSON-RPC's "resource not found" (MCP), which a read of an unknown URI is answered with. */
const RESOURCE_NOT_FOUND = -32002;

/** The resource methods routed by their `uri` param. */
const BY_URI = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

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
  private readonly asked = new AskedBook();
  /** Server-to-client requests, by the id the client sees. */
  private readonly serverRequests = new Map<string, { server: string; id: RequestId }>();
  private readonly resources: ResourceOwners;
  /**
   * Client requests of MCP 2026-07-28 (their `_meta` names the version) the gateway answers
   * itself, by id: that version's schema requires fields of such results (`modernFields`).
   */
  private readonly modern = new Set<RequestId>();
  /** Client reads of a URI no server is known to have: the server being asked now. */
  private readonly searching = new Map<RequestId, string>();
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
    this.resources = new ResourceOwners(this.separator);
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
    const modern = envelopeVersion(message) !== undefined;
    if (method === 'initialize' || method === 'logging/setLevel' || method in LISTS) {
      if (modern) this.modern.add(id);
      return this.fanOut(message);
    }
    if (method === 'ping') return this.reply(id, modern ? modernFields(method, []) : {});
    const target = this.route(message);
    if ('search' in target) return this.searchResource(message, target.search);
    if ('error' in target) {
      if (method === 'tools/call')
        return this.reply(id, {
          isError: true,
          content: [{ type: 'text', text: target.error }],
          ...(modern ? modernFields(method, []) : {}),
        });
      return this.deliver(errorResponse(id, target.code, target.error));
    }
    target.member.pending.add(id);
    await this.forward(target.member, target.message);
  }

  /** The server a routed request goes to, with the request as that server names things. */
  private route(message: Request): Route {
    const params = isPlainObject(message.params) ? message.params : {};
    const named = (name: unknown, rewrite: (own: string) => Record<string, unknown>): Route => {
      const parts = typeof name === 'string' ? unqualify(name, this.separator) : undefined;
      const member = parts === undefined ? undefined : this.byName.get(parts.server);
      if (parts === undefined || member === undefined)
        return {
          error: `toonwire gateway: ${JSON.stringify(name)} names no server's ${message.method.split('/')[0]!.replace(/s$/, '')}; names are ${qualify('server', 'name', this.separator)}, the servers are ${this.members.map((m) => m.name).join(', ')}`,
          code: -32602,
        };
      return this.to(member, { ...message, params: rewrite(parts.name) });
    };
    if (message.method === 'tools/call' || message.method === 'prompts/get')
      return named(params.name, (name) => ({ ...params, name }));
    if (message.method === 'completion/complete') {
      const ref = isPlainObject(params.ref) ? params.ref : {};
      if (ref.type === 'ref/prompt')
        return named(ref.name, (name) => ({ ...params, ref: { ...ref, name } }));
      return this.byUri(message, ref.uri, (uri) => ({ ...params, ref: { ...ref, uri } }));
    }
    if (BY_URI.has(message.method))
      return this.byUri(message, params.uri, (uri) => ({ ...params, uri }));
    const live = this.live();
    if (this.members.length === 1 && live.length === 1) return this.to(live[0]!, message);
    return {
      error: `toonwire gateway: ${message.method} cannot be routed to one of several servers`,
      code: -32601,
    };
  }

  /**
   * A request naming a resource: to the server a qualified `ui://` URI names, else to the server
   * known to have the URI; `search` when none is known yet.
   */
  private byUri(
    message: Request,
    uri: unknown,
    rewrite: (own: string) => Record<string, unknown>,
  ): Route {
    const text = typeof uri === 'string' ? uri : '';
    const named = this.resources.toServer(text);
    const member = named === undefined ? undefined : this.byName.get(named.server);
    if (named !== undefined && member !== undefined)
      return this.to(member, { ...message, params: rewrite(named.uri) });
    const owner = this.resources.ownerOf(text);
    if (owner !== undefined) return this.to(this.byName.get(owner)!, message);
    if (message.method === 'resources/read') return { search: text };
    const first = this.live().find((candidate) => candidate.capabilities.resources !== undefined);
    if (first === undefined)
      return {
        error: `toonwire gateway: no server serves the resource ${JSON.stringify(uri)}`,
        code: RESOURCE_NOT_FOUND,
      };
    return this.to(first, message);
  }

  private to(member: Member, message: Request): Route {
    if (member.down !== undefined)
      return { error: this.downText(member), code: ProxyErrorCode.UpstreamClosed };
    return { member, message: message as unknown as JSONRPCMessage };
  }

  /**
   * A `resources/read` of a URI no server is known to have: the resource lists of the servers not
   * yet listed are read (so each URI they list finds its owner), then the read goes to the owner;
   * a URI no list names (a dynamic resource) is read from each server with resources in turn,
   * until one has it. One server's "not found" is never the answer while another may have it.
   */
  private async searchResource(message: Request, uri: string): Promise<void> {
    const holders = () =>
      this.live().filter((member) => member.capabilities.resources !== undefined);
    await Promise.all(
      holders()
        .filter((member) => !this.resources.listed.has(member.name))
        .map((member) => this.readLists(member)),
    );
    const owner = this.resources.ownerOf(uri);
    const ordered = holders().sort((a, b) => Number(b.name === owner) - Number(a.name === owner));
    let last: Outcome = {
      error: {
        code: RESOURCE_NOT_FOUND,
        message: `toonwire gateway: no server has the resource ${JSON.stringify(uri)}`,
      },
    };
    for (const member of ordered) {
      this.searching.set(message.id, member.name);
      const answer = await this.query(member, message.method, message.params);
      this.searching.delete(message.id);
      if (answer.result !== undefined) {
        this.resources.learnUri(member.name, uri);
        return this.deliver({
          jsonrpc: '2.0',
          id: message.id,
          result: this.resources.result(member.name, answer.result),
        } as JSONRPCMessage);
      }
      last = answer;
    }
    this.deliver({ jsonrpc: '2.0', id: message.id, error: last.error } as JSONRPCMessage);
  }

  /** Reads every page of a server's resource and template lists, learning what it has. */
  private async readLists(member: Member): Promise<void> {
    for (const method of ['resources/list', 'resources/templates/list']) {
      let cursor: unknown;
      do {
        const answer = await this.query(
          member,
          method,
          typeof cursor === 'string' ? { cursor } : undefined,
        );
        if (answer.result === undefined) break;
        const items = answer.result[LISTS[method]!.key];
        if (Array.isArray(items))
          for (const item of items)
            if (isPlainObject(item)) this.resources.listItem(member.name, item);
        cursor = answer.result.nextCursor;
      } while (typeof cursor === 'string' && cursor !== '');
    }
    this.resources.listed.add(member.name);
  }

  /** Asks one server something for the gateway itself; an error answer when it goes down. */
  private query(member: Member, method: string, params: unknown): Promise<Outcome> {
    return new Promise((resolve) => {
      const id = this.asked.query(member.name, resolve);
      void this.forward(member, {
        jsonrpc: '2.0',
        id,
        method,
        ...(params === undefined ? {} : { params }),
      } as JSONRPCMessage);
    });
  }

  /**
   * Asks every live server that can answer `message` at once, and answers the client when each
   * has answered or gone down.
   */
  private async fanOut(message: Request): Promise<void> {
    const { method, id } = message;
    const capability =
      LISTS[method]?.capability ?? (method === 'initialize' ? undefined : 'logging');
    const asked = this.live().filter(
      (member) => capability === undefined || member.capabilities[capability] !== undefined,
    );
    const fanOut = new FanOut(
      id,
      method,
      listParams(method, isPlainObject(message.params) ? message.params : undefined),
      asked.map((member) => member.name),
      (done) => this.finish(done),
    );
    if (asked.length === 0) return;
    this.asked.opened(fanOut);
    await Promise.all(asked.map((member) => this.ask(member, fanOut, fanOut.params)));
  }

  /** Sends one server the fan-out's request (or a later page of a list) under a gateway id. */
  private async ask(
    member: Member,
    fanOut: FanOut,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    // Down since the fan-out was made: settled already, or now.
    if (member.down !== undefined) return fanOut.settle(member.name);
    await this.forward(member, {
      jsonrpc: '2.0',
      id: this.asked.forFanOut(member.name, fanOut),
      method: fanOut.method,
      ...(params === undefined || Object.keys(params).length === 0 ? {} : { params }),
    } as JSONRPCMessage);
  }

  private fromServer(member: Member, message: JSONRPCMessage): void {
    if (this.closed) return;
    const kind = messageKind(message);
    if (kind === 'response') {
      const id = (message as { id: RequestId }).id;
      if (this.asked.isGatewayId(id)) {
        const asked = this.asked.take(id);
        if (asked === undefined) return; // the fan-out went on without it
        if ('resolve' in asked) asked.resolve(message as Answer);
        else void this.answered(member, asked.fanOut, message as Answer);
        return;
      }
      member.pending.delete(id);
      const result = (message as Answer).result;
      this.deliver(
        result === undefined
          ? message
          : ({ ...message, result: this.resources.result(member.name, result) } as JSONRPCMessage),
      );
      return;
    }
    if (kind === 'request') {
      const own = (message as { id: RequestId }).id;
      const id = this.asked.newId();
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
    if (message.method === 'notifications/resources/updated' && typeof params.uri === 'string') {
      const uri = this.resources.toClient(member.name, params.uri);
      if (uri !== params.uri) return { ...message, params: { ...params, uri } } as JSONRPCMessage;
    }
    return message as JSONRPCMessage;
  }

  /** One server's answer to a fan-out; the next page of its list, or its part settled. */
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
    if (fanOut.method === 'initialize') {
      if (answer.result === undefined) {
        fanOut.settle(member.name, answer);
        this.serverDown(member, `refused initialize (${JSON.stringify(answer.error)})`);
        return;
      }
      member.capabilities = isPlainObject(answer.result.capabilities)
        ? answer.result.capabilities
        : {};
      const version = answer.result.protocolVersion;
      const transport = member.transport as { setProtocolVersion?: (version: string) => void };
      if (typeof version === 'string') transport.setProtocolVersion?.(version);
    }
    fanOut.settle(member.name, answer);
  }

  /** Every server asked has answered or gone down: the client gets the merged answer. */
  private finish(fanOut: FanOut): void {
    this.asked.closed(fanOut);
    const answered = [...fanOut.answers].filter(([, answer]) => answer.result !== undefined);
    if (answered.length === 0 && fanOut.answers.size > 0 && fanOut.method === 'initialize') {
      this.modern.delete(fanOut.clientId);
      const [, first] = [...fanOut.answers][0]!;
      this.deliver({ jsonrpc: '2.0', id: fanOut.clientId, error: first.error } as JSONRPCMessage);
      return;
    }
    const list = LISTS[fanOut.method];
    const result =
      list !== undefined
        ? this.mergedList(fanOut, list)
        : fanOut.method === 'initialize'
          ? mergedInitialize(answered.map(([server, answer]) => [server, answer.result!]))
          : {};
    if (this.modern.delete(fanOut.clientId))
      Object.assign(
        result,
        modernFields(
          fanOut.method,
          answered.map(([, answer]) => answer.result!),
        ),
      );
    this.reply(fanOut.clientId, result);
  }

  private mergedList(fanOut: FanOut, list: ListMethod): Record<string, unknown> {
    const merged: unknown[] = [];
    for (const member of this.members)
      for (const item of fanOut.items.get(member.name) ?? [])
        if (isPlainObject(item)) merged.push(this.qualified(member, item, list));
    return { [list.key]: merged };
  }

  /** An item of a server's list as the client sees it: its name, or its `ui://` URI, qualified. */
  private qualified(member: Member, item: Record<string, unknown>, list: ListMethod): unknown {
    if (list.kind !== 'name') return this.resources.listItem(member.name, item);
    if (typeof item.name !== 'string') return item;
    const named: Record<string, unknown> = {
      ...item,
      name: qualify(member.name, item.name, this.separator),
    };
    if (item._meta !== undefined) named._meta = this.resources.toolMeta(member.name, item._meta);
    return named;
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
      const what = `stopped taking messages (${error instanceof Error ? error.message : String(error)})`;
      // A broken pipe: the server's close, which says how it ended, usually comes moments later.
      if (isBrokenPipe(error))
        setTimeout(() => this.serverDown(member, what), EXIT_NEWS_MS).unref();
      else this.serverDown(member, what);
    }
  }

  /**
   * `member` has failed: its pending requests are answered with errors, every fan-out waiting for
   * it goes on without it (answered, in flight or not yet sent), and the client is told the lists
   * changed. Only the last server going down closes the gateway.
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
    this.asked.serverDown(member.name, this.downText(member));
    if (this.live().length === 0) {
      this.closed = true;
      this.onclose?.();
      return;
    }
    for (const method of changedNotifications(member.capabilities))
      this.deliver({ jsonrpc: '2.0', method } as JSONRPCMessage);
  }

  /**
   * A request the session gave up waiting for: the servers it waits on are taken for hung and
   * stopped, and the request answered (with an error, or with what the other servers said); the
   * other servers go on. `false` when the id is not one the gateway has out (the session then
   * handles the timeout as for any upstream) or no server is left.
   */
  timedOut(id: RequestId): boolean {
    const fanOut = this.asked.fanOutFor(id);
    const searched = this.searching.get(id);
    const hung = this.live().filter(
      (member) =>
        member.pending.has(id) ||
        fanOut?.waitsFor(member.name) === true ||
        member.name === searched,
    );
    if (hung.length === 0) return false;
    for (const member of hung) {
      void (member.transport.close() as Promise<void>).catch(() => {});
      this.serverDown(member, `did not answer in time`);
    }
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

type Route =
  | { member: Member; message: JSONRPCMessage }
  | { error: string; code: number }
  | { search: string };
type Request = { jsonrpc: '2.0'; id: RequestId; method: string; params?: unknown };
type Notification = { jsonrpc: '2.0'; method: string; params?: unknown };
type Answer = Outcome & { id: RequestId };
