import type { CatalogCard } from '../suggest/card-catalog.js';
import { docId, parseDocId } from '../documents/model.js';

// What the suggestions' card catalog (suggest/live-catalog.ts) reads of the index: every card
// once, by a point in time in `_shard_doc` order (the cheapest sort), then the cards the indexer
// says it wrote, by id. Only the three fields a suggestion needs.

export const CATALOG_FIELDS = ['nameKey', 'category', 'sellerCode'] as const;
/** Cards per page of the full read. */
export const CATALOG_PAGE = 10_000;

/** A page of every card, after the previous page's last sort values. */
export function catalogPageBody(pitId: string, after: readonly unknown[] | null, size = CATALOG_PAGE): Record<string, unknown> {
  return {
    size,
    pit: { id: pitId, keep_alive: '1m' },
    query: { term: { docType: 'card' } },
    _source: false,
    docvalue_fields: [...CATALOG_FIELDS],
    sort: ['_shard_doc'],
    track_total_hits: false,
    ...(after === null ? {} : { search_after: [...after] }),
  };
}

type Fields = Partial<Record<(typeof CATALOG_FIELDS)[number], unknown>>;
const first = (v: unknown): string | null => (Array.isArray(v) ? (v[0] ?? null) : typeof v === 'string' ? v : null) as string | null;
const all = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : []);

/** A card's catalog entry from its id and its fields (doc values of a page, or `_source` of a get); null for any other document. */
export function catalogCard(id: string, fields: Fields | undefined): CatalogCard | null {
  const parsed = parseDocId(id);
  if (parsed?.type !== 'card') return null;
  return { productId: parsed.productId, name: first(fields?.nameKey), category: first(fields?.category), sellerCodes: all(fields?.sellerCode) };
}

/** The ids of the products' cards, for the `_mget` of the cards the indexer wrote. */
export const cardIds = (productIds: readonly number[]): string[] => productIds.map((p) => docId.card(p));
