import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// A throwaway single-node Elasticsearch for tests that must stop the cluster (Degraded Mode):
// never the shared one. The distribution is found where scripts/stack.sh keeps it
// (.stack/es/elasticsearch-<v>/ unpacked, or .stack/dist/elasticsearch-<v>.zip), else in the
// scratch copy under /tmp/esdl; it is copied into a fresh temp dir owned by the unprivileged
// service user (ES refuses to run as root), with its own ports, data and logs.
//
//   const node = await startEsNode();   node.url → http://127.0.0.1:94xx
//   await node.kill();                  SIGKILL, as a crash
//   await node.restart();               same data and port
//   await node.destroy();               kill + remove the temp dir

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ES_VERSION = process.env.ES_VERSION ?? '9.2.4';
const SVC_USER = process.env.STACK_USER ?? 'mpstack';
const isRoot = process.getuid?.() === 0;

let fetched = false;

/** The ES home to copy from, or a zip to unpack: the same places scripts/stack.sh uses, then /tmp/esdl. */
export function findDistribution(): { home: string } | { zip: string } {
  const homes = [
    process.env.ES_NODE_HOME,
    path.join(root, '.stack/es', `elasticsearch-${ES_VERSION}`),
    path.join('/tmp/esdl', `elasticsearch-${ES_VERSION}`),
  ].filter((x): x is string => !!x);
  for (const h of homes) if (existsSync(path.join(h, 'bin/elasticsearch')) && existsSync(path.join(h, 'lib'))) return { home: h };
  const zips = [path.join(root, '.stack/dist', `elasticsearch-${ES_VERSION}.zip`), path.join('/tmp/esdl', `elasticsearch-${ES_VERSION}.zip`)];
  for (const z of zips) if (existsSync(z) && statSync(z).size > 0) return { zip: z };
  // The stack came from ELASTICSEARCH_URL (no local install): fetch the distribution once, as
  // scripts/stack.sh up would, instead of failing the fault tests on a fresh machine.
  if (!fetched) {
    fetched = true;
    execFileSync('bash', [path.join(root, 'scripts/stack.sh'), 'fetch-es'], { stdio: 'inherit', env: { ...process.env, ES_VERSION } });
    return findDistribution();
  }
  throw new Error(`no Elasticsearch ${ES_VERSION} distribution: run scripts/stack.sh up (or set ES_NODE_HOME)`);
}

function javaMajor(home: string): number {
  try {
    const release = readFileSync(path.join(home, 'release'), 'utf8');
    const v = /^JAVA_VERSION="(?:1\.)?(\d+)/m.exec(release)?.[1];
    return v ? Number(v) : 0;
  } catch {
    return 0;
  }
}

/** STACK_ES_JAVA_HOME, else the newest JDK >= 21 under /usr/lib/jvm (as scripts/stack.sh picks it). */
export function findJdk(): string {
  if (process.env.STACK_ES_JAVA_HOME) return process.env.STACK_ES_JAVA_HOME;
  let best = '';
  let bestV = 0;
  for (const d of readdirSync('/usr/lib/jvm')) {
    const home = path.join('/usr/lib/jvm', d);
    try {
      if (!existsSync(path.join(home, 'bin/java')) || lstatSync(home).isSymbolicLink()) continue;
    } catch {
      continue;
    }
    const v = javaMajor(home);
    if (v >= 21 && v > bestV) {
      best = home;
      bestV = v;
    }
  }
  if (!best) throw new Error('no JDK >= 21 under /usr/lib/jvm (set STACK_ES_JAVA_HOME)');
  return best;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function pickPort(base: number): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = base + Math.floor(Math.random() * 100);
    if (await portFree(p)) return p;
  }
  throw new Error(`no free port in ${base}..${base + 99}`);
}

export interface EsNode {
  url: string;
  httpPort: number;
  dir: string;
  pid(): number | null;
  /** SIGKILL, as a crash; resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts again on the same port and data; resolves when the cluster answers. */
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startEsNode(opts: { heap?: string; startTimeoutMs?: number } = {}): Promise<EsNode> {
  const dist = findDistribution();
  const jdk = findJdk();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'es-node-'));
  const home = path.join(dir, 'home');
  if ('home' in dist) {
    // The home without a previous run's state (data, logs, pid file).
    execFileSync('mkdir', ['-p', home]);
    for (const entry of readdirSync(dist.home)) {
      if (['data', 'logs', 'es.pid'].includes(entry)) continue;
      execFileSync('cp', ['-r', path.join(dist.home, entry), home]);
    }
  } else {
    execFileSync('unzip', ['-q', dist.zip, '-d', dir]);
    execFileSync('mv', [path.join(dir, `elasticsearch-${ES_VERSION}`), home]);
  }
  const httpPort = await pickPort(9400);
  const transportPort = await pickPort(9500);
  writeFileSync(
    path.join(home, 'config/elasticsearch.yml'),
    [
      '# written by test/support/es-node.ts',
      `cluster.name: es-node-${path.basename(dir)}`,
      'node.name: node-1',
      'discovery.type: single-node',
      'network.host: 127.0.0.1',
      `http.port: ${httpPort}`,
      `transport.port: ${transportPort}`,
      `path.data: ${path.join(dir, 'data')}`,
      `path.logs: ${path.join(dir, 'logs')}`,
      'xpack.security.enabled: false',
      'cluster.routing.allocation.disk.threshold_enabled: false',
      'action.destructive_requires_name: false',
      '',
    ].join('\n'),
  );
  if (isRoot) execFileSync('chown', ['-R', `${SVC_USER}:`, dir]);
  const pidFile = path.join(dir, 'es.pid');
  const url = `http://127.0.0.1:${httpPort}`;
  const heap = opts.heap ?? '512m';
  const startTimeoutMs = opts.startTimeoutMs ?? 120_000;

  const readPid = (): number | null => {
    try {
      const n = Number(readFileSync(pidFile, 'utf8').trim());
      return Number.isInteger(n) && n > 0 ? n : null;
    } catch {
      return null;
    }
  };

  async function start(): Promise<void> {
    rmSync(pidFile, { force: true });
    const env: NodeJS.ProcessEnv = { ...process.env, ES_JAVA_HOME: jdk, ES_JAVA_OPTS: `-Xms${heap} -Xmx${heap}` };
    delete env.JAVA_HOME;
    const bin = path.join(home, 'bin/elasticsearch');
    const [cmd, args] = isRoot
      ? [
          'runuser',
          ['-u', SVC_USER, '--', 'env', '-u', 'JAVA_HOME', `ES_JAVA_HOME=${jdk}`, `ES_JAVA_OPTS=-Xms${heap} -Xmx${heap}`, bin, '-d', '-p', pidFile],
        ]
      : [bin, ['-d', '-p', pidFile]];
    try {
      await run(cmd as string, args as string[], { cwd: home, env, timeout: startTimeoutMs });
    } catch (err) {
      throw new Error(`Elasticsearch did not start: ${(err as Error).message}\n${logTail()}`);
    }
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      try {
        const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, { signal: AbortSignal.timeout(3000) });
        if (res.ok) return;
      } catch {
        // not up yet
      }
      const pid = readPid();
      if (pid !== null && !alive(pid)) throw new Error(`Elasticsearch exited during startup\n${logTail()}`);
      if (Date.now() > deadline) throw new Error(`Elasticsearch did not answer within ${startTimeoutMs} ms\n${logTail()}`);
      await sleep(250);
    }
  }

  function logTail(): string {
    try {
      const logs = path.join(dir, 'logs');
      const file = readdirSync(logs).find((f) => f.endsWith('.log') && f.startsWith('es-node-'));
      return file ? readFileSync(path.join(logs, file), 'utf8').split('\n').slice(-30).join('\n') : '';
    } catch {
      return '';
    }
  }

  async function kill(): Promise<void> {
    const pid = readPid();
    if (pid === null || !alive(pid)) return;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 200 && alive(pid); i++) await sleep(50);
  }

  await start();
  return {
    url,
    httpPort,
    dir,
    pid: readPid,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    destroy: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
