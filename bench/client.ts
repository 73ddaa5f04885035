// Typed client benchmark (npm run bench:client -- [--walk 100000] [--rounds 10] [--requests 300] [--passes 2] [--keep]).
//
// Three measurements, each side by side with what it is compared to, in one run:
//   bundle   - the buyer part of the client (clients/typescript/src/buyer.ts, everything it
//              exports) bundled for the browser by esbuild, minified, then gzipped (level 9);
//   overhead - GET /orders/{id} over one keep-alive connection pool, `rounds` alternating rounds
//              of `requests` sequential requests by raw fetch (text, JSON.parse, envelope check)
//              and by the client (orders.get); the client's extra time per request;
//   walk     - `walk` orders of one seller (inserted in bulk with SQL), walked to the end with
//              limit=1000 by raw fetch (GET /orders following nextCursor) and by orders.poll,
//              alternating, `passes` each; poll reads the checkpoint of its last change (a
//              Platform storing where it stopped), and once more reading every change's checkpoint.
// The API is in-process on its own database (created, migrated, seeded, dropped unless --keep).
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { migrateUp } from '../src/db/migrate.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { createApp } from '../src/api/app.js';
import { sellerRoutes } from '../src/api/routes/seller/index.js';
import { issueApiKey } from '../src/db/api-keys.js';
import { createServices } from '../src/services.js';
import { createClient, type MarketplaceClient } from '../clients/typescript/src/index.js';
import { admin, load } from './world.js';
import { seedWalkOrders } from './walk-orders.js';

const { values } = parseArgs({
  options: {
    walk: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '10' },
    requests: { type: 'string', default: '300' },
    passes: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
  },
});
const WALK = Number(values.walk);
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const PASSES = Number(values.passes);
const SELLER = 1;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------------------------
// Bundle size.
{
  const out = await build({
    stdin: { contents: "export * from './clients/typescript/src/buyer.ts';", resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    platform: 'browser',
  });
  const js = out.outputFiles[0]!.contents;
  console.log(`bundle: buyer part ${js.length} bytes minified, ${gzipSync(js, { level: 9 }).length} bytes minified+gzipped (budget 12,288)`);
}

// ---------------------------------------------------------------------------------------------
// A database and the seller API.
const base = loadEnv();
const dbName = `bench_client_${randomBytes(3).toString('hex')}`;
const u = new URL(base.DATABASE_URL);
u.pathname = `/${dbName}`;
const dbUrl = u.toString();
await admin(base.DATABASE_URL, `CREATE DATABASE ${dbName}`);
console.log(`database ${dbName} on ${u.host}`);
await migrateUp(dbUrl);
const env = {
  ...base,
  DATABASE_URL: dbUrl,
  RATE_LIMIT_SELLER_PER_MIN: 1_000_000,
  RATE_LIMIT_SELLER_ADDRESS_PER_MIN: 1_000_000,
  LOG_LEVEL: 'silent' as const,
};
const pool = createPool(dbUrl, 6);
const es = createEsClient(env.ELASTICSEARCH_URL, 1000);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const customer = {
    name: 'Bench Buyer',
    email: 'bench@example.com',
    shipping_address: { line1: '1 Main St', line2: null, city: 'Halifax', province: 'NS', postal_code: 'B3H 1A1', country: 'CA' },
  };
  await pool.query(
    `INSERT INTO products (product_id, name, set_name, category) SELECT p, 'Card ' || p, 'Set ' || (p % 40), 'Magic: The Gathering' FROM generate_series(1, 500) p;
     INSERT INTO skus (sku_id, product_id, condition, language, finish) SELECT s, (s - 1) / 4 + 1, 'Near Mint', 'English', NULL FROM generate_series(1, 2000) s;
     INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, terms_version) VALUES (${SELLER}, 'seller${SELLER}', 'Store', 'CAD', 'CA', '2026-07');
     INSERT INTO seller_shipping_options (seller_id, method, cost, tracked, position) VALUES (${SELLER}, 'Tracked', 1299, true, 0);`,
  );
  // The orders bench:orders walks: 1 to 5 lines each, the columns entry writes.
  const t0 = performance.now();
  await seedWalkOrders(pool, WALK, SELLER, customer);
  await pool.query('VACUUM ANALYZE');
  console.log(`seeded ${WALK} orders in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const key = (await issueApiKey(pool, `seller${SELLER}`, 'bench')).key;
  const infra = { env, pool, es, index: indexNames(dbName), logger: createLogger('silent') };
  const app = createApp(
    { ...infra, services: createServices(infra, { degraded: { watch: { enabled: false } }, warm: { enabled: false } }) },
    sellerRoutes,
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  // Idle keep-alive sockets stay open between the phases (the raw walk has no retry of a socket the server closed).
  server.keepAliveTimeout = 600_000;
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createClient({ baseUrl, apiKey: key });
  const headers = { Accept: 'application/json', 'X-Service-Api-Version': '2026-07', Authorization: `Bearer ${key}` };

  try {
    // -------------------------------------------------------------------------------------------
    // Per-request overhead: raw fetch and the client, alternating rounds; first against a local
    // server answering one order's envelope from memory (the client's own cost, without the
    // database's noise), then against the API.
    const sample = JSON.stringify({ success: true, data: await client.orders.get('ord_walk_1') });
    const fixed = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(sample));
    await new Promise<void>((r) => fixed.listen(0, '127.0.0.1', r));
    const fixedUrl = `http://127.0.0.1:${(fixed.address() as AddressInfo).port}`;
    // --rounds 0 measures the walk alone.
    if (ROUNDS > 0) {
      await compare('local server', fixedUrl, createClient({ baseUrl: fixedUrl, apiKey: key }), ROUNDS, REQUESTS * 3, key);
      await compare('API', baseUrl, client, ROUNDS, REQUESTS, key);
    }
    fixed.close();
    // -------------------------------------------------------------------------------------------
    // The poll walk: raw HTTP and orders.poll, alternating.
    const rawWalk = async () => {
      let cursor: string | null = null;
      let items = 0;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await fetch(`${baseUrl}/orders?limit=1000${q}`, { headers });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`poll ${res.status}: ${text.slice(0, 200)}`);
        const body = JSON.parse(text) as { data: { items: unknown[]; nextCursor: string | null } };
        items += body.data.items.length;
        cursor = body.data.nextCursor;
      } while (cursor);
      return items;
    };
    const clientWalk = async (everyCheckpoint: boolean) => {
      let items = 0;
      let last: { checkpoint: string } | undefined;
      let bytes = 0;
      for await (const change of client.orders.poll({ limit: 1000 })) {
        items++;
        last = change;
        if (everyCheckpoint) bytes += change.checkpoint.length;
      }
      bytes += last?.checkpoint.length ?? 0;
      return { items, bytes };
    };
    // The client's own CPU per order, without the server and the network: the first 20 pages
    // replayed from memory to both walks (raw: text and JSON.parse; poll: the transport, parse
    // and the iterator, the last checkpoint read).
    const pages = new Map<string, string>();
    {
      let cursor: string | null = null;
      for (let i = 0; i < 20; i++) {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const text = await (await fetch(`${baseUrl}/orders?limit=1000${q}`, { headers })).text();
        pages.set(cursor ?? '', text);
        cursor = (JSON.parse(text) as { data: { nextCursor: string | null } }).data.nextCursor;
      }
      // The 20th page ends the replayed walk.
      const lastKey = [...pages.keys()].at(-1)!;
      const last = JSON.parse(pages.get(lastKey)!) as { data: { nextCursor: string | null } };
      last.data.nextCursor = null;
      pages.set(lastKey, JSON.stringify(last));
    }
    const replay = (async (input: RequestInfo | URL) => {
      const cursor = new URL(String(input)).searchParams.get('cursor') ?? '';
      return new Response(pages.get(cursor)!, { status: 200, headers: { 'Content-Type': 'application/json' } });
    }) as typeof fetch;
    const replayed = createClient({ baseUrl, apiKey: key, fetch: replay });
    const cpu: Record<string, number[]> = { raw: [], poll: [] };
    for (let r = 0; r < 6; r++) {
      for (const side of r % 2 === 0 ? ['raw', 'poll'] : ['poll', 'raw']) {
        const t = performance.now();
        let n = 0;
        if (side === 'raw') {
          let cursor: string | null = null;
          do {
            const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
            const res = await replay(`${baseUrl}/orders?limit=1000${q}`, { headers });
            const body = JSON.parse(await res.text()) as { data: { items: unknown[]; nextCursor: string | null } };
            n += body.data.items.length;
            cursor = body.data.nextCursor;
          } while (cursor);
        } else {
          let last: { checkpoint: string } | undefined;
          for await (const change of replayed.orders.poll({ limit: 1000 })) {
            n++;
            last = change;
          }
          if (!last?.checkpoint) throw new Error('no checkpoint');
        }
        cpu[side]!.push(((performance.now() - t) * 1000) / n);
      }
    }
    console.log(
      `walk CPU from memory (20 pages, 6 alternating runs): raw ${median(cpu.raw!).toFixed(1)} µs/order, poll ${median(cpu.poll!).toFixed(1)} µs/order (medians); ` +
        `the client adds ${(median(cpu.poll!) - median(cpu.raw!)).toFixed(1)} µs/order (${load()})`,
    );

    const rates: Record<string, number[]> = { raw: [], poll: [] };
    for (let p = 0; p < PASSES; p++) {
      for (const side of p % 2 === 0 ? ['raw', 'poll'] : ['poll', 'raw']) {
        const loadAt = load();
        const t = performance.now();
        const items = side === 'raw' ? await rawWalk() : (await clientWalk(false)).items;
        const secs = (performance.now() - t) / 1000;
        if (items !== WALK) throw new Error(`${side} walk saw ${items} orders, expected ${WALK}`);
        rates[side]!.push(items / secs);
        console.log(`walk ${side} pass ${p + 1}: ${items} orders in ${secs.toFixed(2)} s = ${Math.round(items / secs)} orders/s (${loadAt})`);
      }
    }
    console.log(
      `walk: poll / raw = ${(mean(rates.poll!) / mean(rates.raw!)).toFixed(3)} (means ${Math.round(mean(rates.poll!))} / ${Math.round(mean(rates.raw!))} orders/s; budget >= 0.9)`,
    );
    const t = performance.now();
    const every = await clientWalk(true);
    const secs = (performance.now() - t) / 1000;
    console.log(
      `walk poll reading every change's checkpoint: ${Math.round(every.items / secs)} orders/s (${(every.bytes / every.items).toFixed(0)} checkpoint bytes per change on average) (${load()})`,
    );
  } finally {
    await new Promise((r) => server.close(r));
  }
} finally {
  await pool.end();
  await es.close();
  if (!values.keep) await admin(base.DATABASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  else console.log(`kept database ${dbName}`);
}

/** Raw fetch against the client on GET /orders/{id} at `url`, alternating rounds of sequential requests. */
async function compare(what: string, url: string, c: MarketplaceClient, rounds: number, requests: number, key: string): Promise<void> {
  const headers = { Accept: 'application/json', 'X-Service-Api-Version': '2026-07', Authorization: `Bearer ${key}` };
  const rawGet = async (id: string) => {
    const res = await fetch(`${url}/orders/${encodeURIComponent(id)}`, { headers });
    const body = JSON.parse(await res.text()) as { success: boolean; data: unknown };
    if (!res.ok || body.success !== true) throw new Error(`GET /orders/${id}: ${res.status}`);
    return body.data;
  };
  const ids = Array.from({ length: requests }, (_, i) => `ord_walk_${1 + ((i * 7919) % WALK)}`);
  // Warm both paths.
  for (const id of ids.slice(0, 50)) {
    await rawGet(id);
    await c.orders.get(id);
  }
  const raw: number[] = [];
  const typed: number[] = [];
  const loadBefore = load();
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['raw', 'client'] as const) : (['client', 'raw'] as const);
    for (const side of order) {
      const t = performance.now();
      for (const id of ids) {
        if (side === 'raw') await rawGet(id);
        else await c.orders.get(id);
      }
      (side === 'raw' ? raw : typed).push((performance.now() - t) / requests);
    }
  }
  const diffs = raw.map((x, i) => typed[i]! - x);
  console.log(
    `overhead (${what}): ${rounds} rounds x ${requests} GET /orders/{id}: raw fetch ${mean(raw).toFixed(3)} ms/request, client ${mean(typed).toFixed(3)} ms/request; ` +
      `client - raw: mean ${(mean(typed) - mean(raw)).toFixed(3)} ms, median of rounds ${median(diffs).toFixed(3)} ms ` +
      `[${diffs.map((d) => d.toFixed(3)).join(' ')}] (budget 0.2 ms) (${loadBefore} before, ${load()} after)`,
  );
}
