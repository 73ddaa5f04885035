import type { Pool, PoolClient } from '../src/db/pool.js';
import { pairsOfSellers, pairsOfSkus, skusOfProducts, variantsOf } from '../src/db/offer-source.js';
import type { FeedRow } from '../src/db/change-feed.js';
import { addPair, emptyTargets, type Targets } from './targets.js';

/**
 * Which documents a batch of changes touches (issue: fan-out). A seller change reaches every
 * offer of that seller, a product change every offer and sku of it, a store change its
 * variants; the platform PO-box switch reaches every native offer.
 */
export async function fanOut(db: Pool | PoolClient, rows: FeedRow[]): Promise<Targets> {
  const t = emptyTargets();
  const slugs = new Set<string>();
  for (const r of rows) {
    switch (r.entity) {
      case 'listing':
        addPair(t, { sellerId: r.k1!, skuId: r.k2! });
        break;
      case 'seller':
      // falls through: until salesCount is joined at read time, an order change still reaches the whole seller.
      case 'order':
        t.sellers.add(r.k1!);
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
        t.variants.add(r.k1!);
        break;
      case 'platform':
        t.allNative = true;
        break;
    }
  }
  for (const sku of await skusOfProducts(db, [...t.products])) t.skus.add(sku);
  const [sellerPairs, skuPairs, variants] = await Promise.all([
    pairsOfSellers(db, [...t.sellers]),
    pairsOfSkus(db, [...t.skus]),
    variantsOf(db, { slugs: [...slugs], skuIds: [...t.skus] }),
  ]);
  for (const p of sellerPairs) addPair(t, p);
  for (const p of skuPairs) addPair(t, p);
  for (const v of variants) t.variants.add(v);
  return t;
}
