import type { FixtureHandoffStore, FixtureListing, FixtureProduct, FixtureSeller, FixtureSku } from '../../src/fixtures/schema.js';
import { STORED_PREREQUISITES } from '../../src/fixtures/schema.js';
import { cardNameCount, popularRank, rankedCardNames } from './names.js';
import { Rng } from './prng.js';
import {
  ARTISTS,
  CONDITIONS,
  CONDITION_FACTOR,
  GAMES,
  HANDOFF_STORES,
  PROVINCES,
  SEALED_CONDITION,
  SHIPPING_OPTIONS,
  STORE_FIRSTS,
  STORE_SECONDS,
  type Game,
} from './vocab.js';

// The sample marketplace as pure functions of (seed, N). Ids are dense so that any entity can be
// computed from its id alone: product p has skus 3p-2..3p; seller s lists a slice of the sku
// space chosen by a per-seller permutation, so (seller, sku) pairs never repeat and nothing has
// to be remembered while streaming millions of listings.

const KIND = { product: 1, seller: 2, listing: 3, quota: 4, variant: 5, store: 6, names: 7 } as const;
export const SKUS_PER_PRODUCT = 3;
/** Sku ids at or above this are not in the catalog (unmatched listings / variants). */
export const UNMATCHED_SKU_BASE = 50_000_000;
const UNMATCHED_VARIANT_SKU_BASE = 60_000_000;
const AS_OF_BASE = Date.parse('2026-11-01T00:00:00.000Z');

export interface SampleSizes {
  listings: number;
  products: number;
  skus: number;
  sellers: number;
  handoffStores: number;
  variants: number;
}

/** Realistic ratios: products ≈ N/8, skus = products × 3, sellers ≈ 50 + N/20000, a handful of handoff stores. */
export function sampleSizes(listings: number): SampleSizes {
  const products = Math.max(1, Math.round(listings / 8));
  const skus = products * SKUS_PER_PRODUCT;
  return {
    listings,
    products,
    skus,
    sellers: 50 + Math.floor(listings / 20_000),
    handoffStores: HANDOFF_STORES.length,
    variants: Math.min(skus, Math.max(5, Math.round(listings / 100))),
  };
}

interface ProductSpec {
  product: FixtureProduct;
  game: Game;
  sealed: boolean;
  basePrice: number;
}

let covering: { seed: number; names: number; walk: (k: number) => number } | undefined;

/**
 * The rank of product `productId`'s card name. The first cardNameCount products take one name
 * each (a seeded permutation), so the sample holds every name of its vocabulary; the rest draw by
 * popularity, so a few names carry many products and the long tail few.
 */
function cardRank(seed: number, names: number, productId: number, r: Rng): number {
  if (productId > names) return popularRank(r.next(), names);
  if (covering?.seed !== seed || covering.names !== names) covering = { seed, names, walk: permutation(Rng.for(seed, KIND.names), names) };
  return covering.walk(productId - 1);
}

function productSpec(seed: number, sizes: SampleSizes, productId: number): ProductSpec {
  const r = Rng.for(seed, KIND.product, productId);
  const names = cardNameCount(sizes.products);
  const sealed = productId > names && r.chance(0.06);
  if (sealed) {
    const game = r.weighted(GAMES.map((g) => [g, g.weight] as const));
    const set = r.pick(game.sets);
    return {
      game,
      sealed,
      basePrice: r.between(4_000, 40_000),
      product: {
        productId,
        name: `${set.name} ${r.pick(game.sealed)}`,
        set: set.name,
        category: game.category,
        rarity: null,
        collectorNumber: null,
        imageUrl: `https://img.example/${productId}.jpg`,
        details: [],
      },
    };
  }
  const { name, game } = rankedCardNames()[cardRank(seed, names, productId, r)]!;
  const set = r.pick(game.sets);
  const rarity = r.weighted(game.rarities);
  const tier = game.rarities.findIndex(([name]) => name === rarity);
  return {
    game,
    sealed,
    // Roughly log-normal by rarity tier: commons cost cents, the top tier hundreds of dollars.
    basePrice: Math.round(25 * Math.pow(3.5, tier) * (0.5 + r.next() * 2)),
    product: {
      productId,
      name,
      set: set.name,
      category: game.category,
      rarity,
      collectorNumber: game.collectorNumber(set.code, set.size, r.between(1, set.size)),
      imageUrl: r.chance(0.97) ? `https://img.example/${productId}.jpg` : null,
      details: [{ label: 'Artist', value: r.pick(ARTISTS) }],
    },
  };
}

export const product = (seed: number, sizes: SampleSizes, productId: number): FixtureProduct => productSpec(seed, sizes, productId).product;

interface SkuSpec {
  sku: FixtureSku;
  price: number;
}
interface Printing {
  condition: string;
  language: string;
  finish: string | null;
}

function allPrintings(spec: ProductSpec): Printing[] {
  const languages = spec.game.languages.map(([l]) => l);
  if (spec.sealed) return languages.map((language) => ({ condition: SEALED_CONDITION, language, finish: null }));
  return CONDITIONS.flatMap(([condition]) => spec.game.finishes.flatMap(([finish]) => languages.map((language) => ({ condition, language, finish }))));
}

/** The three skus of a product (distinct printings), with a reference price each. */
function skuSpecs(seed: number, sizes: SampleSizes, productId: number): SkuSpec[] {
  const spec = productSpec(seed, sizes, productId);
  const r = Rng.for(seed, KIND.product, productId, 1);
  const first = (productId - 1) * SKUS_PER_PRODUCT + 1;
  const seen = new Set<string>();
  const out: SkuSpec[] = [];
  const key = (c: Printing) => `${c.condition}|${c.language}|${c.finish}`;
  const draw = (k: number): Printing =>
    spec.sealed
      ? { condition: SEALED_CONDITION, language: k === 0 ? 'English' : r.weighted(spec.game.languages), finish: null }
      : k === 0
        ? { condition: 'Near Mint', language: 'English', finish: spec.game.finishes[0]![0] }
        : { condition: r.weighted(CONDITIONS), language: r.weighted(spec.game.languages), finish: r.weighted(spec.game.finishes) };
  for (let k = 0; k < SKUS_PER_PRODUCT; k++) {
    let printing = draw(k);
    for (let attempt = 0; seen.has(key(printing)) && attempt < 10; attempt++) printing = draw(k);
    // Still a repeat (few languages, sealed): take the first unused printing, deterministically.
    if (seen.has(key(printing))) printing = allPrintings(spec).find((c) => !seen.has(key(c)))!;
    seen.add(key(printing));
    const { condition, language, finish } = printing;
    const foil = finish !== null && finish !== spec.game.finishes[0]![0] ? 1.8 : 1;
    out.push({
      sku: { skuId: first + k, productId, condition, language, finish },
      price: Math.max(5, Math.round(spec.basePrice * (CONDITION_FACTOR[condition] ?? 1) * foil)),
    });
  }
  return out;
}

export const skusOf = (seed: number, sizes: SampleSizes, productId: number): FixtureSku[] => skuSpecs(seed, sizes, productId).map((s) => s.sku);

export const productOfSku = (skuId: number): number => Math.floor((skuId - 1) / SKUS_PER_PRODUCT) + 1;

/** Reference prices of every sku, computed once per run (skus × 4 bytes). */
export class PriceBook {
  private readonly prices: Int32Array;

  constructor(
    private readonly seed: number,
    private readonly sizes: SampleSizes,
  ) {
    this.prices = new Int32Array(sizes.skus + 1);
  }

  price(skuId: number): number {
    let p = this.prices[skuId]!;
    if (p === 0) {
      for (const s of skuSpecs(this.seed, this.sizes, productOfSku(skuId))) this.prices[s.sku.skuId] = s.price;
      p = this.prices[skuId]!;
    }
    return p;
  }
}

const asciiSlug = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const TERMS_DRIFT = ['2025-01', '2025-09'];
const OPTIONAL_PREREQS = STORED_PREREQUISITES.filter((c) => c !== 'CURRENT_SELLER_TERMS_ACCEPTED' && c !== 'SHIPPING_OPTION_CONFIGURED');

/**
 * Seller `id`. Sellers 1..3 are always healthy (browse-eligible, platform-fed) so demos have
 * known-good stores; the rest get realistic trouble: suspended, on vacation, missing
 * prerequisites, outdated terms, other inventory sources.
 */
export function seller(seed: number, id: number): FixtureSeller {
  const r = Rng.for(seed, KIND.seller, id);
  const healthy = id <= 3;
  const storeName = `${r.pick(STORE_FIRSTS)} ${r.pick(STORE_SECONDS)}`;
  const sellerCode = `${asciiSlug(storeName).slice(0, 50)}-${id}`;
  const usd = !healthy && r.chance(0.1);
  const shippingCount = healthy
    ? 2
    : r.weighted([
        [0, 3],
        [1, 40],
        [2, 40],
        [3, 17],
      ] as const);
  const shippingOptions = SHIPPING_OPTIONS.slice(0, shippingCount).map((o) => ({ ...o }));
  const prereqs: Array<(typeof STORED_PREREQUISITES)[number]> = [];
  if (shippingCount === 0) prereqs.push('SHIPPING_OPTION_CONFIGURED');
  if (!healthy && r.chance(0.08)) prereqs.push(r.pick(OPTIONAL_PREREQS));
  const termsRoll = r.next();
  const reviewCount = r.weighted([
    [0, 15],
    [3, 30],
    [12, 35],
    [40, 20],
  ] as const);
  const reviews = Array.from({ length: reviewCount }, () =>
    r.weighted([
      [5, 60],
      [4, 25],
      [3, 9],
      [2, 3],
      [1, 3],
    ] as const),
  );
  const keyCount = r.chance(0.1) ? 2 : 1;
  const apiKeys = Array.from({ length: keyCount }, () => `mp_${sellerCode}_${r.hex(32)}`);
  const webhook = r.chance(0.3)
    ? { url: `https://hooks.example/${sellerCode}`, secret: `whsec_${r.hex(24)}`, cancelEvent: r.pick(['order.cancelled', 'inventory.adjusted'] as const) }
    : undefined;
  return {
    sellerId: id,
    sellerCode,
    storeName,
    currency: usd ? 'USD' : 'CAD',
    region: usd ? 'US' : `CA-${r.weighted(PROVINCES)}`,
    active: healthy || !r.chance(0.05),
    vacation: !healthy && r.chance(0.08),
    inventorySource: healthy
      ? 'platform'
      : r.weighted([
          ['platform', 80],
          ['manual', 12],
          ['csv', 8],
        ] as const),
    apiKeys,
    poBoxDelivery: !healthy && r.chance(0.15) ? 'seller_declines' : 'available',
    incompletePrerequisites: [...new Set(prereqs)],
    termsVersion: healthy || termsRoll >= 0.07 ? '2026-07' : termsRoll < 0.02 ? null : r.pick(TERMS_DRIFT),
    shippingOptions,
    reviews,
    ...(webhook ? { webhook } : {}),
  };
}

/** How many listings each seller has: a long tail (a few big stores), summing to exactly N, each <= skus. */
export function sellerQuotas(seed: number, sizes: SampleSizes): number[] {
  const r = Rng.for(seed, KIND.quota);
  const weights = Array.from({ length: sizes.sellers }, (_, i) => Math.pow(i + 1, -0.8) * (0.7 + 0.6 * r.next()));
  const total = weights.reduce((a, b) => a + b, 0);
  const quotas = weights.map((w) => Math.min(sizes.skus, Math.floor((sizes.listings * w) / total)));
  let left = sizes.listings - quotas.reduce((a, b) => a + b, 0);
  if (sizes.listings > sizes.sellers * sizes.skus) throw new Error('more listings than seller × sku pairs');
  // Hand out the remainder (rounding, caps) to sellers with room, biggest first.
  for (let i = 0; left > 0; i = (i + 1) % quotas.length) {
    const give = Math.min(sizes.skus - quotas[i]!, left, Math.ceil(left / quotas.length));
    quotas[i]! += give;
    left -= give;
  }
  return quotas;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** A random permutation walk over [0, n): start + k·step mod n with gcd(step, n) = 1. */
function permutation(r: Rng, n: number): (k: number) => number {
  const start = r.int(n);
  let step = 1 + r.int(Math.max(1, n - 1));
  while (gcd(step, n) !== 1) step = (step % n) + 1;
  return (k) => (start + k * step) % n;
}

/**
 * The listings of one seller, streamed. ~1% name a sku the catalog lacks (unmatched), ~5% are
 * sold out (quantity 0). `ordinal` makes unmatched sku ids unique across the whole sample.
 */
export function* sellerListings(
  seed: number,
  sizes: SampleSizes,
  sellerId: number,
  sellerCode: string,
  quota: number,
  prices: PriceBook,
  ordinalStart: number,
): Generator<FixtureListing> {
  const r = Rng.for(seed, KIND.listing, sellerId);
  const walk = permutation(r, sizes.skus);
  const refPrefix = sellerCode.toUpperCase().slice(0, 12);
  for (let k = 0; k < quota; k++) {
    const unmatched = r.chance(0.01);
    const skuId = unmatched ? UNMATCHED_SKU_BASE + ordinalStart + k : walk(k) + 1;
    const productId = unmatched ? 1 + r.int(sizes.products) : productOfSku(skuId);
    const reference = unmatched ? 100 + r.int(5_000) : prices.price(skuId);
    yield {
      sellerId,
      skuId,
      productId,
      price: Math.max(1, Math.round(reference * (0.85 + r.next() * 0.4))),
      quantity: r.chance(0.05)
        ? 0
        : r.weighted([
            [1, 50],
            [2, 20],
            [3, 10],
            [4, 8],
            [8, 7],
            [20, 5],
          ] as const),
      externalRef: r.chance(0.8) ? `${refPrefix}-${skuId}` : null,
      asOf: new Date(AS_OF_BASE - r.int(90 * 24 * 60) * 60_000).toISOString(),
    };
  }
}

/** All listings, seller by seller. */
export function* allListings(seed: number, sizes: SampleSizes, prices: PriceBook): Generator<FixtureListing> {
  const quotas = sellerQuotas(seed, sizes);
  let ordinal = 0;
  for (let id = 1; id <= sizes.sellers; id++) {
    const quota = quotas[id - 1]!;
    yield* sellerListings(seed, sizes, id, seller(seed, id).sellerCode, quota, prices, ordinal);
    ordinal += quota;
  }
}

/** The handoff stores with their variants (~N/100 in all, ~1% unmatched). */
export function handoffStores(seed: number, sizes: SampleSizes, prices: PriceBook): FixtureHandoffStore[] {
  const per = Math.ceil(sizes.variants / HANDOFF_STORES.length);
  let nextId = 1;
  return HANDOFF_STORES.map((s, i) => {
    const r = Rng.for(seed, KIND.store, i + 1);
    const walk = permutation(r, sizes.skus);
    const count = Math.min(per, sizes.variants - (nextId - 1), sizes.skus);
    const variants = Array.from({ length: Math.max(0, count) }, (_, k) => {
      const variantId = nextId++;
      const unmatched = r.chance(0.01);
      const skuId = unmatched ? UNMATCHED_VARIANT_SKU_BASE + variantId : walk(k) + 1;
      const reference = unmatched ? 100 + r.int(5_000) : prices.price(skuId);
      return {
        variantId,
        skuId,
        productId: unmatched ? 1 + r.int(sizes.products) : productOfSku(skuId),
        price: Math.max(1, Math.round(reference * (0.9 + r.next() * 0.3))),
        quantity: r.chance(0.05) ? 0 : r.between(1, 6),
      };
    });
    const reviews = Array.from({ length: r.int(8) }, () =>
      r.weighted([
        [5, 55],
        [4, 30],
        [3, 10],
        [1, 5],
      ] as const),
    );
    return { ...s, reviews, variants };
  });
}
