// Circuit breaker in front of the search cluster (DECISIONS.md "Degraded Mode"). A pure state
// machine: no timers, no I/O; the caller passes the clock. Two kinds of evidence drive it:
//   - the outcome of the API's own index queries (success, failure, timeout), and
//   - what the cluster watcher observes every second (health of the alias's indices + a probe query).
//
//   closed     queries go to the index. `failureThreshold` consecutive failures, or a bad
//              observation (red, unreachable, probe failed) → open.
//   open       queries skip the index (Degraded Mode). After `openMs`, and unless the watcher's
//              last observation was bad → half-open. A good observation after `openMs` → closed.
//   half-open  Degraded Mode still; at most `probeLimit` real queries may try the index. A probe
//              that succeeds, or a good observation → closed; a probe that fails → open again.
//
// A loaded cluster is not a dead one: a query or watcher probe that timed out while another
// query was answered meanwhile (after the timed-out one began) says the cluster is busy, not
// gone, and moves nothing. A hung or unreachable cluster answers nothing, so its timeouts count.

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What the cluster watcher saw on one tick. */
export type Observation =
  | { kind: 'good'; status: 'green' | 'yellow' }
  | { kind: 'red'; detail: string }
  /** `timedOutSince`: the call timed out (rather than being refused); when the tick began. */
  | { kind: 'unreachable'; detail: string; timedOutSince?: number }
  | { kind: 'probe-failed'; detail: string };

export interface BreakerOptions {
  /** Consecutive failed or timed-out index queries that open the breaker. */
  failureThreshold: number;
  /** Minimum time open before the index is tried again. */
  openMs: number;
  /** Concurrent probe queries allowed while half-open. */
  probeLimit: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failureThreshold: 3, openMs: 2000, probeLimit: 1 };

/** Permission to send one query to the index; hand it back with success(), failure() or release(). */
export interface Permit {
  readonly probe: boolean;
  /** The breaker generation the permit was issued in; outcomes of older generations are stale. */
  readonly generation: number;
  /** When it was issued (the breaker's clock). */
  readonly issuedAt: number;
}

/** How a failure was taken: it counted toward opening, or it was a timeout under load. */
export type FailureVerdict = 'counted' | 'overload';

export interface BreakerSnapshot {
  state: BreakerState;
  reason: string | null;
  since: number;
  consecutiveFailures: number;
  opens: number;
}

export class CircuitBreaker {
  private st: BreakerState = 'closed';
  private since: number;
  private failures = 0;
  private probesInFlight = 0;
  private lastObservationBad = false;
  private why: string | null = null;
  private gen = 0;
  private openCount = 0;
  private lastSuccessAt = -Infinity;

  constructor(
    private readonly opts: BreakerOptions = DEFAULT_BREAKER,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
  }

  /** The state as of now (open turns half-open once its time is up and nothing says the cluster is bad). */
  get state(): BreakerState {
    this.advance();
    return this.st;
  }

  /** Degraded Mode is on whenever the breaker is not closed. */
  get degraded(): boolean {
    return this.state !== 'closed';
  }

  snapshot(): BreakerSnapshot {
    return { state: this.state, reason: this.why, since: this.since, consecutiveFailures: this.failures, opens: this.openCount };
  }

  /** A permit to query the index, or null when the request must be answered in Degraded Mode. */
  tryAcquire(): Permit | null {
    this.advance();
    if (this.st === 'closed') return { probe: false, generation: this.gen, issuedAt: this.now() };
    if (this.st === 'half-open' && this.probesInFlight < this.opts.probeLimit) {
      this.probesInFlight += 1;
      return { probe: true, generation: this.gen, issuedAt: this.now() };
    }
    return null;
  }

  success(permit: Permit): void {
    this.lastSuccessAt = this.now();
    if (permit.probe) this.probesInFlight = Math.max(0, this.probesInFlight - 1);
    if (permit.generation !== this.gen) return; // issued before the last transition: says nothing now
    if (this.st === 'closed') this.failures = 0;
    else if (this.st === 'half-open' && permit.probe) this.close();
  }

  /**
   * The query failed; `timedOut` when it ran out of time rather than being refused or answered
   * with an error. A timeout while the cluster answered another query meanwhile is overload.
   */
  failure(permit: Permit, reason: string, timedOut = false): FailureVerdict {
    if (permit.probe) this.probesInFlight = Math.max(0, this.probesInFlight - 1);
    // Strictly after: on a millisecond clock a success in the same tick may have come first.
    if (timedOut && this.lastSuccessAt > permit.issuedAt) return 'overload';
    if (permit.generation !== this.gen) return 'counted';
    if (this.st === 'closed') {
      this.failures += 1;
      if (this.failures >= this.opts.failureThreshold) this.open(`${this.failures} consecutive query failures: ${reason}`);
    } else if (this.st === 'half-open' && permit.probe) {
      this.open(`probe query failed: ${reason}`);
    }
    return 'counted';
  }

  /** The permit was not used (the query never started): says nothing about the cluster. */
  release(permit: Permit): void {
    if (permit.probe) this.probesInFlight = Math.max(0, this.probesInFlight - 1);
  }

  observe(o: Observation): void {
    this.advance();
    // A probe that timed out while buyer queries were answered: busy, not gone.
    if (o.kind === 'unreachable' && o.timedOutSince !== undefined && this.lastSuccessAt > o.timedOutSince) return;
    if (o.kind === 'good') {
      this.lastObservationBad = false;
      if (this.st === 'half-open' || (this.st === 'open' && this.now() - this.since >= this.opts.openMs)) this.close();
      return;
    }
    this.lastObservationBad = true;
    const reason =
      o.kind === 'red' ? `cluster red: ${o.detail}` : o.kind === 'unreachable' ? `cluster unreachable: ${o.detail}` : `probe failed: ${o.detail}`;
    if (this.st === 'open') {
      this.why = reason;
      return;
    }
    this.open(reason);
  }

  private advance(): void {
    if (this.st === 'open' && !this.lastObservationBad && this.now() - this.since >= this.opts.openMs) {
      this.transition('half-open');
    }
  }

  private open(reason: string): void {
    this.why = reason;
    this.openCount += 1;
    this.transition('open');
  }

  private close(): void {
    this.why = null;
    this.transition('closed');
  }

  private transition(to: BreakerState): void {
    this.st = to;
    this.since = this.now();
    this.failures = 0;
    this.gen += 1;
    if (to !== 'half-open') this.probesInFlight = 0;
  }
}
