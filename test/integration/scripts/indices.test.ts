import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdIndex } from '../../../src/db/index-holds.js';
import { indexNames } from '../../../src/es/index-names.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { entryArgs } from '../../support/entry-points.js';

// npm run indices lists this prefix's indices with what an operator needs to judge them, and
// --prune deletes exactly those no alias points at and no running rebuild holds: never a serving
// index, never one being built (held through a PostgreSQL session lock), never another prefix's,
// even one whose name starts with this prefix's alias.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

let ctx: TestContext;
const indices = (...args: string[]) =>
  run(process.execPath, [...entryArgs('scripts/indices.ts'), ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX },
  });

const exists = async (name: string) => ctx.es.indices.exists({ index: name });

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
  await ctx.close();
});

describe('npm run indices', () => {
  it('lists, and prunes only indices of this prefix that no alias points at and no running rebuild holds', async () => {
    const { alias } = ctx.index;
    const serving = ctx.index.concrete('1000');
    const previous = ctx.index.concrete('900'); // kept by an older swap, still behind a second alias
    const orphan = ctx.index.concrete('1100');
    const building = ctx.index.concrete('1200');
    // Another deployment whose prefix extends this one's alias: not this prefix's, whatever its name.
    const other = indexNames(`${alias}-v2`).concrete('1300');
    for (const name of [serving, previous, orphan, building, other]) {
      await ctx.es.indices.create({ index: name, mappings: { _meta: { version: 7 } } });
    }
    await ctx.es.index({ index: serving, id: 'a', document: { x: 1 }, refresh: true });
    await ctx.es.indices.updateAliases({
      actions: [{ add: { index: serving, alias } }, { add: { index: previous, alias: `${alias}-rollback` } }],
    });
    const hold = await holdIndex(ctx.pool, building);
    try {
      const listed = JSON.parse((await indices('--json')).stdout) as {
        indices: { name: string; mappingVersion: number; docs: number; aliases: string[]; held: boolean; created: string; bytes: number }[];
      };
      expect(listed.indices.map((i) => i.name).sort()).toEqual([serving, previous, orphan, building].sort());
      const byName = Object.fromEntries(listed.indices.map((i) => [i.name, i]));
      expect(byName[serving]).toMatchObject({ mappingVersion: 7, docs: 1, aliases: [alias], held: false });
      expect(byName[previous]).toMatchObject({ aliases: [`${alias}-rollback`], held: false });
      expect(byName[orphan]).toMatchObject({ aliases: [], held: false, docs: 0 });
      expect(byName[building]).toMatchObject({ aliases: [], held: true });
      expect(Date.parse(byName[serving]!.created)).toBeGreaterThan(Date.now() - 3_600_000);
      expect(byName[serving]!.bytes).toBeGreaterThan(0);

      const text = (await indices()).stdout;
      expect(text).toMatch(new RegExp(`^${orphan} .*orphan`, 'm'));
      expect(text).toMatch(new RegExp(`^${building} .*being built`, 'm'));
      expect(text).toContain(`alias ${alias} -> ${serving}`);

      const dry = (await indices('--prune', '--dry-run')).stdout;
      expect(dry).toContain(`would delete ${orphan}`);
      expect(dry).toContain(`kept ${building}: held by a running rebuild`);
      expect(await exists(orphan)).toBe(true);

      const pruned = (await indices('--prune')).stdout;
      expect(pruned).toContain(`deleted ${orphan}`);
      expect(pruned).toContain('deleted 1 index');
      expect(await exists(orphan)).toBe(false);
      for (const kept of [serving, previous, building, other]) expect(await exists(kept)).toBe(true);
    } finally {
      await hold.release();
    }
    // Its rebuild gone (the lock with it), the index nobody points at is an orphan like any other.
    expect((await indices('--prune')).stdout).toContain(`deleted ${building}`);
    expect(await exists(building)).toBe(false);
    expect(await exists(other)).toBe(true);
  });
});
