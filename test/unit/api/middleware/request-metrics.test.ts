import { afterEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import express from 'express';
import { createApp } from '../../../../src/api/app.js';
import { routeTemplate } from '../../../../src/api/middleware/request-metrics.js';
import { routeModules } from '../../../../src/api/routes/index.js';
import type { BuyerReads } from '../../../../src/search/reads.js';
import { createServices, type Services } from '../../../../src/services.js';
import { offlineInfra } from '../../../support/offline-infra.js';

// Request durations are labelled by route template (one series per route, not per product id)
// and status class, also for a request refused before its route ran; 429s are counted by the
// limit that refused them. No servers: the index and PostgreSQL reads are plain functions.

let services: Services | undefined;
afterEach(() => services?.degraded.stop());

function app(env: Record<string, string>) {
  const primary = { productPage: async (id: number) => ({ product: { productId: id }, offers: [] }) as never } as unknown as BuyerReads;
  const infra = offlineInfra({ HEALTH_DETAILS: 'true', ...env });
  services = createServices(infra, { degraded: { watch: { enabled: false } }, buyer: { primary, fallback: primary }, warm: { enabled: false } });
  return createApp({ ...infra, services }, routeModules);
}

const sample = (text: string, name: string, labels: string) => {
  const m = new RegExp(`^${name}\\{${labels.replace(/[{}+*./]/g, '\\$&')}\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

describe('request metrics', () => {
  it('labels requests by route template and status class, also a 429 refused before its route ran', async () => {
    const api = app({ RATE_LIMIT_PUBLIC_PER_MIN: '2' });
    await request(api).get('/products/7').expect(200);
    await request(api).get('/products/8').expect(200);
    await request(api).get('/products/9').expect(429);
    await request(api).get('/no/such/route').expect(404);
    const text = (await request(api).get('/metrics').expect(200)).text;
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/products/:productId",status_class="2xx"')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/products/:productId",status_class="4xx"')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="unmatched",status_class="4xx"')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', 'le="+Inf",method="GET",route="/products/:productId",status_class="2xx"')).toBe(2);
    expect(text).not.toMatch(/route="\/products\/[0-9]/);
    expect(sample(text, 'http_rate_limited_total', 'limit="public"')).toBe(1);
    expect(sample(text, 'http_rate_limited_total', 'limit="seller_key"')).toBe(0);
  });

  it('finds the template of a route, else the mount path of a middleware, else says unmatched', () => {
    const a = express();
    a.use(['/products', '/search'], (_req, _res, next) => next());
    a.get('/products/:productId', (_req, res) => res.end());
    a.post('/lines/lookup', (_req, res) => res.end());
    a.use('/docs/assets', (_req, res) => res.end());
    expect(routeTemplate(a, 'GET', '/products/12')).toBe('/products/:productId');
    expect(routeTemplate(a, 'HEAD', '/products/12')).toBe('/products/:productId');
    expect(routeTemplate(a, 'POST', '/lines/lookup')).toBe('/lines/lookup');
    expect(routeTemplate(a, 'GET', '/lines/lookup')).toBe('unmatched');
    expect(routeTemplate(a, 'GET', '/products')).toBe('/products/*');
    expect(routeTemplate(a, 'GET', '/docs/assets/ui.css')).toBe('/docs/assets/*');
    expect(routeTemplate(a, 'GET', '/elsewhere')).toBe('unmatched');
  });
});
