import type { RouteModule } from '../../app.js';
import { createBuyerService } from '../../../search/buyer-service.js';
import { productRoutes } from './products.js';
import { searchRoutes } from './search.js';
import { lookupRoutes } from './lookup.js';

/** The three public buyer reads, sharing one service (and so one Degraded Mode state). */
export const buyerRoutes: RouteModule = (app, deps) => {
  const service = createBuyerService(deps);
  for (const register of [productRoutes(service), searchRoutes(service), lookupRoutes(service)]) register(app, deps);
};
