import { describe, expect, it } from 'vitest';
import { lowestXid8 } from '../../../src/db/feed-guard.js';

describe('lowestXid8', () => {
  it('is xmax when no transaction of this database runs', () => {
    expect(lowestXid8(5000n, [])).toBe(5000n);
  });

  it('is the lowest running xid, widened into xmax epoch', () => {
    expect(lowestXid8(5000n, [4990n, 4995n])).toBe(4990n);
  });

  it('keeps a running xid at or above xmax (xmax is latestCompletedXid + 1) in the same epoch', () => {
    expect(lowestXid8(10378n, [10378n, 10380n])).toBe(10378n);
  });

  it('widens across a 32-bit wraparound into the previous epoch', () => {
    const xmax = (3n << 32n) + 10n; // epoch 3, just after wraparound
    expect(lowestXid8(xmax, [4294967290n, 5n])).toBe((2n << 32n) + 4294967290n);
  });
});
