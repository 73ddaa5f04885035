import type { Client } from '@elastic/elasticsearch';
import { failoverRetries } from '../../es/client.js';
import type { Observation } from './breaker.js';

// Polls the search cluster about once a second, as the API sees it: the health of the indices
// behind the alias (`_cluster/health/{alias}`: red when a primary is unassigned, or when no index
// answers to the alias), then a size-0 probe search through the alias, which also catches what
// health does not (a closed index behind the alias is "green" yet refuses every search).
// Each tick's outcome goes to the breaker; the watcher itself never throws.
//
// On a cluster, losing one node is not an outage: health is read from the answering node's own
// cluster state (`local`), so a master election after the master died does not time the tick
// out; both calls try the other nodes when one refuses the connection; and yellow (a replica
// unassigned, every primary serving), or red while no master is elected but every primary
// serves, is a good observation when the probe search answers.

export interface ClusterWatchOptions {
  intervalMs: number;
  /** Per-call timeout of the health call and of the probe search. */
  timeoutMs: number;
}

export const DEFAULT_WATCH: ClusterWatchOptions = { intervalMs: 1000, timeoutMs: 800 };

export interface ClusterView {
  /** What the last tick saw; `unknown` until the first tick finishes. */
  status: 'green' | 'yellow' | 'red' | 'unreachable' | 'probe-failed' | 'unknown';
  detail: string | null;
  checkedAt: number | null;
  latencyMs: number | null;
}

interface EsError {
  name?: string;
  message?: string;
  meta?: { statusCode?: number; body?: unknown };
}

function describe(err: unknown): string {
  const e = err as EsError;
  const body = e.meta?.body as { error?: { type?: string; reason?: string } } | undefined;
  const type = body?.error?.type;
  if (type) return `${type}${body?.error?.reason ? `: ${body.error.reason}` : ''}`;
  return `${e.name ?? 'Error'}: ${e.message ?? String(err)}`;
}

/** True when the error means the cluster did not answer at all (refused, reset, timed out). */
export function isTransportFailure(err: unknown): boolean {
  const name = (err as EsError).name;
  return name === 'ConnectionError' || name === 'TimeoutError' || name === 'NoLivingConnectionsError' || name === 'RequestAbortedError';
}

/** One look at the cluster: health of the alias's indices, then a probe search through it. */
export async function observeCluster(es: Client, alias: string, timeoutMs: number, now: () => number = Date.now): Promise<Observation> {
  const transport = { requestTimeout: timeoutMs, maxRetries: failoverRetries(es) };
  const startedAt = now();
  // A timeout (not a refusal) carries when the tick began: the breaker weighs it against the
  // buyer queries answered since (a busy cluster answers them; a hung one does not).
  const unreachable = (err: unknown): Observation =>
    (err as EsError).name === 'TimeoutError'
      ? { kind: 'unreachable', detail: describe(err), timedOutSince: startedAt }
      : { kind: 'unreachable', detail: describe(err) };
  let status: 'green' | 'yellow';
  try {
    // A missing alias makes health wait for it and answer 408 with status red.
    const health = await es.cluster.health(
      { index: alias, local: true, timeout: `${Math.max(50, Math.floor(timeoutMs / 2))}ms` },
      { ...transport, ignore: [408] },
    );
    // Red with every primary active is a cluster-level block, not lost data: a node that has lost
    // its master says red until a new one is elected (a second or so), while it still serves
    // reads. The probe search below decides, as for yellow.
    const primariesServe = health.active_primary_shards > 0 && health.unassigned_primary_shards === 0;
    if (health.status === 'red' && !primariesServe) {
      const detail =
        health.active_primary_shards === 0 && health.unassigned_primary_shards === 0
          ? `no index answers to ${alias}`
          : `${health.unassigned_primary_shards ?? health.unassigned_shards} unassigned primary shard(s) behind ${alias}`;
      return { kind: 'red', detail };
    }
    status = health.status === 'green' ? 'green' : 'yellow';
  } catch (err) {
    if (isTransportFailure(err)) return unreachable(err);
    return { kind: 'probe-failed', detail: `health: ${describe(err)}` };
  }
  try {
    const res = await es.search(
      { index: alias, size: 0, track_total_hits: false, allow_partial_search_results: false, query: { match_all: {} } },
      transport,
    );
    if ((res._shards?.failed ?? 0) > 0) return { kind: 'probe-failed', detail: `${res._shards.failed} shard(s) failed` };
  } catch (err) {
    if (isTransportFailure(err)) return unreachable(err);
    return { kind: 'probe-failed', detail: describe(err) };
  }
  return { kind: 'good', status };
}

export interface ClusterWatch {
  view(): ClusterView;
  /** Runs one tick now (tests; the timer keeps running). */
  tick(): Promise<Observation>;
  stop(): void;
}

/** Starts the poller; `onObservation` receives every tick's outcome. The timer never keeps the process alive. */
export function watchCluster(es: Client, alias: string, onObservation: (o: Observation) => void, opts: ClusterWatchOptions = DEFAULT_WATCH): ClusterWatch {
  let view: ClusterView = { status: 'unknown', detail: null, checkedAt: null, latencyMs: null };
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<Observation> | null = null;

  const tick = (): Promise<Observation> => {
    if (running) return running;
    const started = Date.now();
    running = observeCluster(es, alias, opts.timeoutMs)
      .catch((err: unknown): Observation => ({ kind: 'probe-failed', detail: describe(err) }))
      .then((o) => {
        view = {
          status: o.kind === 'good' ? o.status : o.kind,
          detail: o.kind === 'good' ? null : o.detail,
          checkedAt: Date.now(),
          latencyMs: Date.now() - started,
        };
        if (!stopped) onObservation(o);
        return o;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick().finally(schedule);
    }, opts.intervalMs);
    timer.unref();
  };
  void tick().finally(schedule);

  return {
    view: () => view,
    tick,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
