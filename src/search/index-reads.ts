import type { Client } from '@elastic/elasticsearch';
import type { Product } from '../contract/buyer.js';
import { docId, parseDocId, type SellerDoc, type SellerStats, type SkuDoc, type StoredOffer } from './documents/model.js';
import { joinOffer, skuCart } from './documents/builders.js';
import { MAX_WINDOW, productDocBody, productOffersBody } from './queries/product-offers.js';
import { offerSearchBody, offerSearchPage } from './queries/offer-search.js';
import { cardSearchBody, cardSearchPage, usesCards } from './queries/card-search.js';
import { fromPriceBody, fromPrices, pricedPage } from './queries/from-prices.js';
import {
  OFFER_LINE_FIELDS,
  SELLER_LINE_FIELDS,
  SKU_LINE_FIELDS,
  cartLines,
  lookupIdParts,
  missingSkuIds,
  offerAndSellerIds,
  type LookupDocs,
  type OfferLineSource,
} from './queries/lookup.js';
import { candidatesOf, countsOf, suggestCandidatesBody, suggestCountsBody, suggestionsOf } from './queries/suggest.js';
import type { BuyerReads } from './reads.js';
import { readRetryingLeavingNode } from '../es/node-leaving.js';

/**
 * The found documents' sources, with only `fields`. Only what is read is asked for: each doc
 * otherwise repeats index name, version, seq_no and primary term. A document whose get failed
 * (its shard copy closing as a node restarts) is asked for once more, a moment later, when the
 * cluster has another copy or the same one again; a second failure fails the read (Degraded Mode
 * answers), never a line that looks unlisted.
 */
async function mgetSources<T>(es: Client, alias: string, ids: string[], fields: readonly string[], retry = true): Promise<{ id: string; source: T }[]> {
  const res = await es.mget<T>({ index: alias, ids, _source_includes: [...fields], filter_path: ['docs._id', 'docs._source', 'docs.error'] });
  const out: { id: string; source: T }[] = [];
  const failed: { id: string; error: unknown }[] = [];
  for (const d of res.docs) {
    if ('error' in d && d.error) failed.push({ id: d._id, error: d.error });
    else if ('_source' in d && d._source) out.push({ id: d._id, source: d._source });
  }
  if (failed.length === 0) return out;
  if (!retry) throw new Error(`cart lookup documents failed: ${JSON.stringify(failed[0]!.error)}`, { cause: failed[0]!.error });
  await new Promise((r) => setTimeout(r, 100));
  const again = await mgetSources<T>(
    es,
    alias,
    failed.map((f) => f.id),
    fields,
    false,
  );
  return [...out, ...again];
}

/**
 * The counters of the native sellers on a page of offers, from their seller documents: one _mget
 * of only those ids (docs/search-design.md: counters live on the seller, not on every offer).
 */
async function sellerStatsOf(es: Client, alias: string, offers: StoredOffer[]): Promise<Map<number, SellerStats>> {
  const ids = [...new Set(offers.flatMap((o) => (o.lane === 'native' && o.sellerId !== null ? [o.sellerId] : [])))];
  const out = new Map<number, SellerStats>();
  if (ids.length === 0) return out;
  const res = await es.mget<Pick<SellerDoc, 'stats'>>({
    index: alias,
    ids: ids.map(docId.seller),
    _source_includes: ['stats'],
    // As of the last refresh, like the offers the search just returned (and no forced refresh).
    realtime: false,
    filter_path: ['docs._id', 'docs._source', 'docs.error'],
  });
  for (const d of res.docs) {
    // A failed get fails the read (Degraded Mode answers), never an offer with made-up counters.
    if ('error' in d && d.error) throw new Error(`seller documents failed: ${JSON.stringify(d.error)}`, { cause: d.error });
    const id = parseDocId(d._id);
    if (id?.type === 'seller' && '_source' in d && d._source?.stats) out.set(id.sellerId, d._source.stats);
  }
  return out;
}

/**
 * Buyer reads answered from Elasticsearch alone, through the alias. A read whose node was leaving
 * (node_closed, shutting down, connection reset), or whose connection failed on every try the
 * client made, is asked once more of another node.
 */
export function indexReads(es: Client, alias: string): BuyerReads {
  type Read = (...args: unknown[]) => Promise<unknown>;
  const readsOn = (client: Client) => indexReadsOnce(client, alias) as unknown as Record<string, Read>;
  const reads = readsOn(es);
  // Every read, whatever its arguments (a read added to BuyerReads is covered as well); the retry
  // runs the same read on the client that leaves the failed node out.
  const retrying = Object.entries(reads).map(([name, read]) => [
    name,
    (...args: unknown[]) => readRetryingLeavingNode(es, (client) => (client === es ? read : readsOn(client)[name]!)(...args)),
  ]);
  return Object.fromEntries(retrying) as unknown as BuyerReads;
}

function indexReadsOnce(es: Client, alias: string): BuyerReads {
  return {
    async productPage(productId, q) {
      const header = { allow_partial_search_results: false };
      const res = await es.msearch({
        index: alias,
        searches: [
          header,
          q.offset + q.limit > MAX_WINDOW ? { size: 0, query: { match_none: {} } } : productOffersBody(productId, q),
          header,
          productDocBody(productId),
        ],
        // Only the sources (a page is up to 100 offers of ~1 kB; each hit otherwise also carries
        // index name, id, score and its 4 sort values). `status` keeps every response in the
        // array: without it a response with no hits is dropped and the product moves to [0].
        filter_path: ['responses.status', 'responses.error', 'responses.hits.hits._source'],
      });
      const [offersRes, productRes] = res.responses as {
        status?: number;
        error?: unknown;
        hits?: { hits: { _source: { offer?: StoredOffer; product?: Product } }[] };
      }[];
      if (!offersRes || !productRes || offersRes.error || productRes.error) {
        const error = offersRes?.error ?? productRes?.error;
        throw new Error(`product page query failed: ${JSON.stringify(error ?? res)}`, { cause: error });
      }
      const stored = (offersRes.hits?.hits ?? []).map((h) => h._source.offer!);
      const stats = await sellerStatsOf(es, alias, stored);
      return {
        offers: stored.map((o) => joinOffer(o, o.sellerId === null ? undefined : stats.get(o.sellerId))),
        product: productRes.hits?.hits[0]?._source.product ?? null,
      };
    },

    async search(q, after) {
      // A red index must fail the read (and so trigger Degraded Mode), never answer from part of it.
      const page = usesCards(q)
        ? cardSearchPage(await es.search({ index: alias, allow_partial_search_results: false, ...cardSearchBody(q, after) }), q.limit)
        : offerSearchPage(await es.search({ index: alias, allow_partial_search_results: false, ...offerSearchBody(q, after) }), q);
      // 2. The items' prices, from their products' matching offers (cards hold none).
      const ids = page.items.map((i) => i.productId);
      const prices =
        ids.length === 0
          ? new Map<number, number>()
          : fromPrices(await es.search({ index: alias, allow_partial_search_results: false, ...fromPriceBody(q, ids) }));
      return pricedPage(page, prices);
    },

    async suggest(q) {
      const body = suggestCandidatesBody(q);
      if (body === null) return { completions: [], correction: null };
      const found = await es.search({ index: alias, allow_partial_search_results: false, ...body });
      const { ranked, toCount, listed } = candidatesOf(q, found as Parameters<typeof candidatesOf>[1]);
      const counts =
        toCount.length === 0
          ? []
          : countsOf(
              (await es.search({
                index: alias,
                allow_partial_search_results: false,
                ...suggestCountsBody(
                  q,
                  toCount.map((c) => c.name),
                ),
              })) as Parameters<typeof countsOf>[0],
            );
      return suggestionsOf(q, ranked, toCount, listed, counts);
    },

    async lookup(body) {
      if (body.lines.length === 0) return [];
      const docs: LookupDocs = { offers: new Map(), skus: new Map(), sellers: new Map() };
      // 1. Each pair's offer (with its sku's display fields) and each seller; a large cart as two
      //    requests at once, since a shard answers one _mget on one thread.
      const first = await Promise.all(
        lookupIdParts(offerAndSellerIds(body.lines)).map((ids) =>
          mgetSources<OfferLineSource | Pick<SellerDoc, 'docType' | 'sellerId' | 'cartSeller'>>(es, alias, ids, [
            ...OFFER_LINE_FIELDS,
            ...SELLER_LINE_FIELDS,
          ]),
        ),
      );
      for (const { id, source } of first.flat()) {
        if (source.docType === 'offer') {
          docs.offers.set(id, source);
          if (!docs.skus.has(source.skuId)) docs.skus.set(source.skuId, { cart: skuCart(source.item, source) });
        } else if (source.docType === 'seller') {
          docs.sellers.set(source.sellerId, source);
        }
      }
      // 2. The sku documents of the pairs without an offer document.
      const skuIds = missingSkuIds(body.lines, docs.skus);
      if (skuIds.length > 0) {
        for (const { source } of await mgetSources<Pick<SkuDoc, 'docType' | 'skuId' | 'cart'>>(es, alias, skuIds, SKU_LINE_FIELDS)) {
          if (source.docType === 'sku') docs.skus.set(source.skuId, source);
        }
      }
      return cartLines(body.lines, docs);
    },
  };
}
