import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { serveApp, type ServedApp } from '../../../support/served-app.js';
import { STEADY_CLUSTER } from '../../../support/app.js';
import { seedSellerApi, MAPLE } from '../../../support/seller-seed.js';
import { CUSTOMER } from '../../../support/seller-api.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { startTcpProxy } from '../../../support/tcp-proxy.js';
import { freePort } from '../../../support/free-port.js';
import { checkoutOrder } from '../../../../src/orders/checkout.js';
import { createPool } from '../../../../src/db/pool.js';
import { createEsClient } from '../../../../src/es/client.js';
import { sign, signingKey, envelope } from '../../../../dispatcher/sign.js';
import { generateTypes } from '../../../../clients/typescript/codegen/generate.js';
import { CLIENT_TYPES_FILE, formatTypes } from '../../../../clients/typescript/codegen/from-app.js';
import {
  ApiError,
  ConnectionError,
  createClient,
  TimeoutError,
  verifyWebhook,
  WebhookVerificationError,
  type ListingWrite,
  type MarketplaceClient,
  type Order,
} from '../../../../clients/typescript/src/index.js';
import type { LiveIndexer } from '../../../../indexer/live.js';

// The typed client against the real API (PostgreSQL and Elasticsearch, the whole app on a port):
// every method, cursor walks to their end, the order poll resumed from stored checkpoints while
// orders are committed, chunking past one call, the retry rules (a 429 with Retry-After and a 503
// of Degraded Mode retried, a 400 not), timeouts and aborts, and webhook verification.

let ctx: TestContext;
let served: ServedApp;
let indexer: LiveIndexer;
let keys: { maple: string; birch: string; ledger: string };
let seller: MarketplaceClient;
let buyer: MarketplaceClient;

/** The global fetch, counting the attempts of each call and remembering each answer's status. */
function countingFetch(onAnswer?: (res: Response) => Promise<void> | void) {
  const seen = { attempts: 0, statuses: [] as (number | 'failed')[], at: [] as number[] };
  const f: typeof fetch = async (input, init) => {
    seen.attempts++;
    seen.at.push(Date.now());
    try {
      const res = await fetch(input, init);
      seen.statuses.push(res.status);
      await onAnswer?.(res);
      return res;
    } catch (err) {
      seen.statuses.push('failed');
      throw err;
    }
  };
  return { fetch: f, seen };
}

let orderSeq = 0;
async function enterOrder(skuId: number, quantity = 1): Promise<string> {
  const orderId = `ord_client_${++orderSeq}`;
  const r = await checkoutOrder(ctx.pool, {
    orderId,
    sellerId: MAPLE,
    currency: 'CAD',
    customer: CUSTOMER,
    shippingMethod: 'Tracked',
    lines: [{ skuId, quantity }],
  });
  expect(r.created).toBe(true);
  return orderId;
}

beforeAll(async () => {
  ctx = await createTestContext();
  keys = await seedSellerApi(ctx);
  indexer = await startTestIndexer(ctx);
  served = await serveApp(ctx, { env: { ...ctx.env, RATE_LIMIT_SELLER_PER_MIN: 1_000_000, RATE_LIMIT_PUBLIC_PER_MIN: 1_000_000 } }, STEADY_CLUSTER);
  seller = createClient({ baseUrl: served.url, apiKey: keys.maple });
  buyer = createClient({ baseUrl: served.url });
});
afterAll(async () => {
  await served?.close();
  await indexer?.stop();
  await ctx?.close();
});

describe('seller listings', () => {
  it('writes more items than one call takes, one result per item in input order, and the export walks them all to its end', async () => {
    // 2,501 items: three calls. Unknown skus are kept as unmatched; one item in the second call is rejected.
    const items: ListingWrite[] = Array.from({ length: 2501 }, (_, i) => ({
      skuId: 100_000 + i,
      productId: 900_000 + i,
      price: 100 + i,
      quantity: i === 1500 ? -1 : 1,
    }));
    items.push({ op: 'delete', skuId: 100_000 }, { skuId: 1001, productId: 101, price: 450, quantity: 500, externalRef: 'bolt-nm' });
    items.push({ skuId: 1002, productId: 101, price: 120, quantity: 3 }, { skuId: 2001, productId: 102, price: 300, quantity: 4 });
    const results = await seller.listings.write(items);
    expect(results.map((r) => r.skuId)).toEqual(items.map((i) => i.skuId));
    expect(results[0]).toEqual({ skuId: 100_000, op: 'upsert', status: 'unmatched' });
    expect(results[1500]).toMatchObject({ skuId: 101_500, status: 'rejected', reason: expect.any(String) });
    expect(results[2501]).toEqual({ skuId: 100_000, op: 'delete', status: 'applied' });
    expect(results[2502]).toEqual({ skuId: 1001, op: 'upsert', status: 'applied', externalRef: 'bolt-nm' });

    const live = [];
    for await (const listing of seller.listings.export({ limit: 1000 })) live.push(listing);
    // 2,501 written, one rejected, one deleted, three matched.
    expect(live).toHaveLength(2501 - 2 + 3);
    expect(new Set(live.map((l) => l.skuId)).size).toBe(live.length);
    const withDeleted = [];
    for await (const listing of seller.listings.export({ limit: 700, includeDeleted: true })) withDeleted.push(listing);
    expect(withDeleted).toHaveLength(live.length + 1);
    expect(withDeleted.find((l) => l.skuId === 100_000)?.deletedAt).toEqual(expect.any(String));
  });

  it('reads and sets the store status', async () => {
    const status = await seller.store.status();
    expect(status).toMatchObject({ sellerCode: 'maple', vacation: false, counts: { matched: 3, unmatched: 2499 } });
    expect((await seller.store.setVacation(true)).vacation).toBe(true);
    expect((await seller.store.setVacation(false)).vacation).toBe(false);
  });
});

describe('buyer reads', () => {
  beforeAll(async () => {
    await indexer.idle();
    await ctx.es.indices.refresh({ index: ctx.index.alias });
  });

  it('searches, with the answer typed and `degraded` false when the index answers', async () => {
    const r = await buyer.search({ keyword: 'bolt' });
    expect(r.degraded).toBe(false);
    expect(r.items.map((i) => i.productId)).toEqual([101]);
    expect(r.items[0]).toMatchObject({ name: 'Lightning Bolt', fromPrice: 120, sellerCount: 1 });
    expect(r.facets.condition.map((f) => f.value).sort()).toEqual(['Damaged', 'Near Mint']);
  });

  it('walks every search page to the end (searchAll)', async () => {
    const all = [];
    for await (const item of buyer.searchAll({ limit: 1, sort: 'name' })) all.push(item.productId);
    expect(all).toEqual([102, 101]);
    const pages = [];
    for await (const page of buyer.searchPages({ limit: 1 })) pages.push(page.nextCursor);
    expect(pages).toHaveLength(2);
    expect(pages[1]).toBeNull();
  });

  it("reads a product's offers with filters", async () => {
    const r = await buyer.product(101, { condition: ['Near Mint'] });
    expect(r.degraded).toBe(false);
    expect(r.product?.name).toBe('Lightning Bolt');
    expect(r.offers.map((o) => [o.skuId, o.price, o.sellerId])).toEqual([[1001, 450, MAPLE]]);
    expect((await buyer.product('101', { limit: 1 })).offers.map((o) => o.skuId)).toEqual([1002]);
  });

  it('suggests names as typed, each counted as /search lists it, and a correction for a misspelt keyword', async () => {
    const r = await buyer.suggest('lightn', { limit: 5 });
    expect(r.degraded).toBe(false);
    const bolt = r.completions.find((c) => c.text === 'Lightning Bolt');
    expect(bolt?.productCount).toBe((await buyer.search({ keyword: 'Lightning Bolt' })).items.length);
    expect(bolt?.productCount).toBeGreaterThan(0);
    expect(r.correction).toBeNull();
    expect((await buyer.suggest('lihgtning bolt')).correction).toBe('Lightning Bolt');
  });

  it('looks up more lines than one call takes, one line per pair in request order', async () => {
    const known = [
      { sellerId: MAPLE, skuId: 1001 },
      { sellerId: MAPLE, skuId: 2001 },
    ];
    const pairs = Array.from({ length: 1201 }, (_, i) => (i % 400 === 0 ? known[(i / 400) % 2]! : { sellerId: 1 + (i % 50), skuId: 700_000 + i }));
    const r = await buyer.lookupLines(pairs);
    expect(r.degraded).toBe(false);
    expect(r.lines.map((l) => [l.sellerId, l.skuId])).toEqual(pairs.map((p) => [p.sellerId, p.skuId]));
    expect(r.lines[0]).toMatchObject({ currentPrice: 450, available: 500, seller: { name: 'Maple Cards' } });
    expect(r.lines[400]).toMatchObject({ skuId: 2001, currentPrice: 300 });
    expect(r.lines[1]).toMatchObject({ currentPrice: null, available: 0, product: null });
    expect((await buyer.lookupLines([])).lines).toEqual([]);
  });
});

describe('orders', () => {
  it('reads, fulfils (a repeat is idempotent) and cancels orders', async () => {
    const a = await enterOrder(1001);
    const b = await enterOrder(1001, 2);
    const got = await seller.orders.get(a);
    expect(got).toMatchObject({ order_id: a, seller_id: MAPLE, lines: [{ sku_id: 1001, quantity: 1, external_ref: 'bolt-nm' }] });
    expect(got.status).toBeUndefined();
    expect((await seller.orders.fulfill(a, { status: 'accepted' })).status).toBe('accepted');
    const tracking = { status: 'shipped' as const, trackingCompany: 'Canada Post', trackingNumber: 'CP123', trackingUrl: null };
    const shipped = await seller.orders.fulfill(a, tracking);
    expect(shipped).toMatchObject({ status: 'shipped', fulfillment: { tracking_company: 'Canada Post', tracking_number: 'CP123', tracking_url: null } });
    expect(await seller.orders.fulfill(a, tracking)).toEqual(shipped);
    expect((await seller.orders.cancel(b, { lines: [{ skuId: 1001, quantity: 1 }] })).lines[0]?.quantity).toBe(1);
    expect((await seller.orders.cancel(b)).status).toBe('cancelled');
    expect((await seller.orders.cancel(b)).status).toBe('cancelled');
  });

  it('raises the envelope as a typed error: code, message and status', async () => {
    const err = await seller.orders.get('ord_nobody').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND', message: expect.any(String) });
    const a = await enterOrder(1001);
    await seller.orders.fulfill(a, { status: 'accepted' });
    await expect(seller.orders.fulfill(a, { status: 'delivered' })).rejects.toMatchObject({ status: 422, code: 'INVALID_TRANSITION' });
    await expect(createClient({ baseUrl: served.url, apiKey: 'mp_maple_' + '0'.repeat(32) }).store.status()).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    await expect(createClient({ baseUrl: served.url, apiVersion: '1999-01' }).search()).rejects.toMatchObject({
      status: 400,
      code: 'UNSUPPORTED_API_VERSION',
    });
  });

  it('polls every change to the end, and a walk resumed from any stored checkpoint hands over each later change once', async () => {
    const since = new Date().toISOString();
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await enterOrder(1001));
    const first: { id: string; checkpoint: string }[] = [];
    for await (const change of seller.orders.poll({ since, limit: 3 })) first.push({ id: change.order.order_id, checkpoint: change.checkpoint });
    expect(first.map((c) => c.id)).toEqual(ids);
    // From each checkpoint (mid-page and page ends alike), the rest and nothing else.
    for (let k = 0; k < first.length; k++) {
      const rest = [];
      for await (const change of seller.orders.poll({ checkpoint: first[k]!.checkpoint, limit: 3 })) rest.push(change.order.order_id);
      expect(rest).toEqual(ids.slice(k + 1));
    }
    // A change after the last checkpoint: only it comes, with the order's new body.
    await seller.orders.fulfill(ids[2]!, { status: 'accepted' });
    const later = [];
    for await (const change of seller.orders.poll({ checkpoint: first.at(-1)!.checkpoint, limit: 3 })) later.push(change.order);
    expect(later.map((o) => [o.order_id, o.status])).toEqual([[ids[2], 'accepted']]);
  });

  it('misses and repeats no order change across restarts while orders are committed concurrently', async () => {
    const since = new Date().toISOString();
    const entered: string[] = [];
    let writing = true;
    const writer = (async () => {
      try {
        for (let i = 0; i < 40; i++) {
          const id = await enterOrder(1001);
          entered.push(id);
          // Some orders change again while the reader walks: they move to the feed's end.
          if (i % 4 === 1) await seller.orders.fulfill(entered[i - 1]!, { status: 'accepted' });
        }
      } finally {
        writing = false;
      }
    })();
    const delivered: Order[] = [];
    let checkpoint: string | undefined;
    let restarts = 0;
    // The reader stops after a few changes each time (a Platform restarting), storing the checkpoint.
    for (let quiet = 0; quiet < 2;) {
      let handled = 0;
      for await (const change of seller.orders.poll(checkpoint ? { checkpoint, limit: 4 } : { since, limit: 4 })) {
        delivered.push(change.order);
        checkpoint = change.checkpoint;
        if (++handled === 1 + (restarts % 3)) break;
      }
      restarts++;
      // Done after two walks in a row found nothing new once the writer finished.
      quiet = !writing && handled === 0 ? quiet + 1 : 0;
    }
    await writer;
    expect(restarts).toBeGreaterThan(10);
    const changes = delivered.map((o) => JSON.stringify(o));
    expect(new Set(changes).size).toBe(changes.length);
    // Every order's current body was handed over: nothing missed.
    const current = await Promise.all(entered.map((id) => seller.orders.get(id)));
    for (const order of current) expect(changes).toContain(JSON.stringify(order));
    expect(new Set(delivered.map((o) => o.order_id))).toEqual(new Set(entered));
  });
});

describe('retries', () => {
  it('a 400 is not retried', async () => {
    const { fetch, seen } = countingFetch();
    await expect(createClient({ baseUrl: served.url, fetch }).search({ limit: 0 })).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(seen.statuses).toEqual([400]);
  });

  it('a 429 is retried after its Retry-After', async () => {
    const limited = await serveApp(ctx, { env: { ...ctx.env, RATE_LIMIT_PUBLIC_PER_MIN: 60 } }, STEADY_CLUSTER);
    try {
      // Spend the address's budget (60 a minute, one back each second).
      for (let i = 0; i < 70; i++) await (await fetch(`${limited.url}/search?limit=1`)).arrayBuffer();
      const { fetch: counted, seen } = countingFetch();
      const r = await createClient({ baseUrl: limited.url, fetch: counted, retry: { maxRetries: 5 } }).search({ limit: 1 });
      expect(r.items).toHaveLength(1);
      expect(seen.statuses[0]).toBe(429);
      expect(seen.statuses.at(-1)).toBe(200);
      // The retry waited at least the one second Retry-After asked for.
      expect(seen.at[1]! - seen.at[0]!).toBeGreaterThanOrEqual(1000);
    } finally {
      await limited.close();
    }
  });

  it('a 503 of Degraded Mode (index and PostgreSQL unreachable) is retried, and the next answer says `degraded`', async () => {
    const proxy = await startTcpProxy(`http://${new URL(ctx.databaseUrl).host}`);
    await proxy.cut();
    const dbUrl = new URL(ctx.databaseUrl);
    dbUrl.host = new URL(proxy.url).host;
    const pool = createPool(dbUrl.toString(), 2);
    const es = createEsClient(`http://127.0.0.1:${await freePort()}`, 2000);
    const down = await serveApp(ctx, { pool, es }, { degraded: { retryAfterSeconds: 1, watch: { enabled: false } } });
    try {
      // PostgreSQL comes back once the client has had its 503.
      const { fetch, seen } = countingFetch(async (res) => {
        if (res.status === 503) await proxy.restore();
      });
      const r = await createClient({ baseUrl: down.url, fetch, retry: { maxRetries: 4 } }).search({ keyword: 'bolt' });
      expect(seen.statuses[0]).toBe(503);
      expect(seen.statuses.at(-1)).toBe(200);
      expect(r.degraded).toBe(true);
      expect(r.items.map((i) => i.productId)).toEqual([101]);
    } finally {
      await down.close();
      await pool.end();
      await es.close();
      await proxy.close();
    }
  });

  it('no answer: reads are retried, a line cancel (not idempotent) is not', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const read = countingFetch();
    const err = await createClient({ baseUrl: nobody, fetch: read.fetch, retry: { maxRetries: 2, baseDelayMs: 1 } })
      .search()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(read.seen.attempts).toBe(3);
    const write = countingFetch();
    await expect(
      createClient({ baseUrl: nobody, apiKey: keys.maple, fetch: write.fetch, retry: { maxRetries: 2, baseDelayMs: 1 } }).orders.cancel('ord_x', {
        lines: [{ skuId: 1001 }],
      }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(write.seen.attempts).toBe(1);
  });
});

describe('timeouts and aborts', () => {
  // A server that accepts connections and never answers.
  let silent: net.Server;
  let silentUrl: string;
  const held = new Set<net.Socket>();
  beforeAll(async () => {
    silent = net.createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('a call without an answer within its timeout fails with TimeoutError', async () => {
    const err = await createClient({ baseUrl: silentUrl, timeoutMs: 300 })
      .search()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ timeoutMs: 300 });
    await expect(createClient({ baseUrl: silentUrl }).product(1, {}, { timeoutMs: 200 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it("the caller's AbortSignal ends a call with its AbortError, before or during it", async () => {
    const c = createClient({ baseUrl: silentUrl });
    const during = new AbortController();
    const pending = c.search({}, { signal: during.signal }).catch((e: unknown) => e);
    setTimeout(() => during.abort(), 50);
    expect(await pending).toMatchObject({ name: 'AbortError' });
    await expect(c.search({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    const reason = new Error('page left');
    await expect(c.lookupLines([{ sellerId: 1, skuId: 1 }], { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });
});

describe('webhooks', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const delivery = async (timestamp = Math.floor(Date.now() / 1000)) => {
    const order = await seller.orders.get(await enterOrder(1001));
    const body = envelope({ eventId: 'msg_client1', type: 'order.created', apiVersion: '2026-07', createdAt: new Date(), data: JSON.stringify(order) });
    const headers = {
      'webhook-id': 'msg_client1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(signingKey(secret), 'msg_client1', timestamp, body),
    };
    return { order, body, headers };
  };

  it('verifies a good delivery and hands back the typed event', async () => {
    const { order, body, headers } = await delivery();
    const event = verifyWebhook(body, headers, secret);
    expect(event).toMatchObject({ id: 'msg_client1', type: 'order.created', api_version: '2026-07' });
    expect(event.type === 'order.created' && event.data).toEqual(order);
    expect(verifyWebhook(body.toString('utf8'), new Headers(headers), secret).id).toBe('msg_client1');
  });

  it('refuses a tampered body, another secret and missing headers', async () => {
    const { body, headers } = await delivery();
    const tampered = Buffer.from(body.toString('utf8').replace('"quantity":1', '"quantity":9'));
    const reasonOf = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        expect(err).toBeInstanceOf(WebhookVerificationError);
        return (err as WebhookVerificationError).reason;
      }
      return 'verified';
    };
    expect(reasonOf(() => verifyWebhook(tampered, headers, secret))).toBe('bad-signature');
    expect(reasonOf(() => verifyWebhook(body, headers, `whsec_${randomBytes(24).toString('base64')}`))).toBe('bad-signature');
    expect(reasonOf(() => verifyWebhook(body, { ...headers, 'webhook-signature': undefined }, secret))).toBe('missing-headers');
  });

  it('refuses a stale timestamp, even correctly signed', async () => {
    const { body, headers } = await delivery(Math.floor(Date.now() / 1000) - 3600);
    expect(() => verifyWebhook(body, headers, secret)).toThrow(expect.objectContaining({ reason: 'stale-timestamp' }));
  });
});

describe('generated types', () => {
  it('are, as committed, what the document GET /openapi.json serves generates', async () => {
    const document = await (await fetch(`${served.url}/openapi.json`)).json();
    expect(await readFile(CLIENT_TYPES_FILE, 'utf8')).toBe(await formatTypes(generateTypes(document)));
  });
});
