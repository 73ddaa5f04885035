import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';
import { loadFixture } from '../../../src/fixtures/load.js';
import { spawnApi } from '../../support/api-process.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { exited, spawnDispatcher } from '../../support/dispatcher-process.js';
import { eventually } from '../../support/eventually.js';
import { freePort } from '../../support/free-port.js';
import { spawnIndexer } from '../../support/indexer-process.js';
import { addSeller, insertEvents, startReceiver, type Receiver } from '../../support/outbox.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp, writeBurst } from '../../support/write-burst.js';

// The alert rules and the dashboard under ops/ name only metrics the running processes expose:
// the real API, indexer and dispatcher are started against the test stack and scraped, and every
// metric name in every PromQL expression must be among theirs (no dangling names after a rename).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The names the API, indexer and dispatcher exposed before prom-client: dashboards elsewhere may read them. */
const EARLIER_NAMES = [
  'buyer_index_answers_total',
  'buyer_index_failures_total',
  'degraded_cache_bytes',
  'degraded_cache_entries',
  'degraded_cache_hits_total',
  'degraded_fallback_failures_total',
  'degraded_fallback_queries_total',
  'degraded_fallback_running',
  'degraded_fallback_waiting',
  'degraded_fallbacks_total',
  'degraded_mode',
  'degraded_unavailable_total',
  'degraded_warm_cache_bytes',
  'degraded_warm_cache_entries',
  'degraded_warm_failures_total',
  'degraded_warm_passes_total',
  'degraded_warm_requests_total',
  'indexer_batches_total',
  'indexer_changes_total',
  'indexer_docs_per_second',
  'indexer_docs_total',
  'indexer_errors_total',
  'indexer_lag_seconds',
  'indexer_pending_changes',
  'search_breaker_opens_total',
  'search_breaker_state',
  'search_cluster_status',
  'webhook_attempt_duration_seconds_bucket',
  'webhook_attempt_duration_seconds_count',
  'webhook_attempt_duration_seconds_sum',
  'webhook_attempts_in_flight',
  'webhook_claimed_events_total',
  'webhook_claims_total',
  'webhook_deliveries_total',
  'webhook_dispatcher_errors_total',
  'webhook_failed_events',
  'webhook_oldest_pending_seconds',
  'webhook_pending_events',
];

/** Series Prometheus makes itself, not scraped from a process. */
const SYNTHETIC = new Set(['up']);
/**
 * The metric names a PromQL expression selects, parsed with Prometheus's own grammar (the one its
 * web UI uses): functions, keywords, labels and durations are other nodes. Throws on a syntax error.
 */
function metricNames(expr: string): string[] {
  const names = new Set<string>();
  const errors: number[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.add(expr.slice(node.from, node.to));
    },
  });
  if (errors.length > 0) throw new Error(`PromQL syntax error at ${errors[0]}: ${expr}`);
  return [...names];
}

/** Every expression of the rules file and the dashboard. */
function expressions(): { where: string; expr: string }[] {
  const rules = parse(read('ops/alerts.yml')) as { groups: { name: string; rules: { alert: string; expr: string }[] }[] };
  const out = rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })));
  const dashboard = JSON.parse(read('ops/grafana-dashboard.json')) as { panels: { title: string; targets?: { expr: string }[] }[] };
  for (const p of dashboard.panels) for (const t of p.targets ?? []) out.push({ where: `panel ${p.title}`, expr: t.expr });
  return out;
}

/** Series names in a scrape: samples, and what each TYPE line promises (a histogram's _bucket, _sum, _count). */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name!);
      if (kind === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name! + s);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]!);
  }
  return names;
}

/** The value of the first sample of `name` whose labels include `labels` (undefined when none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const has = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => has[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('metric names in the expressions', () => {
  it('finds metrics, not functions, labels, keywords or durations', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{route=~"/search|x"}[5m]))) / clamp_min(sum(rate(a_total[5m])) + b, 1e-9) > 0.01 and on (job) up == 0',
      ).sort(),
    ).toEqual(['a_total', 'b', 'http_request_duration_seconds_bucket', 'up']);
  });

  it('refuses an expression that does not parse', () => {
    expect(() => metricNames('sum(rate(a_total[5m])')).toThrow(/PromQL syntax error/);
    expect(() => metricNames('max(indexer_lag_seconds) > ')).toThrow(/PromQL syntax error/);
  });
});

describe('ops/ alerts and dashboard', () => {
  let ctx: TestContext;
  const children: ChildProcess[] = [];
  let scrapes: Record<string, string> = {};
  let receiver: Receiver;
  const SELLER = 9101;

  beforeAll(async () => {
    ctx = await createTestContext();
    const env = { DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX };
    const [apiPort, indexerPort, webhooksPort] = [await freePort(), await freePort(), await freePort()];
    // Listings before the indexer starts (its first build has documents to write), a seller with a webhook.
    await loadFixture(ctx.pool, generateScenario(5, { products: 40, listings: 300 }).fixture);
    receiver = await startReceiver();
    await addSeller(ctx.pool, SELLER, receiver.url);
    children.push(spawnIndexer({ ...env, INDEXER_METRICS_PORT: String(indexerPort) }));
    children.push(spawnDispatcher({ ...env, WEBHOOK_METRICS_PORT: String(webhooksPort), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }));
    children.push(await spawnApi(apiPort, { ...env, HEALTH_DETAILS: 'true', SHUTDOWN_DRAIN_MS: '0' }));
    // Work for each: changes for the indexer after its first build, an event to deliver, buyer reads.
    const firstBuildDone = async () => {
      const res = await fetch(`http://127.0.0.1:${indexerPort}/metrics`);
      expect(sample(await res.text(), 'indexer_rebuild_phase', { phase: 'done' })).toBe(1);
    };
    await eventually(firstBuildDone, 120_000, 250);
    await writeBurst(ctx.pool, { transactions: 20, concurrency: 2, seed: 7 });
    const [event] = await insertEvents(ctx.pool, [{ sellerId: SELLER }]);
    await caughtUp(ctx.pool, 'live', 120_000);
    await eventually(() => expect(receiver.received.some((r) => r.headers['webhook-id'] === event!.eventId)).toBe(true), 60_000, 200);
    await eventually(async () => expect((await fetch(`http://127.0.0.1:${apiPort}/readyz`)).status).toBe(200), 120_000, 500);
    expect((await fetch(`http://127.0.0.1:${apiPort}/search`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${apiPort}/products/1`)).status).toBeLessThan(500);
    const scrape = async (port: number, settled: (text: string) => void = () => undefined) => {
      let text = '';
      await eventually(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/metrics`);
          expect(res.status).toBe(200);
          text = await res.text();
          settled(text);
        },
        120_000,
        500,
      );
      return text;
    };
    // The backlog gauges are sampled: a reading begun before the last batch's checkpoint may land
    // after it, until the indexer's next empty read or backlog poll sets them again.
    const backlogRead = (text: string) => expect(sample(text, 'indexer_pending_changes')).toBe(0);
    scrapes = { api: await scrape(apiPort), indexer: await scrape(indexerPort, backlogRead), webhooks: await scrape(webhooksPort) };
  });

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited(child);
    }
    await receiver?.close();
    await ctx.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
    await ctx.close();
  });

  it('each process counts what it did: buyer reads by route, the first build and the changes after it, the delivery', () => {
    const { api, indexer, webhooks } = scrapes as Record<'api' | 'indexer' | 'webhooks', string>;
    expect(sample(api, 'http_request_duration_seconds_count', { method: 'GET', route: '/search', status_class: '2xx' })).toBeGreaterThanOrEqual(1);
    expect(sample(api, 'http_request_duration_seconds_count', { method: 'GET', route: '/products/:productId' })).toBeGreaterThanOrEqual(1);
    expect(sample(indexer, 'indexer_rebuild_phase', { phase: 'done' })).toBe(1);
    expect(sample(indexer, 'indexer_rebuild_docs_done')).toBeGreaterThan(0);
    expect(sample(indexer, 'indexer_commit_to_indexed_seconds_count')).toBeGreaterThanOrEqual(20);
    expect(sample(indexer, 'indexer_batch_changes_count')).toBeGreaterThanOrEqual(1);
    expect(sample(indexer, 'indexer_pending_changes')).toBe(0);
    // The backlog per lane, read from the feed: the small lane is always there.
    expect(sample(indexer, 'indexer_lane_pending_changes', { lane: 'small', seller: '' })).toBe(0);
    expect(sample(indexer, 'indexer_lane_lag_seconds', { lane: 'small', seller: '' })).toBe(0);
    expect(sample(indexer, 'indexer_batch_step_seconds_total', { step: 'bulk' })).toBeGreaterThan(0);
    expect(sample(indexer, 'indexer_bulk_failures_total')).toBe(0);
    expect(sample(indexer, 'indexer_quarantined_documents_total')).toBe(0);
    expect(sample(indexer, 'indexer_quarantined_documents')).toBe(0);
    expect(sample(indexer, 'indexer_rebuild_quarantined_documents')).toBe(0);
    expect(sample(webhooks, 'webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(sample(webhooks, 'webhook_attempt_duration_seconds_count')).toBeGreaterThanOrEqual(1);
  });

  it('every metric a rule or a panel reads is exposed by a running process', () => {
    const exposed = new Set([...SYNTHETIC, ...Object.values(scrapes).flatMap((t) => [...exposedNames(t)])]);
    const dangling = expressions().flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((n) => !exposed.has(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(dangling).toEqual([]);
    expect(expressions().length).toBeGreaterThan(20);
  });

  it('every metric name the hand-written renderers exposed is still exposed', () => {
    const exposed = new Set(Object.values(scrapes).flatMap((t) => [...exposedNames(t)]));
    expect(EARLIER_NAMES.filter((n) => !exposed.has(n))).toEqual([]);
  });

  it('each process exposes the process and Node metrics', () => {
    for (const [name, text] of Object.entries(scrapes)) {
      for (const metric of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_p99_seconds',
        'nodejs_gc_duration_seconds',
      ]) {
        expect(exposedNames(text).has(metric), `${name}: ${metric}`).toBe(true);
      }
    }
  });

  it('the indexer lag alerts read the lanes from the feed, and the burst alert names its seller', () => {
    const rules = parse(read('ops/alerts.yml')) as {
      groups: { rules: { alert: string; expr: string; annotations: { summary: string } }[] }[];
    };
    const byName = new Map(rules.groups.flatMap((g) => g.rules).map((r) => [r.alert, r]));
    expect(metricNames(byName.get('IndexerLagAbove5Seconds')!.expr)).toEqual(['indexer_lane_lag_seconds']);
    expect(byName.get('IndexerLagAbove5Seconds')!.expr).toContain('lane="small"');
    const burst = byName.get('IndexerBurstLagAbove5Minutes')!;
    expect(burst.expr).toMatch(/by \(seller\)/);
    expect(burst.annotations.summary).toContain('{{ $labels.seller }}');
    expect(metricNames(byName.get('IndexerBatchesFailing')!.expr)).toEqual(['indexer_errors_total']);
    const dashboard = JSON.parse(read('ops/grafana-dashboard.json')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs).toContain('max by (lane, seller) (indexer_lane_lag_seconds)');
    expect(exprs).toContain('max by (lane, seller) (indexer_lane_pending_changes)');
  });

  it('the alerts the runbook promises are there, each with a runbook section', () => {
    const rules = parse(read('ops/alerts.yml')) as { groups: { rules: { alert: string; annotations: { runbook: string } }[] }[] };
    const runbook = read('docs/operations.md');
    const alerts = rules.groups.flatMap((g) => g.rules);
    for (const a of alerts) expect(runbook, a.alert).toContain(`### ${a.alert}`);
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'IndexerLagAbove5Seconds',
        'IndexerDocumentsQuarantined',
        'IndexerBurstLagAbove5Minutes',
        'IndexerBatchesFailing',
        'DegradedAnswersAbove1Percent',
        'SearchBreakerOpen',
        'WebhookOldestPendingAbove10Minutes',
        'WebhookEventFailed',
        'WebhookEndpointBreakerOpen',
        'SearchClusterNotGreen',
      ]),
    );
  });
});
