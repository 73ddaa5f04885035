import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entry-points.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm run api` as a real child process on `port`; resolves once /healthz answers. */
export async function spawnApi(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    cwd: root,
    env: { ...process.env, DEGRADED_WARM_ENABLED: 'false', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API on port ${port} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the API on port ${port} did not answer within 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
