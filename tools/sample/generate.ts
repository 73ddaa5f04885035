import type { Fixture } from '../../src/fixtures/schema.js';
import { allListings, handoffStores, PriceBook, product, sampleSizes, seller, skusOf, type SampleSizes } from './model.js';

// The sample as streams of fixture-format rows, one generator per table, in the order the
// fixture loader writes them. Nothing is held in memory beyond one row (and the price book).

export interface Sample {
  seed: number;
  sizes: SampleSizes;
  platform: NonNullable<Fixture['platform']>;
  products(): Generator<NonNullable<Fixture['products']>[number]>;
  skus(): Generator<NonNullable<Fixture['skus']>[number]>;
  sellers(): Generator<NonNullable<Fixture['sellers']>[number]>;
  listings(): Generator<NonNullable<Fixture['listings']>[number]>;
  handoffStores(): NonNullable<Fixture['handoffStores']>;
}

export function createSample(listings: number, seed: number): Sample {
  const sizes = sampleSizes(listings);
  const prices = new PriceBook(seed, sizes);
  return {
    seed,
    sizes,
    platform: { poBoxSuspended: false },
    *products() {
      for (let id = 1; id <= sizes.products; id++) yield product(seed, sizes, id);
    },
    *skus() {
      for (let id = 1; id <= sizes.products; id++) yield* skusOf(seed, sizes, id);
    },
    *sellers() {
      for (let id = 1; id <= sizes.sellers; id++) yield seller(seed, id);
    },
    listings: () => allListings(seed, sizes, prices),
    handoffStores: () => handoffStores(seed, sizes, prices),
  };
}
