import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestContext, type TestContext } from '../../support/context.js';
import { serveScenario, type ServedApp, type ServedScenario } from '../../support/served-app.js';
import { here, launchChromium, openStorefront, screenshot, scrollsSideways, seriousViolations, settled, type StorePage } from '../../support/browser.js';
import { issueApiKey } from '../../../src/db/api-keys.js';
import { productHref } from '../../../storefront/routes.js';

// The storefront's product page and cart in Chromium against the real stack: offers cheapest
// first as GET /products/{id} lists them, filters that narrow them, and a cart that follows the
// sellers' writes (seller API -> PostgreSQL -> indexer -> index -> POST /lines/lookup). Then
// axe-core on both pages, and a phone-sized viewport on all three.

let ctx: TestContext;
let stack: ServedScenario;
let served: ServedApp;
let browser: Browser;
let sp: StorePage;
let page: Page;
/** The product with the most shown offers (several conditions, several native sellers). */
let productId: number;

async function api(path: string, init?: RequestInit): Promise<any> {
  const res = await fetch(`${served.url}${path}`, init);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json();
}

const shownOffers = (p: Page) =>
  p.$$eval('li.offer', (els) =>
    els.map((e) => ({
      sellerId: Number(e.getAttribute('data-seller-id')) || null,
      skuId: Number(e.getAttribute('data-sku-id')),
      price: Number(e.getAttribute('data-price')),
    })),
  );
const offerKeys = (offers: any[]) => offers.map((o) => ({ sellerId: o.sellerId, skuId: o.skuId, price: o.price }));

beforeAll(async () => {
  ctx = await createTestContext();
  stack = await serveScenario(ctx, 3131, { products: 30, listings: 600 });
  served = stack.served;
  let best = { id: 0, offers: 0 };
  for (const item of (await api('/search?limit=100')).data.items) {
    const offers = (await api(`/products/${item.productId}?limit=100`)).data.offers;
    const conditions = new Set(offers.map((o: any) => o.condition));
    const natives = new Set(offers.filter((o: any) => o.checkoutMode === 'express').map((o: any) => o.sellerId));
    if (conditions.size >= 2 && natives.size >= 2 && offers.length > best.offers) best = { id: item.productId, offers: offers.length };
  }
  productId = best.id;
  expect(best.offers).toBeGreaterThan(4);
  browser = await launchChromium();
  sp = await openStorefront(browser, served.url);
  page = sp.page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await ctx?.close();
});

describe('storefront product page and cart', () => {
  it('lists the offers cheapest first, as the API does, and a condition filter narrows them', async () => {
    await page.goto(productHref(productId));
    await settled(page);
    const all = (await api(`/products/${productId}?limit=20`)).data;
    expect(await page.textContent('main h1')).toBe(all.product.name ?? 'Unnamed product');
    const shown = await shownOffers(page);
    expect(shown).toEqual(offerKeys(all.offers));
    expect(shown.map((o) => o.price)).toEqual([...shown.map((o) => o.price)].sort((a, b) => a - b));

    // The least common condition among the offers: ticking it must leave fewer.
    const counts = new Map<string, number>();
    for (const o of (await api(`/products/${productId}?limit=100`)).data.offers) counts.set(o.condition, (counts.get(o.condition) ?? 0) + 1);
    const [condition] = [...counts].filter(([c]) => c !== null).sort((a, b) => a[1] - b[1])[0]!;
    await page.click(`fieldset[data-filter="condition"] input[value="${condition}"]`);
    await settled(page);
    expect(new URL(await here(page)).searchParams.getAll('condition')).toEqual([condition]);
    const filtered = (await api(`/products/${productId}?limit=20&condition=${encodeURIComponent(condition)}`)).data.offers;
    expect(await shownOffers(page)).toEqual(offerKeys(filtered));
    expect(filtered.length).toBeLessThan((await api(`/products/${productId}?limit=100`)).data.offers.length);
    expect(filtered.every((o: any) => o.condition === condition)).toBe(true);
    await screenshot(page, 'product');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a bad product link shows the API refusal; an unknown product says so', async () => {
    await page.goto('/?view=product&productId=abc');
    await page.waitForSelector('[role="alert"]');
    expect(await page.textContent('[role="alert"]')).toContain('must be an integer > 0');
    await page.goto(productHref(999_999));
    await settled(page);
    expect(await page.textContent('main h1')).toBe('Product not in the catalog');
    expect(await page.locator('li.offer').count()).toBe(0);
  });

  it('the cart shows an offer sold out through the seller API once the indexer has it, and a changed price', async () => {
    await page.goto(productHref(productId));
    await settled(page);
    const offers = (await api(`/products/${productId}?limit=20`)).data.offers.filter((o: any) => o.checkoutMode === 'express');
    const a = offers[0];
    const b = offers.find((o: any) => o.sellerId !== a.sellerId);
    const row = (o: any) => `li.offer[data-seller-id="${o.sellerId}"][data-sku-id="${o.skuId}"]`;
    const qtyB = Math.min(2, b.available);
    await page.fill(`${row(b)} input[type=number]`, String(qtyB));
    await page.click(`${row(a)} button[type=submit]`);
    await page.click(`${row(b)} button[type=submit]`);
    expect(await page.textContent('.cart-count')).toBe('2');

    await page.click('a.cart-link');
    await settled(page);
    await page.waitForSelector('li.cart-line');
    const line = (o: any) => `li.cart-line[data-seller-id="${o.sellerId}"][data-sku-id="${o.skuId}"]`;
    expect(await page.getAttribute(line(a), 'data-status')).toBe('ok');
    expect(await page.getAttribute(line(b), 'data-status')).toBe('ok');
    expect(Number(await page.getAttribute('[data-total]', 'data-total'))).toBe(a.price + b.price * qtyB);

    // Seller A sells out; seller B raises the price. Both through the seller API.
    const write = async (o: any, body: object) => {
      const { key } = await issueApiKey(ctx.pool, o.sellerCode, 'storefront test');
      const res = await api('/listings', {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.data.results[0].status).toBe('applied');
    };
    await write(a, { skuId: a.skuId, quantity: 0 });
    await write(b, { skuId: b.skuId, price: b.price + 75 });

    // "Check again" until the lookup (from the index) has both changes.
    const deadline = Date.now() + 20_000;
    for (;;) {
      await page.click('.cart-summary button');
      await settled(page);
      const [sa, changed] = [await page.getAttribute(line(a), 'data-status'), await page.$(`${line(b)} [data-price-changed]`)];
      if (sa === 'sold-out' && changed) break;
      if (Date.now() > deadline) throw new Error(`cart did not follow the writes: A is ${sa}, B price flag ${!!changed}`);
      await page.waitForTimeout(250);
    }
    expect(await page.textContent(`${line(a)} .badge-warn`)).toBe('Sold out');
    expect(await page.textContent(`${line(b)} .price-changed`)).toContain('Price changed');
    expect(Number(await page.getAttribute('[data-total]', 'data-total'))).toBe((b.price + 75) * qtyB);
    await screenshot(page, 'cart');
    expect(await seriousViolations(page)).toEqual([]);
    expect(sp.errors).toEqual([]);
  });

  it('a phone-sized viewport scrolls no page sideways', async () => {
    // The same cart as above (the browser storage copied), on a 360 x 740 screen.
    const phone = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      baseURL: served.url,
      storageState: await sp.context.storageState(),
    });
    await phone.route(
      (url) => url.origin !== new URL(served.url).origin,
      (r) => r.abort('internetdisconnected'),
    );
    const p = await phone.newPage();
    for (const href of ['/?limit=24', '/?condition=Near%20Mint&language=English', productHref(productId), '/?view=cart']) {
      await p.goto(href);
      await settled(p);
      if (href === '/?view=cart') await p.waitForSelector('li.cart-line');
      expect(await scrollsSideways(p), href).toBe(false);
    }
    await screenshot(p, 'cart-phone');
    await phone.close();
  });
});
