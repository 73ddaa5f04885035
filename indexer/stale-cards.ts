import type { OfferDoc } from '../src/search/documents/model.js';
import { productKey } from '../src/search/documents/card-fold.js';
import { groupKey, groupName } from '../src/search/documents/offer-groups.js';

// Which cards an offer change makes wrong. A card is a function of its product's fields and of the
// (sku, store) groups of its shown offers, never of a price or a quantity (model.ts CardItem), so a
// change that leaves an offer's group as its card shows it leaves the card right: a repricing
// rewrites offers, not cards (docs/indexing.md). The test is against the card as the index holds
// it, not against the offer's previous document: a card recomputed for another offer of its
// product may already show this one's newer (or older) state. A card is read through two small
// stored fields (groupKeys, productKey), not its source.

/** An offer document as the index holds it now: what says which card it was on. */
export interface IndexedOffer {
  productId: number;
  skuId: number;
  storeKey: string;
}

/** A card as the index holds it: its groups' keys by group name (sku and store), and its product key. */
export interface CardView {
  groups: ReadonlyMap<string, string>;
  productKey: string;
}

/** The stored fields a CardView is read from. */
export const CARD_VIEW_FIELDS = ['groupKeys', 'productKey'];

/** A card that exists but whose keys cannot be read: it shows nothing as it is, so it is recomputed. */
export const UNREADABLE_CARD: CardView = { groups: new Map(), productKey: '' };

export function cardView(groupKeys: readonly string[], product: string): CardView {
  const groups = new Map<string, string>();
  for (const k of groupKeys) groups.set(k.slice(0, k.lastIndexOf('|') + 1), k);
  return { groups, productKey: product };
}

/** One offer of a chunk: where the index has it (`was`), and its document now (`now`; none when PostgreSQL has none). */
export interface OfferChange {
  was?: IndexedOffer;
  now?: OfferDoc;
}

/** The products an offer's cards belong to, before (the index) and after (PostgreSQL). */
export function cardProductsOf(was: IndexedOffer | undefined, nowProductId: number | undefined): number[] {
  const out: number[] = [];
  if (was) out.push(was.productId);
  if (nowProductId !== undefined && nowProductId !== was?.productId) out.push(nowProductId);
  return out;
}

/**
 * The products whose cards must be recomputed: a card that misses a shown offer's group, shows it
 * with other values or under other product fields, or shows the group of an offer that is no
 * longer shown on that product (a handoff group may be another variant's too: recomputed all the
 * same). `cards` holds the cards that exist; `recompute` names products whose card must be
 * recomputed whatever it shows (one this batch already wrote may not have landed yet).
 */
export function staleCards(changes: readonly OfferChange[], cards: ReadonlyMap<number, CardView>, recompute: (productId: number) => boolean): Set<number> {
  const stale = new Set<number>();
  for (const o of changes) {
    for (const productId of cardProductsOf(o.was, o.now?.productId)) {
      if (stale.has(productId)) continue;
      if (recompute(productId) || !showsAsIs(o, productId, cards.get(productId))) stale.add(productId);
    }
  }
  return stale;
}

function showsAsIs(o: OfferChange, productId: number, card: CardView | undefined): boolean {
  if (card === UNREADABLE_CARD) return false;
  const now = o.now;
  if (now && now.shown && now.productId === productId) {
    return card !== undefined && card.productKey === productKey(now) && card.groups.get(groupName(now.skuId, now.storeKey)) === groupKey(now);
  }
  // Not on this product: no group of its (sku, store), as it is or as it was.
  if (!card) return true;
  if (now && card.groups.has(groupName(now.skuId, now.storeKey))) return false;
  return !(o.was && card.groups.has(groupName(o.was.skuId, o.was.storeKey)));
}
