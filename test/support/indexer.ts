import { startLiveIndexer, type LiveIndexer } from '../../indexer/live.js';
import { createLogger } from '../../src/lib/logger.js';
import type { TestContext } from './context.js';

/** The real live indexer, in-process, against the test's own database and index prefix. */
export async function startTestIndexer(ctx: TestContext): Promise<LiveIndexer> {
  const indexer = await startLiveIndexer({
    pool: ctx.pool,
    es: ctx.es,
    index: ctx.index,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'indexer'),
    databaseUrl: ctx.databaseUrl,
    pollMs: 200,
  });
  await indexer.idle();
  return indexer;
}
