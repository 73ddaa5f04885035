import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rebuild } from '../../../indexer/rebuild.js';
import { pruneIndices, serviceIndices } from '../../../indexer/inventory.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createSample } from '../../../tools/sample/generate.js';
import { loadSample } from '../../../tools/sample/pg-load.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { exited } from '../../support/dispatcher-process.js';
import { spawnReindex } from '../../support/indexer-process.js';
import { eventually } from '../../support/eventually.js';

// A rebuild leaves no index behind: stopped by an error, SIGINT or SIGTERM it deletes the index
// it was building (the alias keeps the index it had), and one killed with SIGKILL, which cannot,
// leaves an index nobody holds any more, which `npm run indices -- --prune` deletes.

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  // Large enough that a rebuild under `nice` is still loading when the test signals it.
  await loadSample(ctx.pool, createSample(20_000, 5), { row: () => undefined, done: () => undefined });
  await ctx.pool.query('ANALYZE');
  await rebuild({ pool: ctx.pool, es: ctx.es, index: ctx.index, logger });
});
// A child left running by a failed assertion would build an index the next case could mistake for its own.
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});
afterAll(async () => {
  await ctx.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
  await ctx.close();
});

const names = async () => (await serviceIndices(ctx.es, ctx.pool, ctx.index)).map((i) => i.name);
const serving = async () => Object.keys(await ctx.es.indices.getAlias({ name: ctx.index.alias }));

/** `npm run reindex` at a low priority, and the index it is building once it holds one. */
async function reindexUntilBuilding(): Promise<{ child: ChildProcess; building: string; stderr: () => string }> {
  const before = new Set(await names());
  // Niced so that it is still loading when the test signals it, but not so far that a busy
  // machine starves its start.
  const child = spawnReindex(
    { DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX },
    { nice: 10 },
  );
  children.add(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  let building = '';
  await eventually(
    async () => {
      const now = await serviceIndices(ctx.es, ctx.pool, ctx.index);
      const held = now.find((i) => !before.has(i.name) && i.held);
      expect(held, 'a new index held by the rebuild').toBeDefined();
      building = held!.name;
    },
    240_000,
    100,
  );
  return { child, building, stderr: () => err };
}

describe('an interrupted rebuild leaves no index behind', () => {
  it('deletes its index when it fails', async () => {
    const before = await names();
    const alias = await serving();
    let building = '';
    let told = '';
    await expect(
      rebuild({
        pool: ctx.pool,
        es: ctx.es,
        index: ctx.index,
        logger,
        onIndex: (name) => (told = name),
        onProgress: (p) => {
          if (p.phase === 'snapshot' && p.done > 0) throw new Error('disk full');
        },
        beforeSnapshot: async () => {
          building = (await names()).find((n) => !before.includes(n))!;
        },
      }),
    ).rejects.toThrow('disk full');
    expect(building).not.toBe('');
    expect(told, 'the caller was told the index it built').toBe(building);
    expect(await names()).toEqual(before);
    expect(await serving()).toEqual(alias);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`npm run reindex deletes its index on ${signal}, and the alias keeps the one it had`, async () => {
      const alias = await serving();
      const { child, building, stderr } = await reindexUntilBuilding();
      child.kill(signal);
      const { code } = await exited(child);
      expect(code).not.toBe(0);
      expect(stderr()).toContain(`deleted ${building}`);
      expect(await names()).not.toContain(building);
      expect(await serving()).toEqual(alias);
    }, 300_000);
  }

  it('a rebuild killed with SIGKILL leaves an index nobody holds, which --prune deletes', async () => {
    const alias = await serving();
    const { child, building } = await reindexUntilBuilding();
    child.kill('SIGKILL');
    await exited(child);
    // The hold ends with the killed process's session, once PostgreSQL sees its connection closed
    // (not always by the time the exit is reported, on a loaded machine).
    await eventually(
      async () => {
        const left = (await serviceIndices(ctx.es, ctx.pool, ctx.index)).find((i) => i.name === building);
        expect(left).toMatchObject({ aliases: [], held: false });
      },
      30_000,
      100,
    );
    expect(await pruneIndices(ctx.es, ctx.pool, ctx.index, { dryRun: false })).toEqual({ deleted: [building], held: [] });
    expect(await names()).toEqual(alias);
  }, 300_000);
});
