import type { Pool, PoolClient } from './pool.js';

// Which concrete indices a running rebuild holds: a session advisory lock per index name, taken
// on a connection of its own before the index is created and kept until the alias points at it
// or it is deleted again. The lock dies with its session, so a rebuild killed with SIGKILL (or
// whose host died) holds nothing, and `npm run indices -- --prune` may delete what it left: a
// lock, not a guess by age. Locks live in one database: the rebuild and the prune must use the
// same DATABASE_URL (as every process of one deployment does).

/** First key of the two-key advisory locks of index holds (batch-lock.ts uses one-key locks). */
const INDEX_HOLD_NAMESPACE = 727_002;

export interface IndexHold {
  /** Ends the hold (and gives the connection back, closed: a session lock must not outlive it). */
  release(): Promise<void>;
  /** Called once if the hold's connection fails: from then on, nothing holds the index. */
  onLost(listener: (err: Error) => void): void;
}

/** Holds `index` for this process until `release()`; waits if another session holds it. */
export async function holdIndex(pool: Pool, index: string): Promise<IndexHold> {
  const client: PoolClient = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [INDEX_HOLD_NAMESPACE, index]);
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  let released = false;
  let lost: ((err: Error) => void) | null = null;
  client.on('error', (err: Error) => {
    if (!released) lost?.(err);
  });
  return {
    release: async () => {
      if (released) return;
      released = true;
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [INDEX_HOLD_NAMESPACE, index]).catch(() => undefined);
      // Closed rather than pooled: whatever happened to the session, its lock goes with it.
      client.release(true);
    },
    onLost: (listener) => {
      lost = listener;
    },
  };
}

/**
 * Whether a session other than `db`'s holds `index` now. It tries the lock and, when it got it,
 * gives it back at once; `db` must be a dedicated connection (a pooled query could run the try
 * and the unlock on two sessions).
 */
export async function isIndexHeld(db: PoolClient, index: string): Promise<boolean> {
  const { rows } = await db.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS got', [INDEX_HOLD_NAMESPACE, index]);
  if (!rows[0]!.got) return true;
  await db.query('SELECT pg_advisory_unlock($1, hashtext($2))', [INDEX_HOLD_NAMESPACE, index]);
  return false;
}

/**
 * Runs `fn` while this session holds `index` (so no rebuild can start holding it meanwhile);
 * `fn` is not run, and false returned, when another session holds it.
 */
export async function whileUnheld(db: PoolClient, index: string, fn: () => Promise<void>): Promise<boolean> {
  const { rows } = await db.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS got', [INDEX_HOLD_NAMESPACE, index]);
  if (!rows[0]!.got) return false;
  try {
    await fn();
    return true;
  } finally {
    await db.query('SELECT pg_advisory_unlock($1, hashtext($2))', [INDEX_HOLD_NAMESPACE, index]);
  }
}
