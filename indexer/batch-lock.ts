import type { Pool } from '../src/db/pool.js';

// Serializes "compute documents + write them + advance the checkpoint" between the live indexer
// and a rebuild's final catch-up and alias swap. Without it, a live batch computed before the
// swap could land on the new index after the rebuild wrote newer state.
const BATCH_LOCK_KEY = 727_001;

export async function withBatchLock<T>(pool: Pool, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [BATCH_LOCK_KEY]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [BATCH_LOCK_KEY]).catch((err: Error) => {
        broken = err;
      });
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    // A session-level lock dies with its connection, so a broken one is destroyed, not reused.
    client.release(broken);
  }
}
