import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createEsClient } from '../../../src/es/client.js';
import { indexNames } from '../../../src/es/index-names.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import type { Client } from '@elastic/elasticsearch';
import { spawnApi } from '../../support/api-process.js';
import { exited, spawnDispatcher } from '../../support/dispatcher-process.js';
import { eventually } from '../../support/eventually.js';
import { freePort } from '../../support/free-port.js';
import { spawnIndexer } from '../../support/indexer-process.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { addSeller, insertEvents, startReceiver, type Receiver } from '../../support/outbox.js';
import { startPgNodeWithDatabase, type PgNode } from '../../support/pg-node.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp, writeBurst } from '../../support/write-burst.js';

// PostgreSQL crashes and comes back under the three running processes (API, indexer, webhook
// dispatcher, each the real `npm run` process): each reconnects by itself, LISTEN included (their
// safety-net polls are set to 10 minutes, so a change or an event written after the restart
// reaches the index or the seller within seconds only through NOTIFY), nothing committed is lost,
// and nobody restarts anything by hand.

const TEN_MINUTES = '600000';

let node: PgNode;
let pool: Pool;
let es: Client;
let receiver: Receiver;
let base: string;
const index = indexNames(`${inject('runId')}_pgrestart_processes`);
const children: Record<'api' | 'indexer' | 'webhooks', ChildProcess> = {} as never;
const SELLER = 9001;

beforeAll(async () => {
  // A throwaway server: restarting the shared one would break the other test files.
  let databaseUrl: string;
  ({ node, databaseUrl } = await startPgNodeWithDatabase());
  pool = createPool(databaseUrl, 6);
  es = createEsClient(inject('elasticsearchUrl'), 30_000);
  await loadFixture(pool, generateScenario(8, { products: 120, listings: 1200 }).fixture);
  receiver = await startReceiver();
  await addSeller(pool, SELLER, `${receiver.url}/hooks`);

  const env = { DATABASE_URL: databaseUrl, ELASTICSEARCH_URL: inject('elasticsearchUrl'), INDEX_PREFIX: index.alias.replace(/-market$/, '') };
  const quiet = { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error' };
  children.indexer = spawnIndexer({ ...env, ...quiet, INDEXER_POLL_MS: TEN_MINUTES });
  children.webhooks = spawnDispatcher({ ...env, ...quiet, WEBHOOK_POLL_MS: TEN_MINUTES, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const port = await freePort();
  children.api = await spawnApi(port, { ...env, SHUTDOWN_DRAIN_MS: '0' });
  base = `http://127.0.0.1:${port}`;
  await caughtUp(pool, 'live', 240_000);
}, 600_000);

afterAll(async () => {
  for (const child of Object.values(children)) {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  }
  await pool?.end();
  await es?.indices.delete({ index: `${index.alias}*` }, { ignore: [404] });
  await es?.close();
  await receiver?.close();
  node?.destroy();
});

const t0 = Date.now();
/** Where the test is (on a failure, the last line says which step did not finish). */
const step = (what: string) => console.error(`[postgres-restart +${((Date.now() - t0) / 1000).toFixed(1)} s] ${what}`);
/** /readyz's status: 'ready' once PostgreSQL answers and the breaker in front of the cluster is closed. */
const readiness = async () => {
  const res = await fetch(`${base}/readyz`).catch(() => null);
  return res ? (((await res.json()) as { data?: { status: string } }).data?.status ?? `http ${res.status}`) : 'down';
};
const delivered = (eventId: string) => receiver.received.some((r) => r.body.includes(eventId) || r.headers['webhook-id'] === eventId);

interface Shown {
  productId: number;
  sellerId: number;
  skuId: number;
  price: number;
}

/** A listing's price as the API answers its product page, or what the page showed instead (for the failure message). */
async function listedPrice(l: Shown): Promise<number | string> {
  const res = await fetch(`${base}/products/${l.productId}?limit=100`);
  if (res.status !== 200) return `HTTP ${res.status}`;
  const body = (await res.json()) as {
    data: { offers: { lane: string; sellerId: number | null; skuId: number; price: number }[] };
    degraded?: boolean;
  };
  const offer = body.data.offers.find((o) => o.lane === 'native' && o.sellerId === l.sellerId && o.skuId === l.skuId);
  if (offer && !body.degraded) return offer.price;
  return `${offer ? `price ${offer.price}` : 'no such offer'} among ${body.data.offers.length}${body.degraded ? ', degraded' : ''}`;
}

/**
 * Changes the price (in cents) of a listing the API shows, in PostgreSQL; resolves with what to look for.
 * The index is refreshed first: a checkpoint past every change does not make the last batch
 * searchable until the next refresh, and a listing the burst just deleted or held would still
 * show, be repriced, and then vanish instead of showing the new price.
 */
async function repriceAShownListing(price: number): Promise<Shown> {
  await es.indices.refresh({ index: index.alias });
  const items = ((await (await fetch(`${base}/search?limit=24`)).json()) as { data: { items: { productId: number }[] } }).data.items;
  for (const { productId } of items) {
    const page = (await (await fetch(`${base}/products/${productId}?limit=100`)).json()) as {
      data: { offers: { lane: string; sellerId: number | null; skuId: number }[] };
    };
    const native = page.data.offers.find((o) => o.lane === 'native' && o.sellerId !== null);
    if (!native) continue;
    const { rowCount } = await pool.query('UPDATE listings SET price = $3 WHERE seller_id = $1 AND sku_id = $2 AND deleted_at IS NULL', [
      native.sellerId,
      native.skuId,
      price,
    ]);
    if (rowCount !== 1) throw new Error(`the shown listing ${native.sellerId}/${native.skuId} is not live in PostgreSQL`);
    return { productId, sellerId: native.sellerId!, skuId: native.skuId, price };
  }
  throw new Error('no native offer on the first page of search');
}

describe('PostgreSQL restarted under the running API, indexer and dispatcher', () => {
  it('each reconnects by itself, LISTEN included, and nothing committed is lost', async () => {
    // Ready, and answering from the index (not in Degraded Mode: its answers could be the last-good ones).
    await eventually(async () => expect(await readiness()).toBe('ready'), 120_000, 500);
    const before = await insertEvents(pool, [{ sellerId: SELLER }, { sellerId: SELLER }]);
    await eventually(() => expect(before.every((e) => delivered(e.eventId))).toBe(true), 60_000, 200);

    // Writes and events committed just before the crash, while the processes work on them.
    await writeBurst(pool, { transactions: 200, concurrency: 4, seed: 21 });
    const during = await insertEvents(pool, [{ sellerId: SELLER }, { sellerId: SELLER }, { sellerId: SELLER }]);
    step('crash and restart');
    await node.crashAndRestart(2000);
    step('restarted');

    // The API: PostgreSQL answers again, and so does /readyz, without a restart.
    await eventually(async () => expect(await readiness()).toBe('ready'), 120_000, 500);

    step('API ready again');
    // Whatever was committed before the crash is indexed and delivered (the reconnects' catch-up).
    await caughtUp(pool, 'live', 120_000);
    await eventually(() => expect(during.every((e) => delivered(e.eventId))).toBe(true), 120_000, 200);

    step('caught up and delivered what was committed before');
    // A first change and event after the restart: taken by whichever wakes the processes first.
    const first = await repriceAShownListing(12_345);
    const firstEvent = await insertEvents(pool, [{ sellerId: SELLER }]);
    await eventually(async () => expect(await listedPrice(first)).toBe(first.price), 120_000, 250);
    await eventually(() => expect(delivered(firstEvent[0]!.eventId)).toBe(true), 120_000, 200);

    step('first change and event through');
    // A second one: with the polls at 10 minutes, only NOTIFY on a live LISTEN brings it within 30 s.
    const second = await repriceAShownListing(23_456);
    const secondEvent = await insertEvents(pool, [{ sellerId: SELLER }]);
    await eventually(async () => expect(await listedPrice(second)).toBe(second.price), 30_000, 250);
    await eventually(() => expect(delivered(secondEvent[0]!.eventId)).toBe(true), 30_000, 200);

    step('second change and event through');
    // Nothing lost: the index equals what PostgreSQL says it should hold; no process died.
    await caughtUp(pool, 'live', 120_000);
    await expectIndexMatchesSource(pool, es, index.alias, 1000);
    for (const [name, child] of Object.entries(children)) expect(child.exitCode, name).toBeNull();

    // And each stops cleanly.
    for (const child of Object.values(children)) child.kill('SIGTERM');
    for (const [name, child] of Object.entries(children)) expect(await exited(child), name).toEqual({ code: 0, signal: null });
  }, 600_000);
});
