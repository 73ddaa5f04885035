import type { RouteModule } from '../app.js';

// /healthz: the process is alive (for a liveness probe; touches nothing).
// /readyz: can the API answer? PostgreSQL is required (it is the source of truth and the
//   Degraded Mode fallback); the search cluster is reported but not required: while it is
//   unhealthy the API stays ready and answers buyers in Degraded Mode.
// /metrics: Prometheus text: Degraded Mode (gauge), breaker state, cluster status, cache hits,
//   PostgreSQL fallbacks, 503s.
export const healthRoutes: RouteModule = (app, deps) => {
  const mode = deps.services.degraded;

  app.get('/healthz', (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });

  app.get('/readyz', async (_req, res) => {
    const started = Date.now();
    const postgres = await Promise.race([
      deps.pool.query('SELECT 1').then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      new Promise<'down'>((resolve) => setTimeout(() => resolve('down'), 1000).unref()),
    ]);
    const breaker = mode.breaker.snapshot();
    const cluster = mode.cluster();
    const ready = postgres === 'up';
    res.status(ready ? 200 : 503).json({
      success: ready,
      data: {
        status: ready ? (breaker.state === 'closed' ? 'ready' : 'degraded') : 'unavailable',
        postgres,
        cluster: {
          status: cluster.status,
          detail: cluster.detail,
          checkedAt: cluster.checkedAt === null ? null : new Date(cluster.checkedAt).toISOString(),
        },
        degraded: breaker.state !== 'closed',
        breaker: { state: breaker.state, reason: breaker.reason, since: new Date(breaker.since).toISOString() },
        cache: { entries: mode.cache.entries, bytes: mode.cache.bytes },
        ms: Date.now() - started,
      },
    });
  });

  app.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4; charset=utf-8').send(mode.prometheus());
  });
};
