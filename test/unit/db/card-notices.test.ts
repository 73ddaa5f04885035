import { describe, expect, it } from 'vitest';
import { cardNoticePayloads, parseCardNotice } from '../../../src/db/card-notices.js';

// The indexer's card notices fit PostgreSQL's NOTIFY payload limit and read back whole.

describe('card notices', () => {
  it('split many products into payloads under 8,000 bytes that read back to the same ids in order', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => 1_000_000 + i * 7);
    const payloads = cardNoticePayloads('mp-market-v1795959995047', ids);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
    const back = payloads.map((p) => parseCardNotice(p)!);
    expect(back.every((n) => n.index === 'mp-market-v1795959995047')).toBe(true);
    expect(back.flatMap((n) => n.productIds)).toEqual(ids);
  });

  it('send nothing for no products, and one payload for a few', () => {
    expect(cardNoticePayloads('mp-market', [])).toEqual([]);
    expect(cardNoticePayloads('mp-market', [3, 4])).toEqual(['{"index":"mp-market","productIds":[3,4]}']);
  });

  it('read anything else as no notice', () => {
    for (const junk of ['', 'not json', '{}', '{"index":1,"productIds":[]}', '{"index":"a","productIds":["1"]}', '{"index":"a","productIds":[1.5]}'])
      expect(parseCardNotice(junk), junk).toBeNull();
  });
});
