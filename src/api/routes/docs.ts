import express from 'express';
import { createRequire } from 'node:module';
import type { RouteModule } from '../app.js';
import { openApiDocument } from '../openapi/document.js';

const require = createRequire(import.meta.url);
// swagger-ui-dist ships the docs page's assets, so /docs works offline.
const swaggerUiDir = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Marketplace API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });</script>
</body></html>`;

export const docsRoutes: RouteModule = (app) => {
  const doc = openApiDocument();
  app.get('/openapi.json', (_req, res) => {
    res.json(doc);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  app.use('/docs/assets', express.static(swaggerUiDir, { index: false }));
};
