import http from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './logger.js';

// Prometheus metrics of every process (API, indexer, dispatcher), one way: a prom-client Registry
// per process (never the global one: the tests build many apps in one process), prom-client's
// default process and Node metrics where the process asks for them, and counters or gauges read
// from state the process keeps anyway (a counter object, a cache's size) when scraped.

/** A registry; with `processMetrics`, prom-client's process and Node metrics (CPU, memory, event-loop lag, GC). */
export function createRegistry(opts: { processMetrics: boolean }): Registry {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  return registry;
}

/** A counter whose value is `read()` at scrape time (the process counts in a plain object). */
export function counterFrom(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** A counter with one label, its values `read()` at scrape time (a label missing from the result reads 0). */
export function labelledCounterFrom<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: string,
  values: readonly L[],
  read: () => Record<L, number>,
): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      const now = read();
      for (const v of values) this.inc({ [label]: v }, now[v] ?? 0);
    },
  });
}

/** A gauge whose value is `read()` at scrape time. */
export function gaugeFrom(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

/** A gauge set to 1 for the one label value `read()` names and 0 for the others (a state as a metric). */
export function stateGaugeFrom<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: string,
  values: readonly L[],
  read: () => L,
): void {
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      const now = read();
      for (const v of values) this.set({ [label]: v }, v === now ? 1 : 0);
    },
  });
}

/**
 * GET /metrics of `registry` on its own port (the indexer's and the dispatcher's; the API serves
 * its registry on the API port), on `host` (METRICS_HOST: 127.0.0.1 unless a scraper elsewhere needs it).
 */
export function serveMetrics(registry: Registry, port: number, logger: Logger, host: string): http.Server {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.statusCode = 404;
      res.end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.setHeader('Content-Type', registry.contentType);
        res.end(text);
      },
      (err: Error) => {
        logger.warn({ err: err.message }, 'metrics not rendered');
        res.statusCode = 500;
        res.end();
      },
    );
  });
  server
    .listen(port, host, () => {
      const addr = server.address();
      logger.info({ port: typeof addr === 'object' && addr ? addr.port : port }, 'metrics on /metrics');
    })
    .on('error', (err) => logger.warn({ err: err.message }, 'metrics endpoint not started'));
  return server;
}
