import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Pool } from '../../src/db/pool.js';

// Test data for the webhook dispatcher. The producer (orders writing events in their own
// transactions, src/db/webhook-events.ts) lives elsewhere; these INSERTs write outbox rows the way
// it does: 'pending' when the seller has a webhook, else 'no_endpoint'.

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A seller, and its webhook when `url` is given. Returns the secret. */
export async function addSeller(pool: Pool, sellerId: number, url?: string, secret = newSecret()): Promise<string> {
  await pool.query(
    `INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, terms_version)
     VALUES ($1, $2, $3, 'CAD', 'CA', '2026-07')`,
    [sellerId, `s${sellerId}`, `Seller ${sellerId}`],
  );
  if (url) await pool.query(`INSERT INTO seller_webhooks (seller_id, url, secret) VALUES ($1, $2, $3)`, [sellerId, url, secret]);
  return secret;
}

export interface TestEvent {
  eventId: string;
  sellerId: number;
  type: 'order.created' | 'order.cancelled' | 'inventory.adjusted';
  createdAt: Date;
  data: string;
}

let counter = 0;

/** Writes outbox rows in one transaction (one NOTIFY), as the producer would. */
export async function insertEvents(pool: Pool, events: readonly (Partial<TestEvent> & { sellerId: number })[]): Promise<TestEvent[]> {
  const full: TestEvent[] = events.map((e) => {
    counter += 1;
    const eventId = e.eventId ?? `evt_${randomBytes(6).toString('hex')}_${counter}`;
    const createdAt = e.createdAt ?? new Date(Math.floor(Date.now()));
    const orderId = `ord_${counter}`;
    return {
      eventId,
      sellerId: e.sellerId,
      type: e.type ?? 'order.created',
      createdAt,
      // Spacing and key order a re-serialization would change: the dispatcher must send these bytes.
      data: e.data ?? `{"order_id":"${orderId}", "seller_id":${e.sellerId},"created_at":"${createdAt.toISOString()}","note":"caf\u00e9 \\u00e9"}`,
    };
  });
  await pool.query(
    `INSERT INTO webhook_events (event_id, seller_id, type, created_at, data, state)
     SELECT x.event_id, x.seller_id, x.type, x.created_at, x.data,
            CASE WHEN EXISTS (SELECT 1 FROM seller_webhooks w WHERE w.seller_id = x.seller_id) THEN 'pending' ELSE 'no_endpoint' END
     FROM unnest($1::text[], $2::int[], $3::text[], $4::timestamptz[], $5::text[]) AS x(event_id, seller_id, type, created_at, data)`,
    [full.map((e) => e.eventId), full.map((e) => e.sellerId), full.map((e) => e.type), full.map((e) => e.createdAt), full.map((e) => e.data)],
  );
  return full;
}

export interface Received {
  at: number;
  /** When the answer was sent or the request was dropped (null while it is open). */
  endedAt: number | null;
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests whose answer has not been sent yet. */
  open: number;
  maxOpen: number;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1. `answer` decides per request (it may wait, or never answer:
 * return null to leave the request hanging until close()).
 */
export async function startReceiver(
  answer: (
    r: Received,
    n: number,
  ) =>
    | Promise<{ status: number; headers?: Record<string, string>; body?: string } | null>
    | { status: number; headers?: Record<string, string>; body?: string }
    | null = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const rec: Receiver = { url: '', received, open: 0, maxOpen: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: Received = { at: Date.now(), endedAt: null, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '' };
      received.push(r);
      rec.open += 1;
      rec.maxOpen = Math.max(rec.maxOpen, rec.open);
      const a = await answer(r, received.length);
      if (a === null) {
        hanging.add(res);
        res.on('close', () => {
          hanging.delete(res);
          rec.open -= 1;
          r.endedAt = Date.now();
        });
        return;
      }
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
      rec.open -= 1;
      r.endedAt = Date.now();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  rec.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return rec;
}

/** Receivers started by one test, closed together after it. */
export function receiverSet() {
  const started: Receiver[] = [];
  return {
    async start(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const r = await startReceiver(...args);
      started.push(r);
      return r;
    },
    closeAll: () => Promise.all(started.splice(0).map((r) => r.close())),
  };
}

export interface EventRow {
  event_id: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  locked_until: Date | null;
}

export async function eventRow(pool: Pool, eventId: string): Promise<EventRow> {
  const { rows } = await pool.query<EventRow>(`SELECT * FROM webhook_events WHERE event_id = $1`, [eventId]);
  return rows[0]!;
}

export async function attemptRows(pool: Pool, eventId: string) {
  const { rows } = await pool.query<{ attempt: number; status_code: number | null; error: string | null; started_at: Date; duration_ms: number }>(
    `SELECT attempt, status_code, error, started_at, duration_ms FROM webhook_attempts WHERE event_id = $1 ORDER BY attempt`,
    [eventId],
  );
  return rows;
}
