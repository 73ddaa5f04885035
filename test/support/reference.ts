import type { Scenario, SListing, SProduct, SSku, SVariant } from './scenario.js';

// An independent reference of the buyer reads, computed from the scenario's plain data with the
// rules of DECISIONS.md written out again (no service code), for differential tests.

const CURRENT_TERMS = '2026-07';
const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const termsOf = (s: string) => fold(s).match(/[\p{L}\p{Nd}]+/gu) ?? [];
const cp = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

export interface RefOffer {
  lane: 'native' | 'handoff';
  productId: number;
  sellerId: number | null;
  storeSlug: string | null;
  variantId: number | null;
  skuId: number;
  sellerName: string | null;
  condition: string | null;
  language: string | null;
  finish: string | null;
  isSealed: boolean;
  price: number;
  available: number;
  checkoutMode: 'express' | 'manual';
  salesCount: number | null;
  sellerCode: string | null;
  reviewScore: { score: number | null; count: number };
  poBoxDelivery: { status: string } | null;
  disclosures: Record<string, unknown> | null;
  fulfillmentObligation: Record<string, unknown> | null;
}

export interface SearchParams {
  keyword?: string;
  category?: string;
  set?: string;
  rarity?: string;
  sellerCode?: string;
  condition?: string[];
  language?: string[];
  finish?: string[];
  collectorNumber?: string[];
  checkoutMode?: 'express' | 'manual' | 'any';
  sort?: 'name' | 'name_desc';
}

const disclosures = (category: string | null) => ({
  imageSource: 'catalog',
  conditionSource: 'seller_declared',
  authenticitySource: 'seller_attestation',
  serviceInspected: false,
  serviceGraded: false,
  serviceAuthenticated: false,
  gradingStandard: category === 'Magic: The Gathering' ? 'service-magic-v1' : 'seller-declared-no-specialist-promise',
  declaredGrade: null,
  buyerProtection: category === 'Magic: The Gathering' ? 'magic-grade-and-authenticity' : 'genuine-and-as-described',
});
const obligation = { sku: 'exact', printing: 'exact', language: 'exact', finish: 'exact', condition: 'declared-or-better' };
const mean = (r: number[]) => ({ score: r.length ? Math.round((r.reduce((a, b) => a + b, 0) * 100) / r.length) / 100 : null, count: r.length });

/** The scenario's data by id, with the rules every read shares: eligibility and available units. */
function world(s: Scenario) {
  const f = s.fixture;
  const products = new Map<number, SProduct>(f.products.map((p) => [p.productId, p]));
  const skus = new Map<number, SSku>(f.skus.map((k) => [k.skuId, k]));
  const sellers = new Map(f.sellers.map((x) => [x.sellerId, x]));
  const deleted = new Set(s.deleted.map((d) => `${d.sellerId}:${d.skuId}`));
  const eligible = (id: number) => {
    const x = sellers.get(id)!;
    return x.active && !x.vacation && x.incompletePrerequisites.length === 0 && x.termsVersion === CURRENT_TERMS;
  };
  // Orders with money (totals) that are not cancelled or refunded; operator orders never count.
  const salesCount = (sellerId: number) =>
    s.orders.filter((o) => o.sellerId === sellerId && o.hasMoney && o.status !== 'cancelled' && o.status !== 'refunded').length;
  // A hold is outstanding while its order is created or accepted, unless the listing's asOf is at
  // or after the order's created_at (the pushed quantity already reflects the sale).
  const available = (l: SListing) => {
    const held = s.orders
      .filter((o) => o.sellerId === l.sellerId && (o.status === 'created' || o.status === 'accepted'))
      .filter((o) => !(l.asOf !== undefined && Date.parse(l.asOf) >= Date.parse(o.createdAt)))
      .flatMap((o) => o.holds.filter((h) => h.skuId === l.skuId))
      .reduce((a, h) => a + h.quantity, 0);
    return Math.max(0, l.quantity - held);
  };
  const liveMatched = f.listings.filter((l) => !deleted.has(`${l.sellerId}:${l.skuId}`) && skus.has(l.skuId));
  return { s, products, skus, sellers, eligible, salesCount, available, liveMatched };
}
type World = ReturnType<typeof world>;

/** Every shown offer: native offers of eligible sellers with units left, and handoff variants in stock of active stores. */
function shownOffers(w: World): RefOffer[] {
  const f = w.s.fixture;
  const nativeOffer = (l: SListing): RefOffer => {
    const sku = w.skus.get(l.skuId)!;
    const seller = w.sellers.get(l.sellerId)!;
    return {
      lane: 'native',
      productId: sku.productId,
      sellerId: l.sellerId,
      storeSlug: null,
      variantId: null,
      skuId: l.skuId,
      sellerName: seller.storeName,
      condition: sku.condition,
      language: sku.language,
      finish: sku.finish,
      isSealed: sku.condition === 'Unopened',
      price: l.price,
      available: w.available(l),
      checkoutMode: 'express',
      salesCount: w.salesCount(l.sellerId),
      sellerCode: seller.sellerCode,
      reviewScore: mean(seller.reviews),
      poBoxDelivery: { status: f.platform.poBoxSuspended ? 'platform_suspended' : seller.poBoxDelivery },
      disclosures: disclosures(w.products.get(sku.productId)?.category ?? null),
      fulfillmentObligation: obligation,
    };
  };
  const handoffOffers: RefOffer[] = f.handoffStores.flatMap((st) =>
    st.active
      ? st.variants
          .filter((v: SVariant) => v.quantity > 0)
          .map((v): RefOffer => {
            const sku = w.skus.get(v.skuId);
            return {
              lane: 'handoff',
              productId: sku?.productId ?? v.productId,
              sellerId: null,
              storeSlug: st.storeSlug,
              variantId: v.variantId,
              skuId: v.skuId,
              sellerName: st.storeName,
              condition: sku?.condition ?? null,
              language: sku?.language ?? null,
              finish: sku?.finish ?? null,
              isSealed: sku?.condition === 'Unopened',
              price: v.price,
              available: v.quantity,
              checkoutMode: 'manual',
              salesCount: null,
              sellerCode: st.sellerCode,
              reviewScore: mean(st.reviews),
              poBoxDelivery: null,
              disclosures: null,
              fulfillmentObligation: null,
            };
          })
      : [],
  );
  return [
    ...w.liveMatched
      .filter((l) => w.eligible(l.sellerId))
      .map(nativeOffer)
      .filter((o) => o.available > 0),
    ...handoffOffers,
  ];
}

/** The product-page order: price, skuId, native before handoff, sellerId / variantId. */
const offerOrder = (a: RefOffer, b: RefOffer) =>
  a.price - b.price ||
  a.skuId - b.skuId ||
  (a.lane === b.lane ? 0 : a.lane === 'native' ? -1 : 1) ||
  (a.sellerId ?? a.variantId!) - (b.sellerId ?? b.variantId!);

function productPage(
  w: World,
  shown: RefOffer[],
  productId: number,
  q: { condition?: string[]; language?: string[]; finish?: string[]; limit?: number; offset?: number },
) {
  const offers = shown
    .filter((o) => o.productId === productId)
    .filter((o) => !q.condition || q.condition.includes(o.condition as string))
    .filter((o) => !q.language || q.language.includes(o.language as string))
    .filter((o) => !q.finish || q.finish.includes(o.finish as string))
    .sort(offerOrder);
  const offset = q.offset ?? 0;
  const p = w.products.get(productId);
  return {
    offers: offers.slice(offset, offset + (q.limit ?? 50)),
    product: p
      ? { productId, name: p.name, set: p.set, rarity: p.rarity, collectorNumber: p.collectorNumber, imageUrl: p.imageUrl, details: p.details }
      : null,
  };
}

type Facet = 'category' | 'set' | 'rarity' | 'condition' | 'language' | 'finish' | 'collectorNumber' | 'seller';
const FACET_NAMES: Facet[] = ['category', 'set', 'rarity', 'condition', 'language', 'finish', 'collectorNumber', 'seller'];

/** The filters a search selects, by facet. */
const selected = (q: SearchParams): Partial<Record<Facet, string[]>> => ({
  ...(q.category !== undefined ? { category: [q.category] } : {}),
  ...(q.set !== undefined ? { set: [q.set] } : {}),
  ...(q.rarity !== undefined ? { rarity: [q.rarity] } : {}),
  ...(q.sellerCode !== undefined ? { seller: [q.sellerCode] } : {}),
  ...(q.condition ? { condition: q.condition } : {}),
  ...(q.language ? { language: q.language } : {}),
  ...(q.finish ? { finish: q.finish } : {}),
  ...(q.collectorNumber ? { collectorNumber: q.collectorNumber } : {}),
});

/** A product's folded name terms, kept per world (every search asks them of every shown offer). */
const nameTerms = new WeakMap<World, Map<number, Set<string>>>();
function nameTermsOf(w: World, productId: number): Set<string> {
  let byProduct = nameTerms.get(w);
  if (!byProduct) nameTerms.set(w, (byProduct = new Map()));
  let t = byProduct.get(productId);
  if (!t) byProduct.set(productId, (t = new Set(termsOf(w.products.get(productId)?.name ?? ''))));
  return t;
}

/** Search: products with a matching shown offer in name order, and disjunctive facets (each ignores its own filter). */
function search(w: World, shown: RefOffer[], q: SearchParams) {
  const productOf = (o: RefOffer) => w.products.get(o.productId);
  const facetValue = (o: RefOffer, facet: Facet): string | null => {
    switch (facet) {
      case 'category':
        return productOf(o)?.category ?? null;
      case 'set':
        return productOf(o)?.set ?? null;
      case 'rarity':
        return productOf(o)?.rarity ?? null;
      case 'collectorNumber':
        return productOf(o)?.collectorNumber ?? null;
      case 'seller':
        return o.sellerCode;
      default:
        return o[facet];
    }
  };
  // Computed once per search, not once per offer and facet: a search looks at every shown offer
  // nine times (the items, then each facet).
  const kw = termsOf(q.keyword ?? '');
  const selections = Object.entries(selected(q)) as [Facet, string[]][];
  const matches = (o: RefOffer, except: Facet | null) => {
    if (!kw.every((t) => nameTermsOf(w, o.productId).has(t))) return false;
    if (q.checkoutMode && q.checkoutMode !== 'any' && o.checkoutMode !== q.checkoutMode) return false;
    for (const [facet, values] of selections) {
      if (facet === except) continue;
      const v = facetValue(o, facet);
      if (v === null || !values.includes(v)) return false;
    }
    return true;
  };

  const byProduct = new Map<number, RefOffer[]>();
  for (const o of shown.filter((x) => matches(x, null))) byProduct.set(o.productId, [...(byProduct.get(o.productId) ?? []), o]);
  const items = [...byProduct.entries()].map(([productId, offers]) => {
    const p = w.products.get(productId);
    const hasNative = offers.some((o) => o.lane === 'native');
    return {
      productId,
      name: p?.name ?? null,
      set: p?.set ?? null,
      category: p?.category ?? null,
      rarity: p?.rarity ?? null,
      collectorNumber: p?.collectorNumber ?? null,
      imageUrl: p?.imageUrl ?? null,
      isSealed: offers.some((o) => o.isSealed),
      fromPrice: Math.min(...offers.map((o) => o.price)),
      sellerCount: new Set(offers.map((o) => (o.lane === 'native' ? `n${o.sellerId}` : `h${o.storeSlug}`))).size,
      disclosures: hasNative ? disclosures(p?.category ?? null) : null,
      fulfillmentObligation: hasNative ? obligation : null,
    };
  });
  const sortKey = new Map(items.map((i) => [i.productId, fold(i.name ?? '')]));
  items.sort((a, b) => cp(sortKey.get(a.productId)!, sortKey.get(b.productId)!) || a.productId - b.productId);
  if (q.sort === 'name_desc') items.reverse();

  const facets: Record<string, unknown> = {};
  for (const facet of FACET_NAMES) {
    const counts = new Map<string, Set<number>>();
    const names = new Map<string, string>();
    for (const o of shown.filter((x) => matches(x, facet))) {
      const v = facetValue(o, facet);
      if (v === null) continue;
      counts.set(v, (counts.get(v) ?? new Set()).add(o.productId));
      if (o.sellerName) names.set(v, o.sellerName);
    }
    const rows = [...counts.entries()]
      .map(([value, ps]) => ({ value, count: ps.size }))
      .sort((a, b) => b.count - a.count || cp(a.value, b.value))
      .slice(0, 100);
    facets[facet] = facet === 'seller' ? rows.map((r) => ({ sellerCode: r.value, storeName: names.get(r.value)!, count: r.count })) : rows;
  }
  return { items, facets };
}

/** Cart lookup: one line per pair, in request order, with the seller's checkout policy. */
function lookup(w: World, lines: { sellerId: number; skuId: number }[]) {
  return lines.map(({ sellerId, skuId }) => {
    const seller = w.sellers.get(sellerId);
    const sku = w.skus.get(skuId);
    const p = sku ? w.products.get(sku.productId) : undefined;
    const l = seller && sku ? w.liveMatched.find((x) => x.sellerId === sellerId && x.skuId === skuId) : undefined;
    const avail = l ? w.available(l) : 0;
    const line: Record<string, unknown> = {
      sellerId,
      skuId,
      seller: seller ? { name: seller.storeName } : null,
      product: sku ? { productId: sku.productId, name: p?.name ?? null, set: p?.set ?? null, image: p?.imageUrl ?? null } : null,
      sku: sku ? { condition: sku.condition, language: sku.language, finish: sku.finish } : null,
      currentPrice: l && avail > 0 ? l.price : null,
      available: l && avail > 0 ? avail : 0,
    };
    if (seller) {
      if (!w.eligible(sellerId)) {
        line.sellerUnavailable = { sellerId, reason: seller.vacation ? 'SELLER_ON_VACATION' : 'SELLER_UNAVAILABLE' };
        line.policy = { status: 'blocked', error: { code: 'CHECKOUT_SELLER_UNAVAILABLE' } };
      } else {
        line.policy = { status: 'eligible', error: null };
      }
    }
    if (sku) {
      line.disclosures = disclosures(p?.category ?? null);
      line.fulfillmentObligation = obligation;
    }
    return line;
  });
}

/** The buyer reads of a scenario, computed by the reference rules. */
export function reference(s: Scenario) {
  const w = world(s);
  const shown = shownOffers(w);
  return {
    productPage: (productId: number, q: Parameters<typeof productPage>[3]) => productPage(w, shown, productId, q),
    search: (q: SearchParams) => search(w, shown, q),
    lookup: (lines: { sellerId: number; skuId: number }[]) => lookup(w, lines),
    shown,
    products: [...w.products.keys()],
  };
}
