import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { httpMetrics, methodLabel } from '../../../src/lib/http-metrics.js';

describe('the method label of request metrics', () => {
  it('known HTTP methods as they are, anything else as other', () => {
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) expect(methodLabel(m)).toBe(m);
    for (const m of ['PROPFIND', 'TRACE', 'CONNECT', 'MKCOL', 'get', 'X'.repeat(100)]) expect(methodLabel(m)).toBe('other');
  });

  it('seventeen methods against one route make at most eight method series', async () => {
    const registry = new Registry();
    const http = httpMetrics(registry);
    const methods = [
      'GET',
      'HEAD',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'PROPFIND',
      'PROPPATCH',
      'MKCOL',
      'COPY',
      'MOVE',
      'LOCK',
      'UNLOCK',
      'TRACE',
      'SEARCH',
      'PURGE',
    ];
    for (const m of methods) http.observe(m, 'unmatched', 405, 0.001);
    const metric = await registry.getSingleMetric('http_request_duration_seconds')!.get();
    const seen = new Set(metric.values.map((v) => v.labels.method));
    expect([...seen].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'other']);
  });

  it('the shared limits store fallbacks are counted by limiter and reason, from 0', async () => {
    const registry = new Registry();
    const http = httpMetrics(registry);
    http.storeFallback('seller', 'timeout');
    const text = await registry.metrics();
    expect(text).toMatch(/^rate_limit_store_fallbacks_total\{limiter="seller",reason="timeout"\} 1$/m);
    expect(text).toMatch(/^rate_limit_store_fallbacks_total\{limiter="auth-failures",reason="busy"\} 0$/m);
  });
});
