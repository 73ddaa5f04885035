import { FACETS, type FacetName, type Facets, type SearchQuery } from '../../contract/buyer.js';
import { cardItem, matchingGroups } from '../documents/builders.js';
import type { CardDoc } from '../documents/model.js';
import { comboField, DIMS, MAX_COMBO, SEP, type CardGroup, type Dim } from '../documents/offer-groups.js';
import { anyOf, bool, FACET_FIELD, FACET_SIZE, facetClausesExcept, searchClauses, type Clause } from './filters.js';
import { sellerFacetValue } from './search-result.js';
import type { UnpricedPage } from './search-result.js';

// GET /search with an offer-level filter (condition, language, finish, sellerCode, checkoutMode),
// over product cards like the card path (docs/search-design.md, "Offer-level filters"): the same
// sort, search_after cursor and one document per product, so pages never skip or repeat a product
// and a deep page costs what the first costs. A product matches when one of its (sku, store)
// groups matches every offer-level selection:
// - one dimension selected: a term on the card's folded field (condition, sellerCode, ...);
// - two or three: exact terms (or prefixes, when the seller is one: its tuple value holds the
//   store name after the code) on the combination field of those dimensions;
// - four or five, or so many values that their tuples are too many to list: a nested query.
// Items are the card's search item recomputed over its matching groups (in `_source`); their
// fromPrice is read from the matching offers (from-prices.ts). Facet
// counts are exact distinct products: doc_counts of terms over cards, or reverse_nested
// doc_counts where a product could otherwise count twice in one bucket.

/** A selection's tuples beyond this many are answered by a nested query instead of listed. */
const MAX_TUPLES = 64;

type Selections = Partial<Record<Dim, string[]>>;

const ROOT_FIELD: Record<Dim, string> = { c: 'condition', l: 'language', f: 'finish', m: 'checkoutMode', s: 'sellerCode' };
const GROUP_FIELD: Record<Dim, string> = {
  c: 'groups.condition',
  l: 'groups.language',
  f: 'groups.finish',
  m: 'groups.checkoutMode',
  s: 'groups.sellerCode',
};
const FACET_DIM: Partial<Record<FacetName, Dim>> = { condition: 'c', language: 'l', finish: 'f', seller: 's' };

/** The offer-level selections of a query, by dimension (the seller is one code). */
export function offerSelections(q: SearchQuery): Selections {
  const sel: Selections = {};
  if (q.condition) sel.c = q.condition;
  if (q.language) sel.l = q.language;
  if (q.finish) sel.f = q.finish;
  if (q.checkoutMode !== 'any') sel.m = [q.checkoutMode];
  if (q.sellerCode !== undefined) sel.s = [q.sellerCode];
  return sel;
}

const selectedDims = (sel: Selections): Dim[] => DIMS.filter((d) => sel[d] !== undefined);

/** Every tuple of the non-seller dimensions' values, in DIMS order, joined by SEP. */
function tuples(dims: Dim[], sel: Selections): string[] {
  let out = [''];
  for (const [i, d] of dims.entries()) out = out.flatMap((head) => sel[d]!.map((v) => (i === 0 ? v : head + SEP + v)));
  return out;
}

const tupleCount = (dims: Dim[], sel: Selections) => dims.reduce((n, d) => n * sel[d]!.length, 1);

/** Products with a group matching every selection, as one clause on the card (null: none selected). */
export function offerFilter(sel: Selections): Clause | null {
  const dims = selectedDims(sel);
  if (dims.length === 0) return null;
  if (dims.length === 1) return anyOf(ROOT_FIELD[dims[0]!], sel[dims[0]!]!);
  if (dims.length > MAX_COMBO || tupleCount(dims, sel) > MAX_TUPLES) return nestedFilter(sel);
  const field = comboField(dims);
  if (sel.s === undefined) return anyOf(field, tuples(dims, sel));
  // The seller is last: its value is sellerCode + U+0000 + storeName, so a fixed code is a prefix.
  const prefixes = tuples(dims.slice(0, -1), sel).map((head) => head + SEP + sel.s![0]! + SEP);
  const clauses = prefixes.map((p) => ({ prefix: { [field]: p } }));
  return clauses.length === 1 ? clauses[0]! : { bool: { should: clauses, minimum_should_match: 1 } };
}

function groupClauses(sel: Selections): Clause[] {
  return selectedDims(sel).map((d) => anyOf(GROUP_FIELD[d], sel[d]!));
}

function nestedFilter(sel: Selections): Clause {
  return { nested: { path: 'groups', query: bool(groupClauses(sel)) } };
}

// Lucene regular expressions: a backslash makes any character literal.
const reEscape = (s: string) => s.replace(/[^\p{L}\p{N} ]/gu, (c) => `\\${c}`);

/**
 * How an offer-level facet is counted, given the other offer-level selections:
 *   root    none: the card's folded field (every group counts);
 *   combo   each a single value, at most MAX_COMBO dimensions with the facet's: terms on their
 *           combination field with the others' values fixed by `include`; one bucket per value
 *           of the facet, so a doc_count is a number of products;
 *   nested  otherwise (a product with groups for two values of another dimension would count in
 *           two buckets of one facet value): nested terms, reverse_nested doc_counts.
 */
export type OfferFacetPlan = { kind: 'root' } | { kind: 'combo'; dims: Dim[] } | { kind: 'nested' };

export function offerFacetPlan(sel: Selections, d: Dim): OfferFacetPlan {
  const others = selectedDims(sel).filter((x) => x !== d);
  if (others.length === 0) return { kind: 'root' };
  if (others.length + 1 > MAX_COMBO || others.some((x) => sel[x]!.length > 1)) return { kind: 'nested' };
  return { kind: 'combo', dims: DIMS.filter((x) => x === d || sel[x] !== undefined) };
}

const terms = (field: string, extra: Record<string, unknown> = {}) => ({
  terms: { field, size: FACET_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }], ...extra },
});

function offerFacetAgg(f: FacetName, d: Dim, sel: Selections, product: Clause[]): Clause {
  const others: Selections = { ...sel };
  delete others[d];
  const plan = offerFacetPlan(sel, d);
  if (plan.kind === 'root') return { filter: bool(product), aggs: { values: terms(FACET_FIELD[f]) } };
  // Only cards with a group matching the other selections can count: the same counts from fewer cards.
  const filter = bool([...product, offerFilter(others)!]);
  if (plan.kind === 'combo') {
    const include = plan.dims
      .map((x) => {
        if (x !== d) return reEscape(sel[x]![0]!) + (x === 's' ? `${reEscape(SEP)}.*` : '');
        return x === 's' ? '.*' : `[^${reEscape(SEP)}]*`;
      })
      .join(reEscape(SEP));
    return { filter, aggs: { values: terms(comboField(plan.dims), { include }) } };
  }
  return {
    filter,
    aggs: {
      groups: {
        nested: { path: 'groups' },
        aggs: {
          matching: {
            filter: bool(groupClauses(others)),
            aggs: {
              values: {
                terms: { field: `groups.${FACET_FIELD[f]}`, size: FACET_SIZE, order: [{ products: 'desc' }, { _key: 'asc' }] },
                aggs: { products: { reverse_nested: {} } },
              },
            },
          },
        },
      },
    },
  };
}

/** The search request over cards when the query has an offer-level filter (usesCards is false). */
export function offerSearchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  const c = searchClauses(q);
  const sel = offerSelections(q);
  const all = offerFilter(sel);
  if (all === null) throw new Error('offerSearchBody: no offer-level filter (the card path answers)');
  const facetAggs: Record<string, unknown> = {};
  for (const f of FACETS) {
    const d = FACET_DIM[f];
    facetAggs[`facet_${f}`] =
      d === undefined
        ? { filter: bool([...facetClausesExcept(c, f), all]), aggs: { values: terms(FACET_FIELD[f]) } }
        : offerFacetAgg(f, d, sel, facetClausesExcept(c, null));
  }
  return {
    // One extra hit tells whether another page exists without a second request.
    size: q.limit + 1,
    track_total_hits: false,
    _source: ['card', 'groups'],
    query: bool([{ term: { docType: 'card' } }, ...c.always]),
    // Selections narrow the items, not the other facets' counts (disjunctive facets).
    post_filter: bool([...facetClausesExcept(c, null), all]),
    sort: [{ sortKey: { order: q.sort === 'name' ? 'asc' : 'desc' } }],
    ...(after === null ? {} : { search_after: [after] }),
    aggs: facetAggs,
  };
}

interface CountBucket {
  key: string;
  doc_count: number;
  products?: { doc_count: number };
}
interface FacetAgg {
  values?: { buckets: CountBucket[] };
  groups?: { matching: { values: { buckets: CountBucket[] } } };
}
interface OfferHit {
  _source: Pick<CardDoc, 'card' | 'groups'>;
  sort: [string];
}

/** Whether a group matches every offer-level selection (the nested query's test, for the items). */
function groupMatches(g: CardGroup, sel: Selections): boolean {
  return (
    (sel.c === undefined || (g.condition !== null && sel.c.includes(g.condition))) &&
    (sel.l === undefined || (g.language !== null && sel.l.includes(g.language))) &&
    (sel.f === undefined || (g.finish !== null && sel.f.includes(g.finish))) &&
    (sel.m === undefined || sel.m.includes(g.checkoutMode)) &&
    (sel.s === undefined || (g.sellerCode !== null && sel.s.includes(g.sellerCode)))
  );
}

/** Shapes the response of offerSearchBody() into the contract's items and facets. */
export function offerSearchPage(res: { hits: { hits: unknown[] }; aggregations?: Record<string, unknown> }, q: SearchQuery): UnpricedPage {
  const sel = offerSelections(q);
  const hits = res.hits.hits as OfferHit[];
  const items = hits.slice(0, q.limit).map((h) => {
    const { productId, name, set, category, rarity, collectorNumber, imageUrl } = h._source.card;
    const groups = h._source.groups.filter((g) => groupMatches(g, sel));
    return cardItem({ productId, name, set, category, rarity, collectorNumber, imageUrl }, matchingGroups(groups));
  });
  const facets = {} as Facets;
  for (const f of FACETS) {
    const a = res.aggregations![`facet_${f}`] as FacetAgg;
    const d = FACET_DIM[f];
    const plan = d === undefined ? null : offerFacetPlan(sel, d);
    const buckets = (a.values ?? a.groups!.matching.values).buckets.map((b) => {
      let value = b.key;
      if (plan?.kind === 'combo') {
        // The facet's value within the tuple; the seller (last) keeps its own U+0000.
        const pieces = b.key.split(SEP);
        const at = plan.dims.indexOf(d!);
        value = d === 's' ? pieces.slice(at).join(SEP) : pieces[at]!;
      }
      return { value, count: b.products?.doc_count ?? b.doc_count };
    });
    if (f === 'seller') facets.seller = buckets.map((b) => sellerFacetValue(b.value, b.count));
    else facets[f] = buckets.map((b) => ({ value: b.value, count: b.count }));
  }
  const nextAfter = hits.length > q.limit ? hits[q.limit - 1]!.sort[0] : null;
  return { items, facets, nextAfter };
}
