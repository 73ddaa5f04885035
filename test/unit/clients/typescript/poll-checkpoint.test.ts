import { describe, expect, it } from 'vitest';
import { changeFingerprint, decodeCheckpoint, encodeCheckpoint } from '../../../../clients/typescript/src/poll.js';

describe('order poll checkpoint', () => {
  it('round-trips through its text', () => {
    const c = { cursor: 'abc', since: '2026-01-01T00:00:00.000Z', seen: ['o1:x', 'o2:y'] };
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
      '{"v":1,"c":null,"s":null,"seen":[1]}',
    ]) {
      expect(() => decodeCheckpoint(text)).toThrow(TypeError);
    }
  });

  it('fingerprints a change by its order and body: a changed body is another change', () => {
    const a = changeFingerprint('ord_1', '{"order_id":"ord_1"}');
    expect(changeFingerprint('ord_1', '{"order_id":"ord_1"}')).toBe(a);
    expect(changeFingerprint('ord_1', '{"order_id":"ord_1","status":"accepted"}')).not.toBe(a);
    expect(changeFingerprint('ord_2', '{"order_id":"ord_1"}')).not.toBe(a);
    expect(a.startsWith('ord_1:')).toBe(true);
  });
});
