import { describe, expect, it } from 'vitest';
import type { FinishedAttempt } from '../../../dispatcher/attempt.js';
import { changesHealth, endpointReports } from '../../../dispatcher/endpoint-health.js';

// What a batch of finished attempts tells each endpoint's health row (the breaker's input).

let n = 0;
function attempt(sellerId: number, statusCode: number | null, o: Partial<FinishedAttempt> = {}): FinishedAttempt {
  n += 1;
  return {
    eventId: `e${n}`,
    attempt: 1,
    startedAt: new Date(0),
    durationMs: 10,
    statusCode,
    error: statusCode === null ? 'timeout after 1000 ms' : null,
    outcome: statusCode !== null && statusCode < 300 ? 'delivered' : 'retry',
    delayMs: null,
    sellerId,
    url: `http://hooks.example/${sellerId}`,
    endpointState: 'degraded',
    ...o,
  };
}

describe('endpoint reports from a batch of attempts', () => {
  it('counts the unanswered attempts after the last answer; any status is an answer', () => {
    expect(endpointReports([attempt(1, null), attempt(1, null)], 5000)).toEqual([
      { sellerId: 1, url: 'http://hooks.example/1', answered: false, failures: 2, slow: false, probe: null },
    ]);
    expect(endpointReports([attempt(1, null), attempt(1, 500), attempt(1, null)], 5000)).toEqual([
      { sellerId: 1, url: 'http://hooks.example/1', answered: true, failures: 1, slow: false, probe: null },
    ]);
    expect(endpointReports([attempt(1, null), attempt(1, 204)], 5000)[0]).toMatchObject({ answered: true, failures: 0 });
  });

  it('marks a slow last answer, one report per seller in seller order', () => {
    const reports = endpointReports(
      [attempt(2, 200, { durationMs: 6000 }), attempt(1, 200, { durationMs: 6000 }), attempt(1, 200, { durationMs: 20 })],
      5000,
    );
    expect(reports.map((r) => [r.sellerId, r.slow])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it('names the probe that ended, so only it frees the probe slot', () => {
    const probe = attempt(1, null, { endpointState: 'breaker_open', attempt: 7 });
    expect(endpointReports([attempt(1, null), probe], 5000)[0]!.probe).toEqual({ eventId: probe.eventId, attempt: 7 });
  });

  it('leaves out an endpoint that was healthy when claimed and answered promptly again (nothing to change)', () => {
    const healthy = (sellerId: number, statusCode: number | null, durationMs = 20) =>
      attempt(sellerId, statusCode, { endpointState: 'healthy', durationMs });
    expect(endpointReports([healthy(1, 200), healthy(1, 500)], 5000)).toEqual([]);
    expect(endpointReports([healthy(1, 200), healthy(2, null), healthy(3, 200, 6000), attempt(4, 200)], 5000).map((r) => r.sellerId)).toEqual([2, 3, 4]);
  });

  it('leaves out attempts sent to an endpoint URL that has since changed', () => {
    const reports = endpointReports([attempt(1, null), attempt(1, null), attempt(1, 200, { url: 'http://hooks.example/new' })], 5000);
    expect(reports).toEqual([{ sellerId: 1, url: 'http://hooks.example/new', answered: true, failures: 0, slow: false, probe: null }]);
  });
});

describe('which attempts change their endpoint’s health row', () => {
  it('any attempt to an endpoint not healthy when claimed, and an unanswered or slow one; not a healthy endpoint answering promptly', () => {
    expect(changesHealth(attempt(1, 200, { endpointState: 'healthy' }), 5000)).toBe(false);
    expect(changesHealth(attempt(1, 500, { endpointState: 'healthy' }), 5000)).toBe(false);
    expect(changesHealth(attempt(1, 200, { endpointState: 'healthy', durationMs: 6000 }), 5000)).toBe(true);
    expect(changesHealth(attempt(1, null, { endpointState: 'healthy' }), 5000)).toBe(true);
    expect(changesHealth(attempt(1, 200, { endpointState: 'untried' }), 5000)).toBe(true);
    expect(changesHealth(attempt(1, 200, { endpointState: 'degraded' }), 5000)).toBe(true);
  });
});
