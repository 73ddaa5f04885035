// Search bodies and result shaping of the experimental models (docs/search-scale.md), plus an
// exact in-memory reference over the nested documents (compare.ts).
import { FACETS, type FacetName, type Facets, type SearchItem, type SearchQuery } from '../../src/contract/buyer.js';
import { searchItem } from '../../src/search/documents/builders.js';
import { cardSearchBody, cardSearchPage, usesCards } from '../../src/search/queries/card-search.js';
import { sellerFacetValue, type SearchPage } from '../../src/search/queries/search-result.js';
import { compareCodePoints, terms } from '../../src/search/text.js';
import { comboField, dimValue, DIMS, SEP, type Dim, type Group } from './model.js';

type Clause = Record<string, unknown>;
const bool = (filter: Clause[]): Clause => ({ bool: { filter } });
const anyOf = (field: string, v: string[]): Clause => (v.length === 1 ? { term: { [field]: v[0] } } : { terms: { [field]: v } });

const PRODUCT_FACETS = ['category', 'set', 'rarity', 'collectorNumber'] as const;
const OFFER_FACETS = ['condition', 'language', 'finish', 'seller'] as const;
type OfferFacet = (typeof OFFER_FACETS)[number];
const isOfferFacet = (f: FacetName): f is OfferFacet => (OFFER_FACETS as readonly string[]).includes(f);
const FACET_SIZE = 100;

/** Root (product) and group (offer) clauses, offer ones with field names under `prefix`. */
export function modelClauses(q: SearchQuery, prefix: string) {
  const root: Clause[] = terms(q.keyword ?? '').map((t) => ({ term: { nameTerms: t } }));
  const product: Partial<Record<FacetName, Clause>> = {};
  if (q.category !== undefined) product.category = anyOf('category', [q.category]);
  if (q.set !== undefined) product.set = anyOf('set', [q.set]);
  if (q.rarity !== undefined) product.rarity = anyOf('rarity', [q.rarity]);
  if (q.collectorNumber) product.collectorNumber = anyOf('collectorNumber', q.collectorNumber);
  const offerAlways: Clause[] = q.checkoutMode !== 'any' ? [{ term: { [`${prefix}checkoutMode`]: q.checkoutMode } }] : [];
  const offer: Partial<Record<FacetName, Clause>> = {};
  if (q.condition) offer.condition = anyOf(`${prefix}condition`, q.condition);
  if (q.language) offer.language = anyOf(`${prefix}language`, q.language);
  if (q.finish) offer.finish = anyOf(`${prefix}finish`, q.finish);
  if (q.sellerCode !== undefined) offer.seller = anyOf(`${prefix}sellerCode`, [q.sellerCode]);
  const productExcept = (f: FacetName | null) => PRODUCT_FACETS.filter((x) => x !== f && product[x]).map((x) => product[x]!);
  const offerExcept = (f: FacetName | null) => [...offerAlways, ...OFFER_FACETS.filter((x) => x !== f && offer[x]).map((x) => offer[x]!)];
  return { root, productExcept, offerExcept };
}

// ------------------------------------------------------------------ (a) nested offer groups

const INNER_FIELDS = ['groups.price', 'groups.storeKey', 'groups.lane', 'groups.isSealed'];

export function nestedSearchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  // Without an offer-level filter every group matches: the current card body answers (same fields).
  if (usesCards(q)) return cardSearchBody(q, after);
  const c = modelClauses(q, 'groups.');
  const groupsMatch = (offer: Clause[], innerHits: boolean): Clause => ({
    nested: {
      path: 'groups',
      query: bool(offer),
      ...(innerHits ? { inner_hits: { name: 'm', size: 100, _source: false, docvalue_fields: INNER_FIELDS } } : {}),
    },
  });
  const facetAggs: Record<string, unknown> = {};
  for (const f of FACETS) {
    if (!isOfferFacet(f)) {
      facetAggs[`facet_${f}`] = {
        filter: bool([...c.productExcept(f), groupsMatch(c.offerExcept(null), false)]),
        aggs: { values: { terms: { field: f, size: FACET_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
      };
      continue;
    }
    const field = f === 'seller' ? 'sellerFacet' : f;
    const offer = c.offerExcept(f);
    if (offer.length === 0) {
      // every group counts: the product's folded multi-valued field gives the same doc_count
      facetAggs[`facet_${f}`] = {
        filter: bool(c.productExcept(null)),
        aggs: { values: { terms: { field, size: FACET_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
      };
      continue;
    }
    facetAggs[`facet_${f}`] = {
      filter: bool([...c.productExcept(null), groupsMatch(offer, false)]),
      aggs: {
        g: {
          nested: { path: 'groups' },
          aggs: {
            m: {
              filter: bool(offer),
              aggs: {
                values: {
                  terms: { field: `groups.${field}`, size: FACET_SIZE, order: [{ products: 'desc' }, { _key: 'asc' }] },
                  aggs: { products: { reverse_nested: {} } },
                },
              },
            },
          },
        },
      },
    };
  }
  return {
    size: q.limit + 1,
    track_total_hits: false,
    _source: ['card'],
    query: bool([{ term: { docType: 'card' } }, ...c.root]),
    // selections narrow the items, not the other facets' counts (disjunctive facets)
    post_filter: bool([...c.productExcept(null), groupsMatch(c.offerExcept(null), true)]),
    sort: [{ sortKey: { order: q.sort === 'name' ? 'asc' : 'desc' } }],
    ...(after === null ? {} : { search_after: [after] }),
    aggs: facetAggs,
  };
}

interface NestedHit {
  _source: { card: SearchItem };
  sort: [string];
  inner_hits?: { m: { hits: { hits: { fields: Record<string, unknown[]> }[] } } };
}
interface Bucket {
  key: string;
  doc_count: number;
  products?: { doc_count: number };
}

export function nestedSearchPage(res: { hits: { hits: unknown[] }; aggregations?: Record<string, unknown> }, q: SearchQuery): SearchPage {
  if (usesCards(q)) return cardSearchPage(res, q.limit);
  const hits = res.hits.hits as NestedHit[];
  const items = hits.slice(0, q.limit).map((h) => {
    const gs = h.inner_hits!.m.hits.hits.map((x) => x.fields);
    const { productId, name, set, category, rarity, collectorNumber, imageUrl } = h._source.card;
    return searchItem(
      { productId, name, set, category, rarity, collectorNumber, imageUrl },
      {
        fromPrice: Math.min(...gs.map((g) => g['groups.price']![0] as number)),
        sellerCount: new Set(gs.map((g) => g['groups.storeKey']![0])).size,
        isSealed: gs.some((g) => g['groups.isSealed']![0] === true),
        hasNative: gs.some((g) => g['groups.lane']![0] === 'native'),
      },
    );
  });
  const facets = {} as Facets;
  for (const f of FACETS) {
    const a = res.aggregations![`facet_${f}`] as { values?: { buckets: Bucket[] }; g?: { m: { values: { buckets: Bucket[] } } } };
    const buckets = (a.values ?? a.g!.m.values).buckets.map((b) => ({ key: b.key, count: b.products?.doc_count ?? b.doc_count }));
    if (f === 'seller') facets.seller = buckets.map((b) => sellerFacetValue(b.key, b.count));
    else facets[f] = buckets.map((b) => ({ value: b.key, count: b.count }));
  }
  const nextAfter = hits.length > q.limit ? hits[q.limit - 1]!.sort[0] : null;
  return { items, facets, nextAfter };
}

// ------------------------------------------------------ (b) per-(product, sku) summaries + collapse

export function skusSearchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  const c = modelClauses(q, '');
  const facetAggs: Record<string, unknown> = {};
  for (const f of FACETS) {
    const field = f === 'seller' ? 'sellerFacet' : f;
    facetAggs[`facet_${f}`] = {
      filter: bool([...c.productExcept(isOfferFacet(f) ? null : f), ...c.offerExcept(isOfferFacet(f) ? f : null)]),
      aggs: {
        values: {
          terms: { field, size: FACET_SIZE, order: [{ products: 'desc' }, { _key: 'asc' }] },
          // distinct products: a product has several skus with the same condition (languages,
          // finishes), so doc_count over-counts; only cardinality (approximate) dedupes here
          aggs: { products: { cardinality: { field: 'productId', precision_threshold: 3000 } } },
        },
      },
    };
  }
  return {
    size: q.limit + 1,
    track_total_hits: false,
    _source: false,
    query: bool([{ term: { docType: 'skusum' } }, ...c.root]),
    post_filter: bool([...c.productExcept(null), ...c.offerExcept(null)]),
    // collapse + search_after: allowed only when sorting on the collapse field alone; sortKey is
    // unique per product, so collapsing on it is collapsing on productId
    collapse: { field: 'sortKey', inner_hits: { name: 'm', size: 100, _source: ['item'], docvalue_fields: ['price', 'storeKey', 'lane', 'isSealed'] } },
    sort: [{ sortKey: { order: q.sort === 'name' ? 'asc' : 'desc' } }],
    ...(after === null ? {} : { search_after: [after] }),
    aggs: facetAggs,
  };
}

interface SkusHit {
  sort: [string];
  inner_hits: { m: { hits: { hits: { _source: { item: SearchItem }; fields: Record<string, unknown[]> }[] } } };
}

export function skusSearchPage(res: { hits: { hits: unknown[] }; aggregations?: Record<string, unknown> }, q: SearchQuery): SearchPage {
  const hits = res.hits.hits as SkusHit[];
  const items = hits.slice(0, q.limit).map((h) => {
    const docs = h.inner_hits.m.hits.hits;
    const { productId, name, set, category, rarity, collectorNumber, imageUrl } = docs[0]!._source.item;
    return searchItem(
      { productId, name, set, category, rarity, collectorNumber, imageUrl },
      {
        fromPrice: Math.min(...docs.map((d) => d.fields.price![0] as number)),
        sellerCount: new Set(docs.flatMap((d) => d.fields.storeKey!)).size,
        isSealed: docs.some((d) => d.fields.isSealed![0] === true),
        hasNative: docs.some((d) => d.fields.lane!.includes('native')),
      },
    );
  });
  const facets = {} as Facets;
  for (const f of FACETS) {
    const buckets = (res.aggregations![`facet_${f}`] as { values: { buckets: (Bucket & { products: { value: number } })[] } }).values.buckets;
    if (f === 'seller') facets.seller = buckets.map((b) => sellerFacetValue(b.key, b.products.value));
    else facets[f] = buckets.map((b) => ({ value: b.key, count: b.products.value }));
  }
  const nextAfter = hits.length > q.limit ? hits[q.limit - 1]!.sort[0] : null;
  return { items, facets, nextAfter };
}

// ------------------------------------------------------------------ exact in-memory reference

export interface RefProduct {
  productId: number;
  sortKey: string;
  nameTerms: string;
  category: string | null;
  set: string | null;
  rarity: string | null;
  collectorNumber: string | null;
  card: SearchItem;
  groups: Group[];
}

/** Every matching product in sort order with its item, and the exact disjunctive facets. */
export function reference(products: RefProduct[], q: SearchQuery): { items: SearchItem[]; sortKeys: string[]; facets: Facets } {
  const kw = terms(q.keyword ?? '');
  const prodOk = (p: RefProduct, except: FacetName | null) =>
    kw.every((t) => p.nameTerms.split(' ').includes(t)) &&
    (except === 'category' || q.category === undefined || p.category === q.category) &&
    (except === 'set' || q.set === undefined || p.set === q.set) &&
    (except === 'rarity' || q.rarity === undefined || p.rarity === q.rarity) &&
    (except === 'collectorNumber' || !q.collectorNumber || (p.collectorNumber !== null && q.collectorNumber.includes(p.collectorNumber)));
  const groupOk = (g: Group, except: FacetName | null) =>
    (q.checkoutMode === 'any' || g.checkoutMode === q.checkoutMode) &&
    (except === 'condition' || !q.condition || (g.condition !== null && q.condition.includes(g.condition))) &&
    (except === 'language' || !q.language || (g.language !== null && q.language.includes(g.language))) &&
    (except === 'finish' || !q.finish || (g.finish !== null && q.finish.includes(g.finish))) &&
    (except === 'seller' || q.sellerCode === undefined || g.sellerCode === q.sellerCode);

  const matched: { p: RefProduct; gs: Group[] }[] = [];
  for (const p of products) {
    if (!prodOk(p, null)) continue;
    const gs = p.groups.filter((g) => groupOk(g, null));
    if (gs.length > 0) matched.push({ p, gs });
  }
  matched.sort((a, b) => compareCodePoints(a.p.sortKey, b.p.sortKey) * (q.sort === 'name' ? 1 : -1));
  const items = matched.map(({ p, gs }) =>
    searchItem(
      {
        productId: p.card.productId,
        name: p.card.name,
        set: p.card.set,
        category: p.card.category,
        rarity: p.card.rarity,
        collectorNumber: p.card.collectorNumber,
        imageUrl: p.card.imageUrl,
      },
      {
        fromPrice: Math.min(...gs.map((g) => g.price)),
        sellerCount: new Set(gs.map((g) => g.storeKey)).size,
        isSealed: gs.some((g) => g.isSealed),
        hasNative: gs.some((g) => g.lane === 'native'),
      },
    ),
  );
  const facets = {} as Facets;
  for (const f of FACETS) {
    const counts = new Map<string, number>();
    for (const p of products) {
      if (!prodOk(p, isOfferFacet(f) ? null : f)) continue;
      const gs = p.groups.filter((g) => groupOk(g, isOfferFacet(f) ? f : null));
      if (gs.length === 0) continue;
      const vals = new Set<string | null>(
        isOfferFacet(f) ? gs.map((g) => (f === 'seller' ? g.sellerFacet : g[f])) : [p[f as (typeof PRODUCT_FACETS)[number]]],
      );
      for (const v of vals) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0])).slice(0, FACET_SIZE);
    if (f === 'seller') facets.seller = sorted.map(([k, n]) => sellerFacetValue(k, n));
    else facets[f] = sorted.map(([k, n]) => ({ value: k, count: n }));
  }
  return { items, sortKeys: matched.map((m) => m.p.sortKey), facets };
}

// ------------------------------------------------- (c) cards with combination keys (+ nested fallback)

const RE_SPECIAL = /[.?+*|{}[\]()"\\#@&<>~]/g;
const reEscape = (s: string) => s.replace(RE_SPECIAL, (c) => `\\${c}`);
const ANY = `[^${SEP}]*`;

/** The selected values per offer dimension (seller as a pattern on sellerCode + U+0000 + name). */
function selections(q: SearchQuery): Partial<Record<Dim, string[]>> {
  const sel: Partial<Record<Dim, string[]>> = {};
  if (q.condition) sel.c = q.condition;
  if (q.language) sel.l = q.language;
  if (q.finish) sel.f = q.finish;
  if (q.sellerCode !== undefined) sel.s = [q.sellerCode];
  if (q.checkoutMode !== 'any') sel.m = [q.checkoutMode];
  return sel;
}
const ROOT_FIELD: Record<Dim, string> = { c: 'condition', l: 'language', f: 'finish', s: 'sellerCode', m: 'checkoutMode' };
const FACET_DIM: Partial<Record<FacetName, Dim>> = { condition: 'c', language: 'l', finish: 'f', seller: 's' };

function dimPattern(d: Dim, values: string[] | null): string {
  if (values === null) return ANY;
  if (d === 's') return `${reEscape(values[0]!)}\u0000${ANY}`;
  return values.length === 1 ? reEscape(values[0]!) : `(${values.map(reEscape).join('|')})`;
}

/** Largest set of dimensions with a combination field (5: all; the trimmed index has 3). */
let comboMax = 5;
export const setComboMax = (n: number) => {
  comboMax = n;
};
const GROUP_FIELD: Record<Dim, string> = {
  c: 'groups.condition',
  l: 'groups.language',
  f: 'groups.finish',
  s: 'groups.sellerCode',
  m: 'groups.checkoutMode',
};

/** Products with a group matching every selection, as one clause on the card (null: no selection). */
function comboFilter(sel: Partial<Record<Dim, string[]>>): Clause | null {
  const ds = DIMS.filter((d) => sel[d]);
  if (ds.length === 0) return null;
  if (ds.length === 1) return anyOf(ROOT_FIELD[ds[0]!], sel[ds[0]!]!);
  if (ds.length > comboMax) return { nested: { path: 'groups', query: bool(ds.map((d) => anyOf(GROUP_FIELD[d], sel[d]!))) } };
  return { regexp: { [comboField(ds)]: { value: ds.map((d) => dimPattern(d, sel[d]!)).join(SEP), flags: 'NONE' } } };
}

export function comboSearchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  if (usesCards(q)) return cardSearchBody(q, after);
  const c = modelClauses(q, 'groups.');
  const sel = selections(q);
  const all = comboFilter(sel)!;
  const facetAggs: Record<string, unknown> = {};
  const nestedBody = nestedSearchBody(q, after) as { aggs: Record<string, unknown> };
  for (const f of FACETS) {
    const d = FACET_DIM[f];
    if (d === undefined) {
      facetAggs[`facet_${f}`] = {
        filter: bool([...c.productExcept(f), all]),
        aggs: { values: { terms: { field: f, size: FACET_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
      };
      continue;
    }
    const others = DIMS.filter((x) => x !== d && sel[x]);
    if (others.length === 0) {
      facetAggs[`facet_${f}`] = nestedBody.aggs[`facet_${f}`]; // the card field's doc_count
      continue;
    }
    if (others.some((x) => sel[x]!.length > 1) || others.length + 1 > comboMax) {
      // two values of another dimension would split a product over two buckets: nested fallback
      facetAggs[`facet_${f}`] = nestedBody.aggs[`facet_${f}`];
      continue;
    }
    const ds = DIMS.filter((x) => x === d || sel[x]);
    // Only cards with a group matching the other selections can count: the same doc_counts over
    // far fewer cards when the other selections are selective.
    const othersSel = Object.fromEntries(others.map((x) => [x, sel[x]!]));
    facetAggs[`facet_${f}`] = {
      filter: bool([...c.productExcept(null), comboFilter(othersSel)!]),
      aggs: {
        values: {
          terms: {
            field: comboField(ds),
            size: FACET_SIZE,
            order: [{ _count: 'desc' }, { _key: 'asc' }],
            include: ds.map((x) => dimPattern(x, x === d ? null : sel[x]!)).join(SEP),
          },
        },
      },
      meta: { at: ds.indexOf(d) },
    };
  }
  return {
    size: q.limit + 1,
    track_total_hits: false,
    _source: ['card', 'groups'],
    query: bool([{ term: { docType: 'card' } }, ...c.root]),
    post_filter: bool([...c.productExcept(null), all]),
    sort: [{ sortKey: { order: q.sort === 'name' ? 'asc' : 'desc' } }],
    ...(after === null ? {} : { search_after: [after] }),
    aggs: facetAggs,
  };
}

export function comboSearchPage(res: { hits: { hits: unknown[] }; aggregations?: Record<string, unknown> }, q: SearchQuery): SearchPage {
  if (usesCards(q)) return cardSearchPage(res, q.limit);
  const hits = res.hits.hits as { _source: { card: SearchItem; groups: Group[] }; sort: [string] }[];
  const sel = selections(q);
  const ok = (g: Group) =>
    DIMS.every((d) => {
      const vs = sel[d];
      if (!vs) return true;
      if (d === 's') return g.sellerCode === vs[0];
      const v = dimValue(g, d);
      return v !== null && vs.includes(v);
    });
  const items = hits.slice(0, q.limit).map((h) => {
    const gs = h._source.groups.filter(ok);
    const { productId, name, set, category, rarity, collectorNumber, imageUrl } = h._source.card;
    return searchItem(
      { productId, name, set, category, rarity, collectorNumber, imageUrl },
      {
        fromPrice: Math.min(...gs.map((g) => g.price)),
        sellerCount: new Set(gs.map((g) => g.storeKey)).size,
        isSealed: gs.some((g) => g.isSealed),
        hasNative: gs.some((g) => g.lane === 'native'),
      },
    );
  });
  const facets = {} as Facets;
  for (const f of FACETS) {
    const a = res.aggregations![`facet_${f}`] as {
      meta?: { at: number };
      values?: { buckets: Bucket[] };
      g?: { m: { values: { buckets: Bucket[] } } };
    };
    const buckets = (a.values ?? a.g!.m.values).buckets.map((b) => ({
      key: a.meta ? b.key.split(SEP)[a.meta.at]! : b.key,
      count: b.products?.doc_count ?? b.doc_count,
    }));
    if (f === 'seller') facets.seller = buckets.map((b) => sellerFacetValue(b.key, b.count));
    else facets[f] = buckets.map((b) => ({ value: b.key, count: b.count }));
  }
  const nextAfter = hits.length > q.limit ? hits[q.limit - 1]!.sort[0] : null;
  return { items, facets, nextAfter };
}
