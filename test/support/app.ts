import type { Express } from 'express';
import { createApp } from '../../src/api/app.js';
import { routeModules } from '../../src/api/routes/index.js';
import type { AppDeps } from '../../src/api/deps.js';
import type { Infra } from '../../src/config/infra.js';
import { createLogger } from '../../src/lib/logger.js';
import { createServices, type ServiceOverrides } from '../../src/services.js';
import type { TestContext } from './context.js';

/** App deps with their own services, built the way src/main.ts builds them. */
export function appDeps(infra: Infra, overrides: ServiceOverrides = {}): AppDeps {
  // The warmer is off unless the test turns it on (whatever env the test built by hand says), and
  // so is the suggestion catalog (it holds a LISTEN connection to the test's database until
  // services.stop(), which most tests never call): suggestion tests turn it on and stop it.
  return {
    ...infra,
    services: createServices(infra, { suggestCatalog: false, ...overrides, warm: { enabled: false, ...overrides.warm } }),
  };
}

/**
 * Degraded Mode for tests that assert healthy answers: no cluster watcher and a long query
 * timeout, so a test machine that stalls for a second (a neighbouring file's servers, a GC pause)
 * is not taken for a sick cluster. Tests of Degraded Mode itself pass their own settings.
 */
export const STEADY_CLUSTER: ServiceOverrides = { degraded: { queryTimeoutMs: 15_000, watch: { enabled: false } } };

/** The real app, in-process, on the test's own database and index. */
export function testApp(ctx: TestContext, env: Partial<TestContext['env']> = {}, overrides: ServiceOverrides = STEADY_CLUSTER): Express {
  return createApp(
    appDeps(
      {
        env: { ...ctx.env, ...env },
        pool: ctx.pool,
        es: ctx.es,
        index: ctx.index,
        logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'api'),
      },
      overrides,
    ),
    routeModules,
  );
}

/** Query string with repeated keys for arrays (`condition=a&condition=b`), as DECISIONS.md fixes. */
export function qs(params: Record<string, string | number | string[] | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) u.append(k, String(x));
  }
  const s = u.toString();
  return s ? `?${s}` : '';
}
