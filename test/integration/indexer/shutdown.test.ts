import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/fixtures/load.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { exited } from '../../support/dispatcher-process.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { startTestIndexer } from '../../support/indexer.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp, writeBurst } from '../../support/write-burst.js';
import { eventually } from '../../support/eventually.js';
import { withBatchLock } from '../../../indexer/batch-lock.js';
import { entryArgs } from '../../support/entry-points.js';

// `npm run indexer` on SIGTERM with a batch in progress: the batch is written and checkpointed,
// then it exits 0; a second SIGTERM meanwhile changes nothing (it once ended the pool twice and
// crashed). Another indexer then resumes from the checkpoint and the index
// ends equal to PostgreSQL: nothing lost, nothing half-done.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let ctx: TestContext;
/** The indexer under test; killed after the test if a failed assertion left it running. */
let spawned: ChildProcess | undefined;

beforeAll(async () => {
  ctx = await createTestContext();
  await loadFixture(ctx.pool, generateScenario(31, { products: 150, listings: 1500 }).fixture);
});
afterAll(async () => {
  if (spawned && spawned.exitCode === null && spawned.signalCode === null) spawned.kill('SIGKILL');
  await ctx.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
  await ctx.close();
});

describe('indexer shutdown', () => {
  it('finishes its batch and checkpoint on SIGTERM, exits 0, and a second SIGTERM changes nothing', async () => {
    const child = spawn(process.execPath, entryArgs('indexer/main.ts'), {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: ctx.databaseUrl,
        ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL,
        INDEX_PREFIX: ctx.env.INDEX_PREFIX,
        INDEXER_METRICS_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    spawned = child;
    const lines: { msg?: string; level?: number }[] = [];
    let stderr = '';
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          lines.push(JSON.parse(line) as { msg?: string });
        } catch {
          stderr += `${line}\n`;
        }
      }
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exit = exited(child);
    await caughtUp(ctx.pool, 'live', 240_000);

    // A backlog first, worked through.
    await writeBurst(ctx.pool, { transactions: 400, concurrency: 4, seed: 32 });
    await caughtUp(ctx.pool, 'live', 240_000);

    // Then a batch held in progress: the test takes the indexers' batch lock and flips a store's
    // vacation; the indexer's next batch waits for the lock. Both SIGTERMs arrive while it waits,
    // so the second one always finds the indexer stopping; then the lock is let go.
    await withBatchLock(ctx.pool, async () => {
      await ctx.pool.query('UPDATE sellers SET vacation = NOT vacation WHERE seller_id = (SELECT min(seller_id) FROM listings)');
      await eventually(
        async () => {
          const { rows } = await ctx.pool.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
          );
          expect(rows[0].n).toBe(1);
        },
        60_000,
        50,
      );
      const logged = (msg: string) => eventually(() => expect(lines.map((l) => l.msg)).toContain(msg), 30_000, 20);
      child.kill('SIGTERM');
      await logged('indexer stopping: finishing the batch in progress');
      child.kill('SIGTERM');
      await logged('indexer already stopping; finishing the batch in progress');
      expect(child.exitCode).toBeNull();
    });

    expect(await exit).toEqual({ code: 0, signal: null });
    expect(stderr).not.toMatch(/Called end on pool more than once|Error/);
    const msgs = lines.map((l) => l.msg);
    const stoppingAt = msgs.indexOf('indexer stopping: finishing the batch in progress');
    expect(stoppingAt).toBeGreaterThanOrEqual(0);
    expect(msgs).toContain('indexer already stopping; finishing the batch in progress');
    expect(msgs[msgs.length - 1]).toBe('indexer stopped');
    expect(lines.filter((l) => (l.level ?? 0) >= 50)).toEqual([]);
    // The batch in progress (the vacation flip) was written and checkpointed before the exit.
    await caughtUp(ctx.pool, 'live', 0);

    // Another indexer resumes from the checkpoint the stopped one saved.
    const next = await startTestIndexer(ctx);
    try {
      await caughtUp(ctx.pool, 'live', 120_000);
      await next.idle();
      await expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 1000);
    } finally {
      await next.stop();
    }
  });
});
