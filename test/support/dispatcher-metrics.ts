import { Registry } from 'prom-client';
import { registerDispatcherMetrics, type DispatcherMetrics } from '../../dispatcher/metrics.js';
import type { OutboxGauges } from '../../src/db/webhook-deliveries.js';
import type { EndpointGauges } from '../../src/db/webhook-endpoints.js';

/**
 * A dispatcher's metrics as its process renders them (prom-client text), with the outbox's and
 * the endpoints' gauges as given (null: PostgreSQL did not answer, those gauges have no value).
 */
export function dispatcherMetricsText(m: DispatcherMetrics, outbox: OutboxGauges | null, endpoints: EndpointGauges | null = null): Promise<string> {
  const registry = new Registry();
  const given =
    <T>(v: T | null) =>
    () =>
      v === null ? Promise.reject(new Error('not read')) : Promise.resolve(v);
  registerDispatcherMetrics(registry, m, { outbox: given(outbox), endpoints: given(endpoints) });
  return registry.metrics();
}
