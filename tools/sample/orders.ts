import type { CancelBody, FulfillmentBody } from '../../src/contract/orders.js';
import { derivedOrderId } from '../../src/fixtures/load.js';
import { CURRENT_TERMS_VERSION, type FixtureOrder, type FixtureSeller } from '../../src/fixtures/schema.js';
import { PriceBook, seller as sampleSeller, sellerListings, sellerQuotas, UNMATCHED_SKU_BASE, type SampleSizes } from './model.js';
import { Rng } from './prng.js';
import { PROVINCES } from './vocab.js';

// Sample orders as a pure function of (seed, N listings, M orders): who buys what from whom, and
// how far each order has moved. Orders are picked the way a storefront could have offered them
// (a browse-eligible seller, its shown offers, never more units than the sample listed, counting
// every earlier order of the run), so each passes checkout (src/orders/checkout.ts) on a freshly
// loaded sample. Ids are the fixture loader's derived ids: same seed => same orders, same ids.

const KIND_ORDER = 7;

/** A seller a buyer could order from: browse-eligible, with shipping options and shown offers. */
export interface ShopFacts {
  sellerId: number;
  currency: string;
  shippingOptions: ReadonlyArray<{ method: string; tracked: boolean }>;
  /** Shown offers: matched, live listings with stock (parallel arrays). */
  skuIds: Int32Array;
  quantities: Int32Array;
}

/** What happens to an order after entry, as API requests (the same bodies a Platform sends). */
export type OrderMove = { kind: 'fulfillment'; body: FulfillmentBody } | { kind: 'cancel'; body: CancelBody };

export interface SampleOrder {
  orderId: string;
  order: FixtureOrder;
  /** Applied in sequence after entry; empty: the order stays `created`. */
  moves: OrderMove[];
}

/** The sample's readiness rule (the seller_readiness view, for a sample seller and the default platform). */
export function browseEligible(s: FixtureSeller): boolean {
  return s.active && !s.vacation && s.termsVersion === CURRENT_TERMS_VERSION && s.incompletePrerequisites.length === 0 && s.shippingOptions.length > 0;
}

/** The shops of a sample: every browse-eligible seller's shown offers, regenerated from the seed. */
export function sampleShops(seed: number, sizes: SampleSizes): ShopFacts[] {
  const quotas = sellerQuotas(seed, sizes);
  const prices = new PriceBook(seed, sizes);
  const shops: ShopFacts[] = [];
  let ordinal = 0;
  for (let id = 1; id <= sizes.sellers; id++) {
    const quota = quotas[id - 1]!;
    const s = sampleSeller(seed, id);
    if (browseEligible(s) && quota > 0) {
      const skuIds: number[] = [];
      const quantities: number[] = [];
      for (const l of sellerListings(seed, sizes, id, s.sellerCode, quota, prices, ordinal)) {
        if (l.skuId < UNMATCHED_SKU_BASE && l.quantity > 0) {
          skuIds.push(l.skuId);
          quantities.push(l.quantity);
        }
      }
      if (skuIds.length > 0) {
        shops.push({
          sellerId: id,
          currency: s.currency,
          shippingOptions: s.shippingOptions,
          skuIds: Int32Array.from(skuIds),
          quantities: Int32Array.from(quantities),
        });
      }
    }
    ordinal += quota;
  }
  return shops;
}

const FIRST_NAMES = [
  'Alex',
  'Sam',
  'Jordan',
  'Taylor',
  'Morgan',
  'Priya',
  'Wei',
  'Amélie',
  'Liam',
  'Noah',
  'Olivia',
  'Chloé',
  'Mateo',
  'Aiko',
  'Fatima',
  'Gabriel',
  'Zoë',
  'Ravi',
  'Emma',
  'Jean-Luc',
];
const LAST_NAMES = [
  'Tremblay',
  'Gagnon',
  'Roy',
  'Smith',
  'Brown',
  'Wong',
  'Singh',
  'Nguyen',
  'Martin',
  'Côté',
  'MacDonald',
  'Li',
  'Patel',
  'Wilson',
  'Lavoie',
  'Campbell',
  'Chen',
  'Bouchard',
];
const STREETS = [
  'Main St',
  'King St W',
  'Queen St E',
  'Rue Sainte-Catherine',
  'Granville St',
  'Jasper Ave',
  'Portage Ave',
  'Barrington St',
  'Water St',
  'Elm Ave',
  'Maple Dr',
  'Oak Cres',
];
const CITIES: Readonly<Record<string, readonly string[]>> = {
  ON: ['Toronto', 'Ottawa', 'Hamilton', 'London', 'Kingston'],
  QC: ['Montréal', 'Québec', 'Laval', 'Gatineau'],
  BC: ['Vancouver', 'Victoria', 'Kelowna'],
  AB: ['Calgary', 'Edmonton'],
  MB: ['Winnipeg', 'Brandon'],
  SK: ['Saskatoon', 'Regina'],
  NS: ['Halifax', 'Sydney'],
  NB: ['Moncton', 'Fredericton'],
  NL: ["St. John's"],
  PE: ['Charlottetown'],
};
const POSTAL_LETTER: Readonly<Record<string, string>> = { ON: 'M', QC: 'H', BC: 'V', AB: 'T', MB: 'R', SK: 'S', NS: 'B', NB: 'E', NL: 'A', PE: 'C' };
/** Sales tax of the buyer's province (GST/HST, plus PST/QST where it applies). */
const CA_TAX: Readonly<Record<string, ReadonlyArray<{ label: string; rate: number }>>> = {
  ON: [{ label: 'HST', rate: 0.13 }],
  NS: [{ label: 'HST', rate: 0.14 }],
  NB: [{ label: 'HST', rate: 0.15 }],
  NL: [{ label: 'HST', rate: 0.15 }],
  PE: [{ label: 'HST', rate: 0.15 }],
  QC: [
    { label: 'GST', rate: 0.05 },
    { label: 'QST', rate: 0.09975 },
  ],
  BC: [
    { label: 'GST', rate: 0.05 },
    { label: 'PST', rate: 0.07 },
  ],
  MB: [
    { label: 'GST', rate: 0.05 },
    { label: 'PST', rate: 0.07 },
  ],
  SK: [
    { label: 'GST', rate: 0.05 },
    { label: 'PST', rate: 0.06 },
  ],
  AB: [{ label: 'GST', rate: 0.05 }],
};
const US_STATES = [
  ['NY', 'New York', '100'],
  ['WA', 'Seattle', '981'],
  ['CA', 'San Francisco', '941'],
  ['TX', 'Austin', '787'],
  ['MA', 'Boston', '021'],
] as const;
const NOTES = [
  'Please sleeve it',
  'Gift: no invoice in the box, please',
  'Combine with my other order if you can',
  'Top-loader please',
  'Leave at the side door',
];
const CARRIERS = [
  ['Canada Post', 16],
  ['Purolator', 12],
  ['UPS', 18],
] as const;

function customer(r: Rng, currency: string): FixtureOrder['customer'] {
  const first = r.pick(FIRST_NAMES);
  const last = r.pick(LAST_NAMES);
  const email = `${first}.${last}.${r.int(1000)}@example.com`
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/[^A-Za-z0-9.@-]/g, '')
    .toLowerCase();
  const line1 = `${r.between(1, 9999)} ${r.pick(STREETS)}`;
  const line2 = r.chance(0.2) ? `Apt ${r.between(1, 2400)}` : null;
  if (currency === 'USD') {
    const [state, city, zip] = r.pick(US_STATES);
    return {
      name: `${first} ${last}`,
      email,
      shipping_address: { line1, line2, city, province: state, postal_code: `${zip}${String(r.int(100)).padStart(2, '0')}`, country: 'US' },
    };
  }
  const province = r.weighted(PROVINCES);
  const d = () => String(r.int(10));
  const l = () => 'ABCEGHJKLMNPRSTVWXYZ'[r.int(20)]!;
  return {
    name: `${first} ${last}`,
    email,
    shipping_address: {
      line1,
      line2,
      city: r.pick(CITIES[province]!),
      province,
      postal_code: `${POSTAL_LETTER[province]}${d()}${l()} ${d()}${l()}${d()}`,
      country: 'CA',
    },
  };
}

/** Where an order ends up; the weights give every status plenty of orders. */
const FATES = [
  ['created', 30],
  ['accepted', 15],
  ['shipped', 20],
  ['delivered', 17],
  ['cancelled', 9],
  ['lines-cancelled', 9],
] as const;

function movesFor(r: Rng, order: FixtureOrder, tracked: boolean | null): OrderMove[] {
  const fate = r.weighted(FATES);
  const accept: OrderMove[] = r.chance(0.6) ? [{ kind: 'fulfillment', body: { status: 'accepted' } }] : [];
  const ship = (): OrderMove => {
    // Tracked options need tracking; untracked ones take none; operator orders (null) either.
    if (tracked === false || (tracked === null && r.chance(0.5))) return { kind: 'fulfillment', body: { status: 'shipped' } };
    const [company, digits] = r.pick(CARRIERS);
    const number = Array.from({ length: digits }, () => r.int(10)).join('');
    return {
      kind: 'fulfillment',
      body: {
        status: 'shipped',
        trackingCompany: company,
        trackingNumber: number,
        trackingUrl: r.chance(0.7) ? `https://tracking.example/${encodeURIComponent(company)}/${number}` : null,
      },
    };
  };
  switch (fate) {
    case 'created':
      return [];
    case 'accepted':
      return [{ kind: 'fulfillment', body: { status: 'accepted' } }];
    case 'shipped':
      return [...accept, ship()];
    case 'delivered':
      return [...accept, ship(), { kind: 'fulfillment', body: { status: 'delivered' } }];
    case 'cancelled':
      return [...(r.chance(0.3) ? accept : []), { kind: 'cancel', body: {} }];
    case 'lines-cancelled': {
      const units = order.lines.reduce((s, l) => s + l.quantity, 0);
      // A single unit cannot be cancelled in part: the whole order is.
      if (units === 1) return [{ kind: 'cancel', body: {} }];
      const line = order.lines.length > 1 ? r.pick(order.lines) : order.lines[0]!;
      const partOf = order.lines.length === 1 || (line.quantity > 1 && r.chance(0.5));
      const cancel: OrderMove = {
        kind: 'cancel',
        body: { lines: [partOf ? { skuId: line.skuId, quantity: r.between(1, line.quantity - 1) } : { skuId: line.skuId }] },
      };
      return r.chance(0.3) ? [{ kind: 'fulfillment', body: { status: 'accepted' } }, cancel] : [cancel];
    }
  }
}

/**
 * M orders over the given shops (sampleShops), deterministic in (seed, shops, count). Stock is
 * tracked across the run: no sku is ever ordered beyond its listed quantity, counting earlier
 * orders. Stops early (fewer orders) only when every shop is sold out.
 */
export function pickOrders(seed: number, shops: readonly ShopFacts[], count: number): SampleOrder[] {
  const left = shops.map((s) => Int32Array.from(s.quantities));
  // Skus with stock left, per shop: a swap-remove list, so picking stays O(1) as stock runs out.
  const inStock = shops.map((s) => Int32Array.from(s.skuIds.keys()));
  const inStockCount = shops.map((s) => s.skuIds.length);
  // Bigger stores sell more, but not in proportion: sqrt keeps small stores in the mix.
  const weights = shops.map((s) => Math.sqrt(s.skuIds.length));
  const out: SampleOrder[] = [];
  for (let i = 0; i < count; i++) {
    const r = Rng.for(seed, KIND_ORDER, i);
    const open = shops.map((_, k) => [k, inStockCount[k]! > 0 ? weights[k]! : 0] as const).filter(([, w]) => w > 0);
    if (open.length === 0) break;
    const k = r.weighted(open);
    const shop = shops[k]!;
    const stock = left[k]!;
    const list = inStock[k]!;
    const lines: FixtureOrder['lines'] = [];
    const want = r.weighted([
      [1, 45],
      [2, 25],
      [3, 15],
      [4, 9],
      [5, 6],
    ] as const);
    while (lines.length < want && inStockCount[k]! > 0) {
      const at = r.int(inStockCount[k]!);
      const j = list[at]!;
      // Take it out of this order's choices; put it back below if stock remains.
      list[at] = list[inStockCount[k]! - 1]!;
      list[inStockCount[k]! - 1] = j;
      inStockCount[k]!--;
      const quantity = Math.min(
        stock[j]!,
        r.weighted([
          [1, 75],
          [2, 15],
          [3, 6],
          [4, 4],
        ] as const),
      );
      stock[j]! -= quantity;
      lines.push({ skuId: shop.skuIds[j]!, quantity });
    }
    // The chosen skus sit at [inStockCount, +lines): those with stock left go back to the choices.
    for (let p = inStockCount[k]!, end = p + lines.length; p < end; p++) {
      const j = list[p]!;
      if (stock[j]! > 0) {
        list[p] = list[inStockCount[k]!]!;
        list[inStockCount[k]!] = j;
        inStockCount[k]!++;
      }
    }
    const operator = r.chance(0.05);
    const customerOf = customer(r, shop.currency);
    const option = operator ? null : r.pick(shop.shippingOptions);
    const taxRates = CA_TAX[customerOf.shipping_address.province];
    const order: FixtureOrder = {
      sellerId: shop.sellerId,
      currency: shop.currency,
      customer: customerOf,
      lines,
      ...(option ? { shippingMethod: option.method } : {}),
      ...(!operator && customerOf.shipping_address.country === 'CA' && taxRates && r.chance(0.85) ? { tax: taxRates.map((t) => ({ ...t })) } : {}),
      ...(r.chance(0.1) ? { buyerNotes: r.pick(NOTES) } : {}),
      operator,
    };
    out.push({ orderId: derivedOrderId(order, i), order, moves: movesFor(r, order, option ? option.tracked : null) });
  }
  return out;
}

/** The fixture-format form of an order (fixture-format.md `orders`): the loader derives the same id. */
export function fixtureOrder(o: SampleOrder): Record<string, unknown> {
  const { operator, ...rest } = o.order;
  return operator ? { ...rest, operator } : rest;
}
