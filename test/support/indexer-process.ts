import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entry-points.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm run indexer` as a real child process, so tests can SIGKILL it mid-batch. */
export function spawnIndexer(env: { DATABASE_URL: string; ELASTICSEARCH_URL: string; INDEX_PREFIX: string } & Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, entryArgs('indexer/main.ts'), {
    cwd: root,
    env: { ...process.env, INDEXER_METRICS_PORT: '0', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

/**
 * `npm run reindex` as a real child process, its output piped, so tests can read its progress
 * lines and signal it in any phase. `nice` lowers its priority (it is still loading when signalled).
 */
export function spawnReindex(env: { DATABASE_URL: string; ELASTICSEARCH_URL: string; INDEX_PREFIX: string }, opts: { nice?: number } = {}): ChildProcess {
  const node = [process.execPath, ...entryArgs('scripts/reindex.ts')];
  const [cmd, ...args] = opts.nice === undefined ? node : ['nice', '-n', String(opts.nice), ...node];
  return spawn(cmd!, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', REINDEX_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
