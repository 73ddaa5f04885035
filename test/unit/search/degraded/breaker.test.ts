import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerOptions } from '../../../../src/search/degraded/breaker.js';

const OPTS: BreakerOptions = { failureThreshold: 3, openMs: 2000, probeLimit: 1 };

function setup(opts: BreakerOptions = OPTS) {
  let t = 1_000_000;
  const b = new CircuitBreaker(opts, () => t);
  return { b, advance: (ms: number) => (t += ms) };
}

const good = { kind: 'good', status: 'green' } as const;

describe('circuit breaker', () => {
  it('starts closed and lets every query through', () => {
    const { b } = setup();
    expect(b.state).toBe('closed');
    expect(b.degraded).toBe(false);
    expect(b.tryAcquire()).toMatchObject({ probe: false });
    expect(b.tryAcquire()).toMatchObject({ probe: false });
  });

  it('opens after N consecutive failures; a success in between resets the run', () => {
    const { b } = setup();
    b.failure(b.tryAcquire()!, 'timeout');
    b.failure(b.tryAcquire()!, 'timeout');
    b.success(b.tryAcquire()!);
    b.failure(b.tryAcquire()!, 'timeout');
    b.failure(b.tryAcquire()!, 'timeout');
    expect(b.state).toBe('closed');
    b.failure(b.tryAcquire()!, 'timeout');
    expect(b.state).toBe('open');
    expect(b.degraded).toBe(true);
    expect(b.snapshot().reason).toMatch(/3 consecutive query failures: timeout/);
    expect(b.tryAcquire()).toBeNull();
  });

  it('opens at once on red, unreachable or a failed probe', () => {
    for (const o of [
      { kind: 'red', detail: '1 unassigned primary' },
      { kind: 'unreachable', detail: 'ECONNREFUSED' },
      { kind: 'probe-failed', detail: 'index_closed_exception' },
    ] as const) {
      const { b } = setup();
      b.observe(o);
      expect(b.state).toBe('open');
      expect(b.tryAcquire()).toBeNull();
    }
  });

  it('stays open while the watcher keeps seeing a bad cluster, however long', () => {
    const { b, advance } = setup();
    b.observe({ kind: 'unreachable', detail: 'down' });
    for (let i = 0; i < 30; i++) {
      advance(1000);
      b.observe({ kind: 'unreachable', detail: 'down' });
      expect(b.state).toBe('open');
      expect(b.tryAcquire()).toBeNull();
    }
  });

  it('goes half-open after openMs, lets one probe through, and closes when it succeeds', () => {
    const { b, advance } = setup();
    b.failure(b.tryAcquire()!, 'x');
    b.failure(b.tryAcquire()!, 'x');
    b.failure(b.tryAcquire()!, 'x');
    advance(1999);
    expect(b.state).toBe('open');
    advance(1);
    expect(b.state).toBe('half-open');
    expect(b.degraded).toBe(true);
    const probe = b.tryAcquire();
    expect(probe).toMatchObject({ probe: true });
    expect(b.tryAcquire()).toBeNull(); // one probe at a time
    b.success(probe!);
    expect(b.state).toBe('closed');
    expect(b.snapshot().reason).toBeNull();
  });

  it('reopens when the probe fails, and waits openMs again', () => {
    const { b, advance } = setup();
    b.observe({ kind: 'probe-failed', detail: 'x' });
    b.observe(good); // good but too early: stays open
    expect(b.state).toBe('open');
    advance(2000);
    const probe = b.tryAcquire();
    expect(probe?.probe).toBe(true);
    b.failure(probe!, 'still failing');
    expect(b.state).toBe('open');
    expect(b.snapshot().reason).toMatch(/probe query failed/);
    advance(1000);
    expect(b.tryAcquire()).toBeNull();
    advance(1000);
    expect(b.state).toBe('half-open');
  });

  it('closes by itself when the watcher sees a good cluster after openMs', () => {
    const { b, advance } = setup();
    b.observe({ kind: 'red', detail: 'x' });
    advance(1000);
    b.observe({ kind: 'red', detail: 'x' });
    advance(1000);
    b.observe({ kind: 'red', detail: 'x' });
    expect(b.state).toBe('open'); // bad last observation: no half-open
    advance(500);
    b.observe(good);
    expect(b.state).toBe('closed');
    expect(b.snapshot().opens).toBe(1);
  });

  it('ignores outcomes of queries started before the last transition', () => {
    const { b } = setup();
    const early = b.tryAcquire()!;
    b.observe({ kind: 'unreachable', detail: 'x' });
    b.success(early); // a slow query finishing late says nothing about now
    expect(b.state).toBe('open');
    const { b: b2 } = setup();
    const stale = b2.tryAcquire()!;
    b2.observe({ kind: 'red', detail: 'x' });
    b2.observe(good);
    expect(b2.state).toBe('open');
    b2.failure(stale, 'late');
    expect(b2.snapshot().consecutiveFailures).toBe(0);
  });

  it('a failure while closed after recovery starts a fresh count', () => {
    const { b, advance } = setup();
    b.failure(b.tryAcquire()!, 'x');
    b.failure(b.tryAcquire()!, 'x');
    b.observe({ kind: 'unreachable', detail: 'x' });
    advance(2000);
    b.observe(good);
    expect(b.state).toBe('closed');
    b.failure(b.tryAcquire()!, 'x');
    b.failure(b.tryAcquire()!, 'x');
    expect(b.state).toBe('closed');
  });

  it('takes a timeout while another query was answered as overload: it neither counts nor opens', () => {
    const { b, advance } = setup();
    for (let i = 0; i < 5; i++) {
      const slow = b.tryAcquire()!;
      advance(100);
      b.success(b.tryAcquire()!); // the cluster answered another query meanwhile
      advance(1400);
      expect(b.failure(slow, 'timeout', true)).toBe('overload');
    }
    expect(b.state).toBe('closed');
    expect(b.snapshot().consecutiveFailures).toBe(0);
  });

  it('counts timeouts when nothing was answered since they began (a hung cluster), and errors always', () => {
    const { b, advance } = setup();
    b.success(b.tryAcquire()!);
    advance(10);
    const hung = [b.tryAcquire()!, b.tryAcquire()!];
    advance(1500);
    expect(b.failure(hung[0]!, 'timeout', true)).toBe('counted');
    expect(b.failure(hung[1]!, 'timeout', true)).toBe('counted');
    const refused = b.tryAcquire()!;
    b.success(b.tryAcquire()!);
    expect(b.failure(refused, 'ECONNREFUSED')).toBe('counted');
    expect(b.state).toBe('closed'); // the success in between reset the run: one failure so far
    b.failure(b.tryAcquire()!, 'ECONNREFUSED');
    b.failure(b.tryAcquire()!, 'ECONNREFUSED');
    expect(b.state).toBe('open');
  });

  it('ignores a watcher timeout when buyer queries were answered since the tick began, not a refusal', () => {
    const { b, advance } = setup();
    const tickAt = 1_000_000;
    advance(300);
    b.success(b.tryAcquire()!);
    b.observe({ kind: 'unreachable', detail: 'TimeoutError', timedOutSince: tickAt });
    expect(b.state).toBe('closed');
    b.observe({ kind: 'unreachable', detail: 'TimeoutError', timedOutSince: tickAt + 500 });
    expect(b.state).toBe('open');
    const { b: b2 } = setup();
    b2.success(b2.tryAcquire()!);
    b2.observe({ kind: 'unreachable', detail: 'ECONNREFUSED' });
    expect(b2.state).toBe('open');
  });

  it('hands a probe slot back when its query never started', () => {
    const { b, advance } = setup();
    for (let i = 0; i < 3; i++) b.failure(b.tryAcquire()!, 'ECONNREFUSED');
    advance(2000);
    expect(b.state).toBe('half-open');
    const probe = b.tryAcquire()!;
    expect(probe.probe).toBe(true);
    expect(b.tryAcquire()).toBeNull();
    b.release(probe);
    expect(b.tryAcquire()).toMatchObject({ probe: true });
  });
});
