import type { RouteModule } from '../../app.js';
import { productRoutes } from './products.js';
import { searchRoutes } from './search.js';
import { lookupRoutes } from './lookup.js';
import { publicRateLimit } from '../../middleware/rate-limit.js';

/** The three public buyer reads, sharing one service (and so one Degraded Mode state). */
export const buyerRoutes: RouteModule = (app, deps) => {
  const service = deps.services.buyer;
  // Per client address (RATE_LIMIT_PUBLIC_PER_MIN), before any work is done for the request.
  app.use(['/products', '/search', '/lines'], publicRateLimit(deps));
  for (const register of [productRoutes(service), searchRoutes(service), lookupRoutes(service)]) register(app, deps);
};
