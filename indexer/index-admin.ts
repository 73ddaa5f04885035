import type { Client } from '@elastic/elasticsearch';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SINGLE_NODE_LAYOUT, type IndexLayout } from '../src/es/index-names.js';

const mappingPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../mappings/market.json');

interface IndexDefinition {
  settings: Record<string, unknown> & { refresh_interval: string };
  mappings: Record<string, unknown>;
}

export function indexDefinition(): IndexDefinition {
  return JSON.parse(readFileSync(mappingPath, 'utf8')) as IndexDefinition;
}

/**
 * A new concrete index with the layout's shards and replicas (refresh off for a bulk build until
 * the load is done), once every copy is allocated: writes wait for all of them
 * (bulk.ts, `wait_for_active_shards`), so an index whose replicas cannot be placed is deleted
 * again here instead of stalling the load (or when `signal` stops the wait).
 */
export async function createIndex(es: Client, name: string, opts: { bulkLoad: boolean; layout?: IndexLayout; signal?: AbortSignal }): Promise<void> {
  const def = indexDefinition();
  const layout = opts.layout ?? SINGLE_NODE_LAYOUT;
  await es.indices.create({
    index: name,
    settings: {
      ...def.settings,
      number_of_shards: layout.shards,
      number_of_replicas: layout.replicas,
      ...(opts.bulkLoad ? { refresh_interval: '-1' } : {}),
    },
    mappings: def.mappings,
  });
  try {
    await waitForAllocation(es, name, { timeoutMs: 60_000, signal: opts.signal });
  } catch (err) {
    await es.indices.delete({ index: name }).catch(() => undefined);
    throw err;
  }
}

/** An index whose shard copies are not all allocated: the message names the unassigned ones and why. */
export class AllocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AllocationError';
  }
}

interface UnassignedCopy {
  shard: string;
  primary: boolean;
  reason: string;
  /** The allocation decision (`no`: no node may take it; `allocation_delayed`, `throttled`, `yes`: wait). */
  decision: string;
  explanation: string;
}

/**
 * Waits until every primary and replica of `index` is allocated (green). Fails with an
 * AllocationError naming the unassigned copies when the cluster has refused to place one of them
 * for `settleMs` (e.g. more replicas than other nodes: nothing will change without a new node),
 * or when `timeoutMs` passes (copies still initializing after a node loss). An aborted `signal`
 * stops the wait within a second (each health request waits at most 1 s).
 */
export async function waitForAllocation(
  es: Client,
  index: string,
  opts: { timeoutMs?: number; settleMs?: number; signal?: AbortSignal } = {},
): Promise<{ ms: number }> {
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const settleMs = opts.settleMs ?? 5000;
  const started = Date.now();
  let refusedSince: number | null = null;
  for (;;) {
    opts.signal?.throwIfAborted();
    const health = await es.cluster.health({ index, wait_for_status: 'green', timeout: '1s' }, { ignore: [408] });
    if (health.status === 'green') return { ms: Date.now() - started };
    const unassigned = await unassignedCopies(es, index);
    if (unassigned.some((c) => c.decision === 'no')) refusedSince ??= Date.now();
    else refusedSince = null;
    const waited = Date.now() - started;
    if ((refusedSince !== null && Date.now() - refusedSince >= settleMs) || waited >= timeoutMs) {
      const copies = unassigned.map((c) => `[${index}][${c.shard}] ${c.primary ? 'primary' : 'replica'} (${c.reason}): ${c.explanation}`);
      const pending = health.initializing_shards + health.relocating_shards;
      throw new AllocationError(
        `index ${index} is ${health.status}, not green, after ${(waited / 1000).toFixed(1)} s: ` +
          (copies.length > 0
            ? `${health.unassigned_shards} unassigned shard cop${health.unassigned_shards === 1 ? 'y' : 'ies'}: ${copies.join('; ')}`
            : `${pending} shard cop${pending === 1 ? 'y' : 'ies'} still initializing`),
      );
    }
  }
}

/** The index's unassigned shard copies, each with the cluster's allocation explanation (the first five explained). */
async function unassignedCopies(es: Client, index: string): Promise<UnassignedCopy[]> {
  const rows = await es.cat.shards({ index, format: 'json', h: ['shard', 'prirep', 'state', 'unassigned.reason'] });
  const out: UnassignedCopy[] = [];
  for (const row of rows.filter((r) => r.state === 'UNASSIGNED')) {
    const copy: UnassignedCopy = {
      shard: String(row.shard),
      primary: row.prirep === 'p',
      reason: String(row['unassigned.reason'] ?? 'unknown'),
      decision: 'unknown',
      explanation: 'not explained',
    };
    if (out.length < 5) {
      const why = await es.cluster
        .allocationExplain({ index, shard: Number(row.shard), primary: copy.primary })
        .catch((err: Error) => ({ can_allocate: 'unknown', allocate_explanation: `explain failed: ${err.message}`, node_allocation_decisions: [] }));
      copy.decision = String(why.can_allocate ?? 'unknown');
      const deciders = new Set(
        (why.node_allocation_decisions ?? []).flatMap((n) => (n.deciders ?? []).filter((d) => d.decision === 'NO').map((d) => d.explanation)),
      );
      copy.explanation = [why.allocate_explanation, ...deciders].filter(Boolean).join(' ');
    }
    out.push(copy);
  }
  return out;
}

export async function finishBulkLoad(es: Client, name: string): Promise<void> {
  await es.indices.putSettings({ index: name, settings: { refresh_interval: indexDefinition().settings.refresh_interval } });
  await es.indices.refresh({ index: name });
}

export async function indicesBehind(es: Client, alias: string): Promise<string[]> {
  const exists = await es.indices.existsAlias({ name: alias });
  if (!exists) return [];
  const res = await es.indices.getAlias({ name: alias });
  return Object.keys(res);
}

/** Points the alias at `target` and away from everything else in one atomic _aliases call. */
export async function swapAlias(es: Client, alias: string, target: string, previous: string[]): Promise<void> {
  await es.indices.updateAliases({
    actions: [
      ...previous.filter((p) => p !== target).map((index) => ({ remove: { index, alias } })),
      { add: { index: target, alias, is_write_index: true } },
    ],
  });
}

/** The document-model version this code writes and reads (mappings/market.json `_meta.version`). */
export function mappingVersion(): number {
  return (indexDefinition().mappings as { _meta?: { version?: number } })._meta?.version ?? 1;
}

/** The lowest `_meta.version` among the indices behind the alias (1 for indices older than the field). */
export async function indexedVersion(es: Client, alias: string): Promise<number> {
  const res = await es.indices.getMapping({ index: alias });
  const versions = Object.values(res).map((m) => (m.mappings._meta as { version?: number } | undefined)?.version ?? 1);
  return Math.min(...versions);
}
