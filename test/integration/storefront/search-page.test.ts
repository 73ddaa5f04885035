import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestContext, type TestContext } from '../../support/context.js';
import { serveScenario, type ServedApp, type ServedScenario } from '../../support/served-app.js';
import { here, launchChromium, openStorefront, screenshot, seriousViolations, settled, type StorePage } from '../../support/browser.js';
import { parseRoute, qs } from '../../../storefront/routes.js';

// The storefront's search page in Chromium against the real API, index and database (a seeded
// varied marketplace): what it shows is exactly what GET /search answers for the URL's query, the
// facets narrow with the API's own counts, "more results" walks the cursor, and the URL alone
// restores the page (reload, back/forward, a shared link).

let ctx: TestContext;
let stack: ServedScenario;
let served: ServedApp;
let browser: Browser;
let sp: StorePage;
let page: Page;

interface Facet {
  value: string;
  count: number;
}

async function api(path: string): Promise<any> {
  const res = await fetch(`${served.url}${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

/** GET /search for the query the page's URL names. */
async function apiFor(p: Page): Promise<any> {
  const route = parseRoute(new URL(await here(p)).search);
  if (route.view !== 'search') throw new Error(`not a search URL: ${await here(p)}`);
  return (await api(`/search${qs(route.query)}`)).data;
}

const cardIds = (p: Page) => p.$$eval('li.card', (els) => els.map((e) => Number(e.getAttribute('data-product-id'))));

/** Every facet as the page shows it (each list expanded), `Any` left out. */
async function shownFacets(p: Page): Promise<Record<string, Facet[]>> {
  for (const more of await p.$$('fieldset.facet button[aria-expanded="false"]')) await more.click();
  return p.$$eval('fieldset.facet[data-facet]', (sets) =>
    Object.fromEntries(
      sets.map((s) => [
        s.getAttribute('data-facet')!,
        [...s.querySelectorAll('li')]
          .map((li) => ({ value: li.querySelector('input')!.value, count: li.querySelector('.facet-count')?.getAttribute('data-count') }))
          .filter((f) => f.value !== '')
          .map((f) => ({ value: f.value, count: f.count === undefined || f.count === null ? -1 : Number(f.count) })),
      ]),
    ),
  );
}

/** The API's facets in the page's terms (the seller facet's value is its sellerCode), empty ones left out. */
function apiFacets(data: any): Record<string, Facet[]> {
  const out: Record<string, Facet[]> = {};
  for (const [name, list] of Object.entries<any[]>(data.facets)) {
    if (list.length === 0) continue;
    out[name] = list.map((f) => ({ value: name === 'seller' ? f.sellerCode : f.value, count: f.count }));
  }
  return out;
}

async function expectPageEqualsApi(p: Page): Promise<any> {
  const data = await apiFor(p);
  expect(await cardIds(p)).toEqual(data.items.map((i: any) => i.productId));
  expect(await shownFacets(p)).toEqual(apiFacets(data));
  return data;
}

const tick = async (p: Page, facet: string, value: string) => {
  await p.click(`fieldset[data-facet="${facet}"] input[value="${value}"]`);
  await settled(p);
};

beforeAll(async () => {
  ctx = await createTestContext();
  stack = await serveScenario(ctx, 2121, { products: 90, listings: 700 });
  served = stack.served;
  browser = await launchChromium();
  sp = await openStorefront(browser, served.url);
  page = sp.page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await ctx?.close();
});

describe('storefront search page', () => {
  it('a keyword search shows the same products, in the same order, as GET /search', async () => {
    await page.goto('/');
    await settled(page);
    await page.fill('#keyword', 'bolt');
    await page.press('#keyword', 'Enter');
    expect(new URL(await here(page)).search).toBe('?keyword=bolt');
    await settled(page);
    const data = await expectPageEqualsApi(page);
    expect(data.items.length).toBeGreaterThan(1);
    // Each card shows the item's name and minimum price (minor units, the exact value kept in <data>).
    const cards = await page.$$eval('li.card', (els) =>
      els.map((e) => ({
        name: e.querySelector('.card-name')!.textContent!.trim(),
        fromPrice: Number(e.querySelector('.card-price data')!.getAttribute('value')),
      })),
    );
    expect(cards).toEqual(data.items.map((i: any) => ({ name: i.name ?? 'Unnamed product', fromPrice: i.fromPrice })));
    await screenshot(page, 'search');
  });

  it('two values of one facet and one of another narrow the results; every shown count is the API count', async () => {
    await page.goto('/?limit=100');
    await settled(page);
    const landing = await expectPageEqualsApi(page);
    const [c1, c2] = landing.facets.condition.map((f: Facet) => f.value);
    await tick(page, 'condition', c1);
    const one = await expectPageEqualsApi(page);
    await tick(page, 'condition', c2);
    const two = await expectPageEqualsApi(page);
    const lang = two.facets.language[0].value;
    await tick(page, 'language', lang);
    const three = await expectPageEqualsApi(page);
    expect(new URL(await here(page)).searchParams.getAll('condition')).toEqual([c1, c2]);
    expect(new URL(await here(page)).searchParams.get('language')).toBe(lang);

    const ids = (d: any) => new Set<number>(d.items.map((i: any) => i.productId));
    // A second value of the same facet widens (any of them), another facet narrows (all apply).
    expect([...ids(one)].every((id) => ids(two).has(id))).toBe(true);
    expect([...ids(three)].every((id) => ids(two).has(id))).toBe(true);
    expect(three.items.length).toBeGreaterThan(0);
    expect(three.items.length).toBeLessThan(landing.items.length);
    // Disjunctive: the condition facet still offers the other conditions, counted under the language.
    expect(three.facets.condition.length).toBeGreaterThan(2);

    // A single-valued facet (a store) holds one value: picking another replaces it.
    const [s1, s2] = three.facets.seller.map((s: any) => s.sellerCode);
    await tick(page, 'seller', s1);
    await tick(page, 'seller', s2);
    expect(new URL(await here(page)).searchParams.getAll('sellerCode')).toEqual([s2]);
    await expectPageEqualsApi(page);
  });

  it('"more results" walks the cursor to the end: every product once, in the API order', async () => {
    await page.goto('/?limit=7&sort=name_desc');
    await settled(page);
    const want: number[] = [];
    let cursor: string | null = null;
    do {
      const data: any = (await api(`/search?limit=7&sort=name_desc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).data;
      want.push(...data.items.map((i: any) => i.productId));
      cursor = data.nextCursor;
    } while (cursor);
    expect(want.length).toBeGreaterThan(7 * 4);
    let clicks = 0;
    while (await page.isVisible('button.more')) {
      await page.click('button.more');
      clicks++;
      // The URL counts the pages shown (replaced, not pushed: back leaves the search).
      await page.waitForURL((u) => u.searchParams.get('pages') === String(clicks + 1));
      await settled(page);
    }
    const ids = await cardIds(page);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(want);
    expect(clicks).toBe(Math.ceil(want.length / 7) - 1);
  });

  it('the URL alone restores the page: reload, back and forward, a shared link', async () => {
    type State = { url: string; ids: number[]; checked: string[]; sort: string };
    const state = async (): Promise<State> => ({
      url: await here(page),
      ids: await cardIds(page),
      checked: await page.$$eval('fieldset.facet input:checked', (els) => els.map((e) => `${e.getAttribute('name')}=${(e as HTMLInputElement).value}`)),
      sort: await page.$eval('.controls select', (s) => (s as HTMLSelectElement).value),
    });
    await page.goto('/?limit=10');
    await settled(page);
    const s1 = await state();
    const condition = (await apiFor(page)).facets.condition[0].value;
    await tick(page, 'condition', condition);
    const s2 = await state();
    await page.selectOption('.controls select >> nth=0', 'name_desc');
    await settled(page);
    await page.click('button.more');
    await page.waitForURL((u) => u.searchParams.get('pages') === '2');
    await settled(page);
    const s3 = await state();
    expect(s3.ids).toHaveLength(20);
    expect(s3.sort).toBe('name_desc');
    expect(s2.checked).toContain(`facet-condition=${condition}`);

    await page.reload();
    await settled(page);
    expect(await state()).toEqual(s3);
    await page.goBack();
    await settled(page);
    expect(await state()).toEqual(s2);
    await page.goBack();
    await settled(page);
    expect(await state()).toEqual(s1);
    await page.goForward();
    await settled(page);
    expect(await state()).toEqual(s2);
    await page.goForward();
    await settled(page);
    expect(await state()).toEqual(s3);

    // A shared link, opened in another browser profile.
    const other = await openStorefront(browser, served.url);
    await other.page.goto(s3.url);
    await settled(other.page);
    expect(await cardIds(other.page)).toEqual(s3.ids);
    await other.context.close();
  });

  it('a bad hand-edited URL shows the API refusal, an unreachable API a message, never a blank page', async () => {
    await page.goto('/?sort=sideways');
    await page.waitForSelector('[role="alert"]');
    const alert = await page.textContent('[role="alert"]');
    expect(alert).toContain('Request failed validation');
    expect(alert).toContain('INVALID_REQUEST');
    expect(alert).toContain('sort');

    await page.route('**/search?**', (r) => r.abort('connectionrefused'));
    await page.goto('/?keyword=bolt');
    await page.waitForSelector('[role="alert"]');
    expect(await page.textContent('[role="alert"]')).toContain('could not be reached');
    await page.unroute('**/search?**');
    await page.click('[role="alert"] button');
    // The message stays while the retry loads, and goes with its answer.
    await page.waitForSelector('[role="alert"]', { state: 'detached' });
    await settled(page);
    expect((await cardIds(page)).length).toBeGreaterThan(0);
  });

  it('a catalog image that cannot load shows a placeholder; nothing but images goes to another origin', async () => {
    await page.goto('/?limit=6');
    await settled(page);
    const data = await apiFor(page);
    expect(data.items.some((i: any) => i.imageUrl !== null)).toBe(true);
    // The first row is in view, so its images are asked for (and refused: no network here).
    await page.waitForFunction((n) => document.querySelectorAll('li.card .image-missing').length === n, data.items.length);
    const labels = await page.$$eval('li.card .image-missing', (els) => els.map((e) => e.getAttribute('aria-label')));
    expect(labels).toEqual(data.items.map((i: any) => `${i.name ?? 'Product'}: no image`));
    expect(sp.offOrigin.length).toBeGreaterThan(0);
    expect(sp.offOrigin.filter((u) => !u.startsWith('https://img.example/'))).toEqual([]);
    expect(sp.errors).toEqual([]);
  });

  it('keyboard: a facet ticked with the space bar keeps the focus; the results follow', async () => {
    await page.goto('/?limit=100');
    await settled(page);
    const value = (await apiFor(page)).facets.language[0].value as string;
    await page.focus(`fieldset[data-facet="language"] input[value="${value}"]`);
    await page.keyboard.press('Space');
    await settled(page);
    expect(new URL(await here(page)).searchParams.getAll('language')).toEqual([value]);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value)).toBe(value);
    expect(await cardIds(page)).toEqual((await apiFor(page)).items.map((i: any) => i.productId));
    // Tab moves on to the next value of the same facet, space ticks it too.
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => (document.activeElement as HTMLInputElement).value);
    await page.keyboard.press('Space');
    await settled(page);
    expect(new URL(await here(page)).searchParams.getAll('language')).toEqual([value, next]);
  });

  it('axe finds no serious or critical violation on the search page', async () => {
    await page.goto('/?keyword=bolt');
    await settled(page);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
