import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, findDistribution, pickPort, THROWAWAY_JAVA_OPTS } from '../../support/es-node.js';

// `npm run stack:up` as an operator meets it after `. .stack/env` (which exports both URLs): a
// server of this stack that was killed is started again, and a URL naming some other server that
// does not answer is an error, not "ready". Run on a stack of the test's own (a copy of
// scripts/stack.sh in a temp checkout, its own ports), never the one the suite uses.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const ES_VERSION = process.env.ES_VERSION ?? '9.2.4';

let dir: string;
let ports: { pg: number; es: number };

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function stack(cmd: 'up' | 'down' | 'status', urls: { DATABASE_URL?: string; ELASTICSEARCH_URL?: string } = {}): Promise<Result> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STACK_PG_PORT: String(ports.pg),
    STACK_ES_PORT: String(ports.es),
    STACK_ES_HEAP: '512m',
    // A throwaway stack started twice: the JIT options of the suite's other throwaway nodes.
    STACK_ES_JAVA_OPTS: THROWAWAY_JAVA_OPTS.server,
    STACK_ES_CLI_JAVA_OPTS: THROWAWAY_JAVA_OPTS.launcher,
    ...urls,
  };
  if (!urls.DATABASE_URL) delete env.DATABASE_URL;
  if (!urls.ELASTICSEARCH_URL) delete env.ELASTICSEARCH_URL;
  delete env.STACK_ES_NODES;
  return new Promise((resolve) => {
    execFile('bash', [path.join(dir, 'scripts/stack.sh'), cmd], { env, timeout: 300_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The URLs `stack.sh up` wrote to .stack/env, as `. .stack/env` exports them. */
function exported(): { DATABASE_URL: string; ELASTICSEARCH_URL: string } {
  const text = readFileSync(path.join(dir, '.stack/env'), 'utf8');
  const value = (name: string) => /^export (\w+)=(.*)$/m.exec(text.split('\n').find((l) => l.startsWith(`export ${name}=`)) ?? '')?.[2] ?? '';
  return { DATABASE_URL: value('DATABASE_URL'), ELASTICSEARCH_URL: value('ELASTICSEARCH_URL') };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/_cluster/health`, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

function pidOf(file: string): number {
  return Number(readFileSync(path.join(dir, file), 'utf8').split('\n')[0]!.trim());
}

async function killHard(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'stack-restart-'));
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(root, 'scripts/stack.sh'), path.join(dir, 'scripts/stack.sh'));
  // The distribution the suite's own stack already has: nothing is fetched again.
  const dist = findDistribution();
  if ('zip' in dist) {
    mkdirSync(path.join(dir, '.stack/dist'), { recursive: true });
    copyFileSync(dist.zip, path.join(dir, `.stack/dist/elasticsearch-${ES_VERSION}.zip`));
  } else {
    mkdirSync(path.join(dir, '.stack/es'), { recursive: true });
    cpSync(dist.home, path.join(dir, `.stack/es/elasticsearch-${ES_VERSION}`), {
      recursive: true,
      filter: (src) => !/\/(data|logs)$|\/es\.pid$/.test(src),
    });
  }
  const taken = new Set<number>();
  // Elasticsearch on 9800-9899: outside the ranges other test files' nodes pick from (9400-9799).
  ports = { pg: await pickPort(55400, taken), es: await pickPort(9800, taken) };
  const up = await stack('up');
  expect(up.code, up.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  if (dir) await stack('down');
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('stack:up with the URLs of .stack/env exported', () => {
  it('starts this stack’s own Elasticsearch and PostgreSQL again after they were killed', async () => {
    const urls = exported();
    expect(urls.ELASTICSEARCH_URL).toBe(`http://127.0.0.1:${ports.es}`);
    expect(await answers(urls.ELASTICSEARCH_URL)).toBe(true);

    await killHard(pidOf('.stack/es/es.pid'));
    await killHard(pidOf('.stack/pg/data/postmaster.pid'));
    expect(await answers(urls.ELASTICSEARCH_URL)).toBe(false);

    const up = await stack('up', urls);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toContain("ELASTICSEARCH_URL names this stack's Elasticsearch");
    expect(up.stderr).toContain("DATABASE_URL names this stack's PostgreSQL");
    expect(up.stderr).toMatch(/starting Elasticsearch/);
    expect(up.stderr).toMatch(/starting PostgreSQL/);
    expect(up.stdout).toContain(`ELASTICSEARCH_URL=http://127.0.0.1:${ports.es}`);
    expect(await answers(urls.ELASTICSEARCH_URL)).toBe(true);

    const status = await stack('status');
    expect(status.stdout).toMatch(/postgres: +running/);
    expect(status.stdout).toMatch(/cluster: +(green|yellow), 1 node\(s\)/);
  });

  it('fails, saying so, when a URL names another server that does not answer', async () => {
    const ours = exported();
    const taken = new Set([ports.pg, ports.es]);
    const deadEs = `http://127.0.0.1:${await pickPort(9800, taken)}`;
    const es = await stack('up', { DATABASE_URL: ours.DATABASE_URL, ELASTICSEARCH_URL: deadEs });
    expect(es.code).not.toBe(0);
    expect(es.stderr).toContain(`ELASTICSEARCH_URL=${deadEs} does not answer, and it is not this stack's Elasticsearch`);
    expect(es.stderr).not.toMatch(/\[stack\] ready/);

    const deadPg = `postgres://postgres@127.0.0.1:${await pickPort(55400, taken)}/marketplace`;
    const pg = await stack('up', { DATABASE_URL: deadPg, ELASTICSEARCH_URL: ours.ELASTICSEARCH_URL });
    expect(pg.code).not.toBe(0);
    expect(pg.stderr).toMatch(/DATABASE_URL names 127\.0\.0\.1:\d+, which does not answer, and it is not this stack's PostgreSQL/);

    // A server of this stack's that answers is simply used, as before.
    const again = await stack('up', ours);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Elasticsearch already running');
  });
});
