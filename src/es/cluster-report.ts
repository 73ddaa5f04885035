import type { Client } from '@elastic/elasticsearch';
import { failoverRetries } from './client.js';

// What an operator asks of the search cluster when something looks wrong: its health, which nodes
// answer, and which shard copies of this service's indices have no node. Read live, for /readyz
// with HEALTH_DETAILS=true (`npm run stack:status` asks the same of the local stack with curl).

export interface ClusterNode {
  name: string;
  /** The node's HTTP address as it publishes it. */
  http: string | null;
  roles: string;
  master: boolean;
  heapPercent: number | null;
}

export interface UnassignedShard {
  index: string;
  shard: number;
  primary: boolean;
  reason: string | null;
}

export interface ClusterReport {
  status: string;
  numberOfNodes: number;
  /** Unassigned shard copies in the whole cluster. */
  unassignedCount: number;
  nodes: ClusterNode[];
  /** Unassigned copies of the indices matching `indexPattern` (at most 20). */
  unassignedShards: UnassignedShard[];
}

/** Cluster health, nodes and unassigned shards, each call bounded by `timeoutMs`; throws when the cluster does not answer. */
export async function clusterReport(es: Client, indexPattern: string, timeoutMs: number): Promise<ClusterReport> {
  const opts = { requestTimeout: timeoutMs, maxRetries: failoverRetries(es) };
  const [health, nodes, shards] = await Promise.all([
    // From the answering node's own state: a cluster electing a master still reports.
    es.cluster.health({ local: true }, opts),
    es.cat.nodes({ format: 'json', h: ['name', 'http_address', 'node.role', 'master', 'heap.percent'] }, opts),
    es.cat.shards({ index: indexPattern, format: 'json', h: ['index', 'shard', 'prirep', 'state', 'unassigned.reason'] }, { ...opts, ignore: [404] }),
  ]);
  const rows = Array.isArray(shards) ? shards : [];
  return {
    status: health.status,
    numberOfNodes: health.number_of_nodes,
    unassignedCount: health.unassigned_shards,
    nodes: nodes
      .map((n) => ({
        name: String(n.name),
        http: n.http_address ? String(n.http_address) : null,
        roles: String(n['node.role'] ?? ''),
        master: n.master === '*',
        heapPercent: n['heap.percent'] === undefined || n['heap.percent'] === null ? null : Number(n['heap.percent']),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    unassignedShards: rows
      .filter((r) => r.state === 'UNASSIGNED')
      .slice(0, 20)
      .map((r) => ({
        index: String(r.index),
        shard: Number(r.shard),
        primary: r.prirep === 'p',
        reason: r['unassigned.reason'] ? String(r['unassigned.reason']) : null,
      })),
  };
}
