import { z } from 'zod';
import { signCursor, verifyCursor } from '../lib/cursor.js';
import { DomainError } from '../contract/errors.js';

// Search cursors carry the sort they were minted for and the last product's sort key; signed so a
// tampered or foreign cursor is a 400, never a silently wrong page.

const KIND = 'search';
const payloadSchema = z.object({ v: z.literal(1), s: z.enum(['name', 'name_desc']), k: z.string().max(2000) }).strict();

export function encodeSearchCursor(secret: string, sort: 'name' | 'name_desc', afterKey: string): string {
  return signCursor(secret, KIND, { v: 1, s: sort, k: afterKey });
}

/** The sort key to continue after; an invalid-cursor error when malformed, tampered or of another sort. */
export function decodeSearchCursor(secret: string, sort: 'name' | 'name_desc', cursor: string): string {
  const parsed = payloadSchema.safeParse(verifyCursor(secret, KIND, cursor));
  if (!parsed.success) {
    throw new DomainError('invalid-cursor', 'Invalid cursor', [{ field: 'cursor', message: 'malformed or tampered cursor' }]);
  }
  if (parsed.data.s !== sort) {
    throw new DomainError('invalid-cursor', 'Cursor belongs to another sort', [
      { field: 'cursor', message: `cursor was issued for sort=${parsed.data.s}` },
    ]);
  }
  return parsed.data.k;
}
