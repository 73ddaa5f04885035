import { describe, expect, it } from 'vitest';
import { paced, TURN_EVERY_MS } from '../../../indexer/catch-up.js';
import type { OrderedWriter } from '../../../indexer/ordered-writer.js';

// The small lane's turns come at most every TURN_EVERY_MS however often the burst hands a unit over.
describe('paced', () => {
  it('skips a turn asked for less than TURN_EVERY_MS after the last one began, and takes the next one after', async () => {
    let t = 1000;
    const turns: number[] = [];
    const turn = paced(
      async () => void turns.push(t),
      () => t,
    );
    const writer = {} as OrderedWriter;
    await turn(writer);
    t += TURN_EVERY_MS - 1;
    await turn(writer);
    t += 1;
    await turn(writer);
    t += 10;
    await turn(writer);
    expect(turns).toEqual([1000, 1000 + TURN_EVERY_MS]);
  });
});
