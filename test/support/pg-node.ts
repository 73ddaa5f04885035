import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrateUp } from '../../src/db/migrate.js';
import { databaseUrlFor } from './db-url.js';
import { freePort } from './free-port.js';

// A throwaway PostgreSQL server for tests that restart the database (never the shared one),
// from the same Debian binaries scripts/stack.sh uses, run as the unprivileged service user.

const SVC_USER = process.env.STACK_USER ?? 'mpstack';
const isRoot = process.getuid?.() === 0;

function pgBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin/pg_ctl'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: run scripts/stack.sh up');
  return path.join(base, versions[0], 'bin');
}

export interface PgNode {
  /** Server URL (database `postgres`). */
  url: string;
  /** Stops immediately (as a crash: no shutdown checkpoint), waits `downMs`, starts again. */
  crashAndRestart(downMs: number): Promise<void>;
  destroy(): void;
}

export async function startPgNode(): Promise<PgNode> {
  const bin = pgBin();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pg-node-'));
  const data = path.join(dir, 'data');
  const uid = isRoot ? Number(execFileSync('id', ['-u', SVC_USER]).toString().trim()) : undefined;
  if (uid !== undefined) chownSync(dir, uid, 0);
  const as = (cmd: string, args: string[]) =>
    isRoot
      ? execFileSync('runuser', ['-u', SVC_USER, '--', cmd, ...args], { cwd: dir, stdio: 'pipe' })
      : execFileSync(cmd, args, { cwd: dir, stdio: 'pipe' });
  as(path.join(bin, 'initdb'), ['-D', data, '--auth=trust', '-U', 'postgres', '--encoding=UTF8', '--locale=C']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = () => as(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  const stop = (mode: string) => as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  // Asynchronous, so in-process clients (the indexer under test) keep running during the outage.
  const run = promisify(execFile);
  const asAsync = (cmd: string, args: string[]) =>
    isRoot ? run('runuser', ['-u', SVC_USER, '--', cmd, ...args], { cwd: dir }) : run(cmd, args, { cwd: dir });
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crashAndRestart(downMs) {
      await asAsync(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      await new Promise((r) => setTimeout(r, downMs));
      await asAsync(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
    },
    destroy() {
      try {
        stop('immediate');
      } catch {
        // already down
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A throwaway server with one migrated database, `market`: for tests that crash and restart PostgreSQL. */
export async function startPgNodeWithDatabase(): Promise<{ node: PgNode; databaseUrl: string }> {
  const node = await startPgNode();
  const admin = new pg.Client({ connectionString: node.url });
  await admin.connect();
  await admin.query('CREATE DATABASE market');
  await admin.end();
  const databaseUrl = databaseUrlFor(node.url, 'market');
  await migrateUp(databaseUrl);
  return { node, databaseUrl };
}
