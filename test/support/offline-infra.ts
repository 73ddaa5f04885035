import { Client } from '@elastic/elasticsearch';
import { loadEnv } from '../../src/config/env.js';
import type { Pool } from '../../src/db/pool.js';
import { indexNames } from '../../src/es/index-names.js';
import { createLogger } from '../../src/lib/logger.js';

/**
 * The infrastructure of a unit test that never reaches a server: the reads under test are plain
 * functions, the pool is never used, and the Elasticsearch client points at a closed port.
 */
export function offlineInfra(env: Record<string, string> = {}) {
  return {
    env: loadEnv(env),
    pool: {} as Pool,
    es: new Client({ node: 'http://127.0.0.1:9' }),
    index: indexNames('unit'),
    logger: createLogger('silent'),
  };
}
