import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.js';
import { routeModules } from '../../src/api/routes/index.js';
import type { AppDeps } from '../../src/api/deps.js';
import type { Infra } from '../../src/config/infra.js';
import { createLogger } from '../../src/lib/logger.js';
import type { ServiceOverrides } from '../../src/services.js';
import { loadFixture } from '../../src/fixtures/load.js';
import type { LiveIndexer } from '../../indexer/live.js';
import { appDeps, STEADY_CLUSTER } from './app.js';
import type { TestContext } from './context.js';
import { startTestIndexer } from './indexer.js';
import { applyScenarioExtras, generateScenario, type Scenario } from './scenario.js';

export interface ServedApp {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  deps: AppDeps;
  close(): Promise<void>;
}

/**
 * The whole app (every route, the storefront included) on a real port of 127.0.0.1, for clients
 * that need a socket (a browser): built as src/main.ts builds it, on the test's database and index.
 */
export async function serveApp(ctx: TestContext, infra: Partial<Infra> = {}, overrides: ServiceOverrides = STEADY_CLUSTER): Promise<ServedApp> {
  const deps = appDeps(
    { env: ctx.env, pool: ctx.pool, es: ctx.es, index: ctx.index, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'api'), ...infra },
    overrides,
  );
  const server = http.createServer(createApp(deps, routeModules));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.services.stop();
    },
  };
}

export interface ServedScenario {
  scenario: Scenario;
  indexer: LiveIndexer;
  served: ServedApp;
  /** Stops the app and the indexer (the context is the caller's). */
  close(): Promise<void>;
}

/**
 * A seeded scenario marketplace loaded into the test's database, indexed by the live indexer (which
 * keeps running, so writes reach the index), and served on a real port.
 */
export async function serveScenario(
  ctx: TestContext,
  seed: number,
  size?: Parameters<typeof generateScenario>[1],
  infra: Partial<Infra> = {},
  overrides: ServiceOverrides = STEADY_CLUSTER,
): Promise<ServedScenario> {
  const scenario = generateScenario(seed, size);
  await loadFixture(ctx.pool, scenario.fixture);
  await applyScenarioExtras(ctx.pool, scenario);
  const indexer = await startTestIndexer(ctx);
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  const served = await serveApp(ctx, infra, overrides);
  return {
    scenario,
    indexer,
    served,
    close: async () => {
      await served.close();
      await indexer.stop();
    },
  };
}
