import type { Express, Request, RequestHandler } from 'express';
import type { HttpMetrics } from '../../lib/http-metrics.js';

// Request durations by route template. A request a route answered carries its template
// (req.route); one answered before its route ran (a buyer read refused by the per-address limit,
// a 404) is matched against the app's routes by path when it ends, so a refused
// /products/123 still counts as /products/:productId. Nothing matched: 'unmatched'.

/** The part of Express's router a template lookup reads (router 2: Layer#match is pure). */
interface RouterLayer {
  route?: { path: string; _handlesMethod(method: string): boolean };
  match(path: string): false | { pattern?: unknown };
}

/** The route template that answers `method path` in `app`, else the mount path of a middleware under it, else 'unmatched'. */
export function routeTemplate(app: Express, method: string, path: string): string {
  const stack = (app.router as unknown as { stack: RouterLayer[] }).stack;
  let mounted: string | undefined;
  for (const layer of stack) {
    const m = layer.match(path);
    if (!m) continue;
    if (layer.route) {
      if (layer.route._handlesMethod(method)) return layer.route.path;
    } else if (mounted === undefined && typeof m.pattern === 'string' && m.pattern !== '/') {
      mounted = `${m.pattern}/*`;
    }
  }
  return mounted ?? 'unmatched';
}

function templateOf(app: Express, req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? req.baseUrl + route.path : routeTemplate(app, req.method, req.path);
}

/** Observes every request's duration once it ends (or its client went away). */
export function requestMetrics(app: Express, metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.observe(req.method, templateOf(app, req), res.writableFinished ? res.statusCode : 'aborted', seconds);
    });
    next();
  };
}
