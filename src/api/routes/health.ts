import type { RouteModule } from '../app.js';
import { errorBody } from '../envelope.js';
import { clusterReport, type ClusterReport } from '../../es/cluster-report.js';

// /healthz: the process is alive (for a liveness probe; touches nothing).
// /readyz: can the API answer? PostgreSQL is required (it is the source of truth and the
//   Degraded Mode fallback); the search cluster is reported but not required: while it is
//   unhealthy the API stays ready and answers buyers in Degraded Mode. Public and terse by
//   default (no cluster address or internals for anyone who asks); HEALTH_DETAILS=true adds the
//   details, for a deployment whose API port is private: among them the cluster's health, its
//   nodes and this service's unassigned shard copies, read live (a node lost from a cluster
//   shows here while the API still answers buyers from the others).
//   While the process drains before exiting (SIGTERM), /readyz answers 503 at once, so a load
//   balancer stops sending it requests while those in flight finish.
// /metrics: Prometheus text of the process's registry (process and Node metrics, request
//   durations, 429s by limit, Degraded Mode, breaker, cluster status); only with
//   HEALTH_DETAILS=true, on the API port (docs/operations.md, "Metrics").
export const healthRoutes: RouteModule = (app, deps) => {
  const mode = deps.services.degraded;
  const details = deps.env.HEALTH_DETAILS;
  const { lifecycle, metrics } = deps.services;

  app.get('/healthz', (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });

  app.get('/readyz', async (_req, res) => {
    if (lifecycle.draining) {
      res.status(503).json(errorBody('SERVICE_UNAVAILABLE', 'Shutting down'));
      return;
    }
    const started = Date.now();
    const report: Promise<ClusterReport | { error: string }> | null = details
      ? clusterReport(deps.es, deps.index.pattern, 1000).catch((err: Error) => ({ error: err.message }))
      : null;
    const postgres = await Promise.race([
      (deps.authPool ?? deps.pool).query('SELECT 1').then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      new Promise<'down'>((resolve) => setTimeout(() => resolve('down'), 1000).unref()),
    ]);
    const { breaker, cluster, cache } = mode.status();
    const ready = postgres === 'up';
    const status = ready ? (breaker.state === 'closed' ? 'ready' : 'degraded') : 'unavailable';
    const detail = {
      status,
      postgres,
      cluster: {
        status: cluster.status,
        detail: cluster.detail,
        checkedAt: cluster.checkedAt === null ? null : new Date(cluster.checkedAt).toISOString(),
        health: await report,
      },
      degraded: breaker.state !== 'closed',
      breaker: { state: breaker.state, reason: breaker.reason, since: new Date(breaker.since).toISOString() },
      cache,
      ms: Date.now() - started,
    };
    if (!ready) {
      res.setHeader('Retry-After', '5');
      res.status(503).json(errorBody('SERVICE_UNAVAILABLE', 'PostgreSQL is unavailable', details ? detail : undefined));
      return;
    }
    res.json({ success: true, data: details ? detail : { status } });
  });

  if (details) {
    app.get('/metrics', async (_req, res) => {
      const text = await metrics.registry.metrics();
      res.type(metrics.registry.contentType).send(text);
    });
  }
};
