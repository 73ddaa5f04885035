import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestContext, type TestContext } from '../../support/context.js';
import { seedSellerApi } from '../../support/seller-seed.js';
import { startTestIndexer } from '../../support/indexer.js';
import { serveApp, type ServedApp } from '../../support/served-app.js';
import { here, launchChromium, openStorefront, screenshot, seriousViolations, settled } from '../../support/browser.js';
import type { LiveIndexer } from '../../../indexer/live.js';

// The search box as a combobox of GET /search/suggest's names, in Chromium against the real API,
// index and database: typing offers names (typos forgiven), the arrows and Enter search the one
// chosen, Escape closes the list; a keyword that lists nothing offers the correction as a link.

let ctx: TestContext;
let indexer: LiveIndexer;
let served: ServedApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await createTestContext();
  await seedSellerApi(ctx);
  await ctx.pool.query(`
    INSERT INTO products (product_id, name, set_name, category) VALUES
      (201, 'Charizard', 'Base', 'Pokémon'), (202, 'Charizard ex', 'Obsidian', 'Pokémon'),
      (203, 'Charmander', 'Base', 'Pokémon'), (204, 'Charmeleon', 'Base', 'Pokémon');
    INSERT INTO skus (sku_id, product_id, condition, language, finish)
      SELECT product_id * 10 + 1, product_id, 'Near Mint', 'English', 'Non-Foil' FROM products WHERE product_id BETWEEN 201 AND 204;
    INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES
      (7, 1001, 101, 250, 4, 'matched'), (7, 2011, 201, 900, 2, 'matched'), (8, 2011, 201, 950, 1, 'matched'),
      (7, 2021, 202, 500, 1, 'matched'), (7, 2031, 203, 100, 3, 'matched'), (7, 2041, 204, 150, 1, 'matched');
  `);
  indexer = await startTestIndexer(ctx);
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  served = await serveApp(ctx);
  browser = await launchChromium();
  page = (await openStorefront(browser, served.url)).page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await indexer?.stop();
  await ctx?.close();
});

const options = (p: Page) => p.$$eval('#keyword-suggestions [role="option"]', (els) => els.map((e) => e.querySelector('.suggestion-name')!.textContent));
const expanded = (p: Page) => p.getAttribute('#keyword', 'aria-expanded');

describe('storefront search suggestions', () => {
  it('typing charz offers Charizard; arrows and Enter open its results', async () => {
    await page.goto('/');
    await settled(page);
    await page.click('#keyword');
    await page.keyboard.type('charz', { delay: 30 });
    await page.waitForSelector('#keyword-suggestions [role="option"]');
    expect(await expanded(page)).toBe('true');
    expect((await options(page))[0]).toBe('Charizard');
    expect(await options(page)).toEqual(expect.arrayContaining(['Charizard', 'Charmander', 'Charizard ex', 'Charmeleon']));
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'search-suggestions');

    await page.keyboard.press('ArrowDown');
    expect(await page.getAttribute('#keyword', 'aria-activedescendant')).toBe('keyword-suggestion-0');
    expect(await page.getAttribute('#keyword-suggestion-0', 'aria-selected')).toBe('true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    expect(await page.getAttribute('#keyword', 'aria-activedescendant')).toBe('keyword-suggestion-0');
    await page.keyboard.press('Enter');
    expect(new URL(await here(page)).search).toBe('?keyword=Charizard');
    await settled(page);
    expect(await page.$$eval('li.card .card-name', (els) => els.map((e) => e.textContent!.trim()))).toEqual(['Charizard', 'Charizard ex']);
    expect(await expanded(page)).toBe('false');
  });

  it('Escape closes the list and leaves what was typed', async () => {
    await page.fill('#keyword', '');
    await page.keyboard.type('charm', { delay: 30 });
    await page.waitForSelector('#keyword-suggestions [role="option"]');
    expect(await expanded(page)).toBe('true');
    await page.keyboard.press('Escape');
    expect(await expanded(page)).toBe('false');
    expect(await page.inputValue('#keyword')).toBe('charm');
    expect(await page.isHidden('#keyword-suggestions')).toBe(true);
  });

  it('a click on a name searches it', async () => {
    await page.fill('#keyword', '');
    await page.keyboard.type('charme', { delay: 30 });
    await page.click('#keyword-suggestions [role="option"]:has-text("Charmeleon")');
    expect(new URL(await here(page)).search).toBe('?keyword=Charmeleon');
    await settled(page);
    expect(await page.$$eval('li.card .card-name', (els) => els.map((e) => e.textContent!.trim()))).toEqual(['Charmeleon']);
  });

  it('charzard shows "Did you mean Charizard?" and the link leads to its results', async () => {
    await page.goto('/?keyword=charzard');
    await settled(page);
    expect(await page.textContent('.results-count')).toContain('No cards match this search.');
    const offer = page.locator('.did-you-mean');
    expect((await offer.textContent())!.trim()).toBe('Did you mean Charizard?');
    expect(await seriousViolations(page)).toEqual([]);
    await offer.locator('a').click();
    expect(new URL(await here(page)).search).toBe('?keyword=Charizard');
    await settled(page);
    expect(await page.$$eval('li.card .card-name', (els) => els.map((e) => e.textContent!.trim()))).toEqual(['Charizard', 'Charizard ex']);
    expect(await page.locator('.did-you-mean').count()).toBe(0);
  });
});
