import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '@elastic/elasticsearch';
import { createTestContext, type TestContext } from '../../support/context.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';
import { eventually } from '../../support/eventually.js';
import { serveScenario, type ServedApp, type ServedScenario } from '../../support/served-app.js';
import { launchChromium, openStorefront, screenshot, seriousViolations, settled } from '../../support/browser.js';
import { createEsClient } from '../../../src/es/client.js';

// Degraded Mode as a buyer sees it: the storefront whose API reaches the shared Elasticsearch node
// through a loopback forwarder of this test's own. Cutting it (the API's connections refused, as
// from a dead node; the index itself untouched for the other files) turns the banner on while
// results still show (from the last-good cache or PostgreSQL); restoring it turns the banner off.
// How the API meets a node that really dies is tested in search/degraded/cluster-failures.

let proxy: TcpProxy;
let ctx: TestContext;
let apiEs: Client;
let stack: ServedScenario;
let served: ServedApp;
let browser: Browser;
let page: Page;

const BANNER = '.banner[data-degraded="true"]';
const cardIds = (p: Page) => p.$$eval('li.card', (els) => els.map((e) => Number(e.getAttribute('data-product-id'))));

const banners = () => page.locator(BANNER).count();

/** GET /search's data once it is answered from the index (no `degraded`). */
async function healthyAnswer(query: string): Promise<any> {
  let data: unknown;
  await eventually(
    async () => {
      const res = await fetch(`${served.url}/search${query}`);
      const body = await res.json();
      expect(res.status).toBe(200);
      expect(body.degraded).toBeUndefined();
      data = body.data;
    },
    60_000,
    500,
  );
  return data;
}

/** Reloads the page until `ok` holds (at most 60 s). */
async function reloadUntil(ok: () => Promise<boolean>, failure: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.reload();
    await settled(page);
    if (await ok()) return;
    if (Date.now() > deadline) throw new Error(failure);
    await page.waitForTimeout(500);
  }
}

beforeAll(async () => {
  ctx = await createTestContext();
  proxy = await startTcpProxy(ctx.env.ELASTICSEARCH_URL);
  // The API's own client, with the production request timeout (as src/main.ts builds it).
  apiEs = createEsClient(proxy.url, ctx.env.ES_REQUEST_TIMEOUT_MS);
  // Degraded Mode as production runs it: the cluster watcher and the production timeouts.
  stack = await serveScenario(ctx, 4141, undefined, { es: apiEs }, {});
  served = stack.served;
  browser = await launchChromium();
  page = (await openStorefront(browser, served.url)).page;
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await apiEs?.close();
  await proxy?.close();
  await ctx?.close();
}, 60_000);

describe('storefront Degraded Mode banner', () => {
  it('cluster unreachable: the banner appears and results still show; reachable again: it goes away', async () => {
    await page.goto('/');
    await settled(page);
    // On a loaded machine a first query can miss the buyer timeout (Degraded Mode too): wait for
    // healthy answers first.
    const landing = await healthyAnswer('');
    const condition = landing.facets.condition[0].value as string;
    const healthy = await healthyAnswer(`?condition=${encodeURIComponent(condition)}`);
    expect(healthy.items.length).toBeGreaterThan(0);
    await reloadUntil(async () => (await banners()) === 0, 'the banner is on while the cluster is healthy');

    await proxy.cut();
    await page.click(`fieldset[data-facet="condition"] input[value="${condition}"]`);
    await settled(page);
    await page.waitForSelector(BANNER);
    expect(await page.textContent(BANNER)).toContain('Prices and availability may be briefly out of date');
    // The same products the index gave, now from the last-good cache.
    expect(await cardIds(page)).toEqual(healthy.items.map((i: any) => i.productId));
    // A page nobody asked for while healthy: from PostgreSQL, still with results.
    await page.selectOption('.controls select >> nth=0', 'name_desc');
    await settled(page);
    expect(await banners()).toBe(1);
    expect((await cardIds(page)).length).toBeGreaterThan(0);
    await screenshot(page, 'search-degraded');
    expect(await seriousViolations(page)).toEqual([]);

    await proxy.restore();
    // Degraded Mode ends once the watcher sees the cluster healthy again.
    await reloadUntil(async () => (await banners()) === 0, 'the banner stayed on after the cluster came back');
    expect((await cardIds(page)).length).toBeGreaterThan(0);
  });
});
