import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createTestContext, type TestContext } from '../../support/context.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp, writeBurst } from '../../support/write-burst.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { killHard, spawnIndexer } from '../../support/indexer-process.js';
import { loadFixture } from '../../../src/fixtures/load.js';

// Two `npm run indexer` processes on the same database and index, as two replicas of the indexer
// deployment run: they take turns through the batch lock, and the index they leave is the one
// a single indexer leaves (every document equal to a fresh computation from PostgreSQL). When one
// dies mid-burst (SIGKILL), the other carries the feed on alone and nothing is lost.

let ctx: TestContext | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(children.splice(0).map(killHard));
  await ctx?.close();
  ctx = undefined;
});

async function twoIndexers(): Promise<{ c: TestContext; first: ChildProcess; second: ChildProcess }> {
  const c = await createTestContext();
  ctx = c;
  await loadFixture(c.pool, generateScenario(21, { products: 150, listings: 1500 }).fixture);
  const env = { DATABASE_URL: c.databaseUrl, ELASTICSEARCH_URL: c.env.ELASTICSEARCH_URL, INDEX_PREFIX: c.env.INDEX_PREFIX };
  // The first builds the index; the second starts once it exists (both would build it otherwise).
  const first = spawnIndexer(env);
  children.push(first);
  await caughtUp(c.pool, 'live', 120_000);
  const second = spawnIndexer(env);
  children.push(second);
  return { c, first, second };
}

describe('two live indexers side by side', () => {
  it('leave the same documents as one indexer: the index equals PostgreSQL after a burst', async () => {
    const { c } = await twoIndexers();
    const committed = await writeBurst(c.pool, { transactions: 600, concurrency: 6, seed: 31 });
    await caughtUp(c.pool, 'live', 120_000);
    console.log(`[two indexers] ${committed} write transactions followed by both`);
    await expectIndexMatchesSource(c.pool, c.es, c.index.alias, 1000);
  }, 300_000);

  it('SIGKILL of one of them mid-burst: the other converges the index, nothing lost', async () => {
    const { c, first, second } = await twoIndexers();
    let killed: Promise<void> | undefined;
    const committed = await writeBurst(c.pool, {
      transactions: 1200,
      concurrency: 6,
      seed: 32,
      onCommit: (n) => {
        if (n === 400) killed = killHard(first);
      },
    });
    await killed;
    expect(first.signalCode).toBe('SIGKILL');
    expect(second.exitCode).toBeNull();
    await caughtUp(c.pool, 'live', 120_000);
    console.log(`[two indexers] one SIGKILLed after 400 of ${committed} write transactions; the other caught up alone`);
    await expectIndexMatchesSource(c.pool, c.es, c.index.alias, 1000);
  }, 300_000);
});
