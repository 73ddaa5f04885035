// Bounds how many reads of one kind run at once: PostgreSQL fallback reads (a flood of cache
// misses in Degraded Mode cannot sink the database the rest of the service depends on) and index
// searches (admission: a loaded cluster gets a steady number of searches instead of a queue that
// turns into timeouts). Callers beyond `max` wait in a short queue; when no slot frees within
// `maxWaitMs`, or the queue is full, they fail at once with LimiterBusy.
//
// The queue is first come, first served, except when congested (`order: 'adaptive'`): once the
// oldest waiter has waited half of `maxWaitMs`, a freed slot goes to the newest. Under sustained
// overload a FIFO queue serves only requests that have already waited nearly the whole budget, so
// every served request pays it on top of its own time; newest-first serves the ones that have
// hardly waited, and the old ones, which were going to give up anyway, give up. Throughput is the
// same; only who waits changes.

export class LimiterBusy extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimiterBusy';
  }
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
  since: number;
}

export interface LimiterOptions {
  max: number;
  maxWaitMs: number;
  maxQueue: number;
  /** What the slots are for, in LimiterBusy's message. */
  name?: string;
  /** 'fifo' (default), or 'adaptive': newest first while the oldest has waited half of maxWaitMs. */
  order?: 'fifo' | 'adaptive';
  /** Milliseconds clock (tests). */
  now?: () => number;
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
        since: this.now(),
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

  private now(): number {
    return (this.opts.now ?? performance.now.bind(performance))();
  }

  /** The waiter a freed slot goes to (see the order above). */
  private next(): Waiter | undefined {
    const oldest = this.queue[0];
    if (oldest && this.opts.order === 'adaptive' && this.now() - oldest.since >= this.opts.maxWaitMs / 2) return this.queue.pop();
    return this.queue.shift();
  }

  private release(): void {
    const next = this.next();
    if (next) next.grant();
    else this.active -= 1;
  }
}
