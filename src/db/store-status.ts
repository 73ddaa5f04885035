import type { Pool } from './pool.js';
import type { SellerRow } from './sellers.js';

/** The seller's own record (its row's shape, sellers.ts), with its readiness and listing counts. */
export interface StoreStatusRow extends Pick<SellerRow, 'sellerCode' | 'storeName' | 'currency' | 'region' | 'active' | 'vacation' | 'termsVersion'> {
  currentTermsVersion: string;
  /** Incomplete prerequisite codes in the order seller_readiness gives (the contract's order). */
  incomplete: string[];
  total: number;
  matched: number;
}

/** The seller's record, readiness (from the seller_readiness view) and live listing counts, in one statement. */
export async function readStoreStatus(pool: Pool, sellerId: number): Promise<StoreStatusRow | null> {
  const { rows } = await pool.query<{
    seller_code: string;
    store_name: string;
    currency: string;
    region: string;
    active: boolean;
    vacation: boolean;
    terms_version: string | null;
    current_terms_version: string;
    incomplete: string[];
    total: number;
    matched: number;
  }>(
    `SELECT s.seller_code, s.store_name, s.currency, s.region, s.active, s.vacation, s.terms_version,
            ps.current_terms_version, r.incomplete, c.total, c.matched
       FROM sellers s
       JOIN seller_readiness r ON r.seller_id = s.seller_id
      CROSS JOIN platform_settings ps
      CROSS JOIN LATERAL (
              SELECT count(*)::int AS total, (count(*) FILTER (WHERE l.match_status = 'matched'))::int AS matched
                FROM listings l
               WHERE l.seller_id = s.seller_id AND l.deleted_at IS NULL) c
      WHERE s.seller_id = $1`,
    [sellerId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    sellerCode: r.seller_code,
    storeName: r.store_name,
    currency: r.currency,
    region: r.region,
    active: r.active,
    vacation: r.vacation,
    termsVersion: r.terms_version,
    currentTermsVersion: r.current_terms_version,
    incomplete: r.incomplete,
    total: r.total,
    matched: r.matched,
  };
}

/** Sets the vacation flag; a no-op (no updated_at bump, no change feed row) when it already has that value. */
export async function setVacation(pool: Pool, sellerId: number, vacation: boolean): Promise<void> {
  await pool.query('UPDATE sellers SET vacation = $2 WHERE seller_id = $1 AND vacation IS DISTINCT FROM $2', [sellerId, vacation]);
}
