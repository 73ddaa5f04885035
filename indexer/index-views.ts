import type { Client } from '@elastic/elasticsearch';
import { docId, parseDocId } from '../src/search/documents/model.js';
import type { IndexViews } from './facts.js';
import { CARD_VIEW_FIELDS, cardView, UNREADABLE_CARD, type CardView, type IndexedOffer } from './stale-cards.js';

// What the index holds now, for facts.ts: realtime gets (they see every write acknowledged, with
// no refresh), never a search. A failed get fails the batch: reading a document as missing could
// leave a card stale.

type GotCard = { _id?: string; found?: boolean; fields?: { groupKeys?: string[]; productKey?: string[] }; error?: { type?: string; reason?: string } };
type GotOffer = {
  _id?: string;
  found?: boolean;
  fields?: { productId?: number[]; skuId?: number[]; storeKey?: string[] };
  error?: { type?: string; reason?: string };
};

/** The stored fields an IndexedOffer is read from (stored apart from the source in the mapping). */
const OFFER_VIEW_FIELDS = ['productId', 'skuId', 'storeKey'];

/** The index's offers and cards as facts.ts reads them; `recompute` as the batch's writer says. */
export function indexViews(es: Client, index: string, recompute: IndexViews['recompute']): IndexViews {
  return {
    async offers(ids) {
      const out = new Map<string, IndexedOffer>();
      if (ids.length === 0) return out;
      // Stored fields, not the source: the offer's source is not parsed to take three values out.
      const res = await es.mget({
        index,
        ids,
        _source: false,
        stored_fields: OFFER_VIEW_FIELDS,
        filter_path: ['docs._id', 'docs.found', 'docs.fields', 'docs.error'],
      });
      for (const d of (res.docs ?? []) as GotOffer[]) {
        if (d.error) throw new Error(`mget of indexed offers failed: ${d.error.type} ${d.error.reason}`);
        const f = d.fields;
        if (d._id === undefined || !d.found) continue;
        // An offer without them (not written by this document model) cannot say where it was: its cards are tested as they are.
        if (f?.productId?.[0] !== undefined && f.skuId?.[0] !== undefined && f.storeKey?.[0] !== undefined) {
          out.set(d._id, { productId: f.productId[0], skuId: f.skuId[0], storeKey: f.storeKey[0] });
        }
      }
      return out;
    },
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
