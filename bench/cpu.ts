// CPU time of the processes a benchmark exercises, to say where the time of a phase went:
// this Node process (process.cpuUsage), the PostgreSQL server (postmaster and its backends, from
// /proc) and the Elasticsearch node (its own process stats). Other users of the shared servers
// are counted too: read the figures beside the load average.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';

const TICK_MS = 10; // USER_HZ = 100 on Linux

function procStat(pid: number): { ppid: number; ms: number; childMs: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // fields after "(comm)": state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
    return { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * TICK_MS, childMs: (Number(f[13]) + Number(f[14])) * TICK_MS };
  } catch {
    return null;
  }
}

/** CPU ms of a process and its live children plus the children it has reaped. */
function treeMs(root: number): number {
  const me = procStat(root);
  if (!me) return NaN;
  let total = me.ms + me.childMs;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === root) continue;
    const st = procStat(pid);
    if (st && st.ppid === root) total += st.ms;
  }
  return total;
}

export interface CpuMeter {
  sample(): Promise<CpuSample>;
}
export interface CpuSample {
  at: number;
  nodeMs: number;
  pgMs: number;
  esMs: number;
  /** CPU ms of an extra process (the API child), when one is watched. */
  otherMs: number;
  /** Per CPU, from /proc/stat: ticks busy (anything but idle and iowait), of which in the kernel (system, irq, softirq, steal). */
  cpus: { busy: number; kernel: number; total: number }[];
}

/**
 * Busy ticks per CPU. Process figures miss work charged to no process (softirq time of the
 * loopback network path on kernels with IRQ time accounting, steal on a VM): this says whether a
 * CPU as a whole was saturated.
 */
function perCpu(): CpuSample['cpus'] {
  try {
    return readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((l) => /^cpu\d+ /.test(l))
      .map((l) => {
        // user nice system idle iowait irq softirq steal
        const [user, nice, system, idle, iowait, irq, softirq, steal] = l.split(/\s+/).slice(1, 9).map(Number) as number[];
        const total = user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!;
        return { busy: total - idle! - iowait!, kernel: system! + irq! + softirq! + steal!, total };
      });
  } catch {
    return [];
  }
}

export async function cpuMeter(pool: Pool, es: Client, other?: { pid: number; name: string }): Promise<CpuMeter & { otherName?: string }> {
  const { rows } = await pool.query('SELECT pg_backend_pid() AS pid');
  const postmaster = procStat(rows[0].pid)?.ppid ?? -1;
  return {
    otherName: other?.name,
    async sample() {
      const res = (await es.nodes.stats({ node_id: '_local', metric: 'process' })) as unknown as {
        nodes: Record<string, { process: { cpu: { total_in_millis: number } } }>;
      };
      const esMs = Object.values(res.nodes)[0]?.process.cpu.total_in_millis ?? NaN;
      const u = process.cpuUsage();
      return {
        at: performance.now(),
        nodeMs: (u.user + u.system) / 1000,
        pgMs: treeMs(postmaster),
        esMs,
        otherMs: other ? treeMs(other.pid) : 0,
        cpus: perCpu(),
      };
    },
  };
}

/** "cores busy: node 0.62, postgres 0.31, elasticsearch 0.85" over the interval a..b. */
export function cpuLine(a: CpuSample, b: CpuSample, otherName?: string): string {
  const wall = b.at - a.at;
  const f = (x: number) => (x / wall).toFixed(2);
  const other = otherName ? `, ${otherName} ${f(b.otherMs - a.otherMs)}` : '';
  const cpus = b.cpus
    .map((c, i) => {
      const a0 = a.cpus[i];
      if (!a0 || c.total === a0.total) return '';
      const t = c.total - a0.total;
      return `cpu${i} ${((c.busy - a0.busy) / t).toFixed(2)} (kernel ${((c.kernel - a0.kernel) / t).toFixed(2)})`;
    })
    .filter(Boolean)
    .join(', ');
  return `cores busy over ${(wall / 1000).toFixed(1)} s: this node process ${f(b.nodeMs - a.nodeMs)}, postgres ${f(b.pgMs - a.pgMs)}, elasticsearch ${f(b.esMs - a.esMs)}${other}${cpus ? `; whole CPUs: ${cpus}` : ''}`;
}

// ---- CPU pinning (bench:read-api --pin) ----
// On the shared 2-core machine every CPU-millisecond the API (or autocannon) spends is taken
// from Elasticsearch. Production runs the API on its own hosts; --pin approximates that:
// Elasticsearch on CPU 0, the API and the load generator on CPU 1.

/** PID of the process with a listening TCP socket on `port` (IPv4 or IPv6), from /proc. */
export function listeningPid(port: number): number | null {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st ... inode(9); st 0A = LISTEN
      if (f.length < 10 || f[3] !== '0A') continue;
      if (parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${name}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(name);
      } catch {
        /* fd closed meanwhile */
      }
    }
  }
  return null;
}

function taskset(args: string[]): string {
  const r = spawnSync('taskset', args, { encoding: 'utf8' });
  if (r.error) throw new Error(`taskset ${args.join(' ')}: ${r.error.message} (is util-linux installed?)`);
  if (r.status !== 0) throw new Error(`taskset ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout.trim();
}

/** CPU list of a process's main thread, as taskset prints it (e.g. "0,1" or "0-3"). */
export function cpuAffinity(pid: number): string {
  const out = taskset(['-c', '-p', String(pid)]);
  const m = /current affinity list:\s*(\S+)/.exec(out);
  if (!m) throw new Error(`cannot read the CPU affinity of pid ${pid}: ${out}`);
  return m[1]!;
}

/** Sets the CPU list of every thread of `pid` (taskset -a). */
export function setCpuAffinity(pid: number, cpus: string): void {
  taskset(['-a', '-p', '-c', cpus, String(pid)]);
}

export function threadCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

export interface Pinning {
  esPid: number;
  /** Elasticsearch's CPU list before pinning, restored by unpin(). */
  esBefore: string;
  /** One line for logs and result headers. */
  describe(): string;
  /** Pins another process (all its threads) to the API's CPU (the API child, the pass-through proxy). */
  pinApi(pid: number, name: string): void;
  /** Restores Elasticsearch's CPU list; idempotent, synchronous (safe in an 'exit' handler). */
  unpin(): void;
}

/**
 * Pins the Elasticsearch server (the process listening on the port of `esUrl`, all threads) to
 * CPU `esCpu` and this process (the load generator; all threads) to `benchCpu`; pinApi() puts
 * the API side on `apiCpu`. Call unpin() when done; pin() also restores on exit, SIGINT, SIGTERM
 * and SIGHUP.
 */
export function pin(esUrl: string, opts: { esCpu?: number; apiCpu?: number; benchCpu?: number; log?: (m: string) => void } = {}): Pinning {
  const esCpu = String(opts.esCpu ?? 0);
  const apiCpu = String(opts.apiCpu ?? 1);
  const loadCpu = String(opts.benchCpu ?? apiCpu);
  const log = opts.log ?? (() => undefined);
  const u = new URL(esUrl);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const esPid = listeningPid(port);
  if (esPid === null) throw new Error(`--pin: no process listens on port ${port} (${esUrl}); is Elasticsearch running on this machine?`);
  const comm = readFileSync(`/proc/${esPid}/comm`, 'utf8').trim();
  if (comm !== 'java') log(`warning: the process listening on port ${port} is '${comm}' (pid ${esPid}), not java`);
  const esBefore = cpuAffinity(esPid);
  const apis: string[] = [];
  let pinned = true;
  const unpin = () => {
    if (!pinned) return;
    pinned = false;
    try {
      setCpuAffinity(esPid, esBefore);
      log(`unpinned: Elasticsearch (pid ${esPid}) back on CPUs ${esBefore}`);
    } catch (err) {
      console.error(`[pin] could not restore Elasticsearch's CPUs (${esBefore}): ${(err as Error).message}; run: taskset -a -p -c ${esBefore} ${esPid}`);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    unpin();
    process.kill(process.pid, signal);
  };
  process.once('exit', unpin);
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, onSignal);
  try {
    setCpuAffinity(esPid, esCpu);
    setCpuAffinity(process.pid, loadCpu);
  } catch (err) {
    unpin();
    throw err;
  }
  log(
    `pinned: Elasticsearch (java pid ${esPid}, ${threadCount(esPid)} threads) to CPU ${esCpu} (was ${esBefore}); this process (autocannon, pid ${process.pid}) to CPU ${loadCpu}`,
  );
  return {
    esPid,
    esBefore,
    describe: () =>
      `pinned: Elasticsearch (pid ${esPid}) on CPU ${esCpu}; ${apis.join(', ')} on CPU ${apiCpu}; ` +
      `autocannon (this process, pid ${process.pid}) on CPU ${loadCpu}${loadCpu === esCpu ? ', with Elasticsearch' : loadCpu === apiCpu ? ', with the API' : ''}`,
    pinApi(pid, name) {
      setCpuAffinity(pid, apiCpu);
      apis.push(`${name} pid ${pid}`);
      log(`pinned: ${name} (pid ${pid}, ${threadCount(pid)} threads) to CPU ${apiCpu}`);
    },
    unpin,
  };
}
