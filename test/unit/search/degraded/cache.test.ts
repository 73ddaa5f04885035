import { describe, expect, it } from 'vitest';
import { LastGoodCache, requestKey, stableJson } from '../../../../src/search/degraded/cache.js';
import { ConcurrencyLimiter, LimiterBusy } from '../../../../src/search/degraded/limiter.js';
import { renderPrometheus } from '../../../../src/lib/prometheus.js';
import { searchQuerySchema, productQuerySchema } from '../../../../src/contract/buyer.js';
import { keywordPrefilters, PREFILTER_MAX_PARTS, PREFILTER_MAX_TERMS, termPrefilter } from '../../../../src/search/pg-reads.js';
import { fold, terms } from '../../../../src/search/text.js';

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
});

describe('fallback limiter', () => {
  it('runs at most `max` at once, queues briefly, then refuses', async () => {
    const l = new ConcurrencyLimiter({ max: 2, maxWaitMs: 50, maxQueue: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = [l.run(() => gate), l.run(() => gate)];
    expect(l.running).toBe(2);
    const queued = l.run(async () => 'queued');
    await expect(l.run(async () => 'x')).rejects.toBeInstanceOf(LimiterBusy); // queue full
    release();
    await Promise.all(running);
    await expect(queued).resolves.toBe('queued');
    expect(l.running).toBe(0);
  });

  it('a waiter gives up after maxWaitMs', async () => {
    const l = new ConcurrencyLimiter({ max: 1, maxWaitMs: 20, maxQueue: 10 });
    const hold = l.run(() => new Promise((r) => setTimeout(r, 100)));
    await expect(l.run(async () => 1)).rejects.toBeInstanceOf(LimiterBusy);
    await hold;
    await expect(l.run(async () => 2)).resolves.toBe(2);
  });
});

describe('keyword prefilter', () => {
  // The SQL pattern runs on the NFKD form of the name; JS regex stands in for PostgreSQL's here.
  const matches = (name: string, term: string) => new RegExp(termPrefilter(term) ?? '').test(name.normalize('NFKD'));
  it('never excludes a name whose folded terms contain the term', () => {
    const names = ['Lightning Bölt', 'ÉCLAIR', 'ﬁre Ｂolt', 'Café ²', 'İstanbul', 'Ǆemal', 'Straße', 'Ωmega 42', 'Þór'];
    for (const name of names) {
      for (const t of terms(name)) expect(matches(name, t), `${name} / ${t}`).toBe(true);
    }
    expect(fold('Lightning Bölt')).toBe('lightning bolt');
  });
  it('still narrows', () => {
    expect(matches('Counterspell', 'bolt')).toBe(false);
    expect(matches('雷の一撃', '炎')).toBe(false);
  });
  it('matches CJK, kana with marks and Hangul as they fold', () => {
    for (const name of ['稲妻 ボルト', 'ガイア', 'ｶﾞｲｱ', '번개 볼트', 'Lightning 稲妻bolt']) {
      for (const t of terms(name)) expect(matches(name, t), `${name} / ${t}`).toBe(true);
    }
  });
  it('is bounded: few parts per term, few terms per keyword, no pattern for a term that cannot narrow', () => {
    const cjk = termPrefilter('漢'.repeat(255))!;
    expect([...cjk.matchAll(/漢/g)].length).toBe(PREFILTER_MAX_PARTS);
    expect(termPrefilter('a'.repeat(255))!.split('[^').length).toBe(PREFILTER_MAX_PARTS);
    expect(termPrefilter('ωωω')).toBeNull();
    expect(termPrefilter('ωaωωb')).toBe('[aA][^\\x01-\\x7f]*.*[^\\x01-\\x7f]*[bB]');
    const many = Array.from({ length: 100 }, (_, i) => `t${i}`);
    expect(keywordPrefilters(many)).toHaveLength(PREFILTER_MAX_TERMS);
  });
});

describe('prometheus text', () => {
  it('renders HELP/TYPE once per name and escapes labels', () => {
    const text = renderPrometheus([
      { name: 'a', help: 'A', type: 'gauge', value: 1, labels: { s: 'x"y' } },
      { name: 'a', help: 'A', type: 'gauge', value: 0, labels: { s: 'z' } },
      { name: 'b_total', help: 'B', type: 'counter', value: 3 },
    ]);
    expect(text).toBe('# HELP a A\n# TYPE a gauge\na{s="x\\"y"} 1\na{s="z"} 0\n# HELP b_total B\n# TYPE b_total counter\nb_total 3\n');
  });
});
