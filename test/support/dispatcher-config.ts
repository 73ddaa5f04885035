import type { DispatcherConfig } from '../../dispatcher/config.js';

/** Dispatcher settings for tests against loopback receivers: short timeouts and delays. */
export function testDispatcherConfig(overrides: Partial<DispatcherConfig> = {}): DispatcherConfig {
  return {
    timeoutMs: 5000,
    retryDelaysMs: [100, 200],
    allowPrivateNetworks: true,
    concurrency: 16,
    untriedConcurrency: 2,
    unhealthyConcurrency: 8,
    perEndpoint: 4,
    breakerFailures: 5,
    breakerCooldownMs: 1000,
    slowMs: 5000,
    pollMs: 200,
    retentionDays: 30,
    ...overrides,
  };
}
