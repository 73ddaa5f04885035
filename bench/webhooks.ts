// Webhook dispatcher benchmark (npm run bench:webhooks -- [--events 20000] [--sellers 10]
//   [--rate 100] [--duration 30] [--hanging 40] [--backlog 50] [--new-events 40] [--root DIR] [--keep]).
//
// A fresh `bench_webhooks_<hex>` database (migrated, no sample) on the server DATABASE_URL names,
// `sellers` sellers whose webhooks point at one local receiver (127.0.0.1, answers 204 at once),
// and the real dispatcher (`dispatcher/main.ts`, a child process, default settings,
// LOG_LEVEL=error: no per-attempt lines, or BENCH_DISPATCHER_LOG_LEVEL, e.g. info for one line per
// attempt; `--root DIR` runs it from another
// checkout of this repository, to compare two versions side by side).
//  1. throughput: `events` outbox rows (round-robin over the sellers) committed in one
//     transaction while the dispatcher idles; timed from COMMIT to the last event recorded
//     `delivered` in PostgreSQL (every send and every record included).
//  2. commit-to-delivery latency: one event per transaction committed at a steady `rate` per second
//     for `duration` seconds on a fixed schedule; per event, the time from COMMIT returning to the
//     receiver reading the request (both clocks in this process).
//  3. beside hanging endpoints (skipped with --hanging 0): `hanging` more sellers whose webhooks
//     point at a server that accepts connections and never answers, each with `backlog` events
//     committed at once (as a redelivery would queue them); then the healthy sellers (which have
//     answered in the phases before) commit exactly as in 2, and their commit-to-delivery latency
//     is measured the same way: 2 and 3 side by side show what the hanging endpoints cost them.
//  4. a new endpoint beside them (skipped with --hanging 0 or --new-events 0): once every hanging
//     endpoint has been tried (none is untried, as after a while in production), one more seller
//     whose webhook URL is new (nothing has answered there yet) commits `new-events` events at
//     `rate`, and their commit-to-delivery latency is measured as in 2.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { migrateUp } from '../src/db/migrate.js';
import { createEsClient } from '../src/es/client.js';
import { cpuLine, cpuMeter } from './cpu.js';
import { admin, load, pct, sleep } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    events: { type: 'string', default: '20000' },
    sellers: { type: 'string', default: '10' },
    rate: { type: 'string', default: '100' },
    duration: { type: 'string', default: '30' },
    hanging: { type: 'string', default: '40' },
    backlog: { type: 'string', default: '50' },
    'new-events': { type: 'string', default: '40' },
    root: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const SELLERS = Number(values.sellers);
const RATE = Number(values.rate);
const DURATION = Number(values.duration);
const HANGING = Number(values.hanging);
const BACKLOG = Number(values.backlog);
const NEW_EVENTS = Number(values['new-events']);
const root = path.resolve(values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const log = (m: string) => console.log(`[bench:webhooks] ${m}`);

const base = loadEnv();
const dbName = `bench_webhooks_${randomBytes(3).toString('hex')}`;
const u = new URL(base.DATABASE_URL);
u.pathname = `/${dbName}`;
const dbUrl = u.toString();
await admin(base.DATABASE_URL, `CREATE DATABASE ${dbName}`);
await migrateUp(dbUrl);
const pool = createPool(dbUrl, 4);

// Receiver: first arrival time per webhook-id.
const firstSeen = new Map<string, number>();
let requests = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests += 1;
    const id = String(req.headers['webhook-id']);
    if (!firstSeen.has(id)) firstSeen.set(id, performance.now());
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

// Hanging endpoints: read the request, never answer.
const hangingRequests = { total: 0, open: 0, maxOpen: 0 };
const hangServer = http.createServer((req) => {
  req.resume();
  hangingRequests.total += 1;
  hangingRequests.open += 1;
  hangingRequests.maxOpen = Math.max(hangingRequests.maxOpen, hangingRequests.open);
  req.socket.once('close', () => (hangingRequests.open -= 1));
});
await new Promise<void>((r) => hangServer.listen(0, '127.0.0.1', r));
const hangUrl = `http://127.0.0.1:${(hangServer.address() as AddressInfo).port}/hook`;

await pool.query(
  `INSERT INTO sellers (seller_id, seller_code, store_name, currency, region) SELECT i, 'b' || i, 'Bench ' || i, 'CAD', 'CA' FROM generate_series(1, $1) i`,
  [SELLERS],
);
await pool.query(`INSERT INTO seller_webhooks (seller_id, url, secret) SELECT i, $2, $3 FROM generate_series(1, $1) i`, [
  SELLERS,
  url,
  `whsec_${randomBytes(32).toString('base64')}`,
]);

// A realistic order.created payload size (~1.2 KB).
const data = (i: number) =>
  JSON.stringify({
    order_id: `ord_${i}`,
    seller_id: 1 + (i % SELLERS),
    created_at: new Date().toISOString(),
    currency: 'CAD',
    customer: { name: 'A Buyer', address: { line1: '1 Main St', city: 'Toronto', region: 'ON', postal_code: 'M5V 1A1', country: 'CA' } },
    lines: Array.from({ length: 3 }, (_v, k) => ({
      sku_id: 1000 + k,
      product_id: 100 + k,
      quantity: 1,
      unit_price: 1299,
      name: 'Lightning Bolt',
      set: 'Alpha',
      condition: 'Near Mint',
      language: 'English',
      finish: 'Non-Foil',
      external_ref: `ext-${i}-${k}`,
      disclosures: null,
      fulfillment_obligation: null,
    })),
    totals: { subtotal: 3897, shipping: 999, tax: 637, grand_total: 5533 },
    shipping: { method: 'Tracked', cost: 999, tracked: true },
  });

const metricsPort = await new Promise<number>((resolve) => {
  const srv = http.createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as AddressInfo;
    srv.close(() => resolve(port));
  });
});
/** A sample of the dispatcher's metrics (NaN where the running version has no such line). */
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.slice(name.length + 1) ?? NaN);
}
/** Claim statements and events claimed so far, from the dispatcher's metrics. */
async function claimStats(): Promise<{ claims: number; claimed: number }> {
  return { claims: await metric('webhook_claims_total'), claimed: await metric('webhook_claimed_events_total') };
}
const child = spawn(process.execPath, ['--import', 'tsx', 'dispatcher/main.ts'], {
  cwd: root,
  env: {
    ...process.env,
    DATABASE_URL: dbUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_METRICS_PORT: String(metricsPort),
    LOG_LEVEL: process.env.BENCH_DISPATCHER_LOG_LEVEL ?? 'error',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
await sleep(2000); // started and idle
const es = createEsClient(base.ELASTICSEARCH_URL, 30_000);
const cpu = await cpuMeter(pool, es, { pid: child.pid!, name: 'dispatcher' });

/** Whether any event is still pending (cheap: the partial due index; a count over the table would load PostgreSQL itself). */
async function anyPending(): Promise<boolean> {
  const { rows } = await pool.query<{ p: boolean }>(`SELECT EXISTS (SELECT 1 FROM webhook_events WHERE state = 'pending') AS p`);
  return rows[0]!.p;
}

/**
 * One event per transaction at RATE per second (`total` of them, by default DURATION seconds' worth)
 * on a fixed schedule (ids `evt_<tag><i>`, seller `sellerOf(i)`); per event, COMMIT returning to the
 * receiver reading it.
 */
async function steadyLatency(tag: string, sellerOf: (i: number) => number, total = RATE * DURATION): Promise<{ total: number; line: string }> {
  const committed = new Map<string, number>();
  const start = performance.now();
  const loadBefore = load();
  const inserts: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const id = `evt_${tag}${i}`;
    inserts.push(
      pool
        .query(
          `INSERT INTO webhook_events (event_id, seller_id, type, created_at, data, state) VALUES ($1, $2, 'order.created', clock_timestamp(), $3, 'pending')`,
          [id, sellerOf(i), data(i)],
        )
        .then(() => void committed.set(id, performance.now())),
    );
  }
  await Promise.all(inserts);
  const deadline = performance.now() + 30_000;
  while ([...committed.keys()].some((id) => !firstSeen.has(id)) && performance.now() < deadline) await sleep(50);
  const lat = [...committed].map(([id, at]) => (firstSeen.get(id) ?? NaN) - at).sort((a, b) => a - b);
  const missing = lat.filter((x) => Number.isNaN(x)).length;
  const ok = lat.filter((x) => !Number.isNaN(x));
  // pct of no arrivals is NaN: say n/a (every event missing), not 'NaN ms'.
  const f = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? 'n/a' : `${x.toFixed(1)} ms`);
  return {
    total,
    line:
      `commit-to-delivery p50 ${f(pct(ok, 0.5))}, p90 ${f(pct(ok, 0.9))}, p99 ${f(pct(ok, 0.99))}, max ${f(ok.at(-1))}` +
      `${missing ? `, ${missing} not delivered within 30 s` : ''} | before: ${loadBefore} | after: ${load()}`,
  };
}

try {
  // 1. Throughput.
  const ids = Array.from({ length: EVENTS }, (_v, i) => `evt_t${i}`);
  const loadBefore = load();
  await pool.query(
    `INSERT INTO webhook_events (event_id, seller_id, type, created_at, data, state)
     SELECT id, 1 + (ord::int - 1) % $2, 'order.created', clock_timestamp(), d, 'pending'
     FROM unnest($1::text[], $3::text[]) WITH ORDINALITY AS x(id, d, ord)`,
    [ids, SELLERS, ids.map((_v, i) => data(i))],
  );
  const t0 = performance.now();
  const c0 = await cpu.sample();
  // Every request arrived (counted in memory), then every outcome recorded.
  while (ids.some((id) => !firstSeen.has(id))) await sleep(10);
  while (await anyPending()) await sleep(10);
  const ms = performance.now() - t0;
  const c1 = await cpu.sample();
  const lastArrival = Math.max(...ids.map((id) => firstSeen.get(id) ?? NaN));
  log(
    `throughput: ${EVENTS} events, ${SELLERS} sellers: all recorded delivered ${Math.round(ms)} ms after COMMIT = ` +
      `${Math.round((EVENTS * 1000) / ms)} events/s (last arrival at ${Math.round(lastArrival - t0)} ms; ${requests} requests) | before: ${loadBefore} | after: ${load()}`,
  );
  const k1 = await claimStats();
  log(`  ${cpuLine(c0, c1, 'dispatcher')}; ${k1.claims} claims, ${(k1.claimed / k1.claims).toFixed(1)} events per claim`);

  // 2. Latency at a steady rate.
  await sleep(1000);
  const c2 = await cpu.sample();
  const steady = await steadyLatency('l', (i) => 1 + (i % SELLERS));
  const c3 = await cpu.sample();
  log(`latency: ${steady.total} events at ${RATE}/s over ${DURATION} s (one per transaction, ${SELLERS} sellers): ${steady.line}`);
  const k2 = await claimStats();
  log(
    `  ${cpuLine(c2, c3, 'dispatcher')}; ${k2.claims - k1.claims} claims, ${((k2.claimed - k1.claimed) / (k2.claims - k1.claims)).toFixed(1)} events per claim`,
  );

  // 3. The same beside endpoints that never answer.
  if (HANGING > 0) {
    const first = SELLERS + 1;
    await pool.query(
      `INSERT INTO sellers (seller_id, seller_code, store_name, currency, region) SELECT i, 'b' || i, 'Bench ' || i, 'CAD', 'CA' FROM generate_series($1::int, $2::int) i`,
      [first, SELLERS + HANGING],
    );
    await pool.query(`INSERT INTO seller_webhooks (seller_id, url, secret) SELECT i, $3 || '/' || i, $4 FROM generate_series($1::int, $2::int) i`, [
      first,
      SELLERS + HANGING,
      hangUrl,
      `whsec_${randomBytes(32).toString('base64')}`,
    ]);
    await pool.query(
      `INSERT INTO webhook_events (event_id, seller_id, type, created_at, data, state)
       SELECT 'evt_h' || i || '_' || k, i, 'order.created', clock_timestamp(), $3, 'pending'
       FROM generate_series($1::int, $2::int) i, generate_series(1, $4::int) k`,
      [first, SELLERS + HANGING, data(0), BACKLOG],
    );
    const c4 = await cpu.sample();
    const fair = await steadyLatency('f', (i) => 1 + (i % SELLERS));
    const c5 = await cpu.sample();
    log(
      `beside ${HANGING} hanging endpoints (${BACKLOG} events each, queued just before): ${fair.total} events at ${RATE}/s over ${DURATION} s ` +
        `(one per transaction, the same ${SELLERS} healthy sellers): ${fair.line}`,
    );
    const unhealthy = ['untried', 'degraded', 'breaker_open'];
    const inFlight = await Promise.all(unhealthy.map((st) => metric(`webhook_attempts_in_flight_by_endpoint_state{state="${st}"}`)));
    const endpoints = await Promise.all(unhealthy.map((st) => metric(`webhook_endpoints{state="${st}"}`)));
    log(
      `  ${cpuLine(c4, c5, 'dispatcher')}; hanging endpoints: ${hangingRequests.total} requests, at most ${hangingRequests.maxOpen} open at once; ` +
        `at the end ${inFlight.map((n, i) => `${unhealthy[i]} ${n}`).join(', ')} in flight; endpoints ${endpoints.map((n, i) => `${unhealthy[i]} ${n}`).join(', ')}`,
    );

    // 4. A seller whose webhook URL is new, once the hanging endpoints are known to hang.
    if (NEW_EVENTS > 0) {
      const waitStart = performance.now();
      while ((await metric('webhook_endpoints{state="untried"}')) > 0 && performance.now() - waitStart < 180_000) await sleep(500);
      const untriedLeft = await metric('webhook_endpoints{state="untried"}');
      const inFlightAtStart = await Promise.all(
        ['healthy', ...unhealthy].map((st) => metric(`webhook_attempts_in_flight_by_endpoint_state{state="${st}"}`)),
      );
      const fresh = SELLERS + HANGING + 1;
      await pool.query(
        `INSERT INTO sellers (seller_id, seller_code, store_name, currency, region) VALUES ($1, 'b' || $1::int, 'Bench new', 'CAD', 'CA')`,
        [fresh],
      );
      await pool.query(`INSERT INTO seller_webhooks (seller_id, url, secret) VALUES ($1, $2, $3)`, [
        fresh,
        `${url}/new`,
        `whsec_${randomBytes(32).toString('base64')}`,
      ]);
      const c6 = await cpu.sample();
      const newUrl = await steadyLatency('n', () => fresh, NEW_EVENTS);
      const c7 = await cpu.sample();
      log(
        `new endpoint beside ${HANGING} hanging endpoints (started ${Math.round((performance.now() - waitStart) / 1000)} s after phase 3 ended, ` +
          `${untriedLeft} hanging endpoints still untried; in flight then by state healthy/untried/degraded/breaker_open ${inFlightAtStart.join('/')}): ${newUrl.total} events of a seller whose URL is new at ${RATE}/s: ${newUrl.line}`,
      );
      log(`  ${cpuLine(c6, c7, 'dispatcher')}`);
    }
  }
} finally {
  // Hanging attempts end at once instead of at their timeout, so the dispatcher stops promptly.
  hangServer.closeAllConnections();
  hangServer.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  server.closeAllConnections();
  server.close();
  await pool.end();
  await es.close();
  if (!values.keep) await admin(base.DATABASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  else log(`database ${dbName} kept`);
}
