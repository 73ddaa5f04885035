// CPU time of the processes a benchmark exercises, to say where the time of a phase went:
// this Node process (process.cpuUsage), the PostgreSQL server (postmaster and its backends, from
// /proc) and the Elasticsearch node (its own process stats). Other users of the shared servers
// are counted too: read the figures beside the load average.
import { readFileSync, readdirSync } from 'node:fs';
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
      return { at: performance.now(), nodeMs: (u.user + u.system) / 1000, pgMs: treeMs(postmaster), esMs, otherMs: other ? treeMs(other.pid) : 0 };
    },
  };
}

/** "cores busy: node 0.62, postgres 0.31, elasticsearch 0.85" over the interval a..b. */
export function cpuLine(a: CpuSample, b: CpuSample, otherName?: string): string {
  const wall = b.at - a.at;
  const f = (x: number) => (x / wall).toFixed(2);
  const other = otherName ? `, ${otherName} ${f(b.otherMs - a.otherMs)}` : '';
  return `cores busy over ${(wall / 1000).toFixed(1)} s: this node process ${f(b.nodeMs - a.nodeMs)}, postgres ${f(b.pgMs - a.pgMs)}, elasticsearch ${f(b.esMs - a.esMs)}${other}`;
}
