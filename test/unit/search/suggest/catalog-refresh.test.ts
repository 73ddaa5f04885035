import { describe, expect, it } from 'vitest';
import { refreshedCatalog, TooManyNames } from '../../../../src/search/suggest/catalog-refresh.js';

// When the suggestion fallback reads the names again: one read serves requests for refreshMs,
// then a read in the background, and past maxAgeMs requests wait for a new list.

function source() {
  let version = 0;
  const calls: number[] = [];
  let fail = false;
  return {
    calls,
    next: () => version++,
    failNext: () => (fail = true),
    read: async (max: number) => {
      calls.push(max);
      if (fail) {
        fail = false;
        throw new Error('statement timeout');
      }
      return [{ name: `Name ${version}`, productIds: [version] }];
    },
  };
}

describe('the refreshed name list', () => {
  const opts = { refreshMs: 5000, maxAgeMs: 30_000, maxNames: 10 };

  it('is read once for every request within refreshMs; concurrent first requests share the read', async () => {
    const src = source();
    let now = 0;
    const cat = refreshedCatalog(src.read, opts, () => now);
    const [a, b] = await Promise.all([cat.current(), cat.current()]);
    expect(a.names).toEqual(['Name 0']);
    expect(b).toBe(a);
    now = 5000;
    src.next();
    expect((await cat.current()).names).toEqual(['Name 0']);
    expect(src.calls).toEqual([10]);
  });

  it('past refreshMs the older list answers while the new one is read, then the new one', async () => {
    const src = source();
    let now = 0;
    const cat = refreshedCatalog(src.read, opts, () => now);
    await cat.current();
    src.next();
    now = 5001;
    expect((await cat.current()).names).toEqual(['Name 0']);
    expect(src.calls).toHaveLength(2);
    await new Promise((r) => setImmediate(r));
    expect((await cat.current()).names).toEqual(['Name 1']);
    expect(src.calls).toHaveLength(2);
  });

  it('past maxAgeMs requests wait for the new list', async () => {
    const src = source();
    let now = 0;
    const cat = refreshedCatalog(src.read, opts, () => now);
    await cat.current();
    src.next();
    now = 30_001;
    expect((await cat.current()).names).toEqual(['Name 1']);
  });

  it('a failed background read keeps the older list and a later request reads again', async () => {
    const src = source();
    let now = 0;
    const cat = refreshedCatalog(src.read, opts, () => now);
    await cat.current();
    src.failNext();
    now = 6000;
    expect((await cat.current()).names).toEqual(['Name 0']);
    await new Promise((r) => setImmediate(r));
    src.next();
    expect((await cat.current()).names).toEqual(['Name 0']);
    await new Promise((r) => setImmediate(r));
    expect((await cat.current()).names).toEqual(['Name 1']);
    expect(src.calls).toHaveLength(3);
  });

  it('a first read that fails fails the request; the next one reads again', async () => {
    const src = source();
    const cat = refreshedCatalog(src.read, opts, () => 0);
    src.failNext();
    await expect(cat.current()).rejects.toThrow('statement timeout');
    expect((await cat.current()).names).toEqual(['Name 0']);
  });

  it('refuses a catalog with more names than its bound', async () => {
    const names = Array.from({ length: 4 }, (_, i) => ({ name: `N${i}`, productIds: [i] }));
    let asked = 0;
    const cat = refreshedCatalog(
      async (max) => {
        asked = max;
        return names.slice(0, max + 1);
      },
      { ...opts, maxNames: 3 },
    );
    await expect(cat.current()).rejects.toBeInstanceOf(TooManyNames);
    expect(asked).toBe(3);
    const fits = refreshedCatalog(async (max) => names.slice(0, max + 1), { ...opts, maxNames: 4 });
    expect((await fits.current()).names).toHaveLength(4);
  });
});
