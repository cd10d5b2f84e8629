// The orders domain shared by the three example apps: the two orders of the framework's TOON
// HTTP support page followed by generated ones, cursor pagination, and order creation.
// Framework-free on purpose, so the apps differ only in how each framework wires negotiation,
// validation and errors.
import type { Server } from 'node:http';
import type { DefaultFormat } from '../../src/http/index.js';
import { HttpProblem } from '../../src/http/index.js'; // in your app: from 'toonwire/http'
import type { Delimiter } from '../../src/index.js';

export interface OrderItem {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

export type OrderStatus = 'placed' | 'paid' | 'shipped' | 'cancelled';

export interface Order {
  id: string;
  status: OrderStatus;
  items: OrderItem[];
  totalCents: number;
  note?: string;
}

/** What POST /orders accepts (after validation). */
export interface NewOrder {
  items: OrderItem[];
  note?: string;
}

export interface OrderPage {
  data: Order[];
  page: { nextCursor: string | null; hasMore: boolean };
}

/** Options every example app takes, mapped by each to its framework's own option names. */
export interface OrdersAppOptions {
  store?: OrderStore;
  /** Largest request body in bytes, JSON and TOON alike. */
  bodyLimit?: number;
  defaultFormat?: DefaultFormat;
  delimiter?: Delimiter;
}

const PRODUCTS: readonly OrderItem[] = [
  { sku: 'TEA', quantity: 2, unitPriceCents: 300 },
  { sku: 'CAKE, LEMON', quantity: 1, unitPriceCents: 450 },
  { sku: 'SCONE', quantity: 4, unitPriceCents: 250 },
  { sku: 'COFFEE', quantity: 1, unitPriceCents: 350 },
  { sku: 'JAM: STRAWBERRY', quantity: 2, unitPriceCents: 500 },
];
const STATUSES: readonly OrderStatus[] = ['placed', 'paid', 'shipped', 'cancelled'];

function total(items: readonly OrderItem[]): number {
  return items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
}

// Ids read like the support page's (01a1, 01a0, ...): newest first, four hex digits.
function orderId(sequence: number): string {
  return sequence.toString(16).padStart(4, '0');
}

const NEWEST_SAMPLE = 0x01a1;

/**
 * The sample orders, newest first: the support page's two (`01a1` placed with TEA and "CAKE, LEMON",
 * `01a0` paid with SCONE), then `count - 2` generated ones.
 */
export function sampleOrders(count = 250): Order[] {
  const orders: Order[] = [
    {
      id: orderId(NEWEST_SAMPLE),
      status: 'placed',
      items: [PRODUCTS[0]!, PRODUCTS[1]!],
      totalCents: 1050,
    },
    { id: orderId(NEWEST_SAMPLE - 1), status: 'paid', items: [PRODUCTS[2]!], totalCents: 1000 },
  ];
  for (let n = 2; n < count; n++) {
    const items = [PRODUCTS[n % PRODUCTS.length]!, PRODUCTS[(n * 3 + 1) % PRODUCTS.length]!].slice(
      0,
      1 + (n % 2),
    );
    orders.push({
      id: orderId(NEWEST_SAMPLE - n),
      status: STATUSES[n % STATUSES.length]!,
      items,
      totalCents: total(items),
    });
  }
  return orders.slice(0, count);
}

function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ c: lastId })).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { c?: unknown };
    if (typeof parsed.c === 'string') return parsed.c;
  } catch {
    // fall through to the problem below
  }
  throw new HttpProblem({
    status: 400,
    detail:
      'The cursor is not one this API issued. Pass page.nextCursor from the previous page unchanged.',
  });
}

/** An in-memory order store. `created` records every validated POST body, in order. */
export class OrderStore {
  readonly orders: Order[];
  readonly created: NewOrder[] = [];
  #next: number;

  constructor(orders: Order[] = sampleOrders()) {
    this.orders = orders;
    this.#next = NEWEST_SAMPLE + 1;
  }

  /** One page of orders, newest first, after the order the cursor names. */
  list(limit: number, cursor?: string): OrderPage {
    let start = 0;
    if (cursor !== undefined) {
      const after = decodeCursor(cursor);
      start = this.orders.findIndex((order) => order.id === after) + 1;
      if (start === 0)
        throw new HttpProblem({
          status: 400,
          detail: `The cursor points at order ${after}, which no longer exists. Start again without a cursor.`,
        });
    }
    const data = this.orders.slice(start, start + limit);
    const hasMore = start + limit < this.orders.length;
    return {
      data,
      page: { nextCursor: hasMore ? encodeCursor(data[data.length - 1]!.id) : null, hasMore },
    };
  }

  /** The order with this id; a 404 problem when there is none. */
  get(id: string): Order {
    const order = this.orders.find((candidate) => candidate.id === id);
    if (order === undefined)
      throw new HttpProblem({ status: 404, detail: `There is no order with id ${id}.` });
    return order;
  }

  create(input: NewOrder): Order {
    this.created.push(input);
    const order: Order = {
      id: orderId(this.#next++),
      status: 'placed',
      items: input.items,
      totalCents: total(input.items),
      ...(input.note === undefined ? {} : { note: input.note }),
    };
    this.orders.unshift(order);
    return order;
  }
}

/** A started example server. */
export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** A listening node:http server as a {@link RunningServer}; closing it also drops idle keep-alive connections. */
export function runningServer(server: Server, host: string): RunningServer {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
