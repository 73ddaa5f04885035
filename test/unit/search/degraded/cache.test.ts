import { describe, expect, it } from 'vitest';
import { LastGoodCache, requestKey, stableJson } from '../../../../src/search/degraded/cache.js';
import { searchQuerySchema, productQuerySchema } from '../../../../src/contract/buyer.js';

describe('request keys', () => {
  it('sorts object keys, keeps array order, drops undefined', () => {
    expect(stableJson({ b: 1, a: [3, 1, { d: undefined, c: null }] })).toBe('{"a":[3,1,{"c":null}],"b":1}');
  });

  it('keys the parsed, defaulted request: the same search however it was written', () => {
    const a = searchQuerySchema.parse({ keyword: 'bolt', limit: '24', sort: 'name' });
    const b = searchQuerySchema.parse({ sort: 'name', keyword: 'bolt' });
    expect(requestKey('search', [a, null])).toBe(requestKey('search', [b, null]));
    const c = searchQuerySchema.parse({ keyword: 'bolt', limit: '25' });
    expect(requestKey('search', [c, null])).not.toBe(requestKey('search', [a, null]));
  });

  it('a single filter value and a one-element array are the same request; arrays keep their order', () => {
    const one = searchQuerySchema.parse({ condition: 'Near Mint' });
    const arr = searchQuerySchema.parse({ condition: ['Near Mint'] });
    expect(requestKey('search', [one, null])).toBe(requestKey('search', [arr, null]));
    const ab = searchQuerySchema.parse({ condition: ['A', 'B'] });
    const ba = searchQuerySchema.parse({ condition: ['B', 'A'] });
    expect(requestKey('search', [ab, null])).not.toBe(requestKey('search', [ba, null]));
  });

  it('keys a search page by its decoded position, not by the cursor text', () => {
    const q1 = searchQuerySchema.parse({ cursor: 'abc' });
    const q2 = searchQuerySchema.parse({ cursor: 'xyz' });
    expect(requestKey('search', [q1, 'k1'])).toBe(requestKey('search', [q2, 'k1']));
    expect(requestKey('search', [q1, 'k1'])).not.toBe(requestKey('search', [q1, 'k2']));
    expect(requestKey('search', [q1, 'k1'])).not.toBe(requestKey('search', [searchQuerySchema.parse({}), null]));
  });

  it('separates methods and arguments', () => {
    const q = productQuerySchema.parse({});
    expect(requestKey('productPage', [1, q])).not.toBe(requestKey('productPage', [2, q]));
    expect(requestKey('productPage', [1, q])).toBe(requestKey('productPage', [1, productQuerySchema.parse({ limit: '50', offset: '0' })]));
    expect(requestKey('lookup', [{ lines: [{ sellerId: 1, skuId: 2 }] }])).toBe(requestKey('lookup', [{ lines: [{ skuId: 2, sellerId: 1 }] }]));
  });
});

describe('last-good cache', () => {
  it('returns a fresh copy of what was stored', () => {
    const c = new LastGoodCache({ maxBytes: 10_000, maxEntries: 10 });
    const data = { items: [{ id: 1 }] };
    c.set('k', data);
    data.items[0]!.id = 2;
    const hit = c.get<typeof data>('k')!;
    expect(hit).toEqual({ items: [{ id: 1 }] });
    hit.items.push({ id: 3 });
    expect(c.get('k')).toEqual({ items: [{ id: 1 }] });
    expect(c.get('missing')).toBeUndefined();
  });

  it('is bounded by bytes: least recently used entries go first', () => {
    const c = new LastGoodCache({ maxBytes: 1000, maxEntries: 100, maxEntryBytes: 1000 });
    const big = 'x'.repeat(300);
    c.set('a', big);
    c.set('b', big);
    c.set('c', big);
    expect(c.entries).toBe(3);
    c.get('a'); // a is now more recent than b
    c.set('d', big);
    expect(c.bytes).toBeLessThanOrEqual(1000);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(big);
    expect(c.get('d')).toBe(big);
  });

  it('is bounded by entries, and skips answers larger than the entry limit', () => {
    const c = new LastGoodCache({ maxBytes: 1_000_000, maxEntries: 2, maxEntryBytes: 100 });
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect(c.entries).toBe(2);
    expect(c.get('a')).toBeUndefined();
    c.set('huge', 'y'.repeat(200));
    expect(c.get('huge')).toBeUndefined();
  });

  it('counts the UTF-8 bytes it holds, however V8 would hold the same text as a string', () => {
    const c = new LastGoodCache({ maxBytes: 1_000_000, maxEntries: 10 });
    // One character beyond Latin-1 makes V8 hold a whole string at two bytes a character.
    const latin = JSON.stringify({ name: 'Pokémon '.repeat(100) });
    const beyond = JSON.stringify({ name: `${'Pikachu '.repeat(100)}♀` });
    c.setJson('a', latin);
    expect(c.bytes).toBe(Buffer.byteLength(latin) + 2);
    c.setJson('b', beyond);
    expect(c.bytes).toBe(Buffer.byteLength(latin) + 2 + Buffer.byteLength(beyond) + 2);
    expect(Buffer.byteLength(beyond)).toBeLessThan(1.01 * beyond.length);
    expect(c.getBytes('b')!.equals(Buffer.from(beyond))).toBe(true);
    expect(c.getJson('b')).toBe(beyond);
  });

  it('keeps each answer in memory of its own, not in a slice of a shared pool slab', () => {
    const c = new LastGoodCache({ maxBytes: 1_000_000, maxEntries: 10 });
    c.setJson('small', '{"lines":[]}');
    const kept = c.getBytes('small')!;
    expect(kept.byteLength).toBe(12);
    expect(kept.buffer.byteLength).toBe(12);
  });

  it('is bounded by those bytes: three-byte characters fill it three times as fast', () => {
    const c = new LastGoodCache({ maxBytes: 1000, maxEntries: 100, maxEntryBytes: 1000 });
    const ascii = JSON.stringify('x'.repeat(250));
    const symbols = JSON.stringify('♂'.repeat(250));
    c.setJson('a', ascii);
    c.setJson('b', ascii);
    c.setJson('c', ascii);
    expect(c.entries).toBe(3);
    c.setJson('d', symbols);
    expect(c.bytes).toBeLessThanOrEqual(1000);
    expect(c.has('d')).toBe(true);
    expect(c.entries).toBe(1);
  });
});
