// A small seeded PRNG (mulberry32) and helpers. Every entity draws from its own stream, seeded by
// hashing (seed, kind, id), so any product, seller or listing can be regenerated alone and the
// output does not depend on generation order: same seed + N => byte-identical data.

/** 32-bit integer hash of a list of integers (murmur3-style finalizer per step). */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** For (seed, kind, id): an independent stream per entity. */
  static for(...parts: number[]): Rng {
    return new Rng(hash32(...parts));
  }

  /** mulberry32: uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from empty list');
    return items[this.int(items.length)]!;
  }

  /** Picks by weight from [value, weight] pairs. */
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [v, w] of items) {
      x -= w;
      if (x < 0) return v;
    }
    return items[items.length - 1]![0];
  }

  hex(chars: number): string {
    let out = '';
    while (out.length < chars) out += this.int(0x10000).toString(16).padStart(4, '0');
    return out.slice(0, chars);
  }
}
