import type { RouteModule } from '../../app.js';
import { sellerListingWriteRoutes } from './listings-write.js';
import { sellerListingExportRoutes } from './listings-export.js';
import { sellerMeRoutes } from './me.js';
import { sellerOrderRoutes } from './orders.js';

/** The seller integration routes (listings writes and export, store status, orders). */
export const sellerRoutes: RouteModule[] = [sellerListingWriteRoutes, sellerListingExportRoutes, sellerMeRoutes, sellerOrderRoutes];
