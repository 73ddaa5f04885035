import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { seedSellerApi } from '../../../support/seller-seed.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { startTcpProxy, type TcpProxy } from '../../../support/tcp-proxy.js';
import { appDeps, qs, STEADY_CLUSTER, testApp } from '../../../support/app.js';
import type { LiveIndexer } from '../../../../indexer/live.js';
import { rebuild } from '../../../../indexer/rebuild.js';
import { createApp } from '../../../../src/api/app.js';
import { routeModules } from '../../../../src/api/routes/index.js';
import type { AppDeps } from '../../../../src/api/deps.js';
import { createEsClient } from '../../../../src/es/client.js';
import { createLogger } from '../../../../src/lib/logger.js';
import { catalogInStep } from '../../../support/suggest-catalog.js';
import type { LiveCatalog } from '../../../../src/search/suggest/live-catalog.js';

// GET /search/suggest against the real index and database: completions and their counts are what
// /search lists, in the same scope, through the browse gates; the correction; freshness through
// the live indexer; Degraded Mode with Elasticsearch cut off; input validation. The answers are
// asked of both paths: the API's in-memory catalog of the cards (what production answers from)
// and the index (what answers while the catalog is not current).

let ctx: TestContext;
let indexer: LiveIndexer;
/** /search and the index path of suggestions. */
let app: Express;
/** Suggestions from the in-memory catalog. */
let memoryDeps: AppDeps;
let memoryApp: Express;
let catalog: LiveCatalog;

const POKEMON = 'Pokémon';
const MAGIC = 'Magic: The Gathering';

beforeAll(async () => {
  ctx = await createTestContext();
  await seedSellerApi(ctx);
  // Maple (7) and Birch (8) are browse-eligible; 208 has no listing; 206 only Birch offers.
  await ctx.pool.query(`
    INSERT INTO products (product_id, name, set_name, category) VALUES
      (201, 'Charizard', 'Base', '${POKEMON}'), (202, 'Charizard ex', 'Obsidian', '${POKEMON}'),
      (203, 'Charmander', 'Base', '${POKEMON}'), (204, 'Charmeleon', 'Base', '${POKEMON}'),
      (205, 'Dark Charizard', 'Rocket', '${POKEMON}'), (206, 'Pikachu', 'Base', '${POKEMON}'),
      (207, 'Charmander', 'Jungle', '${POKEMON}'), (208, 'Charjabug', 'Sun', '${POKEMON}'),
      (209, 'Lightning Helix', 'Ravnica', '${MAGIC}');
    INSERT INTO skus (sku_id, product_id, condition, language, finish)
      SELECT product_id * 10 + 1, product_id, 'Near Mint', 'English', 'Non-Foil' FROM products WHERE product_id BETWEEN 201 AND 209;
    INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES
      (7, 1001, 101, 250, 4, 'matched'), (7, 2001, 102, 300, 1, 'matched'),
      (7, 2011, 201, 900, 2, 'matched'), (7, 2021, 202, 500, 1, 'matched'), (7, 2031, 203, 100, 3, 'matched'),
      (7, 2041, 204, 150, 1, 'matched'), (7, 2071, 207, 120, 1, 'matched'), (7, 2091, 209, 80, 5, 'matched'),
      (8, 2011, 201, 950, 1, 'matched'), (8, 2051, 205, 700, 1, 'matched'), (8, 2061, 206, 60, 9, 'matched');
  `);
  indexer = await startTestIndexer(ctx);
  app = testApp(ctx);
  memoryDeps = appDeps(
    { env: ctx.env, pool: ctx.pool, es: ctx.es, index: ctx.index, logger: createLogger('silent') },
    { ...STEADY_CLUSTER, suggestCatalog: {} },
  );
  memoryApp = createApp(memoryDeps, routeModules);
  catalog = memoryDeps.services.suggestCatalog!;
  await settle();
});
afterAll(async () => {
  await memoryDeps?.services.stop();
  await indexer?.stop();
  await ctx?.close();
});

async function settle() {
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  await catalogInStep(ctx, catalog);
}

interface Completion {
  text: string;
  productCount: number;
}

/** The path the answer cases ask: `memory` or `index`. */
let from: 'memory' | 'index' = 'memory';

async function suggest(params: Record<string, string>, on?: Express) {
  const res = await request(on ?? (from === 'memory' ? memoryApp : app)).get(`/search/suggest${qs(params)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  // The memory path answers only while its catalog is current: it was, so it answered.
  if (on === undefined && from === 'memory') expect(catalog.current(), JSON.stringify(catalog.status())).not.toBeNull();
  return res.body as { success: true; degraded?: boolean; data: { completions: Completion[]; correction: string | null } };
}

/** How many products GET /search?keyword=<keyword> lists in the scope (every page). */
async function listed(keyword: string, scope: Record<string, string> = {}): Promise<number> {
  const res = await request(app).get(`/search${qs({ ...scope, keyword, limit: '100' })}`);
  expect(res.status).toBe(200);
  expect(res.body.data.nextCursor).toBeNull();
  return (res.body.data.items as unknown[]).length;
}

async function expectCountsMatchSearch(completions: Completion[], scope: Record<string, string> = {}) {
  for (const c of completions) expect(c.productCount, c.text).toBe(await listed(c.text, scope));
}

describe.each(['memory', 'index'] as const)('answered from %s', (path) => {
  beforeAll(() => {
    from = path;
  });

  describe('completions', () => {
    it('a typo in a prefix finds the names, ranked by typos, whole words, then products, with /search totals', async () => {
      const { data } = await suggest({ q: 'charz' });
      expect(data.completions).toEqual([
        { text: 'Charizard', productCount: 3 },
        { text: 'Charmander', productCount: 2 },
        { text: 'Charizard ex', productCount: 1 },
        { text: 'Charmeleon', productCount: 1 },
        { text: 'Dark Charizard', productCount: 1 },
      ]);
      await expectCountsMatchSearch(data.completions);
      // A name only an unlisted product carries is never suggested.
      expect(data.completions.map((c) => c.text)).not.toContain('Charjabug');
      expect(data.correction).toBeNull();
    });

    it('a whole word comes before the names it is only a prefix of; limit bounds the list', async () => {
      const { data } = await suggest({ q: 'charizard', limit: '2' });
      expect(data.completions).toEqual([
        { text: 'Charizard', productCount: 3 },
        { text: 'Charizard ex', productCount: 1 },
      ]);
      expect(data.correction).toBeNull();
      const two = await suggest({ q: 'charizard e' });
      expect(two.data.completions).toEqual([{ text: 'Charizard ex', productCount: 1 }]);
    });

    it('folds case and marks like keyword does; a short last term is an exact prefix', async () => {
      const { data } = await suggest({ q: 'LIGHTNÍNG h' });
      expect(data.completions).toEqual([{ text: 'Lightning Helix', productCount: 1 }]);
      expect((await suggest({ q: 'pik' })).data.completions).toEqual([{ text: 'Pikachu', productCount: 1 }]);
      expect((await suggest({ q: 'pkia' })).data.completions).toEqual([]);
    });

    it('is scoped by category and by seller exactly as /search is', async () => {
      const magic = await suggest({ q: 'li', category: MAGIC });
      expect(magic.data.completions.map((c) => c.text)).toEqual(['Lightning Bolt', 'Lightning Helix']);
      await expectCountsMatchSearch(magic.data.completions, { category: MAGIC });
      expect((await suggest({ q: 'char', category: MAGIC })).data.completions).toEqual([]);

      const birch = await suggest({ q: 'charizard', sellerCode: 'birch' });
      expect(birch.data.completions).toEqual([
        { text: 'Charizard', productCount: 2 },
        { text: 'Dark Charizard', productCount: 1 },
      ]);
      await expectCountsMatchSearch(birch.data.completions, { sellerCode: 'birch' });
    });
  });

  describe('correction', () => {
    it('a keyword that lists nothing gets the closest spelling that does, as names write it', async () => {
      const { data } = await suggest({ q: 'charzard' });
      expect(data.correction).toBe('Charizard');
      expect(await listed('charzard')).toBe(0);
      expect(await listed(data.correction!)).toBeGreaterThan(0);
      expect((await suggest({ q: 'lightnign bolt' })).data.correction).toBe('Lightning Bolt');
    });

    it('is null when the keyword lists products, or nothing is close enough', async () => {
      expect((await suggest({ q: 'charmander' })).data.correction).toBeNull();
      expect((await suggest({ q: 'zzzzzz' })).data).toEqual({ completions: [], correction: null });
      // Within the scope: birch lists no Charmander.
      expect((await suggest({ q: 'charmandr', sellerCode: 'birch' })).data.correction).toBeNull();
    });
  });

  describe('freshness through the live indexer', () => {
    it('a new name is suggested, a renamed one by its new name; a seller going on vacation removes the names only it offered', async () => {
      // Ids of this path's own: the other path's run has been through the same steps.
      const id = path === 'memory' ? 210 : 211;
      await ctx.pool.query(`
        INSERT INTO products (product_id, name, set_name, category) VALUES (${id}, 'Charcadet', 'Paldea', '${POKEMON}');
        INSERT INTO skus (sku_id, product_id, condition, language, finish) VALUES (${id * 10 + 1}, ${id}, 'Near Mint', 'English', 'Non-Foil');
        INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, ${id * 10 + 1}, ${id}, 90, 1, 'matched');`);
      await settle();
      // Charmander is one typo off (charma): after the exact prefix.
      expect((await suggest({ q: 'charca' })).data.completions).toEqual([
        { text: 'Charcadet', productCount: 1 },
        { text: 'Charmander', productCount: 2 },
      ]);
      // A renamed product is suggested by its new name only.
      await ctx.pool.query(`UPDATE products SET name = 'Armarouge' WHERE product_id = ${id}`);
      await settle();
      expect((await suggest({ q: 'charcad' })).data.completions).toEqual([]);
      expect((await suggest({ q: 'armar' })).data.completions).toEqual([{ text: 'Armarouge', productCount: 1 }]);

      expect((await suggest({ q: 'pikachu' })).data.completions).toEqual([{ text: 'Pikachu', productCount: 1 }]);
      await ctx.pool.query(`UPDATE sellers SET vacation = true WHERE seller_id = 8`);
      await settle();
      expect((await suggest({ q: 'pikachu' })).data).toEqual({ completions: [], correction: null });
      const { data } = await suggest({ q: 'charizard' });
      expect(data.completions).toEqual([
        { text: 'Charizard', productCount: 2 },
        { text: 'Charizard ex', productCount: 1 },
      ]);
      await expectCountsMatchSearch(data.completions);
      await ctx.pool.query(`UPDATE sellers SET vacation = false WHERE seller_id = 8`);
      await settle();
      expect((await suggest({ q: 'pikachu' })).data.completions).toEqual([{ text: 'Pikachu', productCount: 1 }]);
      // The last offer of a name gone: the name goes with it.
      await ctx.pool.query(`DELETE FROM listings WHERE sku_id = ${id * 10 + 1}`);
      await settle();
      expect((await suggest({ q: 'armar' })).data).toEqual({ completions: [], correction: null });
    });
  });
});

describe('the catalog when its listener drops', () => {
  it('reads every card again once LISTEN is back, and a change made meanwhile is in', async () => {
    const before = catalog.status().loads;
    // Cut the catalog's LISTEN connection, and change a name while nobody listens.
    const cut = await ctx.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'suggest-catalog'`,
    );
    expect(cut.rowCount).toBe(1);
    await ctx.pool.query(`UPDATE products SET name = 'Charmeleon Prime' WHERE product_id = 204`);
    await indexer.idle();
    const until = Date.now() + 20_000;
    while (catalog.status().loads === before || catalog.current() === null) {
      expect(Date.now(), JSON.stringify(catalog.status())).toBeLessThan(until);
      await new Promise((r) => setTimeout(r, 50));
    }
    await settle();
    from = 'memory';
    expect((await suggest({ q: 'charmeleon p' })).data.completions).toEqual([{ text: 'Charmeleon Prime', productCount: 1 }]);
    await ctx.pool.query(`UPDATE products SET name = 'Charmeleon' WHERE product_id = 204`);
    await settle();
    expect((await suggest({ q: 'charmeleon p' })).data.completions).toEqual([]);
  });
});

describe('the catalog through a rebuild', () => {
  it('reads the new index once the alias moves, and keeps answering what /search lists', async () => {
    const before = catalog.status();
    await rebuild({ pool: ctx.pool, es: ctx.es, index: ctx.index, logger: createLogger('silent'), warmUp: false });
    // The old index is gone: the catalog must have moved to the new one to be current again.
    const until = Date.now() + 20_000;
    while (catalog.status().index === before.index || catalog.current() === null) {
      expect(Date.now(), JSON.stringify(catalog.status())).toBeLessThan(until);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(catalog.status().loads).toBeGreaterThan(before.loads);
    await settle();
    from = 'memory';
    const { data } = await suggest({ q: 'charz' });
    expect(data.completions.map((c) => c.text)).toContain('Charizard');
    await expectCountsMatchSearch(data.completions);
  });
});

describe('Degraded Mode', () => {
  let proxy: TcpProxy;
  let deps: AppDeps;
  beforeAll(async () => {
    proxy = await startTcpProxy(ctx.env.ELASTICSEARCH_URL);
    deps = appDeps(
      { env: ctx.env, pool: ctx.pool, es: createEsClient(proxy.url, ctx.env.ES_REQUEST_TIMEOUT_MS), index: ctx.index, logger: createLogger('silent') },
      { degraded: { watch: { enabled: false } } },
    );
  });
  afterAll(async () => {
    await deps?.services.stop();
    await proxy?.close();
  });

  it('with Elasticsearch unreachable it answers from PostgreSQL what the index answers, flagged degraded', async () => {
    const cut = createApp(deps, routeModules);
    await proxy.cut();
    const cases: Record<string, string>[] = [
      { q: 'charz' },
      { q: 'charzard' },
      { q: 'charizard', sellerCode: 'birch' },
      { q: 'li', category: MAGIC },
      { q: 'pik', limit: '1' },
    ];
    for (const params of cases) {
      const healthy = await suggest(params);
      expect(healthy.degraded, JSON.stringify(params)).toBeUndefined();
      const res = await request(cut).get(`/search/suggest${qs(params)}`);
      expect(res.status, JSON.stringify(params)).toBe(200);
      expect(res.body.degraded).toBe(true);
      expect(res.body.data, JSON.stringify(params)).toEqual(healthy.data);
    }
  });

  it('the in-memory catalog stops answering once the cluster is out of reach: PostgreSQL answers, flagged degraded', async () => {
    const proxied = appDeps(
      { env: ctx.env, pool: ctx.pool, es: createEsClient(proxy.url, ctx.env.ES_REQUEST_TIMEOUT_MS), index: ctx.index, logger: createLogger('silent') },
      { degraded: { watch: { enabled: false } }, suggestCatalog: { aliasCheckMs: 100 } },
    );
    try {
      await proxy.restore();
      const mem = proxied.services.suggestCatalog!;
      await mem.ready(20_000);
      const memory = createApp(proxied, routeModules);
      const healthy = await request(memory).get(`/search/suggest${qs({ q: 'charz' })}`);
      expect(healthy.body.degraded).toBeUndefined();
      await proxy.cut();
      const until = Date.now() + 10_000;
      while (mem.current() !== null) {
        expect(Date.now()).toBeLessThan(until);
        await new Promise((r) => setTimeout(r, 50));
      }
      const res = await request(memory).get(`/search/suggest${qs({ q: 'charz' })}`);
      expect(res.status).toBe(200);
      expect(res.body.degraded).toBe(true);
      expect(res.body.data).toEqual(healthy.body.data);
    } finally {
      await proxied.services.stop();
    }
  });
});

describe('per-address limit', () => {
  it("shares the buyer endpoints' per-address budget", async () => {
    const limited = testApp(ctx, { RATE_LIMIT_PUBLIC_PER_MIN: 2 });
    expect((await request(limited).get('/search?keyword=charizard')).status).toBe(200);
    expect((await request(limited).get('/search/suggest?q=char')).status).toBe(200);
    const refused = await request(limited).get('/search/suggest?q=char');
    expect(refused.status).toBe(429);
    expect(refused.body.success).toBe(false);
  });
});

describe('input validation', () => {
  it.each([
    ['no q', ''],
    ['a blank q', '?q=%20%20'],
    ['q over 100 characters', `?q=${'a'.repeat(101)}`],
    ['q given twice', '?q=a&q=b'],
    ['limit 0', '?q=char&limit=0'],
    ['limit 11', '?q=char&limit=11'],
    ['a limit that is no integer', '?q=char&limit=2.5'],
    ['an empty category', '?q=char&category='],
    ['a seller code over 64 characters', `?q=char&sellerCode=${'s'.repeat(65)}`],
  ])('%s is a 400 in the error envelope', async (_name, query) => {
    const res = await request(app).get(`/search/suggest${query}`);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBeTypeOf('string');
  });

  it('q is trimmed; 100 characters after trimming are fine; no letters or digits suggests nothing', async () => {
    expect((await suggest({ q: '  charmander  ' })).data.completions).toEqual([{ text: 'Charmander', productCount: 2 }]);
    expect((await suggest({ q: ` ${'a'.repeat(100)} ` })).data.completions).toEqual([]);
    expect((await suggest({ q: '!!' })).data).toEqual({ completions: [], correction: null });
  });
});
