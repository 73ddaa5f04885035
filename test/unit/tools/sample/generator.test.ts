import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createSample } from '../../../../tools/sample/generate.js';
import { writeSampleJson } from '../../../../tools/sample/json.js';
import { sampleSizes, sellerQuotas, UNMATCHED_SKU_BASE } from '../../../../tools/sample/model.js';
import { Rng } from '../../../../tools/sample/prng.js';
import { parseFixtureText } from '../../../../src/fixtures/parse.js';
import { checkFixture, NO_FACTS } from '../../../../src/fixtures/check.js';

async function sampleJson(listings: number, seed: number): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await writeSampleJson(out, createSample(listings, seed));
  out.end();
  return Buffer.concat(chunks).toString('utf8');
}

describe('prng', () => {
  it('is a deterministic stream per seed', () => {
    const a = Rng.for(1, 2, 3);
    const b = Rng.for(1, 2, 3);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(Rng.for(1, 2, 4).next()).not.toBe(xs[0]);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('sample generator', () => {
  it('same seed and N give byte-identical output; another seed differs', async () => {
    const a = await sampleJson(600, 11);
    expect(await sampleJson(600, 11)).toBe(a);
    expect(await sampleJson(600, 12)).not.toBe(a);
  });

  it('respects N and the size ratios, and passes the fixture loader rules', async () => {
    const doc = parseFixtureText(await sampleJson(800, 5));
    checkFixture(doc, NO_FACTS);
    expect(doc.listings).toHaveLength(800);
    expect(doc.products).toHaveLength(100);
    expect(doc.skus).toHaveLength(300);
    expect(doc.sellers).toHaveLength(50);
    expect(doc.handoffStores!.length).toBeGreaterThanOrEqual(3);
  });

  it('has the variety the marketplace needs', async () => {
    const doc = parseFixtureText(await sampleJson(4000, 1));
    const categories = new Set(doc.products!.map((p) => p.category));
    expect(categories).toContain('Magic: The Gathering');
    expect(categories.size).toBeGreaterThanOrEqual(4);
    const conditions = new Set(doc.skus!.map((s) => s.condition));
    for (const c of ['Unopened', 'Near Mint', 'Lightly Played', 'Moderately Played', 'Heavily Played', 'Damaged']) expect(conditions).toContain(c);
    // eslint-disable-next-line no-control-regex -- any character outside ASCII
    expect(doc.products!.some((p) => /[^\x00-\x7f]/.test(p.name ?? ''))).toBe(true);
    const sellers = doc.sellers!;
    expect(sellers.some((s) => s.vacation)).toBe(true);
    expect(sellers.some((s) => !s.active)).toBe(true);
    expect(sellers.some((s) => s.incompletePrerequisites.length > 0)).toBe(true);
    expect(sellers.some((s) => s.termsVersion !== '2026-07')).toBe(true);
    expect(new Set(sellers.map((s) => s.inventorySource)).size).toBeGreaterThan(1);
    expect(doc.listings!.some((l) => l.skuId >= UNMATCHED_SKU_BASE)).toBe(true);
    expect(doc.listings!.some((l) => l.quantity === 0)).toBe(true);
    expect(doc.handoffStores!.some((h) => h.variants.length > 0)).toBe(true);
  });

  it('gives each seller distinct skus and quotas summing to N at large sizes', () => {
    const sizes = sampleSizes(2_000_000);
    expect(sizes).toMatchObject({ products: 250_000, skus: 750_000, sellers: 150 });
    const quotas = sellerQuotas(1, sizes);
    expect(quotas.reduce((a, b) => a + b, 0)).toBe(2_000_000);
    expect(Math.max(...quotas)).toBeLessThanOrEqual(sizes.skus);
    const sample = createSample(3000, 9);
    const seen = new Set<string>();
    for (const l of sample.listings()) {
      const key = `${l.sellerId}/${l.skuId}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    expect(seen.size).toBe(3000);
  });
});
