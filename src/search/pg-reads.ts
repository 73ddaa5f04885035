import {
  FACETS,
  type CartLine,
  type Facets,
  type LookupBody,
  type ProductQuery,
  type SearchItem,
  type SearchQuery,
  type Suggestions,
  type SuggestQuery,
} from '../contract/buyer.js';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.js';
import {
  handoffStoreFacts,
  nativeRows,
  nativeRowsOfProducts,
  poBoxSuspended,
  productFacts,
  sellerCounts,
  sellerFacts,
  skuFacts,
  variantsOfProducts,
} from '../db/offer-source.js';
import {
  listedProducts,
  productsByName,
  productsNamedLike,
  searchAggregates,
  type FacetRow,
  type ResultRow,
  type SearchFilterParams,
} from '../db/fallback-source.js';
import {
  cartSeller,
  handoffOfferDocs,
  joinOffer,
  nativeOfferDocs,
  productDoc,
  productFields,
  searchItem,
  sellerStats,
  skuDoc,
} from './documents/builders.js';
import type { OfferDoc } from './documents/model.js';
import { cartLines, type LookupDocs } from './queries/lookup.js';
import { MAX_WINDOW } from './queries/product-offers.js';
import { FACET_SIZE } from './queries/filters.js';
import type { SearchPage } from './queries/search-result.js';
import { CANDIDATE_NAMES, COUNTED_NAMES, scopedSearch } from './queries/suggest.js';
import { compareCandidates, correctionOf, matchName, rankNames } from './suggest/match.js';
import { matchingNames, type NameCatalog } from './suggest/name-catalog.js';
import { DEFAULT_CATALOG_REFRESH, refreshedCatalog, type CatalogRefreshOptions } from './suggest/catalog-refresh.js';
import type { BuyerReads } from './reads.js';
import { compareCodePoints, productSortKey, terms } from './text.js';

// The buyer reads answered from PostgreSQL, the source of truth, for Degraded Mode. The answer is
// the one the index gives for the same data: the same gates, order, fields, facets and cursor
// semantics. Offers are built by the indexer's own pure builders from the same source facts, so
// they are identical by construction. What PostgreSQL cannot do (fold names: no \p{M} in its
// regular expressions) happens here: keyword matching and name order use text.ts, and sort keys
// compare by code point, which is the UTF-8 byte order Elasticsearch compares keywords in.
//
// Each read runs in one REPEATABLE READ, READ ONLY transaction (one consistent snapshot) with a
// statement timeout, so a slow fallback query gives up instead of piling up on the database.
// JIT is off for them: the seller_readiness view's cost estimate triggers JIT compilation that
// takes far longer than the queries themselves (BENCHMARKS.md, "PostgreSQL JIT").

export interface PgReadsOptions {
  /** SET LOCAL statement_timeout of each fallback transaction. */
  statementTimeoutMs: number;
  /** Waiting for a pooled connection longer than this fails the read. */
  connectTimeoutMs: number;
  /** How long the suggestions' name list is reused, and its bound (default DEFAULT_CATALOG_REFRESH). */
  names?: CatalogRefreshOptions;
}

export const DEFAULT_PG_READS: PgReadsOptions = { statementTimeoutMs: 2500, connectTimeoutMs: 1000 };

function inSnapshot<T>(pool: Pool, opts: PgReadsOptions, fn: (db: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, fn, {
    isolation: 'repeatable read',
    readOnly: true,
    local: { statement_timeout: String(Math.max(1, Math.floor(opts.statementTimeoutMs))), jit: 'off', work_mem: "'16MB'" },
    connectTimeoutMs: opts.connectTimeoutMs,
  });
}

const uniq = <T>(xs: T[]): T[] => [...new Set(xs)];

/** A product-page filter as the index applies it: a null field never matches a given filter. */
const passes = (filter: string[] | undefined, value: string | null) => filter === undefined || (value !== null && filter.includes(value));

/** The product-page order of DECISIONS.md: price, skuId, native before handoff, sellerId / variantId. */
export function compareOffers(a: OfferDoc, b: OfferDoc): number {
  return a.price - b.price || a.skuId - b.skuId || a.laneOrder - b.laneOrder || a.ownerId - b.ownerId;
}

// Bounds of the keyword prefilter: it only narrows (the exact rule runs on the candidates), so it
// may look at fewer terms and a prefix of each; the regex of a whole 255-letter keyword is slow
// for PostgreSQL to compile and to run per product (BENCHMARKS.md, "Measurements behind code
// choices").
export const PREFILTER_MAX_TERMS = 8;
export const PREFILTER_MAX_PARTS = 24;

/** Letters without case whose NFKD form is themselves or starts with themselves: matched literally. */
const CASELESS_SCRIPT = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;

/**
 * A regular expression that every product whose folded name has `term` as a term matches, on
 * the NFKD form of the name (folding = NFKD, drop marks, lowercase): each ASCII letter or digit
 * of the term must appear, in either case, in order, separated only by non-ASCII characters
 * (the combining marks folding drops); a CJK or Hangul character (no case) must appear as is;
 * any other character of the term may be anything. At most PREFILTER_MAX_PARTS parts (a prefix
 * of the term): a shorter pattern only lets more candidates through. null when it would match
 * every name.
 */
export function termPrefilter(term: string): string | null {
  const parts: string[] = [];
  for (const c of term) {
    if (parts.length >= PREFILTER_MAX_PARTS) break;
    const part = /^[a-z]$/.test(c) ? `[${c}${c.toUpperCase()}]` : /^[0-9]$/.test(c) || CASELESS_SCRIPT.test(c) ? c : '.*';
    if (part === '.*' && parts[parts.length - 1] === '.*') continue; // one wildcard per run
    parts.push(part);
  }
  while (parts[0] === '.*') parts.shift(); // the pattern is unanchored: leading/trailing wildcards add nothing
  while (parts[parts.length - 1] === '.*') parts.pop();
  return parts.length === 0 ? null : parts.join('[^\\x01-\\x7f]*');
}

/** The prefilter patterns of a keyword's terms, longest terms first (they narrow most), bounded. */
export function keywordPrefilters(wanted: readonly string[]): string[] {
  const patterns = uniq(
    [...wanted]
      .sort((a, b) => b.length - a.length)
      .map(termPrefilter)
      .filter((p): p is string => p !== null),
  );
  return patterns.slice(0, PREFILTER_MAX_TERMS);
}

// PostgreSQL text cannot hold U+0000, so no stored value equals a filter value containing it: the
// index matches nothing for it, and so must the fallback (sending it would fail the query).
const storable = (v: string) => !v.includes('\u0000');
/** A multi-valued filter without unstorable values; undefined = unfiltered, [] = matches nothing. */
const storableValues = (vs: string[] | undefined): string[] | undefined => vs?.filter(storable);

/** Ids PostgreSQL integer columns can hold; a larger one names nothing. */
const INT4_MAX = 2_147_483_647;
const storableId = (id: number) => id <= INT4_MAX;

function facetsOf(rows: FacetRow[]): Facets {
  const facets = {} as Facets;
  for (const f of FACETS) {
    const mine = rows.filter((r) => r.facet === f).map((r) => ({ r, key: f === 'seller' ? `${r.value}\u0000${r.storeName ?? ''}` : r.value }));
    mine.sort((a, b) => b.r.count - a.r.count || compareCodePoints(a.key, b.key));
    const top = mine.slice(0, FACET_SIZE);
    if (f === 'seller') facets.seller = top.map(({ r }) => ({ sellerCode: r.value, storeName: r.storeName ?? '', count: r.count }));
    else facets[f] = top.map(({ r }) => ({ value: r.value, count: r.count }));
  }
  return facets;
}

function emptyPage(): SearchPage {
  return { items: [], facets: facetsOf([]), nextAfter: null };
}

/** One product's page: its shown offers in product-page order, filtered and paged, and its Product block. */
async function productPage(db: PoolClient, productId: number, q: ProductQuery): ReturnType<BuyerReads['productPage']> {
  const natives = await nativeRowsOfProducts(db, [productId]);
  const variants = await variantsOfProducts(db, [productId]);
  const poBox = await poBoxSuspended(db);
  const sellers = await sellerFacts(db, uniq(natives.map((r) => r.listing.sellerId)));
  const skus = await skuFacts(db, uniq(variants.map((v) => v.skuId)));
  const stores = await handoffStoreFacts(db, uniq(variants.map((v) => v.storeSlug)));
  const products = await productFacts(db, [productId]);

  const docs = [...nativeOfferDocs(natives, sellers, products, poBox), ...handoffOfferDocs(variants, skus, stores, products)].map((o) => o.doc);
  const shown = docs
    .filter(
      (d) => d.shown && d.productId === productId && passes(q.condition, d.condition) && passes(q.language, d.language) && passes(q.finish, d.finish),
    )
    .sort(compareOffers);
  const page = q.offset + q.limit > MAX_WINDOW ? [] : shown.slice(q.offset, q.offset + q.limit);
  // The same join as the index path: the counters the seller documents hold, of the page's sellers only.
  const counts = await sellerCounts(db, uniq(page.flatMap((d) => (d.sellerId === null ? [] : [d.sellerId]))));
  const offers = page.map((d) => joinOffer(d.offer, d.sellerId === null ? undefined : sellerStats(counts.get(d.sellerId))));
  const p = products.get(productId);
  return { offers, product: p ? productDoc(p).product : null };
}

/**
 * The search's filters as PostgreSQL can hold them, or null when one can match nothing (a value
 * with U+0000, or a multi-valued filter left empty by that).
 */
function storableFilters(q: SearchQuery): Omit<SearchFilterParams, 'productIds'> | null {
  const multi = {
    collectorNumber: storableValues(q.collectorNumber),
    condition: storableValues(q.condition),
    language: storableValues(q.language),
    finish: storableValues(q.finish),
  };
  const single = [q.category, q.set, q.rarity, q.sellerCode];
  if (single.some((v) => v !== undefined && !storable(v)) || Object.values(multi).some((v) => v !== undefined && v.length === 0)) return null;
  return {
    checkoutMode: q.checkoutMode === 'any' ? null : q.checkoutMode,
    category: q.category ?? null,
    set: q.set ?? null,
    rarity: q.rarity ?? null,
    collectorNumber: multi.collectorNumber ?? null,
    condition: multi.condition ?? null,
    language: multi.language ?? null,
    finish: multi.finish ?? null,
    sellerCode: q.sellerCode ?? null,
  };
}

/**
 * The products whose folded name has every folded term of the keyword as a term (DECISIONS.md):
 * PostgreSQL narrows by pattern, the exact rule runs here. null: no keyword, every product.
 */
async function productsWithTerms(db: PoolClient, keyword: string | undefined): Promise<number[] | null> {
  const wanted = terms(keyword ?? '');
  if (wanted.length === 0) return null;
  const candidates = await productsNamedLike(db, keywordPrefilters(uniq(wanted)));
  return candidates
    .filter((c) => {
      const have = new Set(terms(c.name));
      return wanted.every((t) => have.has(t));
    })
    .map((c) => c.productId);
}

/** One search page: products matching the filters in name order after the cursor, with their facets. */
async function search(db: PoolClient, q: SearchQuery, after: string | null): Promise<SearchPage> {
  const filters = storableFilters(q);
  if (filters === null) return emptyPage();
  const productIds = await productsWithTerms(db, q.keyword);
  if (productIds !== null && productIds.length === 0) return emptyPage();
  const { results, facets } = await searchAggregates(db, { productIds, ...filters });

  // Name order (composite aggregation on sortKey): ascending or descending by code point,
  // continuing strictly after the cursor's key.
  const dir = q.sort === 'name' ? 1 : -1;
  const keyed = results.map((r): ResultRow & { key: string } => ({ ...r, key: productSortKey(r.name, r.productId) }));
  const page = keyed
    .filter((r) => after === null || dir * compareCodePoints(r.key, after) > 0)
    .sort((a, b) => dir * compareCodePoints(a.key, b.key))
    .slice(0, q.limit + 1);
  const shownPage = page.slice(0, q.limit);
  const products = await productFacts(
    db,
    shownPage.map((r) => r.productId),
  );
  const items = shownPage.map((r): SearchItem => searchItem(productFields(r.productId, products.get(r.productId)).item, r));
  const nextAfter = page.length > q.limit ? page[q.limit - 1]!.key : null;
  return { items, facets: facetsOf(facets), nextAfter };
}

/**
 * Suggestions as the index path makes them (queries/suggest.ts), from PostgreSQL: the names of
 * the catalog list (`catalog`, read every few seconds) matching the query, the products of theirs
 * /search lists in the scope (read in this snapshot, by their names now: one renamed since the
 * list was read is kept only if its name still matches), their distinct names (the most products
 * first, as the terms aggregation keeps them), ranked, and the best ones counted as
 * /search?keyword=<name> would list them.
 */
async function suggest(db: PoolClient, q: SuggestQuery, catalog: NameCatalog): Promise<Suggestions> {
  const none: Suggestions = { completions: [], correction: null };
  const qTerms = terms(q.q);
  const filters = storableFilters(scopedSearch(q, q.q));
  if (qTerms.length === 0 || filters === null) return none;
  const names = matchingNames(catalog, qTerms);
  if (names.length === 0) return none;
  const products = await listedProducts(db, { ...filters, productIds: names.flatMap((i) => catalog.productIds[i]!) });
  const matchesByName = new Map<string, boolean>();
  const matches = (name: string) => {
    let m = matchesByName.get(name);
    if (m === undefined) matchesByName.set(name, (m = matchName(qTerms, terms(name)) !== null));
    return m;
  };
  const listed = products.flatMap((r) => (r.name !== null && matches(r.name) ? [{ name: r.name, terms: new Set(terms(r.name)) }] : []));
  const own = new Map<string, number>();
  for (const r of listed) own.set(r.name, (own.get(r.name) ?? 0) + 1);
  // As the candidate request aggregates them: the most stocked names, and the most stocked of the exact matches.
  const mostStocked = (names: [string, number][]) => names.sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0])).slice(0, CANDIDATE_NAMES);
  const exact = [...own].filter(([name]) => matchName(qTerms, terms(name))!.typos === 0);
  const ranked = rankNames(qTerms, new Map([...mostStocked(exact), ...mostStocked([...own])]));
  const listedCount = (wanted: string[]) => listed.filter((r) => wanted.every((t) => r.terms.has(t))).length;
  const counted = ranked
    .slice(0, COUNTED_NAMES)
    .map((c) => ({ ...c, productCount: listedCount(terms(c.name)) }))
    .sort(compareCandidates);
  return {
    completions: counted.slice(0, q.limit).map((c) => ({ text: c.name, productCount: c.productCount })),
    correction: listedCount(qTerms) > 0 ? null : correctionOf(ranked),
  };
}

/** Cart lines from the same facts the indexer reads (`known`: the lines whose ids PostgreSQL can hold). */
async function lookup(db: PoolClient, body: LookupBody, known: LookupBody['lines']): Promise<CartLine[]> {
  const rows = await nativeRows(
    db,
    known.map((l) => l.sellerId),
    known.map((l) => l.skuId),
  );
  const poBox = await poBoxSuspended(db);
  const sellers = await sellerFacts(db, uniq([...body.lines.map((l) => l.sellerId).filter(storableId), ...rows.map((r) => r.listing.sellerId)]));
  const skus = await skuFacts(db, uniq(body.lines.map((l) => l.skuId).filter(storableId)));
  const products = await productFacts(db, uniq([...rows.map((r) => r.sku.productId), ...[...skus.values()].map((s) => s.productId)]));
  const docs: LookupDocs = { offers: new Map(), skus: new Map(), sellers: new Map() };
  for (const o of nativeOfferDocs(rows, sellers, products, poBox)) docs.offers.set(o.id, { offer: o.doc.offer });
  for (const s of skus.values()) docs.skus.set(s.skuId, { cart: skuDoc(s, products.get(s.productId)).cart });
  for (const s of sellers.values()) docs.sellers.set(s.sellerId, { cartSeller: cartSeller(s) });
  return cartLines(body.lines, docs);
}

/** The buyer reads from PostgreSQL, each in one snapshot of its own. */
export function pgReads(pool: Pool, opts: PgReadsOptions = DEFAULT_PG_READS): BuyerReads {
  const catalog = refreshedCatalog((max) => inSnapshot(pool, opts, (db) => productsByName(db, max)), opts.names ?? DEFAULT_CATALOG_REFRESH);
  return {
    productPage: (productId, q) => inSnapshot(pool, opts, (db) => productPage(db, productId, q)),
    search: (q, after) => inSnapshot(pool, opts, (db) => search(db, q, after)),
    suggest: async (q) => {
      const names = await catalog.current();
      return inSnapshot(pool, opts, (db) => suggest(db, q, names));
    },
    lookup: async (body) => {
      if (body.lines.length === 0) return [];
      // Ids beyond int4 cannot be stored: such lines stay unknown (as the index answers them).
      const known = body.lines.filter((l) => storableId(l.sellerId) && storableId(l.skuId));
      return inSnapshot(pool, opts, (db) => lookup(db, body, known));
    },
  };
}
