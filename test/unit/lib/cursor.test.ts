import { describe, expect, it } from 'vitest';
import { signCursor, verifyCursor } from '../../../src/lib/cursor.js';

const SECRET = 'unit-test-cursor-secret';

describe('cursor sign/verify', () => {
  it('round-trips a payload', () => {
    const payload = { t: '2026-11-01T00:00:00.123456Z', id: 42, s: null, d: false };
    const token = signCursor(SECRET, 'k', payload);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyCursor(SECRET, 'k', token)).toEqual(payload);
  });

  it('refuses another kind or another secret', () => {
    const token = signCursor(SECRET, 'listings', { id: 1 });
    expect(verifyCursor(SECRET, 'search', token)).toBeNull();
    expect(verifyCursor('another-secret-entirely', 'listings', token)).toBeNull();
  });

  it('refuses an edited payload or signature', () => {
    const token = signCursor(SECRET, 'k', { id: 1 });
    const [body, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ id: 2 })).toString('base64url');
    expect(verifyCursor(SECRET, 'k', `${forged}.${sig}`)).toBeNull();
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    expect(verifyCursor(SECRET, 'k', `${body}.${flipped}`)).toBeNull();
  });

  it.each(['', 'x', 'abc.def', '.', 'a.b.c', '!!!.' + 'A'.repeat(43), 'x'.repeat(5000)])('refuses malformed %j', (t) => {
    expect(verifyCursor(SECRET, 'k', t)).toBeNull();
  });

  it('refuses a validly signed body that is not JSON', () => {
    // Signed by the same code path but with non-JSON bytes: must not throw.
    const body = Buffer.from('not json').toString('base64url');
    const sig = signCursor(SECRET, 'k', 0).split('.')[1]!;
    expect(verifyCursor(SECRET, 'k', `${body}.${sig}`)).toBeNull();
  });
});
