import type { Client } from '@elastic/elasticsearch';
import { CARD_NOTICES, parseCardNotice } from '../../db/card-notices.js';
import { listen } from '../../db/listen.js';
import type { Registry } from 'prom-client';
import type { Logger } from '../../lib/logger.js';
import { counterFrom, gaugeFrom, stateGaugeFrom } from '../../lib/metrics.js';
import { CATALOG_FIELDS, catalogCard, catalogPageBody, cardIds } from '../queries/card-catalog.js';
import { cardCatalog, type CardCatalog } from './card-catalog.js';

// The API process's suggestion catalog (card-catalog.ts) kept in step with the index the alias
// points at (docs/search-design.md, "Suggestions from memory"):
//   1. once LISTEN on the indexer's card notices is in force (card-notices.ts), every card is read
//      (a refresh first, so every write made before is in the point in time);
//   2. the cards the indexer says it wrote are read again by id (a realtime _mget, on the cluster's
//      get threads, not its search threads) a moment later, many at once;
//   3. every card is read again when the alias moves (a rebuild's swap), when the listener
//      reconnects (notices were lost meanwhile), and every `reloadMs` (a notice lost to an indexer
//      stopped between its write and its NOTIFY).
// Until the first read ends, while the alias points elsewhere, while the listener is down or a
// read of noticed cards failed, `current()` is null and suggestions ask the index as before.

export interface LiveCatalogOptions {
  /** Every card is read again this often. */
  reloadMs: number;
  /** How often the alias's index is looked up. */
  aliasCheckMs: number;
  /** Noticed cards are gathered this long, then read in one _mget. */
  applyEveryMs: number;
}

export const DEFAULT_LIVE_CATALOG: LiveCatalogOptions = { reloadMs: 10 * 60_000, aliasCheckMs: 2_000, applyEveryMs: 100 };

/** Cards per _mget of noticed cards. */
const MGET_CARDS = 2_000;

export interface LiveCatalogStatus {
  /** `current`: answering; `loading`: the first read (or the read of a new index) runs; `behind`: held but not trusted. */
  state: 'current' | 'loading' | 'behind';
  index: string | null;
  cards: number;
  names: number;
  /** Noticed cards not read yet. */
  pending: number;
  /** Card notices heard for this alias's index (an empty one included). */
  notices: number;
  loads: number;
  lastLoadMs: number | null;
}

export interface LiveCatalog {
  /** The catalog while it is in step with the alias's index, else null. */
  current(): CardCatalog | null;
  status(): LiveCatalogStatus;
  /** Resolves once the catalog is current (tests, benches), or rejects after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Every card of `index` as of a point in time, in a new catalog (`stop`: asked between pages). */
export async function readCatalog(es: Client, index: string, stop: () => boolean = () => false): Promise<CardCatalog> {
  const catalog = cardCatalog();
  const pit = await es.openPointInTime({ index, keep_alive: '1m' });
  try {
    let after: unknown[] | null = null;
    while (!stop()) {
      const res = await es.search<unknown>(catalogPageBody(pit.id, after) as never);
      const hits = res.hits.hits;
      if (hits.length === 0) break;
      for (const h of hits) {
        const card = catalogCard(h._id!, h.fields as never);
        if (card !== null) catalog.put(card);
      }
      after = hits[hits.length - 1]!.sort as unknown[];
    }
  } finally {
    await es.closePointInTime({ id: pit.id }).catch(() => undefined);
  }
  return catalog;
}

export interface LiveCatalogDeps {
  es: Client;
  alias: string;
  databaseUrl: string;
  logger: Logger;
}

export function liveCatalog(deps: LiveCatalogDeps, opts: LiveCatalogOptions = DEFAULT_LIVE_CATALOG): LiveCatalog {
  const { es, alias } = deps;
  const log = deps.logger.child({ component: 'suggest-catalog' });
  let held: { index: string; catalog: CardCatalog } | null = null;
  /** The alias's index as last looked up. */
  let aliasIndex: string | null = null;
  let listening = false;
  let failing = false;
  const pending = new Set<number>();
  /** Noticed while a read of every card runs: read again into the new catalog once it ends. */
  let duringLoad: Set<number> | null = null;
  let loadingIndex: string | null = null;
  let loading: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  /** Ends the wait before a failed read is tried again (stop() does not wait it out). */
  let wakeRetry: (() => void) | null = null;
  let lastFailure: string | null = null;
  let loads = 0;
  let notices = 0;
  let lastLoadMs: number | null = null;

  const lookUpAlias = async (): Promise<string> => {
    const res = await es.indices.getAlias({ name: alias });
    const names = Object.keys(res);
    if (names.length !== 1) throw new Error(`alias ${alias} points at ${names.length} indices`);
    return names[0]!;
  };

  /** 1. Every card of the alias's index, in a new catalog. */
  async function readAll(): Promise<void> {
    const t0 = performance.now();
    const index = await lookUpAlias();
    aliasIndex = index;
    loadingIndex = index;
    duringLoad = new Set();
    await es.indices.refresh({ index });
    const catalog = await readCatalog(es, index, () => stopped);
    if (stopped) return;
    for (const id of duringLoad) pending.add(id);
    held = { index, catalog };
    failing = false;
    lastFailure = null;
    loads++;
    lastLoadMs = Math.round(performance.now() - t0);
    log.info({ index, cards: catalog.size, names: catalog.names, ms: lastLoadMs }, 'suggestion catalog read');
  }

  function reload(reason: string): void {
    if (stopped) return;
    if (loading) {
      again = true;
      return;
    }
    log.info({ reason }, 'reading every card for the suggestion catalog');
    loading = (async () => {
      do {
        again = false;
        try {
          await readAll();
        } catch (err) {
          if (stopped) break;
          // Warned once per kind of failure (an API started before its index retries every 5 s).
          const message = (err as Error).message;
          (message === lastFailure ? log.debug.bind(log) : log.warn.bind(log))({ err: message }, 'suggestion catalog read failed; trying again in 5 s');
          lastFailure = message;
          await new Promise<void>((r) => {
            const timer = setTimeout(r, 5_000);
            wakeRetry = () => {
              clearTimeout(timer);
              r();
            };
          });
          wakeRetry = null;
          again = !stopped;
        } finally {
          duringLoad = null;
          loadingIndex = null;
        }
      } while (again && !stopped);
    })().finally(() => {
      loading = null;
    });
  }

  /** 2. The noticed cards, read again by id. */
  async function applyNoticed(): Promise<void> {
    if (held === null || pending.size === 0) return;
    // The first MGET_CARDS without copying the rest (a vacation can notice a hundred thousand).
    const ids: number[] = [];
    for (const id of pending) {
      if (ids.length === MGET_CARDS) break;
      ids.push(id);
    }
    for (const id of ids) pending.delete(id);
    const into = held;
    try {
      const res = await es.mget<Record<string, unknown>>({
        index: into.index,
        ids: cardIds(ids),
        _source_includes: [...CATALOG_FIELDS],
        filter_path: ['docs._id', 'docs._source', 'docs.found', 'docs.error'],
      });
      for (const [i, d] of res.docs.entries()) {
        if ('error' in d && d.error) throw new Error(`card read failed: ${JSON.stringify(d.error)}`);
        const card = '_source' in d && d._source ? catalogCard(d._id, d._source) : null;
        if (card !== null) into.catalog.put(card);
        else into.catalog.remove(ids[i]!);
      }
      failing = false;
    } catch (err) {
      for (const id of ids) pending.add(id);
      if (!failing)
        log.warn({ err: (err as Error).message, pending: pending.size }, 'noticed cards could not be read; suggestions ask the index meanwhile');
      failing = true;
    }
  }

  const onNotice = (payload?: string) => {
    if (payload === undefined) return;
    const notice = parseCardNotice(payload);
    if (notice === null) return;
    const ours = notice.index === alias || notice.index === held?.index || notice.index === loadingIndex;
    if (!ours) {
      // Another index: a rebuild's catch-up, or the alias has moved since it was looked up.
      if (notice.index !== aliasIndex) void checkAlias();
      return;
    }
    notices++;
    for (const id of notice.productIds) {
      pending.add(id);
      duringLoad?.add(id);
    }
  };

  /** 3. The alias moved: every card of its new index. One look-up at a time (a rebuild's catch-up sends many notices). */
  let checking: Promise<void> | null = null;
  const checkAlias = (): Promise<void> => (checking ??= lookAtAlias().finally(() => (checking = null)));
  async function lookAtAlias(): Promise<void> {
    try {
      const index = await lookUpAlias();
      aliasIndex = index;
      if (held !== null && index !== held.index && loadingIndex !== index) reload('the alias moved');
    } catch (err) {
      aliasIndex = null;
      log.debug({ err: (err as Error).message }, 'alias look-up failed');
    }
  }

  const subscriber = listen(deps.databaseUrl, CARD_NOTICES, log, onNotice, {
    applicationName: 'suggest-catalog',
    onListening: () => {
      listening = true;
      reload('listening for card notices');
    },
    onLost: () => {
      listening = false;
    },
  });
  let applying = false;
  const applyTimer = setInterval(() => {
    if (applying) return;
    applying = true;
    void applyNoticed().finally(() => (applying = false));
  }, opts.applyEveryMs).unref();
  const aliasTimer = setInterval(() => void checkAlias(), opts.aliasCheckMs).unref();
  const reloadTimer = setInterval(() => reload('periodic'), opts.reloadMs).unref();

  const current = () => (held !== null && listening && !failing && held.index === aliasIndex ? held.catalog : null);
  return {
    current,
    status: () => ({
      state: current() !== null ? 'current' : held === null || (loadingIndex !== null && loadingIndex !== held.index) ? 'loading' : 'behind',
      index: held?.index ?? null,
      cards: held?.catalog.size ?? 0,
      names: held?.catalog.names ?? 0,
      pending: pending.size,
      notices,
      loads,
      lastLoadMs,
    }),
    async ready(timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (current() === null || pending.size > 0) {
        if (Date.now() > until) throw new Error(`suggestion catalog not current after ${timeoutMs} ms: ${JSON.stringify(this.status())}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      stopped = true;
      clearInterval(applyTimer);
      clearInterval(aliasTimer);
      clearInterval(reloadTimer);
      wakeRetry?.();
      await subscriber.close();
      await loading;
    },
  };
}

const STATES = ['current', 'loading', 'behind'] as const;

/** The catalog's state in the process's metrics (docs/operations.md). */
export function registerLiveCatalogMetrics(registry: Registry, catalog: LiveCatalog): void {
  stateGaugeFrom(
    registry,
    'suggest_catalog_state',
    'Whether suggestions are answered from memory (current) or ask the index',
    'state',
    STATES,
    () => catalog.status().state,
  );
  gaugeFrom(registry, 'suggest_catalog_cards', 'Cards held in the suggestion catalog', () => catalog.status().cards);
  gaugeFrom(registry, 'suggest_catalog_pending', 'Cards the indexer wrote that the suggestion catalog has not read yet', () => catalog.status().pending);
  gaugeFrom(registry, 'suggest_catalog_last_load_seconds', 'How long the last read of every card took', () => (catalog.status().lastLoadMs ?? 0) / 1000);
  counterFrom(registry, 'suggest_catalog_loads_total', 'Reads of every card into the suggestion catalog', () => catalog.status().loads);
}
