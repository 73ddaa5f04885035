// The suggestion catalog's cards as columns of numbers (card-catalog.ts): hundreds of thousands of
// cards held as a few typed arrays, not as an object and an array each, so the API's garbage
// collector has next to nothing of them to trace (as objects they made every major collection
// of the API's heap mark ~60 MB more, in steps of up to 20 ms between requests). A card's name,
// category and sellers are numbers the catalog interns; each name keeps the slots of its cards.
// Pure.

export interface CardTable {
  /** Adds the product's card, or replaces it. `name` -1: a card without a name. */
  put(productId: number, name: number, category: number, sellers: readonly number[]): void;
  /** The product's card is gone. */
  remove(productId: number): void;
  /** The slots of the cards carrying the name. */
  members(name: number): readonly number[];
  category(slot: number): number;
  hasSeller(slot: number, seller: number): boolean;
  /** Cards held. */
  readonly size: number;
}

const resized = (a: Int32Array, length: number): Int32Array => {
  const b = new Int32Array(length);
  b.set(a.subarray(0, Math.min(a.length, length)));
  return b;
};

export function cardTable(): CardTable {
  let capacity = 1024;
  let name: Int32Array = new Int32Array(capacity);
  let category: Int32Array = new Int32Array(capacity);
  /** The card's sellers: pool[sellerStart, sellerStart + sellerCount). */
  let sellerStart: Int32Array = new Int32Array(capacity);
  let sellerCount: Int32Array = new Int32Array(capacity);
  /** The card's index in its name's member list. */
  let position: Int32Array = new Int32Array(capacity);
  const slotOf = new Map<number, number>();
  const free: number[] = [];
  let nextSlot = 0;
  let pool: Int32Array = new Int32Array(4096);
  let poolUsed = 0;
  let poolLive = 0;
  const members: number[][] = [];

  const newSlot = (): number => {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    if (nextSlot === capacity) {
      capacity *= 2;
      name = resized(name, capacity);
      category = resized(category, capacity);
      sellerStart = resized(sellerStart, capacity);
      sellerCount = resized(sellerCount, capacity);
      position = resized(position, capacity);
    }
    return nextSlot++;
  };

  /** Replaced cards leave their sellers behind in the pool: copied out once they are half of it. */
  const storeSellers = (sellers: readonly number[]): number => {
    if (poolUsed + sellers.length > pool.length) {
      if (poolLive * 2 < poolUsed) {
        const compacted = new Int32Array(Math.max(4096, (poolLive + sellers.length) * 2));
        let at = 0;
        for (const slot of slotOf.values()) {
          const start = sellerStart[slot]!;
          compacted.set(pool.subarray(start, start + sellerCount[slot]!), at);
          sellerStart[slot] = at;
          at += sellerCount[slot]!;
        }
        pool = compacted;
        poolUsed = at;
      }
      if (poolUsed + sellers.length > pool.length) pool = resized(pool, Math.max(pool.length * 2, poolUsed + sellers.length));
    }
    pool.set(sellers, poolUsed);
    const start = poolUsed;
    poolUsed += sellers.length;
    poolLive += sellers.length;
    return start;
  };

  const remove = (productId: number) => {
    const slot = slotOf.get(productId);
    if (slot === undefined) return;
    slotOf.delete(productId);
    const n = name[slot]!;
    if (n >= 0) {
      // Swap-remove: the name's last member takes this one's place.
      const list = members[n]!;
      const last = list.pop()!;
      if (last !== slot) {
        list[position[slot]!] = last;
        position[last] = position[slot]!;
      }
    }
    poolLive -= sellerCount[slot]!;
    free.push(slot);
  };

  return {
    put(productId, n, c, sellers) {
      remove(productId);
      const slot = newSlot();
      name[slot] = n;
      category[slot] = c;
      sellerCount[slot] = sellers.length;
      sellerStart[slot] = storeSellers(sellers);
      if (n >= 0) {
        const list = (members[n] ??= []);
        position[slot] = list.length;
        list.push(slot);
      }
      slotOf.set(productId, slot);
    },
    remove,
    members: (n) => members[n] ?? [],
    category: (slot) => category[slot]!,
    hasSeller(slot, seller) {
      const start = sellerStart[slot]!;
      const end = start + sellerCount[slot]!;
      for (let i = start; i < end; i++) if (pool[i] === seller) return true;
      return false;
    },
    get size() {
      return slotOf.size;
    },
  };
}
