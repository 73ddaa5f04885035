import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { pruneIndices, serviceIndices, type ServiceIndex } from '../indexer/inventory.js';

// npm run indices [-- --json]: this prefix's concrete indices (name, mapping version, documents,
// size, the aliases pointing at each, created, whether a running rebuild holds it) and its alias.
// npm run indices -- --prune [--dry-run]: deletes those no alias points at and no running rebuild
// holds (a rebuild holds its index through a PostgreSQL session lock, so one killed with SIGKILL
// holds nothing), printing each; --dry-run only prints what it would delete.

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { prune: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
});
const env = loadEnv();
const pool = createPool(env.DATABASE_URL, 2);
const es = createEsClient(env.ELASTICSEARCH_URL, 30_000);
const index = indexNames(env.INDEX_PREFIX);

const size = (b: number) =>
  b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(1)} GiB` : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : `${(b / 1024).toFixed(1)} KiB`;

function table(rows: ServiceIndex[]): string {
  const cells = [
    ['index', 'mapping', 'docs', 'size', 'alias', 'created', 'state'],
    ...rows.map((r) => [
      r.name,
      `v${r.mappingVersion}`,
      String(r.docs),
      size(r.bytes),
      r.aliases.join(',') || '-',
      r.created,
      r.aliases.length > 0 ? 'serving' : r.held ? 'being built (held by a running rebuild)' : 'orphan (npm run indices -- --prune deletes it)',
    ]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells
    .map((c) =>
      c
        .map((v, i) => v.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

try {
  if (values.prune) {
    const dryRun = values['dry-run'];
    const r = await pruneIndices(es, pool, index, { dryRun });
    for (const name of r.deleted) console.log(`${dryRun ? 'would delete' : 'deleted'} ${name}`);
    for (const name of r.held) console.log(`kept ${name}: held by a running rebuild`);
    console.log(
      `${dryRun ? 'would delete' : 'deleted'} ${r.deleted.length} ${r.deleted.length === 1 ? 'index' : 'indices'} of prefix ${env.INDEX_PREFIX}`,
    );
  } else {
    const rows = await serviceIndices(es, pool, index);
    if (values.json) console.log(JSON.stringify({ alias: index.alias, indices: rows }, null, 2));
    else {
      const serving = rows.filter((r) => r.aliases.includes(index.alias)).map((r) => r.name);
      console.log(rows.length > 0 ? table(rows) : `no indices of prefix ${env.INDEX_PREFIX}`);
      console.log(`alias ${index.alias} -> ${serving.join(', ') || '(none)'}`);
    }
  }
} catch (err) {
  console.error(`indices failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await pool.end();
  await es.close();
}
