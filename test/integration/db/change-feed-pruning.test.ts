import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneFeed } from '../../../src/db/change-feed.js';
import { saveCheckpoint } from '../../../src/db/feed-guard.js';
import { createTestContext, type TestContext } from '../../support/context.js';

// The change feed stays bounded: the indexer prunes rows every consumer's checkpoint has passed
// (pruneFeed, called from indexer/live.ts), and keeps the rest.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.pool.query('DELETE FROM change_feed; DELETE FROM feed_checkpoints');
});
afterAll(async () => ctx?.close());

const feedIds = async () => (await ctx.pool.query<{ k1: number }>('SELECT k1 FROM change_feed ORDER BY xid, id')).rows.map((r) => Number(r.k1));

describe('change feed pruning', () => {
  it('deletes the rows every consumer has passed, and only those', async () => {
    await ctx.pool.query(`
      INSERT INTO change_feed (xid, id, entity, k1) VALUES
        ('8'::xid8, 1, 'product', 1), ('9'::xid8, 2, 'product', 2), ('9'::xid8, 3, 'product', 3),
        ('10'::xid8, 4, 'product', 4), ('12'::xid8, 5, 'product', 5)`);
    await saveCheckpoint(ctx.pool, 'live', { xid: '10', id: 4 });
    await saveCheckpoint(ctx.pool, 'rebuild', { xid: '9', id: 2 });
    expect(await pruneFeed(ctx.pool)).toBe(2);
    expect(await feedIds()).toEqual([3, 4, 5]);

    await saveCheckpoint(ctx.pool, 'rebuild', { xid: '12', id: 5 });
    expect(await pruneFeed(ctx.pool)).toBe(2);
    expect(await feedIds()).toEqual([5]);
  });
});
