// One client request the gateway asks of several servers, and the book of every request the
// gateway has out under ids of its own. A fan-out is answered once every server it waits for has
// answered or gone down; a server going down settles every fan-out still waiting for it, whether
// its request was answered, in flight, or not yet sent, so no client request is left unanswered.

import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A server's answer: a JSON-RPC result or error. */
export type Outcome = { result?: Record<string, unknown>; error?: unknown };

/**
 * A client request asked of several servers: what each answered, the list items each gave across
 * its pages, and who is still to answer. `done` runs once, when the last server settles.
 *
 * @example
 * const fanOut = new FanOut(1, 'tools/list', undefined, ['a', 'b'], (f) => console.log(f.answers.size));
 * fanOut.settle('a', { result: { tools: [] } });
 * fanOut.settle('b'); // b went down: logs 1
 */
export class FanOut {
  readonly answers = new Map<string, Outcome>();
  /** For lists: the items gathered so far from each server, across its pages. */
  readonly items = new Map<string, unknown[]>();
  private readonly waiting: Set<string>;
  private finished = false;

  constructor(
    readonly clientId: RequestId,
    readonly method: string,
    readonly params: Record<string, unknown> | undefined,
    servers: readonly string[],
    private readonly done: (fanOut: FanOut) => void,
  ) {
    this.waiting = new Set(servers);
    if (this.waiting.size === 0) this.finish();
  }

  /** Whether the fan-out still waits for `server`. */
  waitsFor(server: string): boolean {
    return this.waiting.has(server);
  }

  /** The servers it still waits for. */
  get pending(): string[] {
    return [...this.waiting];
  }

  /** `server` is done: it answered (`answer`), or it went down (no answer). */
  settle(server: string, answer?: Outcome): void {
    if (!this.waiting.has(server)) return;
    if (answer !== undefined) this.answers.set(server, answer);
    this.waiting.delete(server);
    if (this.waiting.size === 0) this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.done(this);
  }
}

/** What a gateway id stands for: a server's part in a fan-out, or a query of the gateway's own. */
type Asked =
  | { server: string; fanOut: FanOut }
  | { server: string; resolve: (answer: Outcome) => void };

/**
 * The requests the gateway has out under its own ids (`toonwire-gateway:N`), and the fan-outs not
 * yet answered.
 *
 * @example
 * const book = new AskedBook();
 * const id = book.query('memory', (answer) => console.log(answer));
 * book.serverDown('memory', 'exited'); // logs { error: { code: -32000, message: 'exited' } }
 */
export class AskedBook {
  private readonly asked = new Map<string, Asked>();
  private readonly open = new Set<FanOut>();
  private nextId = 0;

  /** A fresh gateway id. */
  newId(): string {
    return `toonwire-gateway:${this.nextId++}`;
  }

  /** Whether `id` is one of the gateway's own (answered or not). */
  isGatewayId(id: RequestId): boolean {
    return typeof id === 'string' && id.startsWith('toonwire-gateway:');
  }

  /** Keeps `fanOut` open until it is answered. */
  opened(fanOut: FanOut): void {
    this.open.add(fanOut);
  }

  closed(fanOut: FanOut): void {
    this.open.delete(fanOut);
  }

  /** The open fan-out answering the client's request `clientId`, if any. */
  fanOutFor(clientId: RequestId): FanOut | undefined {
    for (const fanOut of this.open) if (fanOut.clientId === clientId) return fanOut;
    return undefined;
  }

  /** A gateway id for `server`'s part in `fanOut`. */
  forFanOut(server: string, fanOut: FanOut): string {
    const id = this.newId();
    this.asked.set(id, { server, fanOut });
    return id;
  }

  /** A gateway id for a request of the gateway's own to `server`; `resolve` gets its answer. */
  query(server: string, resolve: (answer: Outcome) => void): string {
    const id = this.newId();
    this.asked.set(id, { server, resolve });
    return id;
  }

  /** Takes what `id` was asked for; `undefined` for an id not (or no longer) out. */
  take(id: RequestId): Asked | undefined {
    if (typeof id !== 'string') return undefined;
    const asked = this.asked.get(id);
    this.asked.delete(id);
    return asked;
  }

  /**
   * `server` went down: its queries are answered with an error naming `why`, and every open
   * fan-out waiting for it goes on without it.
   */
  serverDown(server: string, why: string): void {
    for (const [id, asked] of this.asked) {
      if (asked.server !== server) continue;
      this.asked.delete(id);
      if ('resolve' in asked) asked.resolve({ error: { code: -32000, message: why } });
    }
    for (const fanOut of [...this.open]) fanOut.settle(server);
  }
}
