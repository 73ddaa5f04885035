// The seller integration API (a key per seller): listing writes in chunks of the contract's
// maximum, the listing export, store status, and orders: the poll with its checkpoint, one order,
// fulfillment and cancel.
import { chunk } from './chunk.js';
import { changeFingerprint, decodeCheckpoint, pageCheckpoints, type Checkpoint } from './poll.js';
import type { CallOptions, Transport } from './transport.js';
import type { CancelBody, ExportParams, FulfillmentBody, Listing, ListingWrite, ListingWriteResult, Order, StoreStatus } from './types.js';

/** The contract's maximum items per listing write. */
export const WRITE_MAX_ITEMS = 1000;

export interface PollOptions extends CallOptions {
  /** Where a first walk starts (inclusive); omitted: the seller's first order. Ignored when resuming from a checkpoint. */
  since?: string;
  /** A checkpoint handed over by an earlier walk: resume right after that change. */
  checkpoint?: string;
  /** Page size, 1 to 1000; default 100 (the checkpoint holds at most one page's fingerprints). */
  limit?: number;
}

/** One order change and the checkpoint to store once the caller has handled it (computed when read). */
export interface OrderChange {
  readonly order: Order;
  readonly checkpoint: string;
}

export interface SellerClient {
  listings: {
    /** Writes any number of items (upserts, or bulk items with `op`), 1,000 per call in order; one result per item, in input order. */
    write(items: readonly ListingWrite[], opts?: CallOptions): Promise<ListingWriteResult[]>;
    /** Every stored listing, following the export's cursors to the end. */
    export(params?: ExportParams, opts?: CallOptions): AsyncIterableIterator<Listing>;
    purge(opts?: CallOptions): Promise<{ purged: number }>;
  };
  store: {
    status(opts?: CallOptions): Promise<StoreStatus>;
    setVacation(vacation: boolean, opts?: CallOptions): Promise<StoreStatus>;
  };
  orders: {
    /** Every order change from `since` or a checkpoint to the feed's current end, each with the checkpoint to store after it. */
    poll(opts?: PollOptions): AsyncIterableIterator<OrderChange>;
    get(orderId: string, opts?: CallOptions): Promise<Order>;
    fulfill(orderId: string, body: FulfillmentBody, opts?: CallOptions): Promise<Order>;
    /** Cancels the whole order (no body), or some lines. */
    cancel(orderId: string, body?: CancelBody, opts?: CallOptions): Promise<Order>;
  };
}

class Change implements OrderChange {
  constructor(
    readonly order: Order,
    private readonly after: (k: number) => string,
    private readonly k: number,
  ) {}
  get checkpoint(): string {
    return this.after(this.k);
  }
}

const orderPath = (orderId: string, rest = '') => `/orders/${encodeURIComponent(orderId)}${rest}`;

export function sellerClient(transport: Transport): SellerClient {
  // One page at a time; the changes of a page are handed out of a plain array (no generator
  // step per change: a walk of 100,000 changes is bound by the API, not by the iterator).
  async function* pages({ since, checkpoint, limit, ...opts }: PollOptions): AsyncGenerator<Change[]> {
    let at: Checkpoint = checkpoint !== undefined ? decodeCheckpoint(checkpoint) : { cursor: null, since: since ?? null, seen: [] };
    for (;;) {
      const query = at.cursor !== null ? { cursor: at.cursor, limit } : { since: at.since ?? undefined, limit };
      const page = await transport.request<{ items: Order[]; nextCursor: string | null }>({
        method: 'GET',
        path: '/orders',
        query,
        retry: 'idempotent',
        ...opts,
      });
      const items = page.data.items;
      const fingerprints: (string | undefined)[] = [];
      const fingerprint = (i: number) => (fingerprints[i] ??= changeFingerprint(items[i]!.order_id, JSON.stringify(items[i])));
      const skip = at.seen.length > 0 ? new Set(at.seen) : null;
      const handed: number[] = [];
      const checkpointAfter = pageCheckpoints(at, (k) => fingerprint(handed[k]!));
      const changes: Change[] = [];
      for (let i = 0; i < items.length; i++) {
        if (skip?.has(fingerprint(i))) continue;
        changes.push(new Change(items[i]!, checkpointAfter, handed.push(i)));
      }
      yield changes;
      if (page.data.nextCursor === null) return;
      at = { cursor: page.data.nextCursor, since: at.since, seen: [] };
    }
  }

  function poll(opts: PollOptions = {}): AsyncIterableIterator<OrderChange> {
    const source = pages(opts);
    let buffer: Change[] = [];
    let pos = 0;
    const iterator: AsyncIterableIterator<OrderChange> = {
      async next() {
        while (pos === buffer.length) {
          const page = await source.next();
          if (page.done) return { done: true, value: undefined };
          buffer = page.value;
          pos = 0;
        }
        return { done: false, value: buffer[pos++]! };
      },
      async return() {
        await source.return(undefined);
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  return {
    listings: {
      async write(items, opts = {}) {
        const results: ListingWriteResult[] = [];
        // In order, one call after another: a later item for the same sku wins, across calls too.
        for (const part of chunk(items, WRITE_MAX_ITEMS)) {
          const body = { items: part.map((item) => ('op' in item ? item : { op: 'upsert' as const, ...item })) };
          // Desired-state writes: sending the same items again leaves the same listings.
          const e = await transport.request<{ results: ListingWriteResult[] }>({
            method: 'POST',
            path: '/listings/bulk',
            body,
            retry: 'idempotent',
            ...opts,
          });
          results.push(...e.data.results);
        }
        return results;
      },
      async *export({ updatedSince, includeDeleted, limit }: ExportParams = {}, opts: CallOptions = {}) {
        let cursor: string | undefined;
        for (;;) {
          const query = { cursor, limit, updated_since: updatedSince, include_deleted: includeDeleted === undefined ? undefined : String(includeDeleted) };
          const page = await transport.request<{ items: Listing[]; nextCursor: string | null }>({
            method: 'GET',
            path: '/listings',
            query,
            retry: 'idempotent',
            ...opts,
          });
          yield* page.data.items;
          if (page.data.nextCursor === null) return;
          cursor = page.data.nextCursor;
        }
      },
      async purge(opts = {}) {
        return (await transport.request<{ purged: number }>({ method: 'POST', path: '/listings/purge', retry: 'idempotent', ...opts })).data;
      },
    },
    store: {
      async status(opts = {}) {
        return (await transport.request<StoreStatus>({ method: 'GET', path: '/me', retry: 'idempotent', ...opts })).data;
      },
      async setVacation(vacation, opts = {}) {
        return (await transport.request<StoreStatus>({ method: 'PATCH', path: '/me', body: { vacation }, retry: 'idempotent', ...opts })).data;
      },
    },
    orders: {
      poll,
      async get(orderId, opts = {}) {
        return (await transport.request<Order>({ method: 'GET', path: orderPath(orderId), retry: 'idempotent', ...opts })).data;
      },
      async fulfill(orderId, body, opts = {}) {
        // Repeating the current status with the same tracking is an idempotent 200.
        return (await transport.request<Order>({ method: 'PATCH', path: orderPath(orderId, '/fulfillment'), body, retry: 'idempotent', ...opts })).data;
      },
      async cancel(orderId, body, opts = {}) {
        // A whole-order cancel repeats as a 200; a line cancel repeated would cancel more units.
        const retry = body?.lines ? 'refused-only' : 'idempotent';
        return (await transport.request<Order>({ method: 'POST', path: orderPath(orderId, '/cancel'), body, retry, ...opts })).data;
      },
    },
  };
}
