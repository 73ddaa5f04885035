import type { Pool } from './pool.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../lib/api-key.js';

/** A seller as its key authenticates it: what the seller routes need on every request. */
export interface KeyOwner {
  sellerId: number;
  sellerCode: string;
  inventorySource: 'platform' | 'manual' | 'csv';
  keyId: number;
}

export interface ActiveKeyRow extends KeyOwner {
  keyHash: Buffer;
}

/**
 * The seller's active (unrevoked) keys, found by seller code; the caller compares hashes in
 * constant time. Empty when the seller is unknown or has no active key.
 */
export async function activeKeysForSeller(pool: Pool, sellerCode: string): Promise<ActiveKeyRow[]> {
  const { rows } = await pool.query<{
    seller_id: number;
    seller_code: string;
    inventory_source: KeyOwner['inventorySource'];
    key_id: number;
    key_hash: Buffer;
  }>(
    `SELECT s.seller_id, s.seller_code, s.inventory_source, k.key_id, k.key_hash
       FROM sellers s
       JOIN api_keys k ON k.seller_id = s.seller_id AND k.revoked_at IS NULL
      WHERE s.seller_code = $1`,
    [sellerCode],
  );
  return rows.map((r) => ({
    sellerId: r.seller_id,
    sellerCode: r.seller_code,
    inventorySource: r.inventory_source,
    keyId: r.key_id,
    keyHash: r.key_hash,
  }));
}

export class UnknownSellerError extends Error {
  constructor(readonly sellerCode: string) {
    super(`no seller with code ${sellerCode}`);
  }
}

async function sellerIdByCode(pool: Pool, sellerCode: string): Promise<number> {
  const { rows } = await pool.query<{ seller_id: number }>('SELECT seller_id FROM sellers WHERE seller_code = $1', [sellerCode]);
  if (!rows[0]) throw new UnknownSellerError(sellerCode);
  return rows[0].seller_id;
}

/** Creates a key for the seller and returns its plaintext: the only time it exists outside the caller. */
export async function issueApiKey(pool: Pool, sellerCode: string, label: string | null): Promise<{ keyId: number; key: string }> {
  const sellerId = await sellerIdByCode(pool, sellerCode);
  const key = generateApiKey(sellerCode);
  const { rows } = await pool.query<{ key_id: number }>(
    `INSERT INTO api_keys (seller_id, key_hash, label, key_prefix) VALUES ($1, $2, $3, $4) RETURNING key_id`,
    [sellerId, hashApiKey(key), label, displayPrefix(key)],
  );
  return { keyId: rows[0]!.key_id, key };
}

/** Revokes one key given in full; false when no active key has that hash. */
export async function revokeApiKey(pool: Pool, key: string): Promise<boolean> {
  const { rowCount } = await pool.query(`UPDATE api_keys SET revoked_at = clock_timestamp() WHERE key_hash = $1 AND revoked_at IS NULL`, [
    hashApiKey(key),
  ]);
  return (rowCount ?? 0) > 0;
}

/** Revokes every active key of the seller; returns how many. */
export async function revokeAllApiKeys(pool: Pool, sellerCode: string): Promise<number> {
  const sellerId = await sellerIdByCode(pool, sellerCode);
  const { rowCount } = await pool.query(`UPDATE api_keys SET revoked_at = clock_timestamp() WHERE seller_id = $1 AND revoked_at IS NULL`, [sellerId]);
  return rowCount ?? 0;
}

export interface KeyListing {
  keyId: number;
  prefix: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The seller's keys, newest first, without anything secret. */
export async function listApiKeys(pool: Pool, sellerCode: string): Promise<KeyListing[]> {
  const sellerId = await sellerIdByCode(pool, sellerCode);
  const { rows } = await pool.query<{ key_id: number; key_prefix: string | null; label: string | null; created_at: Date; revoked_at: Date | null }>(
    `SELECT key_id, key_prefix, label, created_at, revoked_at FROM api_keys WHERE seller_id = $1 ORDER BY created_at DESC, key_id DESC`,
    [sellerId],
  );
  return rows.map((r) => ({
    keyId: r.key_id,
    prefix: r.key_prefix ?? `mp_${sellerCode}_`,
    label: r.label,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}
