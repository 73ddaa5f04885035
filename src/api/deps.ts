import type { Client } from '@elastic/elasticsearch';
import type { Env } from '../config/env.js';
import type { Pool } from '../db/pool.js';
import type { IndexNames } from '../es/index-names.js';
import type { Logger } from '../lib/logger.js';

/** Everything a route needs, passed in explicitly so tests build an app against their own servers. */
export interface AppDeps {
  env: Env;
  pool: Pool;
  /**
   * A small pool of its own for key lookups and /readyz, so one seller's burst of writes holding
   * every connection of `pool` cannot lock the others out or make the API look down. Defaults to pool.
   */
  authPool?: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
}
