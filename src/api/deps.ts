import type { Client } from '@elastic/elasticsearch';
import type { Env } from '../config/env.js';
import type { Pool } from '../db/pool.js';
import type { IndexNames } from '../es/index-names.js';
import type { Logger } from '../lib/logger.js';

/** Everything a route needs, passed in explicitly so tests build an app against their own servers. */
export interface AppDeps {
  env: Env;
  pool: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
}
