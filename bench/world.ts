// Shared set-up of the benches: a database of their own on the server DATABASE_URL names
// (created, migrated and loaded with the seeded sample marketplace, or an existing one reused with
// --db), the API and the live indexer as child processes, and helpers to report the machine's load
// beside every figure.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { loadEnv, type Env } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { migrateUp } from '../src/db/migrate.js';
import { createSample } from '../tools/sample/generate.js';
import { loadSample } from '../tools/sample/pg-load.js';

export interface World {
  env: Env;
  dbName: string;
  dbUrl: string;
  /** true when this run created (and so may drop) the database. */
  created: boolean;
  drop(): Promise<void>;
}

/** Runs one statement on the server's `postgres` database (create/drop bench databases). */
export async function admin(baseUrl: string, sql: string): Promise<void> {
  const u = new URL(baseUrl);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * `db` given: that database on the same server, used as it is (it must hold a loaded sample).
 * Otherwise a fresh `bench_<tag>_<hex>` database is created, migrated, loaded and analyzed.
 */
export async function openWorld(opts: { tag: string; db?: string; listings: number; seed: number; log: (m: string) => void }): Promise<World> {
  const base = loadEnv();
  const dbName = opts.db ?? `bench_${opts.tag}_${randomBytes(3).toString('hex')}`;
  if (!/^[a-z0-9_]+$/.test(dbName)) throw new Error(`bad database name ${dbName}`);
  const u = new URL(base.DATABASE_URL);
  u.pathname = `/${dbName}`;
  const dbUrl = u.toString();
  const created = opts.db === undefined;
  if (created) {
    const t0 = performance.now();
    await admin(base.DATABASE_URL, `CREATE DATABASE ${dbName}`);
    await migrateUp(dbUrl);
    const pool = createPool(dbUrl, 2);
    try {
      const sample = createSample(opts.listings, opts.seed);
      await loadSample(pool, sample, { row: () => undefined, done: () => undefined });
      await pool.query('VACUUM ANALYZE');
    } finally {
      await pool.end();
    }
    opts.log(`database ${dbName}: sample of ${opts.listings} listings (seed ${opts.seed}) loaded in ${Math.round(performance.now() - t0)} ms`);
  } else {
    opts.log(`database ${dbName} reused as it is`);
  }
  return {
    env: { ...base, DATABASE_URL: dbUrl },
    dbName,
    dbUrl,
    created,
    drop: () => admin(base.DATABASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`),
  };
}

/** "load 2.31 / 2.80 / 3.02" (1, 5, 15 min averages) for the line of every figure. */
export function load(): string {
  return `load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ')}`;
}

export function pct(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface IndexerBatch {
  changes: number;
  docs: number;
  ms: number;
  /** Milliseconds per step of the batch (indexer/step-times.ts), when the indexer logs them. */
  steps?: Record<string, number>;
}

/**
 * The live indexer (`indexer/main.ts`) as a child process on a database and index prefix of the
 * bench's own; its 'batch indexed' log lines are collected into `batches`, warnings and errors
 * passed to `log`.
 */
export function spawnIndexer(
  root: string,
  env: { DATABASE_URL: string; ELASTICSEARCH_URL: string; INDEX_PREFIX: string },
  log: (m: string) => void,
): { child: ChildProcess; batches: IndexerBatch[] } {
  const batches: IndexerBatch[] = [];
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'indexer/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, INDEXER_METRICS_PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        const j = JSON.parse(line) as { msg?: string; changes?: number; docs?: number; ms?: number; level?: number; steps?: Record<string, number> };
        if (j.msg === 'batch indexed') batches.push({ changes: j.changes!, docs: j.docs!, ms: j.ms!, steps: j.steps });
        else if ((j.level ?? 0) >= 40) log(`indexer: ${line}`);
      } catch {
        /* not a log line */
      }
    }
  });
  return { child, batches };
}

/**
 * The API (`src/main.ts`, all routes) as a child process on `env` (INDEX_PREFIX and the like
 * added to this process's), with /metrics on its port; resolves once it answers /healthz and, as a
 * running API would before its buyers are measured, once its suggestion catalog is current
 * (unless SUGGEST_CATALOG=false).
 */
export async function spawnApi(
  root: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<{ child: ChildProcess; base: string; catalogMs: number | null }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HEALTH_DETAILS: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const text = (path: string) =>
    fetch(`${base}${path}`).then(
      (r) => (r.ok ? r.text() : ''),
      () => '',
    );
  for (const t0 = Date.now(); (await text('/healthz')) === ''; await sleep(200)) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    if (Date.now() - t0 > 30_000) throw new Error('the API did not come up');
  }
  if ((env.SUGGEST_CATALOG ?? process.env.SUGGEST_CATALOG) === 'false') return { child, base, catalogMs: null };
  const t0 = Date.now();
  while (!/suggest_catalog_state\{state="current"\} 1/.test(await text('/metrics'))) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    if (Date.now() - t0 > 300_000) throw new Error('the suggestion catalog did not become current');
    await sleep(500);
  }
  return { child, base, catalogMs: Date.now() - t0 };
}
