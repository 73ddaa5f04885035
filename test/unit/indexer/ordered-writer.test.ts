import type { Client } from '@elastic/elasticsearch';
import { describe, expect, it } from 'vitest';
import type { Pool } from '../../../src/db/pool.js';
import { orderedWriter } from '../../../indexer/ordered-writer.js';
import { stepTimes } from '../../../indexer/step-times.js';

/** A client whose `_bulk` requests stay open until the test answers them, in the order they were sent. */
function heldBulk() {
  const sent: { name: string; answer: () => void }[] = [];
  const es = {
    transport: {
      request: (params: { bulkBody: Buffer }) =>
        new Promise((resolve) => sent.push({ name: params.bulkBody.toString(), answer: () => resolve({ errors: false }) })),
    },
  } as unknown as Client;
  const answer = async (name: string) => {
    const i = sent.findIndex((s) => s.name === name);
    if (i < 0) throw new Error(`${name} was not sent`);
    sent.splice(i, 1)[0]!.answer();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { es, sent, answer };
}

// The scheduling is under test here: the quarantine table (exercised in the integration tests) holds nothing.
const noQuarantine = { query: async () => ({ rows: [], rowCount: 0 }) } as unknown as Pool;

const body = (name: string) => ({ body: Buffer.from(name), items: 1 });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the ordered writer', () => {
  it('sends units that share no document side by side, two at a time, a third when ahead', async () => {
    const { es, sent, answer } = heldBulk();
    const w = orderedWriter(noQuarantine, es, 'i', stepTimes(), 2);
    await w.write([body('a')], ['o:1']);
    await w.write([body('b')], ['o:2']);
    const third = w.write([body('c')], ['o:3']);
    await tick();
    expect(sent.map((s) => s.name)).toEqual(['a', 'b']);
    await w.write([body('small')], ['o:4'], 0, true);
    expect(sent.map((s) => s.name)).toEqual(['a', 'b', 'small']);
    await answer('a');
    await answer('small');
    await third;
    expect(sent.map((s) => s.name)).toEqual(['b', 'c']);
    await answer('b');
    await answer('c');
    await w.flush();
  });

  it('orders a document behind every unit handed over before, also one still waiting for a slot', async () => {
    const { es, sent, answer } = heldBulk();
    const w = orderedWriter(noQuarantine, es, 'i', stepTimes(), 2);
    await w.write([body('a')], ['o:1']);
    await w.write([body('b')], ['o:2']);
    // Waits for a slot; a later unit naming its card must not overtake it, even with a free slot of its own.
    const waiting = w.write([body('older card')], ['c:9', 'o:3']);
    const newer = w.write([body('newer card')], ['c:9'], 0, true);
    await tick();
    expect(sent.map((s) => s.name)).toEqual(['a', 'b']);
    await answer('a');
    await waiting;
    expect(sent.map((s) => s.name)).toEqual(['b', 'older card']);
    await tick();
    expect(sent.map((s) => s.name)).toEqual(['b', 'older card']);
    await answer('older card');
    await newer;
    expect(sent.map((s) => s.name)).toEqual(['b', 'newer card']);
    await answer('b');
    await answer('newer card');
    await w.flush();
  });

  it('lets a unit that shares no document go past one that waits for a shared card (a waiting unit holds no slot)', async () => {
    const { es, sent, answer } = heldBulk();
    const w = orderedWriter(noQuarantine, es, 'i', stepTimes(), 1);
    await w.write([body('burst')], ['c:1', 'o:1']);
    const shared = w.write([body('shares the card')], ['c:1', 'o:2'], 0, true);
    await w.write([body('own card')], ['c:2', 'o:3'], 0, true);
    expect(sent.map((s) => s.name)).toEqual(['burst', 'own card']);
    await answer('own card');
    await tick();
    expect(sent.map((s) => s.name)).toEqual(['burst']);
    await answer('burst');
    await shared;
    expect(sent.map((s) => s.name)).toEqual(['shares the card']);
    await answer('shares the card');
    await w.flush();
  });

  it('refuses units after a failed one and reports the failure on flush', async () => {
    const es = { transport: { request: () => Promise.reject(new Error('cluster gone')) } } as unknown as Client;
    const w = orderedWriter(noQuarantine, es, 'i', stepTimes(), 2);
    await w.write([body('a')], ['o:1']);
    await w.settled();
    await expect(w.write([body('b')], ['o:2'])).rejects.toThrow('cluster gone');
    await expect(w.flush()).rejects.toThrow('cluster gone');
  });
});
