// Offer prices as a buyer's search sees them (only refreshed segments answer), for the benches that
// follow writes to visibility. Asked by id through _search with no _source: the price comes from
// doc values, so the measurement costs Elasticsearch little next to the load it is measured beside.
import type { Client } from '@elastic/elasticsearch';

/** Ids per `_search` (below the index's max_result_window). */
const IDS_PER_SEARCH = 5000;

/** The indexed price of each of `ids` the index has (absent ids are left out). */
export async function indexedPrices(es: Client, alias: string, ids: readonly string[]): Promise<Map<string, number | undefined>> {
  const out = new Map<string, number | undefined>();
  for (let i = 0; i < ids.length; i += IDS_PER_SEARCH) {
    const chunk = ids.slice(i, i + IDS_PER_SEARCH);
    const res = await es.search({
      index: alias,
      size: chunk.length,
      query: { ids: { values: chunk } },
      _source: false,
      docvalue_fields: ['price'],
      filter_path: ['hits.hits._id', 'hits.hits.fields'],
    });
    for (const h of res.hits?.hits ?? []) out.set(h._id!, (h.fields as { price?: number[] } | undefined)?.price?.[0]);
  }
  return out;
}

/** Those of `ids` whose indexed price is not `want`'s (missing from the index counts as different). */
export async function notYetPriced(es: Client, alias: string, want: ReadonlyMap<string, number | undefined>, ids: readonly string[]): Promise<string[]> {
  const got = await indexedPrices(es, alias, ids);
  return ids.filter((id) => got.get(id) !== want.get(id));
}
