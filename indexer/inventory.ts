import type { Client } from '@elastic/elasticsearch';
import { isIndexHeld, whileUnheld } from '../src/db/index-holds.js';
import type { Pool } from '../src/db/pool.js';
import type { IndexNames } from '../src/es/index-names.js';

// The service's concrete indices in the cluster (`npm run indices`) and the pruning of those
// nothing uses: no alias points at them and no running rebuild holds them (src/db/index-holds.ts).
// Only names this prefix makes (`{prefix}-market-v<digits>`) are touched: another deployment's
// indices share the cluster, and a prefix such as `mp` must not reach `mp-market-v2-market-v...`.

export interface ServiceIndex {
  name: string;
  /** mappings `_meta.version` (1 for indices older than the field). */
  mappingVersion: number;
  docs: number;
  bytes: number;
  aliases: string[];
  created: string;
  /** A running rebuild holds it (it is being built). */
  held: boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `name` is one of this prefix's concrete indices. */
export function isServiceIndex(index: IndexNames, name: string): boolean {
  return new RegExp(`^${escape(index.alias)}-v\\d+$`).test(name);
}

/** This prefix's concrete indices, oldest first, with what `npm run indices` shows of each. */
export async function serviceIndices(es: Client, pool: Pool, index: IndexNames): Promise<ServiceIndex[]> {
  const rows = await es.cat.indices({
    index: index.pattern,
    format: 'json',
    bytes: 'b',
    h: ['index', 'store.size', 'creation.date'],
    expand_wildcards: 'all',
  });
  const names = rows.map((r) => String(r.index)).filter((n) => isServiceIndex(index, n));
  if (names.length === 0) return [];
  const [aliases, mappings] = await Promise.all([es.indices.getAlias({ index: names }), es.indices.getMapping({ index: names })]);
  const db = await pool.connect();
  try {
    const out: ServiceIndex[] = [];
    for (const r of rows) {
      const name = String(r.index);
      if (!names.includes(name)) continue;
      const meta = mappings[name]?.mappings._meta as { version?: number } | undefined;
      out.push({
        name,
        mappingVersion: meta?.version ?? 1,
        // Top-level documents (the cat API counts nested ones too).
        docs: (await es.count({ index: name })).count,
        bytes: Number(r['store.size'] ?? 0),
        aliases: Object.keys(aliases[name]?.aliases ?? {}),
        created: new Date(Number(r['creation.date'])).toISOString(),
        held: await isIndexHeld(db, name),
      });
    }
    return out.sort((a, b) => a.created.localeCompare(b.created) || a.name.localeCompare(b.name));
  } finally {
    db.release();
  }
}

export interface PruneResult {
  deleted: string[];
  /** Without an alias but held by a running rebuild: kept. */
  held: string[];
}

/**
 * Deletes this prefix's indices that no alias points at and no running rebuild holds (with
 * `dryRun`, only says which). Each is deleted while this session holds its lock, and its aliases
 * are read again under it, so a rebuild that swapped its alias meanwhile keeps its index.
 */
export async function pruneIndices(es: Client, pool: Pool, index: IndexNames, opts: { dryRun: boolean }): Promise<PruneResult> {
  const result: PruneResult = { deleted: [], held: [] };
  const candidates = (await serviceIndices(es, pool, index)).filter((i) => i.aliases.length === 0);
  const db = await pool.connect();
  try {
    for (const c of candidates) {
      const done = await whileUnheld(db, c.name, async () => {
        const now = await es.indices.getAlias({ index: c.name }, { ignore: [404] });
        if (Object.keys((now as Record<string, { aliases?: object }>)[c.name]?.aliases ?? {}).length > 0) return;
        if (!opts.dryRun) await es.indices.delete({ index: c.name }, { ignore: [404] });
        result.deleted.push(c.name);
      });
      if (!done) result.held.push(c.name);
    }
  } finally {
    db.release();
  }
  return result;
}
