import { afterEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createApp, type RouteModule } from '../../../../../src/api/app.js';
import type { AppDeps } from '../../../../../src/api/deps.js';
import { ok } from '../../../../../src/api/envelope.js';
import { productRoutes } from '../../../../../src/api/routes/buyer/products.js';
import { lookupRoutes } from '../../../../../src/api/routes/buyer/lookup.js';
import { createServices } from '../../../../../src/services.js';
import type { BuyerReads } from '../../../../../src/search/reads.js';
import { offlineInfra } from '../../../../support/offline-infra.js';

// Good answers are serialized once (the last-good cache keeps the text the response is built
// from): the wire bytes must be what res.json(ok(data)) sent, healthy and degraded alike.

// Strings JSON.stringify escapes (quotes, backslash, controls, lone surrogates) and numbers
// whose text is not what was typed.
const tricky = 'Æther "Vial" \\ <b>&amp;</b>\n\t\u0000\u2028 \ud800 🂡';
const product = (id: number) => ({
  offers: [{ listingId: 1, price: 0.1 + 0.2, note: tricky, nothing: null, big: 1e21, small: 5e-7, flags: [true, false] }],
  product: { productId: id, name: tricky, '10': 'ten', '2': 'two', nested: { a: [], b: {} } },
});
const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ sellerId: i + 1, skuId: 7, found: i % 2 === 0, price: i / 3, name: tricky }));

function setup() {
  let failing = false;
  let pgCalls = 0;
  const primary = {
    productPage: async (id: number) => {
      if (failing) throw new Error('index down');
      return product(id) as never;
    },
    search: async () => {
      throw new Error('not used');
    },
    lookup: async (body: { lines: unknown[] }) => {
      if (failing) throw new Error('index down');
      return lines(body.lines.length) as never;
    },
  } as unknown as BuyerReads;
  const fallback = {
    ...primary,
    productPage: async (id: number) => {
      pgCalls += 1;
      return { ...product(id), fromPg: true } as never;
    },
  } as unknown as BuyerReads;
  const infra = offlineInfra();
  const services = createServices(infra, { degraded: { watch: { enabled: false } }, buyer: { primary, fallback }, warm: { enabled: false } });
  const deps: AppDeps = { ...infra, services };
  const service = services.buyer;
  const routes: RouteModule = (app, d) => {
    productRoutes(service)(app, d);
    lookupRoutes(service)(app, d);
  };
  return {
    app: createApp(deps, [routes]),
    fail: () => (failing = true),
    pgCalls: () => pgCalls,
    stop: () => service.mode.stop(),
  };
}

let stop: (() => void) | undefined;
afterEach(() => stop?.());

describe('buyer answers serialized once', () => {
  it('product page: healthy and last-good degraded bodies are res.json of the envelope, byte for byte', async () => {
    const s = setup();
    stop = s.stop;
    const healthy = await request(s.app).get('/products/7').expect(200);
    expect(healthy.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(healthy.text).toBe(JSON.stringify(ok(product(7))));
    s.fail();
    const degraded = await request(s.app).get('/products/7').expect(200);
    expect(degraded.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(degraded.text).toBe(JSON.stringify(ok(product(7), { degraded: true })));
    expect(degraded.text).toBe(healthy.text.replace('{"success":true,', '{"success":true,"degraded":true,'));
    expect(s.pgCalls()).toBe(0);
  });

  it('PostgreSQL fallback answers, first and memoized, are the same bytes', async () => {
    const s = setup();
    stop = s.stop;
    s.fail();
    const expected = JSON.stringify(ok({ ...product(8), fromPg: true }, { degraded: true }));
    expect((await request(s.app).get('/products/8').expect(200)).text).toBe(expected);
    expect((await request(s.app).get('/products/8').expect(200)).text).toBe(expected);
    expect(s.pgCalls()).toBe(1);
  });

  it('cart lookup: healthy and degraded bodies, and ETag / 304 as res.json gives them', async () => {
    const s = setup();
    stop = s.stop;
    const body = { lines: [1, 2, 3].map((i) => ({ sellerId: i, skuId: 7 })) };
    const healthy = await request(s.app).post('/lines/lookup').send(body).expect(200);
    expect(healthy.text).toBe(JSON.stringify(ok({ lines: lines(3) })));
    const etag = healthy.headers.etag as string;
    expect(etag).toMatch(/^W\/"/);
    await request(s.app).post('/lines/lookup').set('If-None-Match', etag).send(body).expect(200);
    s.fail();
    const degraded = await request(s.app).post('/lines/lookup').send(body).expect(200);
    expect(degraded.text).toBe(JSON.stringify(ok({ lines: lines(3) }, { degraded: true })));
    const page = await request(s.app).get('/products/9').expect(200);
    expect(page.text).toBe(JSON.stringify(ok({ ...product(9), fromPg: true }, { degraded: true })));
    await request(s.app)
      .get('/products/9')
      .set('If-None-Match', page.headers.etag as string)
      .expect(304);
  });
});
