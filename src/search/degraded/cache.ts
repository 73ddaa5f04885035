import { LRUCache } from 'lru-cache';

// Last-good cache (DECISIONS.md "Degraded Mode"): every healthy index answer is kept under its
// normalized request, so in Degraded Mode the same request gets the same answer, flagged degraded.
// Entries are kept as the UTF-8 bytes of their JSON, outside the JS heap, and a hit is sent as
// those bytes: the size bound counts what the entries really hold. (Kept as JS strings, an answer
// with one character beyond Latin-1, a ♀ in a name or a set named in Japanese, is two bytes a
// character, so a bound on characters held up to twice its size: BENCHMARKS.md, "The API's
// memory".) A hit can never hand out an object some caller has mutated.

/**
 * JSON with object keys sorted and undefined members dropped; arrays keep their order (a filter
 * given as [a, b] and one given as [b, a] are different requests, as in the query string).
 */
export function stableJson(value: unknown): string {
  // Plain loops and string appends: this runs on every buyer read (a 20-line cart is 21 objects),
  // and the entries/filter/sort/map/join chain allocated several arrays per object.
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null'; // as JSON.stringify
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return JSON.stringify(value) ?? 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i === 0 ? '' : ',') + (v === undefined ? 'null' : stableJson(v));
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  // Default sort: by UTF-16 code units, the same order as comparing the strings with < and >.
  const keys = Object.keys(obj).sort();
  let out = '{';
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(k)}:${stableJson(v)}`;
  }
  return `${out}}`;
}

/**
 * The cache key of one buyer read: the method and its parsed, defaulted arguments (what the zod
 * schemas produced), so `?limit=24` and no limit share an entry. A search's `cursor` is dropped:
 * its decoded form, the `after` argument, is what the read depends on.
 */
export function requestKey(method: string, args: readonly unknown[]): string {
  const normalized =
    method === 'search' && args[0] !== null && typeof args[0] === 'object'
      ? [{ ...(args[0] as Record<string, unknown>), cursor: undefined }, ...args.slice(1)]
      : args;
  return `${method} ${stableJson(normalized)}`;
}

/** The method a request key was made for (its first word). */
export function methodOfKey(key: string): string {
  const space = key.indexOf(' ');
  return space < 0 ? key : key.slice(0, space);
}

export interface LastGoodCacheOptions {
  /** Upper bound on the summed size of keys (two bytes a character, at most) and UTF-8 JSON answers, in bytes. */
  maxBytes: number;
  maxEntries: number;
  /** Answers larger than this are not kept (default: maxBytes / 16). */
  maxEntryBytes?: number;
  /** Entries expire after this long (default: never; the last-good cache keeps answers until evicted). */
  ttlMs?: number;
}

export const DEFAULT_CACHE: LastGoodCacheOptions = { maxBytes: 64 * 1024 * 1024, maxEntries: 20_000 };

/** The UTF-8 bytes of `json` in a buffer of their own (a small Buffer.from shares, and so keeps alive, an 8 KiB pool slab). */
function ownBytes(json: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
  bytes.write(json, 'utf8');
  return bytes;
}

export class LastGoodCache {
  private readonly lru: LRUCache<string, Buffer>;

  constructor(opts: LastGoodCacheOptions = DEFAULT_CACHE) {
    this.lru = new LRUCache<string, Buffer>({
      max: opts.maxEntries,
      maxSize: opts.maxBytes,
      maxEntrySize: opts.maxEntryBytes ?? Math.max(1, Math.floor(opts.maxBytes / 16)),
      sizeCalculation: (bytes, key) => Math.max(1, bytes.byteLength + 2 * key.length),
      ...(opts.ttlMs ? { ttl: opts.ttlMs, ttlAutopurge: false } : {}),
    });
  }

  set(key: string, data: unknown): void {
    this.setJson(key, JSON.stringify(data));
  }

  get<T>(key: string): T | undefined {
    const json = this.getJson(key);
    return json === undefined ? undefined : (JSON.parse(json) as T);
  }

  /** Keeps an answer already serialized (`JSON.stringify` of it), as its UTF-8 bytes. */
  setJson(key: string, json: string): void {
    this.lru.set(key, ownBytes(json));
  }

  /** The UTF-8 bytes of the JSON kept under `key`: what a degraded answer sends as it is. */
  getBytes(key: string): Buffer | undefined {
    return this.lru.get(key);
  }

  /** The JSON text kept under `key`, as given to `set`/`setJson`. */
  getJson(key: string): string | undefined {
    return this.lru.get(key)?.toString('utf8');
  }

  has(key: string): boolean {
    return this.lru.has(key);
  }

  delete(key: string): void {
    this.lru.delete(key);
  }

  keys(): string[] {
    return [...this.lru.keys()];
  }

  get entries(): number {
    return this.lru.size;
  }

  /** Bytes held: the UTF-8 answers and their keys (what the maxBytes bound counts). */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  clear(): void {
    this.lru.clear();
  }
}
