// What a listing change costs the machine while nobody searches: the live indexer (a child
// process) carries `rate` price changes a second (bench/live-writes.ts) into the index behind the
// alias for `duration` seconds, and the bench reports per change the CPU of Elasticsearch, of the
// indexer and of PostgreSQL, what Elasticsearch did (documents indexed, refreshes, merges, global
// ordinals rebuilt: each with the time its own stats give) and the commit-to-visible lag.
//
//   . .stack/env && npm run bench:write-cost -- [--prefix mp] [--rate 100] [--duration 60] [--idle 20]
//
// --idle S first measures S seconds with no writes (the baseline every figure is read against:
// the cluster watcher's probes of no API, merges still running, the machine's other load).
// Elasticsearch's figures are node-wide: run it on a node nothing else uses.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { horizon, loadCheckpoint, saveCheckpoint } from '../src/db/feed-guard.js';
import { cpuMeter, type CpuSample } from './cpu.js';
import { lagLine, startLiveWrites } from './live-writes.js';
import { load, sleep, spawnIndexer } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    prefix: { type: 'string' },
    rate: { type: 'string', default: '100' },
    duration: { type: 'string', default: '60' },
    idle: { type: 'string', default: '20' },
  },
});
const env = loadEnv();
const prefix = values.prefix ?? env.INDEX_PREFIX;
const alias = indexNames(prefix).alias;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (m: string) => console.error(`[bench:write-cost ${new Date().toISOString().slice(11, 19)}] ${m}`);
const pool = createPool(env.DATABASE_URL, 2);
const es = createEsClient(env.ELASTICSEARCH_URL, 60_000);

interface EsCounters {
  indexed: number;
  indexMs: number;
  deleted: number;
  refreshes: number;
  refreshMs: number;
  mergeMs: number;
  mergedDocs: number;
  ordinalsMs: number;
  segments: number;
}

async function esCounters(): Promise<EsCounters> {
  const res = (await es.nodes.stats({
    node_id: '_local',
    metric: 'indices',
    index_metric: ['indexing', 'refresh', 'merge', 'fielddata', 'segments'],
  })) as unknown as {
    nodes: Record<string, { indices: Record<string, Record<string, unknown>> }>;
  };
  const i = Object.values(res.nodes)[0]!.indices as {
    indexing: { index_total: number; index_time_in_millis: number; delete_total: number };
    refresh: { total: number; total_time_in_millis: number };
    merges: { total_time_in_millis: number; total_docs: number };
    fielddata: { global_ordinals?: { build_time_in_millis?: number } };
    segments: { count: number };
  };
  return {
    indexed: i.indexing.index_total,
    indexMs: i.indexing.index_time_in_millis,
    deleted: i.indexing.delete_total,
    refreshes: i.refresh.total,
    refreshMs: i.refresh.total_time_in_millis,
    mergeMs: i.merges.total_time_in_millis,
    mergedDocs: i.merges.total_docs,
    ordinalsMs: i.fielddata.global_ordinals?.build_time_in_millis ?? 0,
    segments: i.segments.count,
  };
}

function report(label: string, a: CpuSample, b: CpuSample, e0: EsCounters, e1: EsCounters, changes: number): string {
  const secs = (b.at - a.at) / 1000;
  const per = (ms: number) => (changes > 0 ? `${(ms / changes).toFixed(2)} ms/change` : `${(ms / secs / 1000).toFixed(2)} cores`);
  const d = <K extends keyof EsCounters>(k: K) => e1[k] - e0[k];
  return (
    `${label}: ${secs.toFixed(0)} s, ${changes} changes; CPU: elasticsearch ${per(b.esMs - a.esMs)}, indexer ${per(b.otherMs - a.otherMs)}, ` +
    `postgres ${per(b.pgMs - a.pgMs)} (cores: ES ${((b.esMs - a.esMs) / secs / 1000).toFixed(2)}, indexer ${((b.otherMs - a.otherMs) / secs / 1000).toFixed(2)}, ` +
    `PG ${((b.pgMs - a.pgMs) / secs / 1000).toFixed(2)}); ES stats: ${d('indexed')} docs indexed (${changes > 0 ? (d('indexed') / changes).toFixed(2) : '-'} per change, ` +
    `${d('indexMs')} ms), ${d('deleted')} deleted, ${d('refreshes')} refreshes (${d('refreshMs')} ms), merges ${d('mergeMs')} ms / ${d('mergedDocs')} docs, ` +
    `global ordinals ${d('ordinalsMs')} ms, segments ${e0.segments} -> ${e1.segments}; ${load()}`
  );
}

if (!(await loadCheckpoint(pool, 'live'))) await saveCheckpoint(pool, 'live', await horizon(pool));
const { child, batches } = spawnIndexer(root, { DATABASE_URL: env.DATABASE_URL, ELASTICSEARCH_URL: env.ELASTICSEARCH_URL, INDEX_PREFIX: prefix }, log);
try {
  await sleep(4000);
  const meter = await cpuMeter(pool, es, { pid: child.pid!, name: 'indexer' });
  const lines: string[] = [];
  if (Number(values.idle) > 0) {
    const [a, e0] = [await meter.sample(), await esCounters()];
    await sleep(Number(values.idle) * 1000);
    const [b, e1] = [await meter.sample(), await esCounters()];
    lines.push(report('idle', a, b, e0, e1, 0));
    log(lines.at(-1)!);
  }
  const [a, e0] = [await meter.sample(), await esCounters()];
  const firstBatch = batches.length;
  const writes = await startLiveWrites({ databaseUrl: env.DATABASE_URL, pool, es, alias, rate: Number(values.rate), log });
  await sleep(Number(values.duration) * 1000);
  const lag = await writes.stop();
  const [b, e1] = [await meter.sample(), await esCounters()];
  lines.push(report(`${values.rate} changes/s`, a, b, e0, e1, lag.writes));
  const run = batches.slice(firstBatch);
  const docs = run.reduce((n, x) => n + x.docs, 0);
  const changes = run.reduce((n, x) => n + x.changes, 0);
  lines.push(
    `  indexer: ${run.length} batches, ${changes} feed changes, ${docs} documents written (${(docs / Math.max(changes, 1)).toFixed(2)} per change); ${lagLine(lag)}`,
  );
  console.log(`## bench:write-cost ${new Date().toISOString()} (alias ${alias})`);
  for (const l of lines) console.log(l);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await pool.end();
  await es.close();
}
