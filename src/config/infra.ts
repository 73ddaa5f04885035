import type { Client } from '@elastic/elasticsearch';
import type { Env } from './env.js';
import type { Pool } from '../db/pool.js';
import type { IndexNames } from '../es/index-names.js';
import type { Logger } from '../lib/logger.js';

/** The process's connections and settings, passed in explicitly so tests run against their own servers. */
export interface Infra {
  env: Env;
  pool: Pool;
  /**
   * A small pool of its own for key lookups and /readyz, so one seller's burst of writes holding
   * every connection of `pool` cannot lock the others out or make the API look down. Defaults to pool.
   */
  authPool?: Pool;
  /**
   * The shared rate limiter's own pool (short lock and statement timeouts), so a locked or slow
   * `rate_limits` table holds none of the key lookups' or /readyz's connections. Defaults to authPool.
   */
  limitPool?: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
}
