import { nameCatalog, type NameCatalog } from './name-catalog.js';

// When the suggestion fallback reads the catalog's names again. Reading them (tens of thousands
// of names, grouped from hundreds of thousands of products) costs more than a suggestion should,
// so one read serves every request for a few seconds: a name added or renamed reaches the
// fallback's suggestions within `refreshMs` (as an index refresh and the indexer's lag delay the
// index path's); listing, gates and counts are read per request, in its own snapshot.

export interface CatalogRefreshOptions {
  /** A list older than this is read again in the background (requests keep using the older one). */
  refreshMs: number;
  /** A list older than this is not used: requests wait for the new one. */
  maxAgeMs: number;
  /** Distinct names kept at most; a catalog with more is refused (the fallback fails, Degraded Mode answers 503). */
  maxNames: number;
}

export const DEFAULT_CATALOG_REFRESH: CatalogRefreshOptions = { refreshMs: 5_000, maxAgeMs: 30_000, maxNames: 200_000 };

export class TooManyNames extends Error {
  constructor(max: number) {
    super(`the catalog has more than ${max} distinct names: suggestions cannot be answered from PostgreSQL`);
    this.name = 'TooManyNames';
  }
}

export interface RefreshedCatalog {
  /** The name list, read again when it is older than the options allow. */
  current(): Promise<NameCatalog>;
}

/** `read(max)`: the distinct names with their products, at most max + 1 (more than max: refused). */
export function refreshedCatalog(
  read: (max: number) => Promise<{ name: string; productIds: number[] }[]>,
  opts: CatalogRefreshOptions = DEFAULT_CATALOG_REFRESH,
  now: () => number = Date.now,
): RefreshedCatalog {
  let held: { catalog: NameCatalog; at: number } | null = null;
  let reading: Promise<NameCatalog> | null = null;
  const readAgain = (): Promise<NameCatalog> => {
    reading ??= (async () => {
      const at = now();
      const rows = await read(opts.maxNames);
      if (rows.length > opts.maxNames) throw new TooManyNames(opts.maxNames);
      held = { catalog: nameCatalog(rows), at };
      return held.catalog;
    })().finally(() => {
      reading = null;
    });
    return reading;
  };
  return {
    current() {
      const age = held === null ? Infinity : now() - held.at;
      if (held === null || age > opts.maxAgeMs) return readAgain();
      // A failed background read leaves the held list; a later request tries again.
      if (age > opts.refreshMs) readAgain().catch(() => {});
      return Promise.resolve(held.catalog);
    },
  };
}
