import { createHmac, timingSafeEqual } from 'node:crypto';

// Opaque, tamper-evident page cursors: base64url(JSON payload) + "." + base64url(HMAC-SHA256).
// The MAC covers a `kind` as well as the payload, so a cursor minted for one listing (e.g. the
// seller export) is refused by another (e.g. search), even though both use CURSOR_SECRET.
// Cursors are not encrypted: the payload is readable, only forging or editing it is prevented.

function mac(secret: string, kind: string, body: string): Buffer {
  return createHmac('sha256', secret).update(kind).update('\0').update(body).digest();
}

/** Signs a JSON-serializable payload into an opaque cursor string. */
export function signCursor(secret: string, kind: string, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(secret, kind, body).toString('base64url')}`;
}

const TOKEN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

/**
 * The payload of a cursor signed with the same secret and kind, or null when the cursor is
 * malformed, tampered with, or of another kind. Callers still validate the payload's shape.
 */
export function verifyCursor(secret: string, kind: string, token: string): unknown {
  if (token.length > 4096) return null;
  const m = TOKEN.exec(token);
  if (!m) return null;
  const [, body, sig] = m as unknown as [string, string, string];
  const given = Buffer.from(sig, 'base64url');
  const expected = mac(secret, kind, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
