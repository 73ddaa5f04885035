// The rebuild's producer alone (npm run bench:producer -- [--db NAME] [--listings 500000] [--seed 1]): every bulk body
// of one snapshot, built and serialized exactly as rebuild() does (indexer/rebuild.ts
// snapshotChunks, indexer/bulk.ts serializeOps with a body pool), hashed and dropped; no
// Elasticsearch. Prints the documents, bytes and SHA-256 of all bodies (a change meant to keep the
// bytes must keep the hash), wall and CPU seconds per phase, and the load. On two cores the
// rebuild's ratio to raw `_bulk` is bounded by this process's CPU (BENCHMARKS.md, "The rebuild's
// producer").
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createPool, SNAPSHOT, withTransaction } from '../src/db/pool.js';
import { poBoxSuspended } from '../src/db/offer-source.js';
import { snapshotChunks } from '../indexer/rebuild.js';
import { bodyPool, serializeOps } from '../indexer/bulk.js';
import { load, openWorld } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    db: { type: 'string' },
    listings: { type: 'string', default: '500000' },
    seed: { type: 'string', default: '1' },
  },
});
const log = (m: string) => console.log(`[bench:producer] ${m}`);
const world = await openWorld({ tag: 'producer', db: values.db, listings: Number(values.listings), seed: Number(values.seed), log });
const pool = createPool(world.env.DATABASE_URL, 2);
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
};

try {
  log(`database ${world.dbName}; ${load()}`);
  const hash = createHash('sha256');
  const bodies = bodyPool();
  let docs = 0;
  let bytes = 0;
  let phase = '';
  let phaseAt = { wall: performance.now(), cpu: process.cpuUsage() };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const endPhase = () => {
    if (phase) log(`  ${phase}: ${((performance.now() - phaseAt.wall) / 1000).toFixed(1)} s, ${cpuSeconds(phaseAt.cpu).toFixed(1)} CPU-s`);
    phaseAt = { wall: performance.now(), cpu: process.cpuUsage() };
  };
  await withTransaction(
    pool,
    async (db) => {
      const poBox = await poBoxSuspended(db);
      for await (const { kind, ops } of snapshotChunks(db, poBox)) {
        if (kind !== phase) {
          endPhase();
          phase = kind;
        }
        const body = serializeOps('bench-producer', ops, bodies);
        hash.update(body.body);
        docs += body.items;
        bytes += body.body.length;
        body.release?.();
      }
    },
    SNAPSHOT,
  );
  endPhase();
  log(
    `${docs} docs, ${bytes} bytes, sha256 ${hash.digest('hex').slice(0, 16)}; ${((performance.now() - t0) / 1000).toFixed(1)} s, ` +
      `${cpuSeconds(c0).toFixed(1)} CPU-s (hashing included); ${load()}`,
  );
} finally {
  await pool.end();
  if (world.created) await world.drop();
}
