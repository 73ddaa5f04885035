import { CARD_NOTICES } from '../../src/db/card-notices.js';
import type { LiveCatalog } from '../../src/search/suggest/live-catalog.js';
import type { TestContext } from './context.js';

/**
 * Resolves once the catalog has read every card the indexer has said it wrote so far: an empty
 * notice sent now arrives after theirs (NOTIFY delivers in commit order), then nothing is pending.
 */
export async function catalogInStep(ctx: TestContext, catalog: LiveCatalog, timeoutMs = 20_000): Promise<void> {
  await catalog.ready(timeoutMs);
  const before = catalog.status().notices;
  await ctx.pool.query('SELECT pg_notify($1, $2)', [CARD_NOTICES, JSON.stringify({ index: ctx.index.alias, productIds: [] })]);
  const until = Date.now() + timeoutMs;
  while (catalog.status().notices <= before) {
    if (Date.now() > until) throw new Error(`no card notice heard in ${timeoutMs} ms: ${JSON.stringify(catalog.status())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  await catalog.ready(timeoutMs);
}
