import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { sendBodies, type BulkBody } from '../../../indexer/bulk.js';
import type { Refusal } from '../../../src/db/index-quarantine.js';

// The rebuild's last pipeline stage, with a send function standing in for the bulk request: what
// it orders, how many it keeps in flight, and that nothing is still in flight when it fails.

const body = (n: number, released: number[]): BulkBody => ({ body: Buffer.from(`${n}`), items: n, release: () => released.push(n) });

/** Sends that end when the test says so, recording what was in flight. */
function controlledSends() {
  const pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  const started: number[] = [];
  let inFlight = 0;
  let most = 0;
  const send = (b: BulkBody) =>
    new Promise<Refusal[]>((resolve, reject) => {
      started.push(b.items);
      most = Math.max(most, ++inFlight);
      const settle = (fn: () => void) => () => {
        inFlight -= 1;
        fn();
      };
      pending.set(b.items, { resolve: settle(() => resolve([])), reject: (err) => settle(() => reject(err))() });
    });
  const tick = () => new Promise((r) => setTimeout(r, 5));
  return { send, pending, started, inFlight: () => inFlight, most: () => most, tick };
}

describe('sendBodies', () => {
  it('sends every body in order, at most `concurrency` at a time, and releases each once written', async () => {
    const s = controlledSends();
    const released: number[] = [];
    const written: number[] = [];
    const done = pipeline(
      Readable.from([1, 2, 3, 4, 5].map((n) => body(n, released))),
      sendBodies(s.send, 2, (b) => written.push(b.items)),
    );
    await s.tick();
    expect(s.started).toEqual([1, 2]);
    s.pending.get(2)!.resolve();
    await s.tick();
    expect(s.started).toEqual([1, 2, 3]);
    for (const n of [1, 3, 4, 5]) {
      await s.tick();
      s.pending.get(n)!.resolve();
    }
    await done;
    expect(s.most()).toBe(2);
    expect(written).toEqual([2, 1, 3, 4, 5]);
    expect(released).toEqual(written);
  });

  it('stops at the first failed send and throws it once the other send in flight has ended, closing the source', async () => {
    const s = controlledSends();
    let sourceClosed = false;
    async function* bodies() {
      try {
        for (let n = 1; n <= 100; n++) yield body(n, []);
      } finally {
        sourceClosed = true;
      }
    }
    const send = sendBodies(s.send, 2, () => undefined);
    const done = pipeline(Readable.from(bodies(), { highWaterMark: 3 }), send).finally(() => send.settled());
    let settled = false;
    void done.catch(() => undefined).finally(() => (settled = true));
    await s.tick();
    s.pending.get(1)!.reject(new Error('bulk: 1 of 1 items failed'));
    await s.tick();
    // Request 2 is still in flight: nothing is thrown yet, and nothing more is sent.
    expect(settled).toBe(false);
    expect(s.started).toEqual([1, 2]);
    s.pending.get(2)!.resolve();
    await expect(done).rejects.toThrow('bulk: 1 of 1 items failed');
    expect(s.inFlight()).toBe(0);
    expect(sourceClosed).toBe(true);
  });

  it("throws the source's error; settled() waits for the sends still in flight", async () => {
    const s = controlledSends();
    async function* bodies() {
      yield body(1, []);
      yield body(2, []);
      throw new Error('snapshot read failed');
    }
    const send = sendBodies(s.send, 2, () => undefined);
    const done = pipeline(Readable.from(bodies()), send).finally(() => send.settled());
    let settled = false;
    void done.catch(() => undefined).finally(() => (settled = true));
    await s.tick();
    expect(settled).toBe(false);
    s.pending.get(1)!.resolve();
    s.pending.get(2)!.resolve();
    await expect(done).rejects.toThrow('snapshot read failed');
    expect(s.inFlight()).toBe(0);
  });
});
