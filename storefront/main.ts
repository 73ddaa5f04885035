// The storefront's entry point, bundled by the API (src/api/routes/storefront.ts) into /storefront/app.js.
import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './app.js';

render(html`<${App} />`, document.getElementById('app')!);
