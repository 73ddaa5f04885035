import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { seedSellerApi, MAPLE } from '../../support/seller-seed.js';
import { CUSTOMER } from '../../support/seller-api.js';
import { freePort } from '../../support/free-port.js';
import { spawnApi } from '../../support/api-process.js';
import { spawnDispatcher } from '../../support/dispatcher-process.js';
import { killHard } from '../../support/indexer-process.js';
import { eventually } from '../../support/eventually.js';
import { checkoutOrder } from '../../../src/orders/checkout.js';
import { createClient, type MarketplaceClient, type WebhookEvent } from '../../../clients/typescript/src/index.js';
import { fileCheckpoints, followOrders, pushInventory, webhookReceiver } from '../../../examples/platform-sync.js';

// The example Platform (examples/platform-sync.ts) against the live API and webhook dispatcher
// processes: it pushes an inventory file, works the orders from the poll (accept, then ship),
// restarting from its stored checkpoint, and verifies the webhooks the dispatcher delivers.

let ctx: TestContext;
let dir: string;
let client: MarketplaceClient;
let receiver: http.Server;
const events: WebhookEvent[] = [];
const children: ChildProcess[] = [];
const secret = `whsec_${randomBytes(24).toString('base64')}`;

beforeAll(async () => {
  ctx = await createTestContext();
  const keys = await seedSellerApi(ctx);
  receiver = webhookReceiver(secret, (e) => events.push(e));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  await ctx.pool.query(`INSERT INTO seller_webhooks (seller_id, url, secret) VALUES ($1, $2, $3)`, [MAPLE, hook, secret]);
  const env = { DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX };
  const port = await freePort();
  children.push(spawnDispatcher({ ...env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '200', WEBHOOK_RETRY_DELAYS_MS: '200,500' }));
  children.push(await spawnApi(port, { ...env, SHUTDOWN_DRAIN_MS: '0' }));
  client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: keys.maple });
  dir = await mkdtemp(path.join(tmpdir(), 'platform-sync-'));
}, 180_000);

afterAll(async () => {
  await Promise.all(children.map(killHard));
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
  await ctx?.close();
});

describe('the example Platform', () => {
  it('pushes its inventory file, past one call of 1,000 items', async () => {
    const file = path.join(dir, 'inventory.csv');
    const rows = ['skuId,productId,price,quantity,externalRef', '1001,101,450,50,bolt-nm', '2001,102,300,20,counter-nm'];
    for (let i = 0; i < 1200; i++) rows.push(`${300_000 + i},${800_000 + i},100,1,`);
    await writeFile(file, rows.join('\n') + '\n');
    expect(await pushInventory(client, file)).toEqual({ applied: 2, unmatched: 1200, rejected: 0 });
    expect((await client.store.status()).counts).toMatchObject({ matched: 2, unmatched: 1200 });
  });

  it('accepts and ships every order from the poll across restarts, and verifies the webhooks it receives', async () => {
    const checkpoints = fileCheckpoints(path.join(dir, 'checkpoint'));
    const tracking = (id: string) => ({ trackingCompany: 'Canada Post', trackingNumber: `CP-${id}` });
    const ids: string[] = [];
    const enter = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const orderId = `ord_sync_${ids.length + 1}`;
        await checkoutOrder(ctx.pool, {
          orderId,
          sellerId: MAPLE,
          currency: 'CAD',
          customer: CUSTOMER,
          shippingMethod: 'Tracked',
          lines: [{ skuId: 1001, quantity: 1 }],
        });
        ids.push(orderId);
      }
    };
    await enter(3);
    // Each pass is a fresh start from the stored checkpoint; orders keep arriving between passes.
    await followOrders(client, checkpoints, tracking);
    await enter(2);
    for (let pass = 0; pass < 5; pass++) await followOrders(client, checkpoints, tracking);
    for (const id of ids) expect(await client.orders.get(id)).toMatchObject({ status: 'shipped', fulfillment: { tracking_number: `CP-${id}` } });
    // Nothing left: a further pass hands over no change.
    expect(await followOrders(client, checkpoints, tracking)).toBe(0);

    await eventually(
      () => expect(new Set(events.filter((e) => e.type === 'order.created').map((e) => e.data.order_id))).toEqual(new Set(ids)),
      60_000,
      200,
    );
    const created = events.find((e) => e.type === 'order.created' && e.data.order_id === ids[0]);
    expect(created).toMatchObject({ api_version: '2026-07', data: { seller_id: MAPLE, lines: [{ sku_id: 1001, external_ref: 'bolt-nm' }] } });
  });

  it("refuses a delivery that is not the marketplace's", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
    const body = JSON.stringify({ id: 'msg_forged', type: 'order.created', api_version: '2026-07', created_at: new Date().toISOString(), data: {} });
    const headers = { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' };
    expect((await fetch(url, { method: 'POST', body, headers })).status).toBe(400);
    expect(events.some((e) => e.id === 'msg_forged')).toBe(false);
  });
});
