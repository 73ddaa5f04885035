import { describe, expect, it } from 'vitest';
import { isoToMicros, microsToIso } from '../../../src/lib/micros.js';
import { planListingWrites, type PlanItem, type StoredListing } from '../../../src/listings/plan.js';

const us = (iso: string) => isoToMicros(iso)!;
const T1 = us('2026-11-01T00:00:00Z');
const T2 = us('2026-11-02T00:00:00Z');

const stored = (over: Partial<StoredListing> = {}): StoredListing => ({
  productId: 101,
  price: 250,
  quantity: 4,
  externalRef: 'A-1',
  asOf: T2,
  deleted: false,
  matched: true,
  ...over,
});

// sku 1001 -> product 101 is in the catalog; sku 9999 is not.
const catalog = new Map([
  [1001, 101],
  [1002, 101],
]);

describe('planListingWrites', () => {
  it('creates new listings: matched is applied, unknown sku is unmatched', () => {
    const plan = planListingWrites(
      [
        { op: 'upsert', skuId: 1001, productId: 101, price: 100, quantity: 2, externalRef: 'X' },
        { op: 'upsert', skuId: 9999, productId: 5, price: 100, quantity: 2 },
      ],
      new Map(),
      catalog,
    );
    expect(plan.results).toEqual([
      { skuId: 1001, op: 'upsert', status: 'applied', externalRef: 'X' },
      { skuId: 9999, op: 'upsert', status: 'unmatched' },
    ]);
    expect(plan.rows).toEqual([
      { skuId: 1001, productId: 101, price: 100, quantity: 2, externalRef: 'X', asOf: null, deleted: false },
      { skuId: 9999, productId: 5, price: 100, quantity: 2, externalRef: null, asOf: null, deleted: false },
    ]);
  });

  it('a new listing needs productId, price and quantity', () => {
    const plan = planListingWrites([{ op: 'upsert', skuId: 1001, price: 1 }], new Map(), catalog);
    expect(plan.results[0]).toMatchObject({ status: 'rejected', reason: 'a new listing needs productId, quantity' });
    expect(plan.rows).toEqual([]);
  });

  it('a partial update keeps stored values; omitted externalRef keeps, null clears', () => {
    const s = new Map([[1001, stored()]]);
    const keep = planListingWrites([{ op: 'upsert', skuId: 1001, quantity: 9 }], s, catalog);
    expect(keep.rows).toEqual([{ skuId: 1001, productId: 101, price: 250, quantity: 9, externalRef: 'A-1', asOf: T2, deleted: false }]);
    const clear = planListingWrites([{ op: 'upsert', skuId: 1001, externalRef: null }], s, catalog);
    expect(clear.rows[0]!.externalRef).toBeNull();
    expect(clear.results[0]).toEqual({ skuId: 1001, op: 'upsert', status: 'applied' });
  });

  it('an identical push writes nothing but is still applied', () => {
    const s = new Map([[1001, stored()]]);
    const plan = planListingWrites([{ op: 'upsert', skuId: 1001, productId: 101, price: 250, quantity: 4, asOf: T2 }], s, catalog);
    expect(plan.results[0]!.status).toBe('applied');
    expect(plan.rows).toEqual([]);
  });

  it('rewrites a row whose match status is out of date even if the values are the same', () => {
    const s = new Map([[1001, stored({ matched: false })]]);
    expect(planListingWrites([{ op: 'upsert', skuId: 1001 }], s, catalog).rows).toHaveLength(1);
  });

  it('rejects a stale asOf (earlier than stored), accepts equal, later or absent asOf', () => {
    const s = new Map([[1001, stored()]]);
    const r = (asOf?: bigint) => planListingWrites([{ op: 'upsert', skuId: 1001, quantity: 1, asOf }], s, catalog).results[0]!;
    expect(r(T1)).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/^stale: asOf 2026-11-01T00:00:00.000000Z is earlier/) });
    expect(r(T2).status).toBe('applied');
    expect(r(T2 + 1n).status).toBe('applied');
    expect(r(undefined).status).toBe('applied');
    // Stale deletes are rejected as well.
    expect(planListingWrites([{ op: 'delete', skuId: 1001, asOf: T1 }], s, catalog).results[0]!.status).toBe('rejected');
  });

  it('rejects a productId that contradicts the catalog, also when it comes from the stored row', () => {
    const plan = planListingWrites([{ op: 'upsert', skuId: 1001, productId: 102, price: 1, quantity: 1 }], new Map(), catalog);
    expect(plan.results[0]).toMatchObject({ status: 'rejected', reason: expect.stringContaining('belongs to product 101') });
    const s = new Map([[1001, stored({ productId: 7, matched: true })]]);
    expect(planListingWrites([{ op: 'upsert', skuId: 1001, quantity: 1 }], s, catalog).results[0]!.status).toBe('rejected');
  });

  it('deletes: absent and already deleted are applied; a live row is soft-deleted; revive by upsert', () => {
    const s = new Map([
      [1001, stored()],
      [1002, stored({ deleted: true })],
    ]);
    const plan = planListingWrites(
      [
        { op: 'delete', skuId: 1001 },
        { op: 'delete', skuId: 1002 },
        { op: 'delete', skuId: 4242 },
      ],
      s,
      catalog,
    );
    expect(plan.results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied']);
    expect(plan.rows).toEqual([{ skuId: 1001, productId: 101, price: 250, quantity: 4, externalRef: 'A-1', asOf: T2, deleted: true }]);
    const revive = planListingWrites([{ op: 'upsert', skuId: 1002, quantity: 3 }], s, catalog);
    expect(revive.rows).toEqual([{ skuId: 1002, productId: 101, price: 250, quantity: 3, externalRef: 'A-1', asOf: T2, deleted: false }]);
  });

  it('items of one sku apply in order: the last wins, earlier ones keep their own outcome', () => {
    const items: PlanItem[] = [
      { op: 'upsert', skuId: 1001, productId: 101, price: 100, quantity: 1, asOf: T2 },
      { op: 'upsert', skuId: 1001, price: 200, asOf: T1 }, // stale against the first item
      { op: 'upsert', skuId: 1001, price: 300 },
    ];
    const plan = planListingWrites(items, new Map(), catalog);
    expect(plan.results.map((r) => r.status)).toEqual(['applied', 'rejected', 'applied']);
    expect(plan.rows).toEqual([{ skuId: 1001, productId: 101, price: 300, quantity: 1, externalRef: null, asOf: T2, deleted: false }]);
  });

  it('a later invalid item does not undo an earlier valid one; delete then upsert revives', () => {
    const s = new Map([[1001, stored()]]);
    const plan = planListingWrites(
      [
        { op: 'delete', skuId: 1001 },
        { op: 'upsert', skuId: 1001, price: 1 },
        { op: 'upsert', skuId: 1001, skuIdIgnored: true, invalid: 'price: bad' } as unknown as PlanItem,
      ],
      s,
      catalog,
    );
    expect(plan.results.map((r) => r.status)).toEqual(['applied', 'applied', 'rejected']);
    expect(plan.rows).toEqual([{ skuId: 1001, productId: 101, price: 1, quantity: 4, externalRef: 'A-1', asOf: T2, deleted: false }]);
  });

  it("created and deleted in one request leaves a soft-deleted row with the upsert's values (items apply in order)", () => {
    const plan = planListingWrites(
      [
        { op: 'upsert', skuId: 1001, productId: 101, price: 1, quantity: 1, externalRef: 'N', asOf: T1 },
        { op: 'delete', skuId: 1001 },
      ],
      new Map(),
      catalog,
    );
    expect(plan.results.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(plan.rows).toEqual([{ skuId: 1001, productId: 101, price: 1, quantity: 1, externalRef: 'N', asOf: T1, deleted: true }]);
  });

  it('a delete of an absent sku still writes nothing', () => {
    const plan = planListingWrites([{ op: 'delete', skuId: 1001 }], new Map(), catalog);
    expect(plan.results.map((r) => r.status)).toEqual(['applied']);
    expect(plan.rows).toEqual([]);
  });

  it('reports invalid items in place with their echo', () => {
    const plan = planListingWrites([{ op: 'delete', skuId: 0, externalRef: 'R', invalid: 'skuId: required' }], new Map(), catalog);
    expect(plan.results).toEqual([{ skuId: 0, op: 'delete', status: 'rejected', reason: 'skuId: required', externalRef: 'R' }]);
  });
});

describe('asOf microseconds', () => {
  it('parses Z and offsets, keeps microseconds, rounds the seventh digit', () => {
    expect(isoToMicros('1970-01-01T00:00:00Z')).toBe(0n);
    expect(isoToMicros('1970-01-01T00:00:01.000001Z')).toBe(1_000_001n);
    expect(isoToMicros('1970-01-01T01:00:00+01:00')).toBe(0n);
    expect(isoToMicros('1970-01-01T00:00:00.0000005Z')).toBe(1n);
    expect(isoToMicros('1970-01-01T00:00:00.0000004Z')).toBe(0n);
    expect(isoToMicros('2026-11-01T00:00:00.5Z')).toBe(isoToMicros('2026-11-01T00:00:00.500000Z'));
    expect(isoToMicros('not a date')).toBeNull();
    expect(isoToMicros('2026-13-45T00:00:00Z')).toBeNull();
  });
  it('renders exact UTC with six digits, also before 1970', () => {
    expect(microsToIso(1_000_001n)).toBe('1970-01-01T00:00:01.000001Z');
    expect(microsToIso(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    const x = isoToMicros('2026-11-01T12:34:56.123456+02:00')!;
    expect(microsToIso(x)).toBe('2026-11-01T10:34:56.123456Z');
  });
});

describe('asOf range', () => {
  it('refuses instants PostgreSQL cannot store once the offset is applied', () => {
    expect(isoToMicros('0000-01-01T00:00:00Z')).toBeNull();
    expect(isoToMicros('0001-01-01T00:00:00+01:00')).toBeNull();
    expect(isoToMicros('9999-12-31T23:59:59-01:00')).toBeNull();
    expect(isoToMicros('0001-01-01T00:00:00Z')).not.toBeNull();
    expect(isoToMicros('9999-12-31T23:59:59.999999Z')).not.toBeNull();
    expect(isoToMicros('9999-12-31T23:59:59.9999996Z')).toBeNull();
  });
});
