import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entry-points.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm run webhooks` as a real child process, so tests can SIGKILL or SIGTERM it mid-delivery. */
export function spawnDispatcher(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, entryArgs('dispatcher/main.ts'), {
    cwd: root,
    env: { ...process.env, WEBHOOK_METRICS_PORT: '0', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}
