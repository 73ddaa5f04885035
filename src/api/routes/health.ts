import type { RouteModule } from '../app.js';

// /healthz: the process is alive. /readyz (with cluster state and Degraded Mode) comes with the
// Degraded Mode work; until then it reports PostgreSQL and cluster reachability.
export const healthRoutes: RouteModule = (app, deps) => {
  app.get('/healthz', (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });
  app.get('/readyz', async (_req, res) => {
    const [db, es] = await Promise.all([
      deps.pool.query('SELECT 1').then(() => 'up', () => 'down'),
      deps.es.cluster.health({ timeout: '1s' }).then((h) => h.status, () => 'unreachable'),
    ]);
    const ready = db === 'up';
    res.status(ready ? 200 : 503).json({ success: ready, data: { postgres: db, cluster: es } });
  });
};
