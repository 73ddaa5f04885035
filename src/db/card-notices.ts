import type { Pool } from './pool.js';

// The indexer's word to the API processes that a unit of its writes touched some product cards
// (written or deleted), so their in-memory suggestion catalogs read those cards again
// (src/search/suggest/live-catalog.ts). A NOTIFY, sent once Elasticsearch has taken the unit: a
// hint, lost while nobody listens, which is why a catalog reads every card again whenever its
// listener (re)connects and every few minutes.

export const CARD_NOTICES = 'cards_written';

export interface CardNotice {
  /** The concrete index written (the alias may point elsewhere: a rebuild's catch-up). */
  index: string;
  productIds: number[];
}

/** NOTIFY payloads stay under PostgreSQL's 8,000 bytes. */
const MAX_PAYLOAD = 7_000;

/** The notices carrying these products' ids, each within the payload limit. */
export function cardNoticePayloads(index: string, productIds: readonly number[]): string[] {
  const out: string[] = [];
  const head = JSON.stringify(index).length + 20;
  let batch: number[] = [];
  let size = head;
  for (const id of productIds) {
    const add = String(id).length + 1;
    if (size + add > MAX_PAYLOAD && batch.length > 0) {
      out.push(JSON.stringify({ index, productIds: batch }));
      batch = [];
      size = head;
    }
    batch.push(id);
    size += add;
  }
  if (batch.length > 0) out.push(JSON.stringify({ index, productIds: batch }));
  return out;
}

/** A payload read back; null when it is not a card notice. */
export function parseCardNotice(payload: string): CardNotice | null {
  try {
    const v = JSON.parse(payload) as Partial<CardNotice>;
    if (typeof v.index !== 'string' || !Array.isArray(v.productIds) || !v.productIds.every((p) => Number.isSafeInteger(p))) return null;
    return { index: v.index, productIds: v.productIds };
  } catch {
    return null;
  }
}

export async function notifyCardsWritten(pool: Pool, index: string, productIds: readonly number[]): Promise<void> {
  const payloads = cardNoticePayloads(index, productIds);
  if (payloads.length === 0) return;
  await pool.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [CARD_NOTICES, payloads]);
}
