import type { RouteModule } from '../app.js';
import { healthRoutes } from './health.js';
import { buyerRoutes } from './buyer/index.js';
import { docsRoutes } from './docs.js';
import { sellerRoutes } from './seller/index.js';
import { storefrontRoutes } from './storefront.js';

// Each route group owns one file; add a group here to mount it.
export const routeModules: RouteModule[] = [healthRoutes, docsRoutes, storefrontRoutes, buyerRoutes, ...sellerRoutes];
