import { byCodeUnits, cardValues, groupKey, hash53, sortByCodeUnits, type CardGroup } from './offer-groups.js';
import { cardItem, matchingGroups } from './builders.js';
import type { CardDoc, OfferDoc, ProductFields } from './model.js';
import { nameGrams } from './name-grams.js';

// Product cards (docs/search-design.md, "Keeping cards in step"): each product's shown offers
// folded into one card document. The live indexer folds the offers of a few products and writes
// their cards at once; a rebuild folds every offer as it streams past and writes the cards after
// the last one. Either way the card is derived from the sorted groups when it is built, so it is
// byte-identical whatever order its offers came in. Prices are not on cards (model.ts CardItem).

/**
 * One product's shown offers, kept compact until its card is written (a rebuild streams offers in
 * seller order, so it holds every product's fold to the end: millions of offers). Each offer is
 * four integers in the folds' shared OfferRows: skuId, its store's and its sku values' index in
 * the folds' tables, and the product's previous offer (a list per product, newest first).
 * Groups by (sku, store) are formed when the card is written (cardDoc), from the offers sorted, so
 * the order offers arrive in does not matter.
 */
export interface CardFold {
  fields: ProductFields;
  /** The product's newest offer in `rows` (-1: none yet). */
  last: number;
  tables: FoldTables;
}

/**
 * Offers as rows of OFFER_INTS integers in one growing Int32Array. A JavaScript array per product
 * grew with every offer: each copy outlived young collections, and millions of numbers sat in the
 * heap every full collection marks.
 */
interface OfferRows {
  ints: Int32Array;
  count: number;
}
const OFFER_INTS = 4;

/** A store as its offers show it (one entry per distinct set of values of a storeKey). */
interface StoreValues {
  storeKey: string;
  lane: CardGroup['lane'];
  checkoutMode: CardGroup['checkoutMode'];
  sellerCode: string | null;
  sellerFacet: string | null;
}

/** A sku's values as its offers show them. */
interface SkuValues {
  condition: string | null;
  language: string | null;
  finish: string | null;
  isSealed: boolean;
}

/** The distinct stores and sku values of the folds' offers: their strings are kept once. */
interface FoldTables {
  rows: OfferRows;
  stores: StoreValues[];
  storeIndex: Map<string, number[]>;
  skuValues: SkuValues[];
  skuIndex: Map<string | null, Map<string | null, Map<string | null, number>>>;
}

/** The folds of many products (a rebuild holds every fold). */
export interface CardFolds {
  products: Map<number, CardFold>;
  tables: FoldTables;
}

export function cardFolds(): CardFolds {
  return {
    products: new Map(),
    tables: { rows: { ints: new Int32Array(1024 * OFFER_INTS), count: 0 }, stores: [], storeIndex: new Map(), skuValues: [], skuIndex: new Map() },
  };
}

function storeOf(t: FoldTables, o: OfferDoc): number {
  let ids = t.storeIndex.get(o.storeKey);
  if (!ids) t.storeIndex.set(o.storeKey, (ids = []));
  for (const i of ids) {
    const s = t.stores[i]!;
    if (s.lane === o.lane && s.checkoutMode === o.checkoutMode && s.sellerCode === o.sellerCode && s.sellerFacet === o.sellerFacet) return i;
  }
  const { storeKey, lane, checkoutMode, sellerCode, sellerFacet } = o;
  ids.push(t.stores.length);
  return t.stores.push({ storeKey, lane, checkoutMode, sellerCode, sellerFacet }) - 1;
}

function skuValuesOf(t: FoldTables, o: OfferDoc): number {
  let byLanguage = t.skuIndex.get(o.condition);
  if (!byLanguage) t.skuIndex.set(o.condition, (byLanguage = new Map()));
  let byFinish = byLanguage.get(o.language);
  if (!byFinish) byLanguage.set(o.language, (byFinish = new Map()));
  const got = byFinish.get(o.finish);
  // isSealed is a function of condition (SEALED_CONDITION), so the three values key it.
  if (got !== undefined && t.skuValues[got]!.isSealed === o.isSealed) return got;
  const { condition, language, finish, isSealed } = o;
  const i = t.skuValues.push({ condition, language, finish, isSealed }) - 1;
  if (got === undefined) byFinish.set(o.finish, i);
  return i;
}

/** Adds one offer document to its product's fold; not-shown offers count for nothing. */
export function foldOffer(folds: CardFolds, o: OfferDoc): void {
  if (!o.shown) return;
  const t = folds.tables;
  let f = folds.products.get(o.productId);
  if (!f) {
    const { sortKey, nameTerms, category, set, rarity, collectorNumber, item } = o;
    f = { fields: { sortKey, nameTerms, category, set, rarity, collectorNumber, item }, last: -1, tables: t };
    folds.products.set(o.productId, f);
  }
  const rows = t.rows;
  if ((rows.count + 1) * OFFER_INTS > rows.ints.length) {
    const grown = new Int32Array(rows.ints.length * 2);
    grown.set(rows.ints);
    rows.ints = grown;
  }
  const at = rows.count * OFFER_INTS;
  const ints = rows.ints;
  ints[at] = o.skuId;
  ints[at + 1] = storeOf(t, o);
  ints[at + 2] = skuValuesOf(t, o);
  ints[at + 3] = f.last;
  f.last = rows.count++;
}

/**
 * The distinct seller codes of a card's groups, sorted (so a recomputed card is byte-identical to
 * the one it replaces, and to a rebuild's). A card has few: a scan, and a set past a few dozen groups.
 */
function sellerCodes(groups: readonly CardGroup[]): string[] {
  if (groups.length > 32) {
    const codes = new Set<string>();
    for (const g of groups) if (g.sellerCode !== null) codes.add(g.sellerCode);
    return [...codes].sort();
  }
  const codes: string[] = [];
  for (const g of groups) if (g.sellerCode !== null && !codes.includes(g.sellerCode)) codes.push(g.sellerCode);
  return sortByCodeUnits(codes);
}

/**
 * The fold's (sku, store) groups sorted by skuId then storeKey, the values from its first offer to arrive (offers of one group agree on them within one snapshot).
 */
function foldGroups(f: CardFold): CardGroup[] {
  const { tables } = f;
  const offers = tables.rows.ints;
  // Row starts of the product's offers (a row's number is its arrival order: the sort's last key).
  const order: number[] = [];
  for (let i = f.last; i >= 0; i = offers[i * OFFER_INTS + 3]!) order.push(i * OFFER_INTS);
  const storeKey = (at: number) => tables.stores[offers[at + 1]!]!.storeKey;
  order.sort((a, b) => offers[a]! - offers[b]! || byCodeUnits(storeKey(a), storeKey(b)) || a - b);
  const groups: CardGroup[] = [];
  let last: CardGroup | undefined;
  for (const at of order) {
    const skuId = offers[at]!;
    const store = tables.stores[offers[at + 1]!]!;
    if (last && last.skuId === skuId && last.storeKey === store.storeKey) continue;
    const sku = tables.skuValues[offers[at + 2]!]!;
    last = {
      skuId,
      storeKey: store.storeKey,
      lane: store.lane,
      checkoutMode: store.checkoutMode,
      sellerCode: store.sellerCode,
      sellerFacet: store.sellerFacet,
      condition: sku.condition,
      language: sku.language,
      finish: sku.finish,
      isSealed: sku.isSealed,
    };
    groups.push(last);
  }
  return groups;
}

/** A hash of what a card shows of its product (the same for every offer of it: offers carry these fields). */
export function productKey(p: ProductFields): string {
  const i = p.item;
  return hash53(
    JSON.stringify([
      p.sortKey,
      p.nameTerms,
      p.category,
      p.set,
      p.rarity,
      p.collectorNumber,
      i.productId,
      i.name,
      i.set,
      i.category,
      i.rarity,
      i.collectorNumber,
      i.imageUrl,
    ]),
  );
}

export function cardDoc(f: CardFold): CardDoc {
  const { sortKey, nameTerms, category, set, rarity, collectorNumber, item } = f.fields;
  const groups = foldGroups(f);
  const { values, fields, tuples } = cardValues(groups);
  // Fields by name rather than spread (the same keys in the same order: foldOffer makes every fold's fields).
  const doc: CardDoc = {
    docType: 'card',
    productId: item.productId,
    sortKey,
    nameTerms,
    nameKey: item.name,
    nameGrams: nameGrams(nameTerms),
    category,
    set,
    rarity,
    collectorNumber,
    condition: values[0]!,
    language: values[1]!,
    finish: values[2]!,
    sellerCode: sellerCodes(groups),
    sellerFacet: values[4]!,
    checkoutMode: values[3]! as CardGroup['checkoutMode'][],
    card: cardItem(item, matchingGroups(groups)),
    groups,
    groupKeys: groups.map(groupKey),
    productKey: productKey(f.fields),
  };
  for (let i = 0; i < fields.length; i++) doc[fields[i] as `x_${string}`] = tuples[i]!;
  return doc;
}
