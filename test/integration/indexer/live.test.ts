import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { startTestIndexer } from '../../support/indexer.js';
import { eventually } from '../../support/eventually.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import type { LiveIndexer } from '../../../indexer/live.js';
import type { CardDoc, OfferDoc } from '../../../src/search/documents/model.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { AllocationError, indexedVersion, indicesBehind, mappingVersion } from '../../../indexer/index-admin.js';
import { indexReads } from '../../../src/search/index-reads.js';
import { rebuild, type RebuildProgress } from '../../../indexer/rebuild.js';
import { createLogger } from '../../../src/lib/logger.js';
import { landingRequests, singleFilterRequests } from '../../../src/search/degraded/warm-set.js';
import { searchQuerySchema } from '../../../src/contract/buyer.js';

// Each change a Platform or ops can make must reach the index within 2 s, through the real
// PostgreSQL triggers, change feed, NOTIFY and bulk writes.

const KEY = 'mp_maple_4f9c2a7d0b1e8f3a6c5d9e2b7a1f0c4d';
const base = {
  products: [
    {
      productId: 101,
      name: 'Lightning Bolt',
      set: 'Alpha',
      category: 'Magic: The Gathering',
      rarity: 'Common',
      collectorNumber: '161',
      imageUrl: null,
      details: [],
    },
    { productId: 102, name: 'Pikachu', set: 'Base', category: 'Pokémon', rarity: 'Rare', collectorNumber: '58', imageUrl: null, details: [] },
  ],
  skus: [
    { skuId: 1001, productId: 101, condition: 'Near Mint', language: 'English', finish: 'Non-Foil' },
    { skuId: 1002, productId: 101, condition: 'Damaged', language: 'English', finish: 'Foil' },
    { skuId: 2001, productId: 102, condition: 'Unopened', language: 'Japanese', finish: null },
  ],
  sellers: [
    {
      sellerId: 7,
      sellerCode: 'maple',
      storeName: 'Maple Cards',
      currency: 'CAD',
      region: 'CA',
      active: true,
      vacation: false,
      inventorySource: 'platform',
      apiKeys: [KEY],
      poBoxDelivery: 'available',
      incompletePrerequisites: [],
      termsVersion: '2026-07',
      shippingOptions: [{ method: 'Tracked', cost: 1299, tracked: true }],
      reviews: [5, 4],
    },
    {
      sellerId: 8,
      sellerCode: 'birch',
      storeName: 'Birch',
      currency: 'CAD',
      region: 'CA',
      active: true,
      vacation: false,
      inventorySource: 'platform',
      apiKeys: [],
      poBoxDelivery: 'seller_declines',
      incompletePrerequisites: [],
      termsVersion: '2026-07',
      shippingOptions: [],
      reviews: [],
    },
  ],
  listings: [
    { sellerId: 7, skuId: 1001, productId: 101, price: 250, quantity: 4, externalRef: 'A-1', asOf: '2026-11-01T00:00:00.000Z' },
    { sellerId: 8, skuId: 1001, productId: 101, price: 240, quantity: 1 },
  ],
  handoffStores: [
    {
      storeSlug: 'north-shop',
      storeName: 'North Shop',
      sellerCode: 'north',
      active: true,
      reviews: [4],
      variants: [{ variantId: 55, skuId: 2001, productId: 102, price: 900, quantity: 2 }],
    },
  ],
};

let ctx: TestContext;
let indexer: LiveIndexer;

async function doc(id: string): Promise<(OfferDoc & { stats?: unknown }) | null> {
  const res = await ctx.es.get<OfferDoc>({ index: ctx.index.alias, id }, { ignore: [404] });
  return res.found ? res._source! : null;
}

/** Searches like a buyer read does (no forced refresh), so "visible" means searchable. */
async function shownOfferIds(productId: number): Promise<string[]> {
  const res = await ctx.es.search({
    index: ctx.index.alias,
    query: { bool: { filter: [{ term: { docType: 'offer' } }, { term: { shown: true } }, { term: { productId } }] } },
    sort: [{ price: 'asc' }],
  });
  return res.hits.hits.map((h) => h._id!);
}

beforeAll(async () => {
  ctx = await createTestContext();
  await loadFixture(ctx.pool, base);
  indexer = await startTestIndexer(ctx);
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

describe('live indexer', () => {
  it('builds the index from PostgreSQL on first start', async () => {
    await ctx.es.indices.refresh({ index: ctx.index.alias });
    expect(await shownOfferIds(101)).toEqual(['n:8:1001', 'n:7:1001']);
    const offer = (await doc('n:7:1001'))!.offer;
    expect(offer).toMatchObject({
      lane: 'native',
      sellerId: 7,
      sellerCode: 'maple',
      price: 250,
      available: 4,
      checkoutMode: 'express',
      poBoxDelivery: { status: 'available' },
    });
    // The store's counters live on the seller document only (reads join them into its offers).
    expect(offer).not.toHaveProperty('salesCount');
    expect(offer).not.toHaveProperty('reviewScore');
    expect(offer.disclosures?.gradingStandard).toBe('service-magic-v1');
    const handoff = (await doc('h:55'))!;
    expect(handoff.offer).toMatchObject({ lane: 'handoff', storeSlug: 'north-shop', isSealed: true, disclosures: null, salesCount: null });
    expect(await doc('p:101')).toMatchObject({ docType: 'product' });
    expect(await doc('k:2001')).toMatchObject({ docType: 'sku' });
    expect(await doc('s:7')).toMatchObject({
      cartSeller: { name: 'Maple Cards', browseEligible: true },
      stats: { salesCount: 0, reviewScore: { score: 4.5, count: 2 } },
    });
  });

  it('shows a new listing within 2 s', async () => {
    await ctx.pool.query(`INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 1002, 101, 99, 3, 'matched')`);
    await eventually(async () => expect(await shownOfferIds(101)).toEqual(['n:7:1002', 'n:8:1001', 'n:7:1001']));
  });

  it('takes a steady stream of changes in batches of what arrived meanwhile, not one batch per change', async () => {
    const before = indexer.metrics.batches;
    // 40 price changes, one transaction every 10 ms: about 400 ms of changes on a quiet machine.
    const started = Date.now();
    for (let i = 0; i < 40; i++) {
      await ctx.pool.query(`UPDATE listings SET price = price + 1 WHERE seller_id = 8 AND sku_id = 1001`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const streamedMs = Date.now() - started;
    await indexer.idle();
    const batches = indexer.metrics.batches - before;
    // At most one batch per 250 ms while they come (plus the first, taken at once, and the last):
    // bounded by how long the stream really took, which a loaded machine stretches.
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(2 + Math.ceil(streamedMs / 250));
    expect(batches).toBeLessThan(40);
    expect((await doc('n:8:1001'))!.offer.price).toBe(280);
    await ctx.pool.query(`UPDATE listings SET price = 240 WHERE seller_id = 8 AND sku_id = 1001`);
    await eventually(async () => expect((await doc('n:8:1001'))!.offer.price).toBe(240));
  });

  it('hides a seller on vacation and shows it again', async () => {
    await ctx.pool.query(`UPDATE sellers SET vacation = true WHERE seller_id = 7`);
    // The seller document goes in its own bulk request after the offers: wait for both.
    await eventually(async () => {
      expect(await shownOfferIds(101)).toEqual(['n:8:1001']);
      expect((await doc('s:7'))!).toMatchObject({ cartSeller: { vacation: true, browseEligible: false } });
    });
    await ctx.pool.query(`UPDATE sellers SET vacation = false WHERE seller_id = 7`);
    await eventually(async () => expect(await shownOfferIds(101)).toHaveLength(3));
  });

  it('hides a suspended seller', async () => {
    await ctx.pool.query(`UPDATE sellers SET active = false WHERE seller_id = 8`);
    await eventually(async () => expect(await shownOfferIds(101)).toEqual(['n:7:1002', 'n:7:1001']));
    // The offer stays in the index for the cart lookup, flagged not shown.
    expect((await doc('n:8:1001'))!.shown).toBe(false);
  });

  it('renames a product on every offer of it', async () => {
    await ctx.pool.query(`UPDATE products SET name = 'Lightning Bölt Remastered' WHERE product_id = 101`);
    await eventually(async () => {
      const d = (await doc('n:7:1001'))!;
      expect(d.item.name).toBe('Lightning Bölt Remastered');
      expect(d.nameTerms).toBe('lightning bolt remastered');
      expect((await doc('k:1001'))!).toMatchObject({ cart: { product: { name: 'Lightning Bölt Remastered' } } });
    });
  });

  it('subtracts outstanding holds from available, and sells out at zero', async () => {
    await ctx.pool.query(`INSERT INTO orders (order_id, seller_id, status) VALUES ('o1', 7, 'created')`);
    await ctx.pool.query(`INSERT INTO holds (order_id, seller_id, sku_id, quantity) VALUES ('o1', 7, 1001, 3)`);
    await eventually(async () => expect((await doc('n:7:1001'))!.offer.available).toBe(1));
    await ctx.pool.query(`INSERT INTO orders (order_id, seller_id, status) VALUES ('o2', 7, 'accepted')`);
    await ctx.pool.query(`INSERT INTO holds (order_id, seller_id, sku_id, quantity) VALUES ('o2', 7, 1001, 5)`);
    await eventually(async () => expect(await shownOfferIds(101)).toEqual(['n:7:1002']));
    expect((await doc('n:7:1001'))!).toMatchObject({ shown: false, available: 0 });
    // Shipping an order releases its hold; salesCount counts it.
    await ctx.pool.query(`UPDATE orders SET status = 'shipped' WHERE order_id = 'o2'`);
    await eventually(async () => {
      expect((await doc('n:7:1001'))!.offer).toMatchObject({ available: 1 });
      expect(await doc('s:7')).toMatchObject({ stats: { salesCount: 2 } });
    });
  });

  it('follows the platform PO-box switch, handoff stores and deletes', async () => {
    await ctx.pool.query(`UPDATE platform_settings SET po_box_suspended = true`);
    await eventually(async () => expect((await doc('n:7:1002'))!.offer.poBoxDelivery).toEqual({ status: 'platform_suspended' }));
    await ctx.pool.query(`UPDATE handoff_stores SET active = false WHERE store_slug = 'north-shop'`);
    await eventually(async () => expect(await shownOfferIds(102)).toEqual([]));
    await ctx.pool.query(`UPDATE listings SET deleted_at = now() WHERE seller_id = 7 AND sku_id = 1002`);
    await eventually(async () => expect(await doc('n:7:1002')).toBeNull());
  });

  it('keeps product cards in step, including an offer that moves to another product; a price change leaves the card as it is', async () => {
    const card = async (productId: number) => (await doc(`c:${productId}`)) as unknown as CardDoc | null;
    const reads = indexReads(ctx.es, ctx.index.alias);
    // Search items take their price from the offers: cards hold none.
    const fromPrice = async (productId: number, raw: Record<string, string> = {}) =>
      (await reads.search(searchQuerySchema.parse({ limit: '100', ...raw }), null)).items.find((i) => i.productId === productId)?.fromPrice;
    // After the steps above only maple's Near Mint copy of 101 is shown, and 102's store is inactive.
    await eventually(async () => {
      expect(await card(101)).toMatchObject({
        docType: 'card',
        condition: ['Near Mint'],
        language: ['English'],
        finish: ['Non-Foil'],
        sellerFacet: ['maple\u0000Maple Cards'],
        card: { productId: 101, name: 'Lightning Bölt Remastered', sellerCount: 1, isSealed: false },
      });
      expect(await fromPrice(101)).toBe(250);
      expect(await card(102)).toBeNull();
    });
    await ctx.pool.query(`UPDATE handoff_stores SET active = true WHERE store_slug = 'north-shop'`);
    await eventually(async () =>
      expect(await card(102)).toMatchObject({
        sellerFacet: ['north\u0000North Shop'],
        card: { sellerCount: 1, isSealed: true, disclosures: null },
      }),
    );
    await eventually(async () => expect(await fromPrice(102)).toBe(900));
    // The handoff variant's sku now belongs to 101: 102 loses its only offer (its card found
    // through the index's old productId of h:55), 101 gains a sealed offer from a second store.
    await ctx.pool.query(`UPDATE skus SET product_id = 101 WHERE sku_id = 2001`);
    await eventually(async () => {
      expect(await card(102)).toBeNull();
      expect(await card(101)).toMatchObject({
        condition: ['Near Mint', 'Unopened'],
        sellerFacet: ['maple\u0000Maple Cards', 'north\u0000North Shop'],
        card: { sellerCount: 2, isSealed: true },
      });
      expect(await fromPrice(101)).toBe(250);
      expect(await fromPrice(101, { condition: 'Unopened' })).toBe(900);
    });
    // A price change rewrites the offer and not the card (its sequence number stays), and search shows it.
    const seqNo = async () => (await ctx.es.get({ index: ctx.index.alias, id: 'c:101' }))._seq_no;
    const before = await seqNo();
    await ctx.pool.query(`UPDATE handoff_variants SET price = 120 WHERE variant_id = 55`);
    await eventually(async () => {
      expect(await fromPrice(101)).toBe(120);
      expect(await fromPrice(101, { condition: 'Near Mint' })).toBe(250);
    });
    expect(await seqNo()).toBe(before);
  });

  it("renames a store and a seller in the cards' groups and combination keys, which answer offer-level searches", async () => {
    const card = async (productId: number) => (await doc(`c:${productId}`)) as unknown as CardDoc | null;
    const reads = indexReads(ctx.es, ctx.index.alias);
    const sellerFacet = async (raw: Record<string, string>) => (await reads.search(searchQuerySchema.parse(raw), null)).facets.seller;
    await ctx.pool.query(`UPDATE handoff_stores SET store_name = 'North Shop Two' WHERE store_slug = 'north-shop'`);
    await ctx.pool.query(`UPDATE sellers SET store_name = 'Maple Cards II' WHERE seller_id = 7`);
    await eventually(async () => {
      const c = (await card(101))!;
      expect(c.groups.map((g) => g.sellerFacet)).toEqual(['maple\u0000Maple Cards II', 'north\u0000North Shop Two']);
      expect(c.x_cms).toEqual(['Near Mint\u0000express\u0000maple\u0000Maple Cards II', 'Unopened\u0000manual\u0000north\u0000North Shop Two']);
      // the seller facet under two other offer-level selections reads x_cms
      expect(await sellerFacet({ condition: 'Unopened', checkoutMode: 'manual' })).toEqual([
        { sellerCode: 'north', storeName: 'North Shop Two', count: 1 },
      ]);
      expect(await sellerFacet({ condition: 'Near Mint', language: 'English' })).toEqual([{ sellerCode: 'maple', storeName: 'Maple Cards II', count: 1 }]);
    });
  });

  it("takes an offer's group off its card when its listing goes, even if the offer never reached the index (a batch cut off after its cards)", async () => {
    const groupKeys = async () => ((await doc('c:101')) as unknown as CardDoc).groups.map((g) => `${g.skuId}/${g.storeKey}`);
    await ctx.pool.query(
      `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 1002, 101, 330, 3, 'matched')
       ON CONFLICT (seller_id, sku_id) DO UPDATE SET quantity = 3, deleted_at = NULL`,
    );
    await eventually(async () => expect(await groupKeys()).toContain('1002/n:7'));
    await indexer.idle();
    // The card shows the offer; the offer document is not in the index (its bulk request never landed).
    await ctx.es.delete({ index: ctx.index.alias, id: 'n:7:1002', refresh: true });
    await ctx.pool.query(`UPDATE listings SET deleted_at = now() WHERE seller_id = 7 AND sku_id = 1002`);
    await eventually(async () => expect(await groupKeys()).not.toContain('1002/n:7'));
  });

  it("rewrites a repriced listing's and handoff variant's offers without reading their card (no price on a card); a stock change reads the card and mends it", async () => {
    await indexer.idle();
    // A card gone from the index behind the indexer's back: only a change that can move a card looks.
    await ctx.es.delete({ index: ctx.index.alias, id: 'c:101', refresh: true });
    await ctx.pool.query(`UPDATE listings SET price = 260, external_ref = 'A-2' WHERE seller_id = 7 AND sku_id = 1001`);
    await ctx.pool.query(`UPDATE handoff_variants SET price = 130 WHERE variant_id = 55`);
    await eventually(async () => {
      expect((await doc('n:7:1001'))!.offer).toMatchObject({ price: 260 });
      expect((await doc('h:55'))!.offer).toMatchObject({ price: 130 });
    });
    await indexer.idle();
    expect(await doc('c:101')).toBeNull();
    await ctx.pool.query(`UPDATE listings SET quantity = quantity + 1 WHERE seller_id = 7 AND sku_id = 1001`);
    await eventually(async () => expect(await doc('c:101')).toMatchObject({ docType: 'card', card: { productId: 101 } }));
  });

  it('leaves the index equal to a fresh computation from PostgreSQL', async () => {
    await indexer.idle();
    await expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 10);
  });

  it('reports lag and throughput', () => {
    expect(indexer.metrics.batches).toBeGreaterThan(0);
    expect(indexer.metrics.docs).toBeGreaterThan(0);
    expect(indexer.metrics.errors).toBe(0);
  });
});

describe('live indexer on an index of an older document model', () => {
  it('rebuilds it on start, cards included, and moves the alias to the new index', async () => {
    await indexer.stop();
    // What an index written before product cards looks like: mapping version 1, no card docs.
    const [before] = await indicesBehind(ctx.es, ctx.index.alias);
    await ctx.es.indices.putMapping({ index: before!, _meta: { version: 1 } });
    // (No _delete_by_query: the integ-test distribution has no reindex module.)
    const cards = await ctx.es.search({ index: before!, size: 1000, query: { term: { docType: 'card' } }, _source: false });
    expect(cards.hits.hits.length).toBeGreaterThan(0);
    await ctx.es.bulk({ refresh: true, operations: cards.hits.hits.map((h) => ({ delete: { _index: before!, _id: h._id! } })) });
    expect(await indexedVersion(ctx.es, ctx.index.alias)).toBe(1);

    indexer = await startTestIndexer(ctx);

    const after = await indicesBehind(ctx.es, ctx.index.alias);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    expect(await indexedVersion(ctx.es, ctx.index.alias)).toBe(mappingVersion());
    await expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 10);
    expect(await ctx.es.exists({ index: ctx.index.alias, id: 'c:101' })).toBe(true);
  });
});

describe('rebuild', () => {
  it('asks the new index the warm set (landing grid, then each single-filter grid) after allocation and before the swap', async () => {
    const phases: RebuildProgress['phase'][] = [];
    const before = await indicesBehind(ctx.es, ctx.index.alias);
    const result = await rebuild({
      pool: ctx.pool,
      es: ctx.es,
      index: ctx.index,
      logger: createLogger('silent'),
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
    });
    expect(phases).toEqual(['snapshot', 'catch-up', 'allocation', 'warm-up', 'swap', 'done']);
    expect(await indicesBehind(ctx.es, ctx.index.alias)).toEqual([result.index]);
    expect(before).not.toContain(result.index);
    // Nobody but the warm-up searched the new index: its search count is two per request of the
    // warm set (the cards, then their offers' prices: every request of it lists products).
    const stats = await ctx.es.indices.stats({ index: result.index, metric: 'search' });
    const landing = await indexReads(ctx.es, ctx.index.alias).search(searchQuerySchema.parse({}), null);
    const warmSet = landingRequests().length + singleFilterRequests(landing.facets, 100).length;
    expect(warmSet).toBeGreaterThan(10);
    expect(stats._all.primaries?.search?.query_total).toBe(2 * warmSet);
  });

  it('stopped while it waits for a replica the cluster cannot place, stops then, not when the wait gives up, and deletes its index', async () => {
    // One node cannot hold a replica: the wait would end in an AllocationError after its 5 s settle.
    const concrete = async () => Object.keys(await ctx.es.indices.get({ index: `${ctx.index.alias}-*` })).sort();
    const before = await concrete();
    const stop = new AbortController();
    const outcome = rebuild({
      pool: ctx.pool,
      es: ctx.es,
      index: { ...ctx.index, layout: { shards: 1, replicas: 1 } },
      logger: createLogger('silent'),
      signal: stop.signal,
    }).then(
      () => null,
      (err: unknown) => err,
    );
    // The new index exists: the rebuild is waiting for its replica. Stop it.
    await eventually(async () => expect((await concrete()).length).toBeGreaterThan(before.length), 10_000, 20);
    stop.abort(new Error('stopped by the operator'));
    const err = await outcome;
    expect(err).not.toBeInstanceOf(AllocationError);
    expect((err as Error).message).toBe('stopped by the operator');
    // The index it was building is gone; the alias's index was never touched.
    expect(await concrete()).toEqual(before);
  });
});
