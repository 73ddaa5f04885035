import type { Client } from '@elastic/elasticsearch';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const mappingPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../mappings/market.json');

interface IndexDefinition {
  settings: Record<string, unknown> & { refresh_interval: string };
  mappings: Record<string, unknown>;
}

export function indexDefinition(): IndexDefinition {
  return JSON.parse(readFileSync(mappingPath, 'utf8')) as IndexDefinition;
}

/** A new concrete index; for a bulk build refresh is off until the load is done. */
export async function createIndex(es: Client, name: string, opts: { bulkLoad: boolean }): Promise<void> {
  const def = indexDefinition();
  await es.indices.create({
    index: name,
    settings: { ...def.settings, ...(opts.bulkLoad ? { refresh_interval: '-1' } : {}) },
    mappings: def.mappings,
  });
  await es.cluster.health({ index: name, wait_for_status: 'green', timeout: '30s' });
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
