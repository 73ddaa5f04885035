import type { RouteModule } from '../../app.js';
import { sellerListingWriteRoutes } from './listings-write.js';
import { sellerListingExportRoutes } from './listings-export.js';
import { sellerMeRoutes } from './me.js';

/** The seller integration routes except orders (listings writes and export, store status). */
export const sellerRoutes: RouteModule[] = [sellerListingWriteRoutes, sellerListingExportRoutes, sellerMeRoutes];
