import type { Client } from '@elastic/elasticsearch';
import type { Env } from './env.js';
import type { Pool } from '../db/pool.js';
import type { IndexNames } from '../es/index-names.js';
import type { Logger } from '../lib/logger.js';

/** The process's connections and settings, passed in explicitly so tests run against their own servers. */
export interface Infra {
  env: Env;
  pool: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
}
