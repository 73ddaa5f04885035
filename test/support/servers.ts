import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerUrls {
  databaseUrl: string;
  elasticsearchUrl: string;
  /** Stops whatever this function started (containers); the local stack is left running. */
  stop(): Promise<void>;
}

async function dockerAnswers(): Promise<boolean> {
  try {
    await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the tests' servers come from, in order: URLs already in the environment; containers
 * where a Docker engine answers; else the project's own local stack (installs on first use).
 */
export async function resolveServers(): Promise<ServerUrls> {
  const fromEnv = { db: process.env.DATABASE_URL, es: process.env.ELASTICSEARCH_URL };
  if (fromEnv.db && fromEnv.es) {
    return { databaseUrl: fromEnv.db, elasticsearchUrl: fromEnv.es, stop: async () => {} };
  }
  if (process.env.TEST_USE_LOCAL_STACK !== '1' && (await dockerAnswers())) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const { ElasticsearchContainer } = await import('@testcontainers/elasticsearch');
    const { ES_IMAGE } = await import('./es-image.js');
    const [pg, es] = await Promise.all([
      fromEnv.db ? null : new PostgreSqlContainer('postgres:15').start(),
      fromEnv.es
        ? null
        : new ElasticsearchContainer(ES_IMAGE).withEnvironment({ 'xpack.security.enabled': 'false', ES_JAVA_OPTS: '-Xms1g -Xmx1g' }).start(),
    ]);
    return {
      databaseUrl: fromEnv.db ?? pg!.getConnectionUri(),
      elasticsearchUrl: fromEnv.es ?? es!.getHttpUrl(),
      stop: async () => {
        await Promise.all([pg?.stop(), es?.stop()]);
      },
    };
  }
  // stack.sh honours whichever URL is already set and starts only the other.
  const { stdout } = await run('bash', [path.join(root, 'scripts/stack.sh'), 'up'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 15 * 60_000,
  });
  const value = (name: string) => stdout.match(new RegExp(`^${name}=(.+)$`, 'm'))?.[1]?.trim();
  const databaseUrl = value('DATABASE_URL');
  const elasticsearchUrl = value('ELASTICSEARCH_URL');
  if (!databaseUrl || !elasticsearchUrl) throw new Error(`stack.sh up printed no URLs:\n${stdout}`);
  return { databaseUrl, elasticsearchUrl, stop: async () => {} };
}
