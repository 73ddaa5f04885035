import type { Pool, PoolClient } from '../src/db/pool.js';
import { pairsOfOrders, pairsOfSellers, pairsOfSkus, skusOfProducts, variantsOf } from '../src/db/offer-source.js';
import type { FeedRow } from '../src/db/change-feed.js';
import { addPair, addVariant, emptyTargets, type Targets } from './targets.js';

/** `ktext` of a 'seller' feed row that changed only the seller's counters (a review). */
export const SELLER_STATS = 'stats';

/**
 * Which documents a batch of changes touches. A seller change reaches every
 * offer of that seller, a product change every offer and sku of it, a store change its
 * variants; the platform PO-box switch reaches every native offer. An order change reaches the
 * offers of its own lines (whether its holds are outstanding follows its status) and the seller
 * document, which holds salesCount; a review reaches the seller document only. Neither rewrites
 * the store's other offers: reads join the counters from the seller document.
 */
export async function fanOut(db: Pool | PoolClient, rows: FeedRow[]): Promise<Targets> {
  const t = emptyTargets();
  const slugs = new Set<string>();
  const orders = new Set<string>();
  for (const r of rows) {
    switch (r.entity) {
      case 'listing':
        addPair(t, { sellerId: r.k1!, skuId: r.k2! }, r.offerOnly);
        break;
      case 'seller':
        if (r.ktext === SELLER_STATS) t.sellerDocs.add(r.k1!);
        else t.sellers.add(r.k1!);
        break;
      case 'order':
        t.sellerDocs.add(r.k1!);
        orders.add(r.ktext!);
        break;
      case 'product':
        t.products.add(r.k1!);
        break;
      case 'sku':
        t.skus.add(r.k1!);
        break;
      case 'store':
        slugs.add(r.ktext!);
        break;
      case 'variant':
        addVariant(t, r.k1!, r.offerOnly);
        break;
      case 'platform':
        t.allNative = true;
        break;
    }
  }
  for (const sku of await skusOfProducts(db, [...t.products])) t.skus.add(sku);
  const [sellerPairs, orderPairs, skuPairs, variants] = await Promise.all([
    pairsOfSellers(db, [...t.sellers]),
    pairsOfOrders(db, [...orders]),
    pairsOfSkus(db, [...t.skus]),
    variantsOf(db, { slugs: [...slugs], skuIds: [...t.skus] }),
  ]);
  for (const p of sellerPairs) addPair(t, p);
  for (const p of orderPairs) addPair(t, p);
  for (const p of skuPairs) addPair(t, p);
  for (const v of variants) addVariant(t, v);
  return t;
}
