import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Request, Response } from 'express';
import type { RouteModule } from '../app.js';

// The reference storefront (storefront/ at the repository's top: a client of the buyer API, not
// part of it) served at `/`. Its TypeScript is bundled by esbuild in memory on the first request
// (~0.2 s, once per process), so there is no build step and no artifact to go stale; the page
// loads nothing from another origin (the Content-Security-Policy says so) except catalog images
// from STOREFRONT_IMAGE_SOURCES.

const SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../storefront');

interface Assets {
  html: string;
  css: string;
  js: string;
}

async function bundle(): Promise<Assets> {
  const [html, css, out] = await Promise.all([
    readFile(path.join(SOURCE, 'index.html'), 'utf8'),
    readFile(path.join(SOURCE, 'styles.css'), 'utf8'),
    build({
      entryPoints: [path.join(SOURCE, 'main.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    }),
  ]);
  return { html, css, js: out.outputFiles[0]!.text };
}

/** The page's policy; `imageSources` are STOREFRONT_IMAGE_SOURCES (where catalog images may come from). */
export function storefrontPolicy(imageSources: readonly string[]): string {
  return [
    "default-src 'self'",
    // Catalog images come only from the configured sources, so catalog data cannot make a buyer's
    // browser contact any host it names; data: (the page's own empty icon) contacts none.
    `img-src 'self' data: ${imageSources.join(' ')}`,
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const storefrontRoutes: RouteModule = (app, deps) => {
  const policy = storefrontPolicy(deps.env.STOREFRONT_IMAGE_SOURCES);
  let assets: Promise<Assets> | null = null;
  const load = (): Promise<Assets> =>
    (assets ??= bundle().catch((err: unknown) => {
      // Not kept: the next request tries again.
      assets = null;
      deps.logger.error({ err }, 'storefront bundle failed');
      throw err;
    }));
  // Express 5 passes a rejected handler's error to the error handler (a 500 in the envelope).
  const serve =
    (type: string, pick: (a: Assets) => string, headers: Record<string, string> = {}) =>
    async (_req: Request, res: Response) => {
      const body = pick(await load());
      // Revalidated on every load (ETag, 304): a restarted API serves its own bundle at once.
      res
        .set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', ...headers })
        .type(type)
        .send(body);
    };
  app.get(
    '/',
    serve('html', (a) => a.html, { 'Content-Security-Policy': policy, 'Referrer-Policy': 'no-referrer' }),
  );
  app.get(
    '/storefront/app.js',
    serve('js', (a) => a.js),
  );
  app.get(
    '/storefront/app.css',
    serve('css', (a) => a.css),
  );
};
