// Where a batch's time goes: milliseconds per step, summed over a batch (docs/indexing.md);
// `bulk` is the requests of the documents themselves, `bulkCards` those of their products' cards,
// `quarantine` the quarantine table's writes (quarantine.ts: releases after every unit). Reads
// `notify` the word to the API processes of the cards written (card-notices.ts). Reads
// of the next unit overlap the bulk request in flight, so the steps add up to more than the batch.

export const STEPS = ['feed', 'fanOut', 'facts', 'build', 'serialise', 'bulk', 'bulkCards', 'checkpoint', 'smallLane', 'quarantine', 'notify'] as const;
export type Step = (typeof STEPS)[number];
export type StepTimes = Record<Step, number>;

export function stepTimes(): StepTimes {
  return { feed: 0, fanOut: 0, facts: 0, build: 0, serialise: 0, bulk: 0, bulkCards: 0, checkpoint: 0, smallLane: 0, quarantine: 0, notify: 0 };
}

export async function timed<T>(times: StepTimes, step: Step, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    times[step] += performance.now() - t0;
  }
}

export function timedSync<T>(times: StepTimes, step: Step, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    times[step] += performance.now() - t0;
  }
}
