import type { Pool } from '../../src/db/pool.js';

// A seeded, varied marketplace for differential tests: accents and punctuation in names, ties in
// price and name, null fields, multi-valued filters, handoff-only products, sellers on vacation,
// suspended, with missing prerequisites or old terms, sold-out and deleted listings, holds.
// Plain data only: the reference (reference.ts) reads it without any of the service's code.

export interface SProduct {
  productId: number;
  name: string | null;
  set: string | null;
  category: string | null;
  rarity: string | null;
  collectorNumber: string | null;
  imageUrl: string | null;
  details: { label: string; value: string }[];
}
export interface SSku {
  skuId: number;
  productId: number;
  condition: string | null;
  language: string | null;
  finish: string | null;
}
export interface SSeller {
  sellerId: number;
  sellerCode: string;
  storeName: string;
  currency: string;
  region: string;
  active: boolean;
  vacation: boolean;
  inventorySource: 'platform';
  apiKeys: string[];
  poBoxDelivery: 'available' | 'seller_declines';
  incompletePrerequisites: string[];
  termsVersion: string;
  shippingOptions: { method: string; cost: number; tracked: boolean }[];
  reviews: number[];
}
export interface SListing {
  sellerId: number;
  skuId: number;
  productId: number;
  price: number;
  quantity: number;
  externalRef?: string;
  asOf?: string;
}
export interface SVariant {
  variantId: number;
  skuId: number;
  productId: number;
  price: number;
  quantity: number;
}
export interface SStore {
  storeSlug: string;
  storeName: string;
  sellerCode: string | null;
  active: boolean;
  reviews: number[];
  variants: SVariant[];
}
export type SOrderStatus = 'created' | 'accepted' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
/** An order as checkout leaves it: one line and one hold per sku (`holds`), in its final status. */
export interface SOrder {
  orderId: string;
  sellerId: number;
  status: SOrderStatus;
  createdAt: string;
  hasMoney: boolean;
  holds: { skuId: number; productId: number; quantity: number }[];
}

export interface Scenario {
  fixture: {
    platform: { poBoxSuspended: boolean };
    products: SProduct[];
    skus: SSku[];
    sellers: SSeller[];
    listings: SListing[];
    handoffStores: SStore[];
  };
  /** Listings soft-deleted after the load. */
  deleted: { sellerId: number; skuId: number }[];
  /** Orders with their lines and holds, inserted after the load. */
  orders: SOrder[];
}

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  'Lightning Bolt',
  'lightning bolt',
  'Æther Vial',
  "Lim-Dûl's Vault",
  'Jötun Grunt',
  'Flabébé',
  'Pikachu',
  'Pikachu',
  'Éowyn, Fearless Knight',
  'Counterspell',
  'Dark Ritual',
  'Black Lotus',
  'Booster Box — Alpha',
  'Mew ex',
  'Séance',
  'Ice Age Booster',
  'Zur the Enchanter',
  'Ærenaut',
  'Bolt of Lightning',
  'Ｆｕｌｌｗｉｄｔｈ Ｃａｒｄ',
  '𝔊𝔬𝔱𝔥𝔦𝔠 Relic',
  null,
];
const CATEGORIES = ['Magic: The Gathering', 'Pokémon', 'Yu-Gi-Oh!', 'Lorcana', null];
const SETS = ['Alpha', 'Beta', 'Base Set', 'Jungle', 'Ice Age', null];
const RARITIES = ['Common', 'Uncommon', 'Rare', 'Mythic', null];
const CONDITIONS = ['Near Mint', 'Lightly Played', 'Damaged', 'Unopened', null];
const LANGUAGES = ['English', 'Japanese', 'Français', null];
const FINISHES = ['Non-Foil', 'Foil', null];
const PRICES = [100, 150, 150, 200, 250, 999, 100];

export function generateScenario(seed: number, size = { products: 40, listings: 260 }): Scenario {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

  const products: SProduct[] = [];
  const skus: SSku[] = [];
  for (let i = 0; i < size.products; i++) {
    const productId = 100 + i * 3; // gaps so unknown ids exist
    products.push({
      productId,
      name: pick(NAMES),
      set: pick(SETS),
      category: pick(CATEGORIES),
      rarity: pick(RARITIES),
      collectorNumber: rnd() < 0.2 ? null : String(1 + Math.floor(rnd() * 12)),
      imageUrl: rnd() < 0.5 ? `https://img.example/${productId}.jpg` : null,
      details: rnd() < 0.3 ? [{ label: 'Artist', value: 'Christopher Rush' }] : [],
    });
    const n = 1 + Math.floor(rnd() * 3);
    for (let j = 0; j < n; j++) {
      skus.push({ skuId: productId * 10 + j, productId, condition: pick(CONDITIONS), language: pick(LANGUAGES), finish: pick(FINISHES) });
    }
  }

  const seller = (sellerId: number, code: string, extra: Partial<SSeller> = {}): SSeller => ({
    sellerId,
    sellerCode: code,
    storeName: `Store ${code}`,
    currency: 'CAD',
    region: 'CA',
    active: true,
    vacation: false,
    inventorySource: 'platform',
    apiKeys: [],
    poBoxDelivery: 'available',
    incompletePrerequisites: [],
    termsVersion: '2026-07',
    shippingOptions: [{ method: 'Tracked', cost: 1299, tracked: true }],
    reviews: [5, 4, 4],
    ...extra,
  });
  const sellers: SSeller[] = [
    seller(1, 'maple'),
    seller(2, 'birch', { vacation: true }),
    seller(3, 'cedar', { active: false }),
    seller(4, 'spruce', { incompletePrerequisites: ['PAYOUTS_READY'] }),
    seller(5, 'oak', { termsVersion: '2025-01' }),
    seller(6, 'aspen', { reviews: [], poBoxDelivery: 'seller_declines', storeName: 'Aspen Émporium' }),
    seller(7, 'elm', { reviews: [1, 2] }),
    seller(8, 'Zed-9', { reviews: [3] }),
  ];

  const listings: SListing[] = [];
  const seen = new Set<string>();
  for (let i = 0; listings.length < size.listings && i < size.listings * 10; i++) {
    const s = pick(sellers);
    const sku = pick(skus);
    const key = `${s.sellerId}:${sku.skuId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    listings.push({
      sellerId: s.sellerId,
      skuId: sku.skuId,
      productId: sku.productId,
      price: pick(PRICES),
      quantity: pick([0, 1, 2, 5, 5]),
      ...(rnd() < 0.5 ? { asOf: '2026-11-01T00:00:00.000Z' } : {}),
    });
  }
  // A few unmatched listings (sku not in the catalog) for live sellers.
  for (let i = 0; i < 5; i++) {
    const p = pick(products);
    listings.push({ sellerId: 1 + (i % 3), skuId: 900_000 + i, productId: p.productId, price: 123, quantity: 3 });
  }

  const stores: SStore[] = [
    { storeSlug: 'north-shop', storeName: 'North Shop', sellerCode: 'north', active: true, reviews: [4], variants: [] },
    { storeSlug: 'south-shop', storeName: 'South Shop', sellerCode: null, active: true, reviews: [], variants: [] },
    { storeSlug: 'west-shop', storeName: 'West Shop', sellerCode: 'west', active: false, reviews: [5], variants: [] },
  ];
  let variantId = 1;
  for (const sku of skus) {
    if (rnd() < 0.2) {
      pick(stores).variants.push({ variantId: variantId++, skuId: sku.skuId, productId: sku.productId, price: pick(PRICES), quantity: pick([0, 1, 3]) });
    }
  }

  const live = listings.filter((l) => l.skuId < 900_000);
  const deleted = live.filter(() => rnd() < 0.06).map((l) => ({ sellerId: l.sellerId, skuId: l.skuId }));
  const orders: SOrder[] = [];
  const stocked = live.filter((l) => l.quantity > 0);
  for (let i = 0; i < 24; i++) {
    const l = pick(stocked);
    // Half of the orders have a second line: another stocked listing of the same seller.
    const other = rnd() < 0.5 ? pick(stocked.filter((x) => x.sellerId === l.sellerId && x.skuId !== l.skuId).concat([l])) : l;
    const lines = other === l ? [l] : [l, other];
    orders.push({
      orderId: `ord_${seed}_${i}`,
      sellerId: l.sellerId,
      // Every status, in turn, whatever the seed.
      status: (['created', 'accepted', 'shipped', 'delivered', 'cancelled', 'refunded'] as const)[i % 6]!,
      // Before or after the listing's asOf: a push at or after the order releases its hold.
      createdAt: pick(['2026-10-15T00:00:00.000Z', '2026-11-05T00:00:00.000Z']),
      hasMoney: rnd() < 0.8,
      holds: lines.map((x) => ({ skuId: x.skuId, productId: x.productId, quantity: 1 + Math.floor(rnd() * x.quantity) })),
    });
  }
  return {
    fixture: { platform: { poBoxSuspended: false }, products, skus, sellers, listings, handoffStores: stores },
    deleted,
    orders,
  };
}

/**
 * What the fixture format cannot express (deletes, orders as checkout leaves them: order, lines,
 * holds), applied by SQL. With `ordersAsCreated` every order is entered as `created` and
 * applyOrderStatuses() moves it to its final status later (so a live indexer sees the moves).
 */
export async function applyScenarioExtras(pool: Pool, s: Scenario, opts: { ordersAsCreated?: boolean } = {}): Promise<void> {
  for (const d of s.deleted) {
    await pool.query(`UPDATE listings SET deleted_at = now() WHERE seller_id = $1 AND sku_id = $2`, [d.sellerId, d.skuId]);
  }
  for (const o of s.orders) {
    await pool.query(`INSERT INTO orders (order_id, seller_id, status, created_at, has_money) VALUES ($1, $2, $3, $4, $5)`, [
      o.orderId,
      o.sellerId,
      opts.ordersAsCreated ? 'created' : o.status,
      o.createdAt,
      o.hasMoney,
    ]);
    for (const [position, h] of o.holds.entries()) {
      await pool.query(
        `INSERT INTO order_lines (order_id, position, sku_id, product_id, quantity, ordered_quantity, unit_price, name, set_name, condition)
         VALUES ($1, $2, $3, $4, $5, $5, 100, '', '', '')`,
        [o.orderId, position, h.skuId, h.productId, h.quantity],
      );
      await pool.query(`INSERT INTO holds (order_id, seller_id, sku_id, quantity) VALUES ($1, $2, $3, $4)`, [o.orderId, o.sellerId, h.skuId, h.quantity]);
    }
  }
}

/** Moves every order to its final status (after applyScenarioExtras with `ordersAsCreated`). */
export async function applyOrderStatuses(pool: Pool, s: Scenario): Promise<void> {
  for (const o of s.orders) {
    if (o.status !== 'created') await pool.query(`UPDATE orders SET status = $2 WHERE order_id = $1`, [o.orderId, o.status]);
  }
}
