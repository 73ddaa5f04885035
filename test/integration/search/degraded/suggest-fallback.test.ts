import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { BIRCH, seedSellerApi } from '../../../support/seller-seed.js';
import { suggestQuerySchema } from '../../../../src/contract/buyer.js';
import { DEFAULT_PG_READS, pgReads } from '../../../../src/search/pg-reads.js';
import { TooManyNames } from '../../../../src/search/suggest/catalog-refresh.js';

// Suggestions from PostgreSQL (Degraded Mode) with the catalog's names held in memory: what the
// snapshot says (listed, gates, current names, counts) decides at once; a name only the held list
// can know of (a new one) comes with its next read; a catalog beyond the bound is refused.

let ctx: TestContext;
const POKEMON = 'Pokémon';

beforeAll(async () => {
  ctx = await createTestContext();
  await seedSellerApi(ctx);
  await ctx.pool.query(`
    INSERT INTO products (product_id, name, set_name, category) VALUES
      (201, 'Charizard', 'Base', '${POKEMON}'), (203, 'Charmander', 'Base', '${POKEMON}'),
      (205, 'Dark Charizard', 'Rocket', '${POKEMON}'), (206, 'Pikachu', 'Base', '${POKEMON}'),
      (207, 'Charmander', 'Jungle', '${POKEMON}'), (208, 'Charjabug', 'Sun', '${POKEMON}');
    INSERT INTO skus (sku_id, product_id, condition, language, finish)
      SELECT product_id * 10 + 1, product_id, 'Near Mint', 'English', 'Non-Foil' FROM products WHERE product_id BETWEEN 201 AND 208;
    INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES
      (7, 2011, 201, 900, 2, 'matched'), (7, 2031, 203, 100, 3, 'matched'), (7, 2071, 207, 120, 1, 'matched'),
      (8, 2011, 201, 950, 1, 'matched'), (8, 2051, 205, 700, 1, 'matched'), (8, 2061, 206, 60, 9, 'matched');
  `);
});
afterAll(async () => {
  await ctx?.close();
});

const ask = (q: Record<string, string>) => suggestQuerySchema.parse(q);

describe('suggestions from PostgreSQL', () => {
  it('the snapshot decides listing, gates, names and counts at once; a new name comes with the next read of the list', async () => {
    const held = pgReads(ctx.pool, { ...DEFAULT_PG_READS, names: { refreshMs: 3_600_000, maxAgeMs: 3_600_000, maxNames: 1000 } });
    const fresh = pgReads(ctx.pool, { ...DEFAULT_PG_READS, names: { refreshMs: 0, maxAgeMs: 0, maxNames: 1000 } });
    expect(await held.suggest(ask({ q: 'charma' }))).toEqual({ completions: [{ text: 'Charmander', productCount: 2 }], correction: null });
    expect(await held.suggest(ask({ q: 'charzard' }))).toEqual({
      completions: [
        { text: 'Charizard', productCount: 2 },
        { text: 'Dark Charizard', productCount: 1 },
      ],
      correction: 'Charizard',
    });

    // Renamed after the list was read: found through its old name, answered and counted by its name now.
    await ctx.pool.query(`UPDATE products SET name = 'Charmeleon' WHERE product_id = 207`);
    const renamed = [
      { text: 'Charmander', productCount: 1 },
      { text: 'Charmeleon', productCount: 1 },
    ];
    expect((await held.suggest(ask({ q: 'charma' }))).completions).toEqual(renamed);
    expect((await fresh.suggest(ask({ q: 'charma' }))).completions).toEqual(renamed);

    // A new name: with the next read of the list.
    await ctx.pool.query(`
      INSERT INTO products (product_id, name, set_name, category) VALUES (209, 'Charcadet', 'Paldea', '${POKEMON}');
      INSERT INTO skus (sku_id, product_id, condition, language, finish) VALUES (2091, 209, 'Near Mint', 'English', 'Non-Foil');
      INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 2091, 209, 90, 1, 'matched');`);
    expect((await held.suggest(ask({ q: 'charcad' }))).completions).toEqual([]);
    expect((await fresh.suggest(ask({ q: 'charcad' }))).completions).toEqual([{ text: 'Charcadet', productCount: 1 }]);

    // Charjabug is in the catalog but unlisted: suggested as soon as it is listed.
    expect((await held.suggest(ask({ q: 'charjab' }))).completions).toEqual([]);
    await ctx.pool.query(`INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 2081, 208, 40, 1, 'matched')`);
    expect((await held.suggest(ask({ q: 'charjab' }))).completions).toEqual([{ text: 'Charjabug', productCount: 1 }]);

    // A seller going on vacation takes away the names only it offered, at once.
    await ctx.pool.query(`UPDATE sellers SET vacation = true WHERE seller_id = ${BIRCH}`);
    expect(await held.suggest(ask({ q: 'pikac' }))).toEqual({ completions: [], correction: null });
    expect((await held.suggest(ask({ q: 'charizard' }))).completions).toEqual([{ text: 'Charizard', productCount: 1 }]);
    expect((await held.suggest(ask({ q: 'charizard', sellerCode: 'birch' }))).completions).toEqual([]);
    await ctx.pool.query(`UPDATE sellers SET vacation = false WHERE seller_id = ${BIRCH}`);
    expect((await held.suggest(ask({ q: 'charizard', sellerCode: 'birch' }))).completions).toEqual([
      { text: 'Charizard', productCount: 2 },
      { text: 'Dark Charizard', productCount: 1 },
    ]);
  });

  it('refuses a catalog with more distinct names than its bound', async () => {
    const small = pgReads(ctx.pool, { ...DEFAULT_PG_READS, names: { refreshMs: 0, maxAgeMs: 0, maxNames: 3 } });
    await expect(small.suggest(ask({ q: 'char' }))).rejects.toBeInstanceOf(TooManyNames);
  });
});
