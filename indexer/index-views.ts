import type { Client } from '@elastic/elasticsearch';
import { docId, parseDocId } from '../src/search/documents/model.js';
import type { IndexViews } from './facts.js';
import { CARD_VIEW_FIELDS, cardView, UNREADABLE_CARD, type CardView, type IndexedOffer } from './stale-cards.js';

// What the index holds now, for facts.ts: realtime gets (they see every write acknowledged, with
// no refresh), never a search. A failed get fails the batch: reading a document as missing could
// leave a card stale.

type GotCard = { _id?: string; found?: boolean; fields?: { groupKeys?: string[]; productKey?: string[] }; error?: { type?: string; reason?: string } };
type GotDoc<T> = { _id?: string; _source?: T; found?: boolean; error?: { type?: string; reason?: string } };

async function realtimeGet<T>(es: Client, index: string, ids: string[], fields: string[], what: string): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  if (ids.length === 0) return out;
  const res = await es.mget<T>({ index, ids, _source_includes: fields, filter_path: ['docs._id', 'docs._source', 'docs.error'] });
  for (const d of (res.docs ?? []) as GotDoc<T>[]) {
    if (d.error) throw new Error(`mget of indexed ${what} failed: ${d.error.type} ${d.error.reason}`);
    if (d._id !== undefined && d._source !== undefined) out.set(d._id, d._source);
  }
  return out;
}

/** The index's offers and cards as facts.ts reads them; `recompute` as the batch's writer says. */
export function indexViews(es: Client, index: string, recompute: IndexViews['recompute']): IndexViews {
  return {
    offers: (ids) => realtimeGet<IndexedOffer>(es, index, ids, ['productId', 'skuId', 'storeKey'], 'offers'),
    async cards(productIds) {
      const out = new Map<number, CardView>();
      if (productIds.length === 0) return out;
      // Stored fields, not the source: a few bytes per group instead of the whole card parsed.
      const res = await es.mget({
        index,
        ids: productIds.map(docId.card),
        _source: false,
        stored_fields: CARD_VIEW_FIELDS,
        filter_path: ['docs._id', 'docs.found', 'docs.fields', 'docs.error'],
      });
      for (const d of (res.docs ?? []) as GotCard[]) {
        if (d.error) throw new Error(`mget of indexed cards failed: ${d.error.type} ${d.error.reason}`);
        const id = d._id === undefined ? null : parseDocId(d._id);
        if (id?.type !== 'card' || !d.found) continue;
        // A card without its keys (not written by this document model) says nothing: recomputed.
        out.set(id.productId, d.fields?.productKey ? cardView(d.fields.groupKeys ?? [], d.fields.productKey[0]!) : UNREADABLE_CARD);
      }
      return out;
    },
    recompute,
  };
}
