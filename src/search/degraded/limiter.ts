// Bounds how many reads of one kind run at once: PostgreSQL fallback reads (a flood of cache
// misses in Degraded Mode cannot sink the database the rest of the service depends on) and index
// searches (admission: a loaded cluster gets a steady number of searches instead of a queue that
// turns into timeouts). Callers beyond `max` wait in a short FIFO queue; when no slot frees within
// `maxWaitMs`, or the queue is full, they fail at once with LimiterBusy.

export class LimiterBusy extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimiterBusy';
  }
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

export interface LimiterOptions {
  max: number;
  maxWaitMs: number;
  maxQueue: number;
  /** What the slots are for, in LimiterBusy's message. */
  name?: string;
}

export const DEFAULT_LIMITER: LimiterOptions = { max: 4, maxWaitMs: 1000, maxQueue: 64 };

export class ConcurrencyLimiter {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly opts: LimiterOptions = DEFAULT_LIMITER) {}

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.opts.max) {
      this.active += 1;
      return Promise.resolve();
    }
    if (this.queue.length >= this.opts.maxQueue) {
      return Promise.reject(new LimiterBusy(`${this.opts.name ?? 'fallback'} queue full (${this.opts.maxQueue} waiting)`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        // The slot is handed over directly: `active` stays counted for the waiter.
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(new LimiterBusy(`no ${this.opts.name ?? 'fallback'} slot within ${this.opts.maxWaitMs} ms`));
        }, this.opts.maxWaitMs),
      };
      this.queue.push(waiter);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next.grant();
    else this.active -= 1;
  }
}
