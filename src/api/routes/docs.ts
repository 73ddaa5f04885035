import express, { type RequestHandler } from 'express';
import { createRequire } from 'node:module';
import type { RouteModule } from '../app.js';
import { openApiDocument } from '../openapi/document.js';

const require = createRequire(import.meta.url);
// swagger-ui-dist ships the docs page's assets, so /docs works offline.
const swaggerUiDir = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();

// Only the files the page loads are served from swagger-ui-dist: not its demo page (index.html,
// which loads any spec a `?url=` names), its OAuth redirect page or anything else in the package.
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

// The page and its assets under a policy of their own: scripts and everything they fetch from this
// origin only, no inline script (the page's start-up is a file of its own). Swagger UI styles its
// elements inline and draws icons as data: images, so those two are allowed.
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Marketplace API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/start.js"></script>
</body></html>`;

const start = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });\n`;

const secured: RequestHandler = (_req, res, next) => {
  res.set({ 'Content-Security-Policy': POLICY, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
  next();
};

export const docsRoutes: RouteModule = (app) => {
  const doc = openApiDocument();
  app.get('/openapi.json', (_req, res) => {
    res.json(doc);
  });
  app.get('/docs', secured, (_req, res) => {
    res.type('html').send(page);
  });
  app.get('/docs/assets/start.js', secured, (_req, res) => {
    res.type('js').send(start);
  });
  const assets = express.static(swaggerUiDir, { index: false, redirect: false, fallthrough: true });
  app.use('/docs/assets', secured, (req, res, next) => {
    // Anything else falls through to the API's 404.
    if (!ASSETS.has(req.path.replace(/^\//, ''))) return next();
    return assets(req, res, next);
  });
};
