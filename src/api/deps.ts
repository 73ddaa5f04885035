import type { Infra } from '../config/infra.js';
import type { Services } from '../services.js';

/** Everything a route needs: the process's connections and its services (see src/services.ts). */
export interface AppDeps extends Infra {
  services: Services;
}
