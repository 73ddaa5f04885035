import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Throwaway Elasticsearch nodes for tests that must stop them (Degraded Mode, node loss): never
// the shared one. The distribution is found where scripts/stack.sh keeps it
// (.stack/es/elasticsearch-<v>/ unpacked, or .stack/dist/elasticsearch-<v>.zip), else in the
// scratch copy under /tmp/esdl; each node gets a copy in a fresh temp dir owned by the
// unprivileged service user (ES refuses to run as root), with its own ports, data and logs, bound
// to loopback. Transport ports are explicit (95xx, 97xx for clusters), outside the 9300-9399 range
// other nodes on the machine take by default, so a cluster's nodes never discover a stranger.
//
//   const node = await startEsNode();          node.url → http://127.0.0.1:94xx
//   await node.kill();                         SIGKILL, as a crash
//   await node.restart();                      same data and port
//   await node.destroy();                      kill + remove the temp dir
//   const cluster = await startEsCluster(3);   three master-eligible data nodes, cluster.url lists all
//   await cluster.nodes[1].stop();             SIGTERM, as a rolling restart does; .start() brings it back

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ES_VERSION = process.env.ES_VERSION ?? '9.2.4';
const SVC_USER = process.env.STACK_USER ?? 'mpstack';
const isRoot = process.getuid?.() === 0;

let fetched = false;

// A throwaway node's start on two busy cores went mostly to the JIT and to touching the heap page
// by page (Elasticsearch's jvm.options asks for that): the heap is not pre-touched, and the server
// and its CLI launcher run on the client compiler alone. A test node lives for minutes, and the
// server compiler's work never paid back in that time: the three-node cluster test took 449
// CPU-seconds with it and 294 without, its nodes restarting in 17-23 s instead of 25-44 s.
const SERVER_JAVA_OPTS = process.env.TEST_ES_JAVA_OPTS ?? '-XX:-AlwaysPreTouch -XX:TieredStopAtLevel=1';
const LAUNCHER_JAVA_OPTS = process.env.TEST_ES_CLI_JAVA_OPTS ?? '-XX:TieredStopAtLevel=1';
// Elasticsearch's jvm.options picks G1, made for large heaps, with concurrent marking from 30% of
// the heap. On 512 MB test nodes the serial collector costs less: the nodes of the cluster test
// alone took 132 CPU-seconds instead of 149, the whole test 173-218 (mean 188) instead of 203-222
// (mean 213). Production and the shared node keep G1.
const GC_OPTION = process.env.TEST_ES_GC ?? '-XX:+UseSerialGC';
/** The JVM options of throwaway nodes, for tests that start one through scripts/stack.sh. */
export const THROWAWAY_JAVA_OPTS = { server: SERVER_JAVA_OPTS, launcher: LAUNCHER_JAVA_OPTS };

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

/** A free loopback port in base..base+99 not already in `taken` (which it joins). */
export async function pickPort(base: number, taken: Set<number> = new Set()): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = base + Math.floor(Math.random() * 100);
    if (!taken.has(p) && (await portFree(p))) {
      taken.add(p);
      return p;
    }
  }
  throw new Error(`no free port in ${base}..${base + 99}`);
}

export interface EsNode {
  url: string;
  name: string;
  httpPort: number;
  dir: string;
  pid(): number | null;
  /** SIGKILL, as a crash; resolves when the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, as an orderly shutdown; resolves when the process is gone. */
  stop(): Promise<void>;
  /** Starts a stopped node on the same port and data; resolves when it answers (has joined its cluster). */
  start(): Promise<void>;
  /** kill() then start(). */
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

export interface EsCluster {
  /** Every node, comma-separated: what ELASTICSEARCH_URL takes. */
  url: string;
  nodes: EsNode[];
  destroy(): Promise<void>;
}

interface NodeOptions {
  heap?: string;
  startTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A copy of the distribution in a fresh temp dir (config still to write). */
function unpackedHome(): { dir: string; home: string } {
  const dist = findDistribution();
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
  return { dir, home };
}

interface NodeConfig {
  clusterName: string;
  nodeName: string;
  httpPort: number;
  transportPort: number;
  /** The discovery lines: single-node, or seed hosts and the initial masters of a cluster. */
  discovery: string[];
}

/** Prepares one node (its own copy, config, ports) and returns its controls; nothing is started yet. */
function prepareNode(cfg: NodeConfig, opts: NodeOptions, jdk: string): EsNode {
  const { dir, home } = unpackedHome();
  writeFileSync(
    path.join(home, 'config/elasticsearch.yml'),
    [
      '# written by test/support/es-node.ts',
      `cluster.name: ${cfg.clusterName}`,
      `node.name: ${cfg.nodeName}`,
      ...cfg.discovery,
      'network.host: 127.0.0.1',
      `http.port: ${cfg.httpPort}`,
      `transport.port: ${cfg.transportPort}`,
      `path.data: ${path.join(dir, 'data')}`,
      `path.logs: ${path.join(dir, 'logs')}`,
      'xpack.security.enabled: false',
      'cluster.routing.allocation.disk.threshold_enabled: false',
      'action.destructive_requires_name: false',
      '',
    ].join('\n'),
  );
  const jvmOptions = path.join(home, 'config/jvm.options');
  writeFileSync(jvmOptions, readFileSync(jvmOptions, 'utf8').replace(/^-XX:\+UseG1GC$/m, GC_OPTION));
  if (isRoot) execFileSync('chown', ['-R', `${SVC_USER}:`, dir]);
  const pidFile = path.join(dir, 'es.pid');
  const url = `http://127.0.0.1:${cfg.httpPort}`;
  const heap = opts.heap ?? '512m';
  // A start took 3.5 minutes once at load 30: the bound is for a node that never comes up.
  const startTimeoutMs = opts.startTimeoutMs ?? 240_000;

  const readPid = (): number | null => {
    try {
      const n = Number(readFileSync(pidFile, 'utf8').trim());
      return Number.isInteger(n) && n > 0 ? n : null;
    } catch {
      return null;
    }
  };

  function logTail(): string {
    try {
      return readFileSync(path.join(dir, 'logs', `${cfg.clusterName}.log`), 'utf8')
        .split('\n')
        .slice(-30)
        .join('\n');
    } catch {
      return '';
    }
  }

  /** Launches the daemon (returns once the JVM has started; joining a cluster comes after). */
  async function launch(): Promise<void> {
    rmSync(pidFile, { force: true });
    const javaOpts = `-Xms${heap} -Xmx${heap} ${SERVER_JAVA_OPTS}`.trim();
    const env: NodeJS.ProcessEnv = { ...process.env, ES_JAVA_HOME: jdk, ES_JAVA_OPTS: javaOpts, CLI_JAVA_OPTS: LAUNCHER_JAVA_OPTS };
    delete env.JAVA_HOME;
    const bin = path.join(home, 'bin/elasticsearch');
    const [cmd, args] = isRoot
      ? [
          'runuser',
          [
            '-u',
            SVC_USER,
            '--',
            'env',
            '-u',
            'JAVA_HOME',
            `ES_JAVA_HOME=${jdk}`,
            `ES_JAVA_OPTS=${javaOpts}`,
            `CLI_JAVA_OPTS=${LAUNCHER_JAVA_OPTS}`,
            bin,
            '-d',
            '-p',
            pidFile,
          ],
        ]
      : [bin, ['-d', '-p', pidFile]];
    try {
      await run(cmd as string, args as string[], { cwd: home, env, timeout: startTimeoutMs });
    } catch (err) {
      throw new Error(`Elasticsearch ${cfg.nodeName} did not start: ${(err as Error).message}\n${logTail()}`);
    }
  }

  /** Resolves when the node answers cluster health (so it has a master: it has joined its cluster). */
  async function ready(): Promise<void> {
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      try {
        const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, { signal: AbortSignal.timeout(3000) });
        if (res.ok) return;
      } catch {
        // not up yet
      }
      const pid = readPid();
      if (pid !== null && !alive(pid)) throw new Error(`Elasticsearch ${cfg.nodeName} exited during startup\n${logTail()}`);
      if (Date.now() > deadline) throw new Error(`Elasticsearch ${cfg.nodeName} did not answer within ${startTimeoutMs} ms\n${logTail()}`);
      await sleep(250);
    }
  }

  async function signal(sig: NodeJS.Signals): Promise<void> {
    const pid = readPid();
    if (pid === null || !alive(pid)) return;
    process.kill(pid, sig);
    const deadline = Date.now() + 60_000;
    while (alive(pid) && Date.now() < deadline) await sleep(50);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(50);
  }

  const kill = () => signal('SIGKILL');
  const start = async () => {
    await launch();
    await ready();
  };
  return {
    url,
    name: cfg.nodeName,
    httpPort: cfg.httpPort,
    dir,
    pid: readPid,
    kill,
    stop: () => signal('SIGTERM'),
    start,
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

/** A single-node cluster of its own (discovery.type single-node). */
export async function startEsNode(opts: NodeOptions = {}): Promise<EsNode> {
  const jdk = findJdk();
  const taken = new Set<number>();
  const httpPort = await pickPort(9400, taken);
  const transportPort = await pickPort(9500, taken);
  const node = prepareNode(
    { clusterName: `es-node-${httpPort}`, nodeName: 'node-1', httpPort, transportPort, discovery: ['discovery.type: single-node'] },
    opts,
    jdk,
  );
  try {
    await node.start();
  } catch (err) {
    await node.destroy();
    throw err;
  }
  return node;
}

/**
 * A cluster of `count` master-eligible data nodes on loopback, each with its own copy, data, logs,
 * explicit HTTP and transport ports and a small heap (512m by default), started side by side.
 * Resolves when every node has joined and the cluster is green.
 */
export async function startEsCluster(count: number, opts: NodeOptions = {}): Promise<EsCluster> {
  const jdk = findJdk();
  const taken = new Set<number>();
  const ports: { http: number; transport: number }[] = [];
  // Ports of their own (96xx, 97xx), not the single nodes' 94xx and 95xx: a node stopped for a
  // restart leaves its port free, and a single node started meanwhile must not take it.
  for (let i = 0; i < count; i++) ports.push({ http: await pickPort(9600, taken), transport: await pickPort(9700, taken) });
  const names = ports.map((_, i) => `node-${i + 1}`);
  const discovery = [
    `discovery.seed_hosts: [${ports.map((p) => `"127.0.0.1:${p.transport}"`).join(', ')}]`,
    `cluster.initial_master_nodes: [${names.map((n) => `"${n}"`).join(', ')}]`,
  ];
  const clusterName = `es-cluster-${ports[0]!.http}`;
  const nodes = ports.map((p, i) => prepareNode({ clusterName, nodeName: names[i]!, httpPort: p.http, transportPort: p.transport, discovery }, opts, jdk));
  const destroy = async () => {
    await Promise.all(nodes.map((n) => n.destroy()));
  };
  try {
    // Side by side: a node waits for the others before it can elect a master.
    await Promise.all(nodes.map((n) => n.start()));
    const deadline = Date.now() + (opts.startTimeoutMs ?? 120_000);
    for (;;) {
      const res = await fetch(`${nodes[0]!.url}/_cluster/health?wait_for_nodes=${count}&wait_for_status=green&timeout=5s`).catch(() => null);
      if (res?.ok) break;
      if (Date.now() > deadline) throw new Error(`the ${count}-node cluster did not turn green: ${res ? await res.text() : 'no answer'}`);
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  return { url: nodes.map((n) => n.url).join(','), nodes, destroy };
}
