import type { Client } from '@elastic/elasticsearch';
import type { Product } from '../contract/buyer.js';
import { docId, parseDocId, type OfferDoc, type SellerDoc, type SellerStats, type SkuDoc, type StoredOffer } from './documents/model.js';
import { joinOffer } from './documents/builders.js';
import { MAX_WINDOW, productDocBody, productOffersBody } from './queries/product-offers.js';
import { offerSearchBody, offerSearchPage } from './queries/offer-search.js';
import { cardSearchBody, cardSearchPage, usesCards } from './queries/card-search.js';
import { cartLines, lookupIdParts, lookupIds, type LookupDocs } from './queries/lookup.js';
import type { BuyerReads } from './reads.js';

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
    if ('error' in d && d.error) throw new Error(`seller documents failed: ${JSON.stringify(d.error)}`);
    const id = parseDocId(d._id);
    if (id?.type === 'seller' && '_source' in d && d._source?.stats) out.set(id.sellerId, d._source.stats);
  }
  return out;
}

/** Buyer reads answered from Elasticsearch alone, through the alias. */
export function indexReads(es: Client, alias: string): BuyerReads {
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
        throw new Error(`product page query failed: ${JSON.stringify(offersRes?.error ?? productRes?.error ?? res)}`);
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
      if (usesCards(q)) {
        const res = await es.search({ index: alias, allow_partial_search_results: false, ...cardSearchBody(q, after) });
        return cardSearchPage(res, q.limit);
      }
      const res = await es.search({ index: alias, allow_partial_search_results: false, ...offerSearchBody(q, after) });
      return offerSearchPage(res, q);
    },

    async lookup(body) {
      if (body.lines.length === 0) return [];
      // A shard answers one _mget on one thread, and loading ~1,000 sources is most of a large
      // cart's time: the offers and the rest go as two requests at once, on two threads.
      const parts = lookupIdParts(lookupIds(body.lines));
      const responses = await Promise.all(
        parts.map((ids) =>
          es.mget<Partial<OfferDoc & SkuDoc & SellerDoc>>({
            index: alias,
            ids,
            _source_includes: ['offer.price', 'offer.available', 'cart', 'cartSeller'],
            // Only what is read below: each doc otherwise repeats index name, version, seq_no and
            // primary term (a cart of 20 lines is 60 docs). Safe for _mget: every doc names its _id.
            filter_path: ['docs._id', 'docs.found', 'docs._source'],
          }),
        ),
      );
      const docs: LookupDocs = { offers: new Map(), skus: new Map(), sellers: new Map() };
      for (const d of responses.flatMap((r) => r.docs)) {
        if (!('found' in d) || !d.found || !d._source) continue;
        const id = parseDocId(d._id);
        if (id?.type === 'native') docs.offers.set(d._id, d._source as Pick<OfferDoc, 'offer'>);
        else if (id?.type === 'sku') docs.skus.set(id.skuId, d._source as Pick<SkuDoc, 'cart'>);
        else if (id?.type === 'seller') docs.sellers.set(id.sellerId, d._source as Pick<SellerDoc, 'cartSeller'>);
      }
      return cartLines(body.lines, docs);
    },
  };
}
