import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { parseRoute, qs } from '../../storefront/routes.js';

// Chromium for the storefront's browser tests and bench: Debian's `chromium` package (scripts/test.sh
// installs it when missing), driven by playwright-core. Playwright's own browser download cannot
// reach its host from these machines. Without the background-networking flags Chromium keeps
// opening connections that this machine's closed network refuses.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the tests' screenshots go (git-ignored, like everything under .stack/). */
export const SCREENSHOT_DIR = path.join(root, '.stack/screenshots');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A fresh Chromium (Playwright gives each launch a new temporary profile directory). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: npm test installs it (apt-get install -y chromium), or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 60_000 });
}

export interface StorePage {
  page: Page;
  context: BrowserContext;
  /** Requests the page tried to send to another origin (catalog images only, if all is well). */
  offOrigin: string[];
  /** Uncaught exceptions in the page. */
  errors: string[];
}

/**
 * A page in a context of its own (own localStorage: own cart). Requests to other origins are
 * recorded and refused, as this machine's network would: the page must not depend on them.
 */
export async function openStorefront(browser: Browser, baseUrl: string, viewport = { width: 1280, height: 900 }): Promise<StorePage> {
  const context = await browser.newContext({ viewport, baseURL: baseUrl });
  context.setDefaultTimeout(30_000);
  const offOrigin: string[] = [];
  const errors: string[] = [];
  await context.route(
    (url) => url.origin !== new URL(baseUrl).origin,
    (route) => {
      offOrigin.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, context, offOrigin, errors };
}

/**
 * Waits until the view the URL names shows the answer for exactly that URL (the views carry
 * `data-state` and `data-query`), so a test never reads the previous answer's DOM. A view that
 * shows an error for that URL fails the wait at once, with the page's message.
 */
export async function settled(page: Page, timeout = 30_000): Promise<void> {
  const route = parseRoute(new URL(await here(page)).search);
  const want =
    route.view === 'search'
      ? { sel: 'section.results', query: qs(route.query), pages: String(route.pages) }
      : route.view === 'product'
        ? { sel: 'article.product', query: `${route.productId}${qs(route.query)}`, pages: null }
        : { sel: 'section.cart', query: null, pages: null };
  const outcome = await page.waitForFunction(
    (w) => {
      const el = document.querySelector(w.sel);
      const state = el?.getAttribute('data-state');
      if (!el || (state !== 'ready' && state !== 'error') || (w.query !== null && el.getAttribute('data-query') !== w.query)) return false;
      if (state === 'error') return `error: ${document.querySelector('[role="alert"]')?.textContent ?? '(no message)'}`;
      return w.pages === null || el.getAttribute('data-pages') === w.pages ? 'ready' : false;
    },
    want,
    { timeout },
  );
  const result = await outcome.jsonValue();
  if (result !== 'ready') throw new Error(`the page at ${await here(page)} shows an ${String(result)}`);
}

/**
 * The document's URL now. `page.url()` follows the page's pushState through a browser event, so
 * right after an action it may still be the previous URL; an evaluation runs after the action's
 * events, so it sees the URL they left.
 */
export function here(page: Page): Promise<string> {
  return page.evaluate(() => location.href);
}

/** axe-core's serious and critical violations of the page as it is now (none is the bar). */
export async function seriousViolations(page: Page): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/** A full-page screenshot under .stack/screenshots/, its path printed so a person can look. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`[storefront] screenshot of the ${name} page: ${file}`);
  return file;
}

/** True when the page is wider than its viewport (a horizontal scroll bar). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}
