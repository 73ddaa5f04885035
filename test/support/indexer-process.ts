import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm run indexer` as a real child process, so tests can SIGKILL it mid-batch. */
export function spawnIndexer(env: { DATABASE_URL: string; ELASTICSEARCH_URL: string; INDEX_PREFIX: string } & Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'indexer/main.ts'], {
    cwd: root,
    env: { ...process.env, INDEXER_METRICS_PORT: '0', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
