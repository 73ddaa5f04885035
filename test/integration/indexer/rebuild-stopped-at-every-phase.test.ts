import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuild, type RebuildProgress } from '../../../indexer/rebuild.js';
import { serviceIndices } from '../../../indexer/inventory.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { exited } from '../../support/dispatcher-process.js';
import { spawnReindex } from '../../support/indexer-process.js';
import { generateScenario } from '../../support/scenario.js';

// Stopped at any phase, a rebuild leaves no index behind: before its swap it deletes the index it
// was building and the alias keeps the one it had; from its swap on it finishes, and the alias
// points at the new index. Either way every index of the service is the one the alias names.
// In-process through the abort signal SIGINT and SIGTERM raise in `npm run reindex` (each phase
// exactly), and with SIGTERM sent to `npm run reindex` as each phase begins.

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  await loadFixture(ctx.pool, generateScenario(7, { products: 150, listings: 1500 }).fixture);
  await rebuild({ pool: ctx.pool, es: ctx.es, index: ctx.index, logger, warmUp: false });
}, 120_000);
afterAll(async () => {
  await ctx.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
  await ctx.close();
});

const serving = async () => Object.keys(await ctx.es.indices.getAlias({ name: ctx.index.alias }));
/** Every index of the service, with whether a rebuild still holds it. */
const indices = async () => (await serviceIndices(ctx.es, ctx.pool, ctx.index)).map((i) => ({ name: i.name, held: i.held }));

/** Where a stop can land: told the index's name (before it exists), then each reported phase. */
const STOPS = ['index', 'snapshot', 'catch-up', 'allocation', 'warm-up', 'swap', 'done'] as const;
const AFTER_SWAP = new Set<string>(['swap', 'done']);

describe('a rebuild stopped at any phase leaves no index behind', () => {
  for (const at of STOPS) {
    it(`stopped at ${at}`, async () => {
      const before = await serving();
      const stop = new AbortController();
      const stopAt = (phase: string) => {
        if (phase === at) stop.abort(new Error(`stopped at ${at}`));
      };
      const outcome = await rebuild({
        pool: ctx.pool,
        es: ctx.es,
        index: ctx.index,
        logger,
        signal: stop.signal,
        onIndex: () => stopAt('index'),
        onProgress: (p: RebuildProgress) => stopAt(p.phase),
      }).then(
        (r) => ({ finished: r.index }),
        (err: Error) => ({ stopped: err.message }),
      );
      expect(stop.signal.aborted).toBe(true);
      if (AFTER_SWAP.has(at)) {
        expect(outcome).toEqual({ finished: expect.any(String) });
        expect(await serving()).toEqual([(outcome as { finished: string }).finished]);
      } else {
        // The abort's reason, or the stream pipeline's AbortError when it lands in the snapshot's load.
        expect(outcome).toEqual({ stopped: expect.stringMatching(new RegExp(`^(stopped at ${at}|The operation was aborted)$`)) });
        expect(await serving()).toEqual(before);
      }
      expect(await indices()).toEqual([{ name: (await serving())[0], held: false }]);
    }, 120_000);
  }

  // The lines `npm run reindex` prints (not a terminal) as each phase begins.
  const PHASE_LINES: [string, RegExp][] = [
    ['snapshot', /^reindex snapshot: /m],
    ['catch-up', /^reindex catch-up: /m],
    ['allocation', /^reindex allocation: /m],
    ['warm-up', /^reindex warm-up: /m],
    ['swap', /^reindex swap: /m],
  ];
  for (const [phase, line] of PHASE_LINES) {
    it(`npm run reindex, sent SIGTERM as ${phase} begins, exits with no index left behind`, async () => {
      const before = await serving();
      const child = spawnReindex({ DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX });
      let err = '';
      let out = '';
      let signalled = false;
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (!signalled && line.test(err)) {
          signalled = true;
          child.kill('SIGTERM');
        }
      });
      const { code } = await exited(child);
      expect(signalled, `the ${phase} line was printed:\n${err}`).toBe(true);
      // Stopped before its swap (130), or finished once it had begun swapping (0).
      if (code === 0) {
        expect(out).toMatch(/^reindex done: /m);
        expect(await serving()).not.toEqual(before);
      } else {
        expect(code, err).toBe(130);
        expect(err).toMatch(/^reindex stopped: /m);
        expect(err).not.toContain('left behind');
        expect(await serving()).toEqual(before);
      }
      expect(await indices()).toEqual([{ name: (await serving())[0], held: false }]);
    }, 180_000);
  }
});
