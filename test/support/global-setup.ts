import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createEsClient } from '../../src/es/client.js';
import { migrateUp } from '../../src/db/migrate.js';
import { resolveServers } from './servers.js';
import { databaseUrlFor } from './db-url.js';
import { buildEntryPoints, entryPointsDir, pruneStaleEntryPoints, removeEntryPoints } from './entry-points-build.js';

// One run = one migrated template database and one name stem. Each test file clones the template
// (CREATE DATABASE ... TEMPLATE is fast) and uses its own index prefix, so files and runs never
// see each other's data.
export default async function setup(project: TestProject) {
  const started = Date.now();
  const servers = await resolveServers();
  const runId = `t${Date.now().toString(36)}${process.pid.toString(36)}`;
  const template = `${runId}_tpl`;
  // Bundled while the template is migrated; a build error is thrown by the await below, not left
  // as an unhandled rejection that ends the run before the migration does.
  const bundled = pruneStaleEntryPoints().then(() => buildEntryPoints(entryPointsDir(runId)));
  bundled.catch(() => undefined);

  const admin = new pg.Client({ connectionString: servers.databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await migrateUp(databaseUrlFor(servers.databaseUrl, template));
  // A template must have no other connections when cloned; migrateUp has closed its own.
  await bundled;

  project.provide('databaseUrl', servers.databaseUrl);
  project.provide('elasticsearchUrl', servers.elasticsearchUrl);
  project.provide('runId', runId);
  console.log(`[test setup] servers ready, template ${template} migrated in ${Date.now() - started} ms`);

  return async () => {
    const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${runId}%`]);
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
    }
    await admin.end();
    const es = createEsClient(servers.elasticsearchUrl, 30_000);
    await es.indices.delete({ index: `${runId}*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    await es.close();
    await servers.stop();
    await removeEntryPoints(runId);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    elasticsearchUrl: string;
    runId: string;
  }
}
