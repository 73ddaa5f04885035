import type { RouteModule } from '../../app.js';
import { productRoutes } from './products.js';
import { searchRoutes } from './search.js';
import { lookupRoutes } from './lookup.js';
import { suggestRoutes } from './suggest.js';
import { publicRateLimit } from '../../middleware/rate-limit.js';

/** The public buyer reads, sharing one service (and so one Degraded Mode state). */
export const buyerRoutes: RouteModule = (app, deps) => {
  const service = deps.services.buyer;
  // Per client address (RATE_LIMIT_PUBLIC_PER_MIN), before any work is done for the request
  // ('/search' covers '/search/suggest').
  app.use(['/products', '/search', '/lines'], publicRateLimit(deps));
  for (const register of [productRoutes(service), suggestRoutes(service), searchRoutes(service), lookupRoutes(service)]) register(app, deps);
};
