import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { readFeed } from '../../../src/db/change-feed.js';
import { lastPosition, START } from '../../../src/db/feed-guard.js';

// Reading the change feed in (xid, id) order in pages: numeric order across digit boundaries
// (8, 9, 10, 11: as text '10' < '8'), and a checkpoint that never passes an unread row.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.pool.query('DELETE FROM change_feed');
});
afterAll(async () => ctx?.close());

describe('readFeed', () => {
  it('pages through rows in numeric (xid, id) order, whatever their digits', async () => {
    // Explicit old xids: all below the server's current xid, so all consumable.
    await ctx.pool.query(`
      INSERT INTO change_feed (xid, entity, k1) VALUES
        ('11'::xid8, 'product', 4), ('9'::xid8, 'product', 2), ('10'::xid8, 'product', 3),
        ('8'::xid8, 'product', 1), ('100'::xid8, 'product', 5), ('99'::xid8, 'product', 6)`);
    const seen: number[] = [];
    let position = START;
    for (let i = 0; i < 10; i++) {
      const rows = await readFeed(ctx.pool, position, 2);
      if (rows.length === 0) break;
      seen.push(...rows.map((r) => Number(r.xid)));
      position = lastPosition(rows, position);
    }
    expect(seen).toEqual([8, 9, 10, 11, 99, 100]);
  });
});
