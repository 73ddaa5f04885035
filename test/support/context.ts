import pg from 'pg';
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createEsClient } from '../../src/es/client.js';
import { createPool, type Pool } from '../../src/db/pool.js';
import { indexNames, type IndexNames } from '../../src/es/index-names.js';
import { loadEnv, type Env } from '../../src/config/env.js';
import type { Client } from '@elastic/elasticsearch';
import { databaseUrlFor } from './db-url.js';

export interface TestContext {
  env: Env;
  databaseUrl: string;
  pool: Pool;
  es: Client;
  index: IndexNames;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database and a fresh index prefix for one test file (or one test).
 * Both are named after the run, so global teardown removes them.
 */
export async function createTestContext(): Promise<TestContext> {
  const serverUrl = inject('databaseUrl');
  const runId = inject('runId');
  const name = `${runId}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${runId}_tpl`);
  await admin.end();
  const databaseUrl = databaseUrlFor(serverUrl, name);
  const env = loadEnv({
    ...process.env,
    DATABASE_URL: databaseUrl,
    ELASTICSEARCH_URL: inject('elasticsearchUrl'),
    INDEX_PREFIX: name,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The warmer asks the index in the background: off unless a test turns it on.
    DEGRADED_WARM_ENABLED: 'false',
  });
  const pool = createPool(databaseUrl, 10);
  const es = createEsClient(env.ELASTICSEARCH_URL, 30_000);
  return {
    env,
    databaseUrl,
    pool,
    es,
    index: indexNames(name),
    close: async () => {
      await pool.end();
      await es.close();
    },
  };
}
