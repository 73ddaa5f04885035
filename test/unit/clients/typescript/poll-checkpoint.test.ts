import { describe, expect, it } from 'vitest';
import { changeFingerprint, decodeCheckpoint, encodeCheckpoint, pageCheckpoints } from '../../../../clients/typescript/src/poll.js';

describe('order poll checkpoint', () => {
  it('round-trips through its text', () => {
    const c = { cursor: 'abc', since: '2026-01-01T00:00:00.000Z', seen: ['1x2', 'y9'] };
    expect(decodeCheckpoint(encodeCheckpoint(c))).toEqual(c);
    expect(decodeCheckpoint(encodeCheckpoint({ cursor: null, since: null, seen: [] }))).toEqual({ cursor: null, since: null, seen: [] });
  });

  it('refuses text that is not a checkpoint', () => {
    for (const text of [
      '',
      'null',
      '{}',
      '{"v":2,"c":null,"s":null,"seen":[]}',
      '{"v":1,"c":1,"s":null,"seen":[]}',
      '{"v":1,"c":null,"s":null,"seen":[]}',
      '{"v":1,"c":null,"s":null,"seen":"a,,b"}',
      '{"v":1,"c":null,"s":null,"seen":"A"}',
    ]) {
      expect(() => decodeCheckpoint(text)).toThrow(TypeError);
    }
  });

  it('fingerprints a change by its order and body: a changed body is another change', () => {
    const a = changeFingerprint('ord_1', '{"order_id":"ord_1"}');
    expect(changeFingerprint('ord_1', '{"order_id":"ord_1"}')).toBe(a);
    expect(changeFingerprint('ord_1', '{"order_id":"ord_1","status":"accepted"}')).not.toBe(a);
    expect(changeFingerprint('ord_2', '{"order_id":"ord_1"}')).not.toBe(a);
    expect(a).toMatch(/^[0-9a-z]+$/);
  });

  it("builds each handed-over change's checkpoint from the page's cursor, the skipped and the handed fingerprints", () => {
    const at = { cursor: 'cur', since: null, seen: ['s1'] };
    const after = pageCheckpoints(at, (k) => `h${k}`);
    expect(decodeCheckpoint(after(2))).toEqual({ cursor: 'cur', since: null, seen: ['s1', 'h0', 'h1'] });
    expect(decodeCheckpoint(after(1))).toEqual({ cursor: 'cur', since: null, seen: ['s1', 'h0'] });
    expect(decodeCheckpoint(pageCheckpoints({ cursor: null, since: 'x', seen: [] }, (k) => `h${k}`)(1))).toEqual({
      cursor: null,
      since: 'x',
      seen: ['h0'],
    });
  });
});
