import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Seller API keys: `mp_{sellerCode}_{hex}` (DECISIONS.md). The seller code is everything between
// `mp_` and the LAST `_` (codes may themselves contain `_`); the secret is >= 32 hex characters.
// Only sha256(whole key) is stored.

/** Same rule as the sellers.seller_code CHECK constraint. */
const SELLER_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const SECRET = /^[0-9a-fA-F]{32,256}$/;
/** Longest key worth hashing: prefix + 64-char code + separator + 256-char secret. */
const MAX_KEY_LENGTH = 3 + 64 + 1 + 256;

export interface ParsedApiKey {
  key: string;
  sellerCode: string;
  secret: string;
}

/** The parts of a well-formed key, or null. Says nothing about whether the key exists. */
export function parseApiKey(key: string): ParsedApiKey | null {
  if (key.length > MAX_KEY_LENGTH || !key.startsWith('mp_')) return null;
  const last = key.lastIndexOf('_');
  if (last <= 3) return null; // no code between "mp_" and the last "_"
  const sellerCode = key.slice(3, last);
  const secret = key.slice(last + 1);
  if (!SELLER_CODE.test(sellerCode) || !SECRET.test(secret)) return null;
  return { key, sellerCode, secret };
}

/** The key of an `Authorization: Bearer <key>` header, or null when absent or not a bearer. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return m ? m[1]! : null;
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Constant-time equality of two stored/computed hashes. */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh key for a seller: 256 bits of secret as 64 lowercase hex characters. */
export function generateApiKey(sellerCode: string): string {
  if (!SELLER_CODE.test(sellerCode)) throw new Error(`invalid seller code: ${sellerCode}`);
  return `mp_${sellerCode}_${randomBytes(32).toString('hex')}`;
}

/** What `keys list` shows of a key: the seller prefix and the first 8 secret characters. */
export function displayPrefix(key: string): string {
  const parsed = parseApiKey(key);
  if (!parsed) throw new Error('not an API key');
  return `mp_${parsed.sellerCode}_${parsed.secret.slice(0, 8)}`;
}
