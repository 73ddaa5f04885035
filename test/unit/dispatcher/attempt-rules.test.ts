import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { decide, MAX_RETRY_AFTER_MS } from '../../../dispatcher/attempt.js';
import { retryAfterSeconds } from '../../../dispatcher/send.js';
import { envelope, sign, signingKey } from '../../../dispatcher/sign.js';
import { loadEnv } from '../../../src/config/env.js';

describe('retry decisions', () => {
  const delays = [1000, 5000];
  it('2xx delivers; 410 fails at once; other answers retry after the delay of their attempt, then fail', () => {
    expect(decide({ statusCode: 204, retryAfterSeconds: null }, 1, delays)).toEqual({ outcome: 'delivered', delayMs: null });
    expect(decide({ statusCode: 410, retryAfterSeconds: null }, 1, delays)).toEqual({ outcome: 'failed', delayMs: null });
    expect(decide({ statusCode: 500, retryAfterSeconds: null }, 1, delays)).toEqual({ outcome: 'retry', delayMs: 1000 });
    expect(decide({ statusCode: null, retryAfterSeconds: null }, 2, delays)).toEqual({ outcome: 'retry', delayMs: 5000 });
    expect(decide({ statusCode: 301, retryAfterSeconds: null }, 3, delays)).toEqual({ outcome: 'failed', delayMs: null });
  });
  it('Retry-After on 429/503 wins only when longer than the next delay, and is capped', () => {
    expect(decide({ statusCode: 429, retryAfterSeconds: 30 }, 1, delays).delayMs).toBe(30_000);
    expect(decide({ statusCode: 503, retryAfterSeconds: 0 }, 1, delays).delayMs).toBe(1000);
    expect(decide({ statusCode: 500, retryAfterSeconds: 30 }, 1, delays).delayMs).toBe(1000);
    expect(decide({ statusCode: 503, retryAfterSeconds: 10 ** 9 }, 1, delays).delayMs).toBe(MAX_RETRY_AFTER_MS);
    expect(decide({ statusCode: 503, retryAfterSeconds: 30 }, 3, delays).outcome).toBe('failed');
  });
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds(undefined, now)).toBeNull();
  });
});

describe('signing', () => {
  it('signs what the reference library verifies, over the exact envelope bytes', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const body = envelope({
      eventId: 'evt_1',
      type: 'order.created',
      apiVersion: '2026-07',
      createdAt: new Date('2026-07-08T10:00:00.120Z'),
      data: '{"b":1, "a":"é"}',
    });
    expect(body.toString()).toBe(
      '{"id":"evt_1","type":"order.created","api_version":"2026-07","created_at":"2026-07-08T10:00:00.120Z","data":{"b":1, "a":"é"}}',
    );
    const ts = Math.floor(Date.now() / 1000);
    const signature = sign(signingKey(secret), 'evt_1', ts, body);
    const wh = new Webhook(secret);
    expect(wh.sign('evt_1', new Date(ts * 1000), body.toString())).toBe(signature);
    expect(wh.verify(body.toString(), { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': `v1,bogus ${signature}` })).toEqual(
      JSON.parse(body.toString()),
    );
    expect(() => wh.verify(body.toString(), { 'webhook-id': 'evt_2', 'webhook-timestamp': String(ts), 'webhook-signature': signature })).toThrow();
  });
  it('refuses a secret that decodes to no key', () => {
    expect(() => signingKey('whsec_')).toThrow(/empty key/);
  });
});

describe('webhook configuration', () => {
  it('parses delays and the private-network switch strictly', () => {
    const env = loadEnv({ WEBHOOK_RETRY_DELAYS_MS: '100, 200,300', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(env.WEBHOOK_RETRY_DELAYS_MS).toEqual([100, 200, 300]);
    expect(env.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
    const defaults = loadEnv({});
    expect(defaults.WEBHOOK_RETRY_DELAYS_MS).toEqual([5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(defaults.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(defaults.WEBHOOK_TIMEOUT_MS).toBe(15000);
    expect(() => loadEnv({ WEBHOOK_RETRY_DELAYS_MS: '5s,10s' })).toThrow(/WEBHOOK_RETRY_DELAYS_MS/);
    expect(() => loadEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
  });
});
