import { expect } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { qs } from './app.js';
import { prng, type Scenario } from './scenario.js';
import type { SearchParams } from './reference.js';

// Shared by the differential tests of the index (api/buyer/reads-match-reference.test.ts) and
// of the PostgreSQL fallback (search/pg-reads-match-index.test.ts): the same cases, walked the
// same way, against the same independent reference.

/** Every page of a search through the API, following nextCursor until null. */
export async function walkSearch(app: Express, params: SearchParams, limit: number, degraded: boolean) {
  const items: unknown[] = [];
  let facets: unknown;
  let cursor: string | undefined;
  for (let page = 0; page < 200; page++) {
    const res = await request(app).get(`/search${qs({ ...params, limit, cursor } as unknown as Record<string, string>)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.degraded).toBe(degraded ? true : undefined);
    items.push(...res.body.data.items);
    facets ??= res.body.data.facets;
    expect(res.body.data.facets).toEqual(facets); // facets do not depend on the page
    cursor = res.body.data.nextCursor ?? undefined;
    if (!cursor) return { items, facets };
  }
  throw new Error('cursor walk did not end');
}

export const PRODUCT_QUERIES = [{}, { limit: 2, offset: 1 }, { condition: ['Near Mint', 'Unopened'] }, { language: ['English'], finish: ['Foil'] }];

/** Every listing pair of the scenario plus unknown sellers and skus, in a non-trivial order. */
export function lookupPairs(s: Scenario): { sellerId: number; skuId: number }[] {
  return [
    ...s.fixture.listings.map((l) => ({ sellerId: l.sellerId, skuId: l.skuId })),
    { sellerId: 999, skuId: s.fixture.skus[0]!.skuId },
    { sellerId: 1, skuId: 424242 },
    { sellerId: 999, skuId: 424242 },
  ].reverse();
}

/** The reference fixes policy codes, not their human text: check the text is there, then drop it. */
export function withoutPolicyText(lines: Record<string, any>[]): Record<string, any>[] {
  for (const line of lines) {
    if (line.policy?.status === 'blocked') {
      expect(typeof line.policy.error.message).toBe('string');
      expect(typeof line.policy.error.action).toBe('string');
      delete line.policy.error.message;
      delete line.policy.error.action;
    }
  }
  return lines;
}

/** Search cases: fixed ones for every rule (folding, ties, facets, scoping) plus seeded random combinations. */
export function searchCases(s: Scenario, seed: number): SearchParams[] {
  const rnd = prng(seed + 7);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const cases: SearchParams[] = [
    {},
    { keyword: 'bolt' },
    { keyword: 'LIGHTNING bolt' },
    { keyword: 'jotun' },
    { keyword: 'lim dul s' },
    { keyword: 'flabebe' },
    { keyword: 'full' },
    { keyword: 'fullwidth card' },
    { keyword: 'gothic' },
    { keyword: 'aether' },
    { keyword: 'æther' },
    { keyword: 'nothing-matches-this' },
    { keyword: '!!!' },
    { keyword: 'b' },
    { category: 'Magic: The Gathering' },
    { category: 'Pokémon', keyword: 'pikachu' },
    { set: 'Alpha', rarity: 'Rare' },
    { condition: ['Near Mint', 'Damaged'] },
    { condition: ['Unopened'], checkoutMode: 'manual' },
    { language: ['Français'], finish: ['Foil'] },
    { collectorNumber: ['1', '2', '3'] },
    { sellerCode: 'maple' },
    { sellerCode: 'north' },
    { sellerCode: 'Zed-9', condition: ['Near Mint'] },
    { sellerCode: 'birch' },
    { sellerCode: 'nobody' },
    { checkoutMode: 'express' },
    { checkoutMode: 'manual' },
    { keyword: 'pikachu', sellerCode: 'maple', condition: ['Near Mint'] },
    { category: 'Lorcana', set: 'Beta', rarity: 'Common', condition: ['Damaged'], language: ['English'], finish: ['Non-Foil'], collectorNumber: ['4'] },
  ];
  for (let i = 0; i < 12; i++) {
    const p = pick(s.fixture.products);
    cases.push({
      ...(rnd() < 0.5 && p.category ? { category: p.category } : {}),
      ...(rnd() < 0.3 && p.set ? { set: p.set } : {}),
      ...(rnd() < 0.4 ? { condition: [pick(['Near Mint', 'Lightly Played', 'Damaged', 'Unopened'])] } : {}),
      ...(rnd() < 0.3 ? { language: ['English', 'Japanese'] } : {}),
      ...(rnd() < 0.3 && p.name ? { keyword: p.name.split(' ')[0] } : {}),
      ...(rnd() < 0.3 ? { checkoutMode: pick(['express', 'manual', 'any'] as const) } : {}),
      ...(rnd() < 0.2 ? { sellerCode: pick(['maple', 'aspen', 'elm', 'north', 'Zed-9']) } : {}),
    });
  }
  return cases;
}
