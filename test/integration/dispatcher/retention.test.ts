import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDispatcher, type Dispatcher } from '../../../dispatcher/loop.js';
import { pruneFinishedEvents } from '../../../src/db/webhook-deliveries.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { testDispatcherConfig } from '../../support/dispatcher-config.js';
import { eventually } from '../../support/eventually.js';
import { addSeller, insertEvents, startReceiver, type Receiver } from '../../support/outbox.js';
import { dispatcherMetricsText } from '../../support/dispatcher-metrics.js';

// The outbox stays bounded: finished events (delivered, failed, no_endpoint) and their attempts
// go WEBHOOK_RETENTION_DAYS after they finished, deleted by the dispatcher in small batches;
// recent and pending ones stay.

let ctx: TestContext;
let dispatcher: Dispatcher | null = null;
let rx: Receiver;

beforeEach(async () => {
  ctx = await createTestContext();
  rx = await startReceiver();
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = null;
  await rx.close();
  await ctx.close();
});

/** Outbox rows of seller 1 (with a webhook) or 2 (without), set to a state and finished `daysAgo`, each with one attempt row. */
async function finished(n: number, state: 'delivered' | 'failed' | 'no_endpoint' | 'pending', daysAgo: number): Promise<string[]> {
  const events = await insertEvents(
    ctx.pool,
    Array.from({ length: n }, () => ({ sellerId: state === 'no_endpoint' ? 2 : 1 })),
  );
  const ids = events.map((e) => e.eventId);
  await ctx.pool.query(
    `UPDATE webhook_events SET state = $2, attempts = CASE WHEN $2 = 'no_endpoint' THEN 0 ELSE 1 END,
       created_at = clock_timestamp() - ($3::float8 + 0.01) * interval '1 day',
       delivered_at = CASE WHEN $2 = 'delivered' THEN clock_timestamp() - $3::float8 * interval '1 day' END,
       failed_at = CASE WHEN $2 = 'failed' THEN clock_timestamp() - $3::float8 * interval '1 day' END,
       -- pending ones are not due for a long while: they must stay whatever their age
       next_attempt_at = clock_timestamp() + interval '1 day'
     WHERE event_id = ANY($1::text[])`,
    [ids, state, daysAgo],
  );
  await ctx.pool.query(
    `INSERT INTO webhook_attempts (event_id, attempt, started_at, duration_ms, status_code)
     SELECT event_id, 1, created_at, 5, 200 FROM webhook_events WHERE event_id = ANY($1::text[]) AND state <> 'no_endpoint'`,
    [ids],
  );
  return ids;
}

async function present(ids: readonly string[]): Promise<{ events: number; attempts: number }> {
  const { rows } = await ctx.pool.query<{ events: number; attempts: number }>(
    `SELECT (SELECT count(*) FROM webhook_events WHERE event_id = ANY($1::text[]))::int AS events,
            (SELECT count(*) FROM webhook_attempts WHERE event_id = ANY($1::text[]))::int AS attempts`,
    [ids],
  );
  return rows[0]!;
}

describe('webhook event retention', () => {
  it('the dispatcher deletes finished events older than the retention, with their attempts, in batches; recent and pending ones stay', async () => {
    await addSeller(ctx.pool, 1, rx.url);
    await addSeller(ctx.pool, 2);
    const old = [...(await finished(1100, 'delivered', 40)), ...(await finished(60, 'failed', 31)), ...(await finished(40, 'no_endpoint', 45))];
    const recent = [...(await finished(10, 'delivered', 29)), ...(await finished(5, 'failed', 2)), ...(await finished(5, 'no_endpoint', 1))];
    const pending = await finished(5, 'pending', 60);
    expect(await present(old)).toEqual({ events: 1200, attempts: 1160 });

    // One batch deletes at most its size, oldest first.
    expect(await pruneFinishedEvents(ctx.pool, 30, 500)).toBe(500);
    expect((await present(old)).events).toBe(700);

    dispatcher = await startDispatcher({
      pool: ctx.pool,
      databaseUrl: ctx.databaseUrl,
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      config: testDispatcherConfig({ retentionDays: 30 }),
    });
    await eventually(async () => expect(await present(old)).toEqual({ events: 0, attempts: 0 }), 20_000);
    expect(await present(recent)).toEqual({ events: 20, attempts: 15 });
    expect(await present(pending)).toEqual({ events: 5, attempts: 5 });
    expect(dispatcher.metrics.pruned).toBe(700);
    expect(await dispatcherMetricsText(dispatcher.metrics, null)).toContain('webhook_pruned_events_total 700\n');

    // Meanwhile the queue works as usual.
    const [live] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
    await eventually(() => expect(rx.received.map((r) => r.headers['webhook-id'])).toContain(live!.eventId), 10_000);
  });
});
