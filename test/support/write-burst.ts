import type { Pool } from '../../src/db/pool.js';
import { prng } from './scenario.js';

// A burst of small concurrent write transactions of every kind the indexer follows: listing
// upserts and deletes, vacation flips, product renames, orders with holds, seller-wide price
// changes. Each transaction commits on its own, in whatever order the database chooses.

export interface BurstOptions {
  transactions: number;
  concurrency: number;
  seed: number;
  /** Called after each committed transaction with the running count. */
  onCommit?: (n: number) => void;
}

export async function writeBurst(pool: Pool, opts: BurstOptions): Promise<number> {
  const rnd = prng(opts.seed);
  const { rows: sellers } = await pool.query<{ seller_id: number }>('SELECT seller_id FROM sellers');
  const { rows: skus } = await pool.query<{ sku_id: number; product_id: number }>('SELECT sku_id, product_id FROM skus');
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  let committed = 0;
  let next = 0;

  // Random concurrent writers deadlock each other now and then, as real ones do; retry like them.
  async function one(i: number) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await attemptOne(i);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if ((code === '40P01' || code === '40001') && attempt < 5) continue;
        throw err;
      }
    }
  }

  async function attemptOne(i: number) {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const ops = 1 + Math.floor(rnd() * 3);
      for (let k = 0; k < ops; k++) {
        const r = rnd();
        const s = pick(sellers).seller_id;
        const sku = pick(skus);
        if (r < 0.5) {
          await c.query(
            `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
             VALUES ($1, $2, $3, $4, $5, 'matched')
             ON CONFLICT (seller_id, sku_id) DO UPDATE SET price = excluded.price, quantity = excluded.quantity, deleted_at = NULL`,
            [s, sku.sku_id, sku.product_id, 50 + Math.floor(rnd() * 500), Math.floor(rnd() * 4)],
          );
        } else if (r < 0.6) {
          await c.query(`UPDATE listings SET deleted_at = now() WHERE seller_id = $1 AND sku_id = $2`, [s, sku.sku_id]);
        } else if (r < 0.68) {
          await c.query(`UPDATE sellers SET vacation = NOT vacation WHERE seller_id = $1`, [s]);
        } else if (r < 0.76) {
          await c.query(`UPDATE products SET name = $2 WHERE product_id = $1`, [sku.product_id, `Renamed ${i} Çard`]);
        } else if (r < 0.9) {
          const id = `burst_${opts.seed}_${i}_${k}`;
          await c.query(`INSERT INTO orders (order_id, seller_id, status) VALUES ($1, $2, $3)`, [id, s, pick(['created', 'accepted', 'shipped'])]);
          await c.query(`INSERT INTO holds (order_id, seller_id, sku_id, quantity) VALUES ($1, $2, $3, 1)`, [id, s, sku.sku_id]);
        } else {
          await c.query(`UPDATE listings SET price = price + 1 WHERE seller_id = $1`, [s]);
        }
      }
      await c.query('COMMIT');
      opts.onCommit?.(++committed);
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < opts.transactions) await one(next++);
    }),
  );
  return committed;
}

/** Resolves once the live consumer's checkpoint has passed every committed change. */
export async function caughtUp(pool: Pool, consumer = 'live', timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS pending FROM change_feed f
        WHERE NOT EXISTS (SELECT 1 FROM feed_checkpoints c WHERE c.consumer = $1 AND (f.xid, f.id) <= (c.xid, c.id))`,
      [consumer],
    );
    if (rows[0].pending === 0) return;
    if (Date.now() - started > timeoutMs) throw new Error(`indexer not caught up: ${rows[0].pending} changes pending`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
