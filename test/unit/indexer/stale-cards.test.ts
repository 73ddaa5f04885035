import { describe, expect, it } from 'vitest';
import { cardView, staleCards, UNREADABLE_CARD, type CardView, type OfferChange } from '../../../indexer/stale-cards.js';
import { handoffOfferDoc, nativeOfferDoc } from '../../../src/search/documents/builders.js';
import { cardDoc, cardFolds, foldOffer } from '../../../src/search/documents/card-fold.js';
import type { HandoffStoreFacts, ProductFacts, SellerFacts, SkuFacts } from '../../../src/db/offer-source.js';
import type { OfferDoc } from '../../../src/search/documents/model.js';

// A card is rewritten only when an offer's state on it is not what the index's card shows: a
// repricing or a stock change that keeps an offer shown leaves every card alone.

const product = (productId: number, name = 'Black Lotus'): ProductFacts => ({
  productId,
  name,
  set: 'Alpha',
  category: 'Magic: The Gathering',
  rarity: 'Rare',
  collectorNumber: '232',
  imageUrl: null,
  details: [],
});
const seller = (sellerId: number, over: Partial<SellerFacts> = {}): SellerFacts => ({
  sellerId,
  sellerCode: `s${sellerId}`,
  storeName: `Store ${sellerId}`,
  vacation: false,
  browseEligible: true,
  poBoxDelivery: 'available',
  ...over,
});
const sku = (skuId: number, productId = 5, condition = 'Near Mint'): SkuFacts => ({ skuId, productId, condition, language: 'English', finish: null });
const offer = (
  sellerId: number,
  skuId: number,
  o: { price?: number; available?: number; seller?: Partial<SellerFacts>; product?: ProductFacts; sku?: SkuFacts } = {},
) =>
  nativeOfferDoc(
    { sellerId, skuId, price: o.price ?? 500, available: o.available ?? 1 },
    o.sku ?? sku(skuId),
    seller(sellerId, o.seller),
    o.product ?? product(5),
    false,
  );
const north: HandoffStoreFacts = { storeSlug: 'north', storeName: 'North', sellerCode: 'n', active: true, reviewSum: 0, reviewCount: 0 };
const variant = (variantId: number, skuId: number) =>
  handoffOfferDoc({ variantId, storeSlug: 'north', skuId, productId: 5, price: 800, quantity: 1 }, sku(skuId), north, product(5));

/** The card the index holds: folded from these offers, as the indexer writes it, read as the indexer reads it. */
function cardOf(...offers: OfferDoc[]): Map<number, CardView> {
  const folds = cardFolds();
  for (const o of offers) foldOffer(folds, o);
  return new Map(
    [...folds.products].map(([id, f]) => {
      const card = cardDoc(f);
      return [id, cardView(card.groupKeys, card.productKey)];
    }),
  );
}
const was = (o: OfferDoc) => ({ productId: o.productId, skuId: o.skuId, storeKey: o.storeKey });
const never = () => false;
const stale = (changes: OfferChange[], cards: Map<number, CardView>, recompute: (id: number) => boolean = never) => [
  ...staleCards(changes, cards, recompute),
];

describe('staleCards', () => {
  const a = offer(1, 10);
  const b = offer(2, 11);
  const cards = cardOf(a, b);

  it('keeps the card when an offer stays shown with the same group: a new price or quantity', () => {
    expect(stale([{ was: was(a), now: offer(1, 10, { price: 1, available: 40 }) }], cards)).toEqual([]);
  });

  it('recomputes the card when a shown offer leaves it (sold out, vacation, deleted) or joins it', () => {
    expect(stale([{ was: was(a), now: offer(1, 10, { available: 0 }) }], cards)).toEqual([5]);
    expect(stale([{ was: was(a), now: offer(1, 10, { seller: { vacation: true, browseEligible: false } }) }], cards)).toEqual([5]);
    expect(stale([{ was: was(a) }], cards)).toEqual([5]);
    expect(stale([{ now: offer(3, 12) }], cards)).toEqual([5]);
    // A product with no card yet gets one.
    expect(stale([{ now: offer(3, 12, { sku: sku(12, 6), product: product(6) }) }], cards)).toEqual([6]);
  });

  it('leaves cards alone for an offer that is not shown and was on none', () => {
    expect(stale([{ now: offer(3, 12, { available: 0 }) }], cards)).toEqual([]);
    expect(stale([{ was: { productId: 6, skuId: 12, storeKey: 'n:3' } }], cards)).toEqual([]);
  });

  it("recomputes when the group's values or the product's fields differ from the card's", () => {
    expect(stale([{ was: was(a), now: offer(1, 10, { seller: { storeName: 'Renamed' } }) }], cards)).toEqual([5]);
    expect(stale([{ was: was(a), now: offer(1, 10, { sku: sku(10, 5, 'Damaged') }) }], cards)).toEqual([5]);
    expect(stale([{ was: was(a), now: offer(1, 10, { product: product(5, 'Black Lotus (Alpha)') }) }], cards)).toEqual([5]);
  });

  it('recomputes both cards of an offer whose sku moved to another product', () => {
    const moved = offer(1, 10, { sku: sku(10, 6), product: product(6) });
    expect(stale([{ was: was(a), now: moved }], cards).sort()).toEqual([5, 6]);
  });

  it('tests against the card, not the offer the index has: a card written for another offer may already show the newer state', () => {
    // The index's offer still says shown; the card (recomputed for b) already left a out.
    expect(stale([{ was: was(a), now: offer(1, 10, { available: 0 }) }], cardOf(b))).toEqual([]);
    // ... and the other way round: the offer is back, the card does not show it yet.
    expect(stale([{ was: was(a), now: a }], cardOf(b))).toEqual([5]);
  });

  it('recomputes a handoff group another variant of the same store and sku may also hold', () => {
    const v1 = variant(1, 13);
    const v2 = variant(2, 13);
    const both = cardOf(a, v1, v2);
    expect(stale([{ was: was(v1), now: { ...v1, shown: false } }], both)).toEqual([5]);
    expect(stale([{ was: was(v1), now: { ...v1, price: 1 } }], both)).toEqual([]);
  });

  it('recomputes a card whose keys cannot be read, whatever the offer', () => {
    expect(stale([{ was: was(a), now: offer(1, 10, { price: 1 }) }], new Map([[5, UNREADABLE_CARD]]))).toEqual([5]);
    expect(stale([{ now: offer(3, 12, { available: 0 }) }], new Map([[5, UNREADABLE_CARD]]))).toEqual([5]);
  });

  it('recomputes whatever the card shows when the batch has already written it (it may not have landed)', () => {
    expect(stale([{ was: was(a), now: offer(1, 10, { price: 1 }) }], cards, (id) => id === 5)).toEqual([5]);
  });
});
