import { describe, expect, it } from 'vitest';
import { dispatcherConfig } from '../../../dispatcher/config.js';
import { loadEnv } from '../../../src/config/env.js';

const env = (vars: Record<string, string>) => loadEnv({ DATABASE_URL: 'postgres://x@127.0.0.1/db', ...vars });

describe('dispatcherConfig', () => {
  it('gives untried endpoints an eighth and degraded or breaker-open ones a quarter of the slots by default', () => {
    const c = dispatcherConfig(env({ WEBHOOK_CONCURRENCY: '64' }));
    expect([c.concurrency, c.untriedConcurrency, c.unhealthyConcurrency]).toEqual([64, 8, 16]);
  });

  it('refuses shares that leave healthy endpoints no slot', () => {
    expect(() => dispatcherConfig(env({ WEBHOOK_CONCURRENCY: '8', WEBHOOK_CONCURRENCY_UNTRIED: '4', WEBHOOK_CONCURRENCY_UNHEALTHY: '4' }))).toThrow(
      /WEBHOOK_CONCURRENCY_UNTRIED \(4\) \+ WEBHOOK_CONCURRENCY_UNHEALTHY \(4\) must be below WEBHOOK_CONCURRENCY \(8\)/,
    );
    expect(
      dispatcherConfig(env({ WEBHOOK_CONCURRENCY: '8', WEBHOOK_CONCURRENCY_UNTRIED: '3', WEBHOOK_CONCURRENCY_UNHEALTHY: '4' })).untriedConcurrency,
    ).toBe(3);
  });
});
