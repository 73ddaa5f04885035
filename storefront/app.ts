// The app shell: the URL is the state (parseRoute on every navigation and popstate), the header's
// keyword search (views/keyword-box.ts) and cart link, the Degraded Mode banner, and the view the URL names.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import type { Answer } from './api.js';
import { readCart, writeCart, type StoredLine } from './cart.js';
import { CART_HREF, parseRoute, searchHref } from './routes.js';
import { markAction } from './timing.js';
import { follow, Link, type Shell } from './views/common.js';
import { SearchView } from './views/search.js';
import { ProductView } from './views/product.js';
import { CartView } from './views/cart.js';
import { KeywordBox } from './views/keyword-box.js';

const SITE = 'Card Marketplace';

export function App() {
  const [location, setLocation] = useState(window.location.search);
  const [degraded, setDegraded] = useState(false);
  const [cart, setCartLines] = useState<StoredLine[]>(() => readCart());
  const lastSearch = useRef('/');
  const route = parseRoute(location);
  if (route.view === 'search') lastSearch.current = searchHref(route.query, route.pages);

  useEffect(() => {
    const onPop = () => setLocation(window.location.search);
    // Another tab changed the cart.
    const onStorage = () => setCartLines(readCart());
    window.addEventListener('popstate', onPop);
    window.addEventListener('storage', onStorage);
    return () => {
      window.removeEventListener('popstate', onPop);
      window.removeEventListener('storage', onStorage);
    };
  }, []);

  // A new view takes the focus to its heading (screen readers announce it), and starts at the top.
  const viewKey = route.view === 'product' ? `product:${route.productId}` : route.view;
  const firstView = useRef(true);
  useEffect(() => {
    if (firstView.current) {
      firstView.current = false;
      return;
    }
    window.scrollTo(0, 0);
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [viewKey]);

  useEffect(() => {
    if (route.view === 'search') {
      const keyword = route.query.get('keyword');
      document.title = keyword ? `“${keyword}” — ${SITE}` : SITE;
    } else if (route.view === 'cart') document.title = `Your cart — ${SITE}`;
  }, [location]);

  const shell: Shell = {
    navigate(href, opts = {}) {
      const here = `${window.location.pathname}${window.location.search}`;
      // The same URL again (the brand link on the landing grid) is no new page, nor a new entry.
      if (href === here && !opts.replace) return;
      if (opts.at !== undefined) markAction(opts.at);
      if (opts.replace) window.history.replaceState(null, '', href);
      else window.history.pushState(null, '', href);
      setLocation(window.location.search);
    },
    onAnswer<T>(answer: Answer<T>): Answer<T> {
      setDegraded(answer.degraded);
      return answer;
    },
    cart,
    setCart(lines) {
      writeCart(lines);
      setCartLines(lines);
    },
    lastSearch: lastSearch.current,
  };

  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="site-header">
      <a class="brand" href="/" onClick=${(e: MouseEvent) => follow(shell, e, '/')}>${SITE}</a>
      <${KeywordBox} shell=${shell} route=${route} />
      <nav aria-label="Cart">
        <${Link} shell=${shell} href=${CART_HREF} class="cart-link" aria-current=${route.view === 'cart' ? 'page' : undefined}>
          Cart <span class="cart-count" data-count=${cart.length}>${cart.length}</span><span class="visually-hidden"> ${cart.length === 1 ? 'line' : 'lines'}</span>
        </${Link}>
      </nav>
    </header>
    <div class="banner-region" role="status">
      ${
        degraded &&
        html`<p class="banner" data-degraded="true">
          <strong>Prices and availability may be briefly out of date.</strong> The marketplace is answering from a backup while search recovers; every
          price is confirmed before purchase.
        </p>`
      }
    </div>
    <main id="main" tabindex="-1">
      ${
        route.view === 'search'
          ? html`<${SearchView} shell=${shell} query=${route.query} pages=${route.pages} />`
          : route.view === 'product'
            ? html`<${ProductView} key=${route.productId} shell=${shell} productId=${route.productId} query=${route.query} />`
            : html`<${CartView} shell=${shell} />`
      }
    </main>
    <footer class="site-footer">
      <p>Prices are in each seller's own currency. <a href="/docs">API documentation</a></p>
    </footer>`;
}
