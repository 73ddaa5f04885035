import type { Pool } from '../src/db/pool.js';

// Session advisory locks that serialize the indexers of one database.
//
// The batch lock serializes "read the checkpoint + compute documents + write them + advance the
// checkpoint" between live indexers (any number of processes) and a rebuild's final catch-up and
// alias swap. Without it, a live batch computed before the swap could land on the new index after
// the rebuild wrote newer state, and two live indexers would each redo (and may checkpoint behind)
// the other's batches.
const BATCH_LOCK_KEY = 727_001;
// The build lock lets one of several live indexers starting together build a missing or outdated
// index, and the others find it built.
const BUILD_LOCK_KEY = 727_002;

export function withBatchLock<T>(pool: Pool, fn: () => Promise<T>): Promise<T> {
  return withAdvisoryLock(pool, BATCH_LOCK_KEY, fn);
}

export function withBuildLock<T>(pool: Pool, fn: () => Promise<T>): Promise<T> {
  return withAdvisoryLock(pool, BUILD_LOCK_KEY, fn);
}

async function withAdvisoryLock<T>(pool: Pool, key: number, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]).catch((err: Error) => {
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
