import { describe, expect, it } from 'vitest';
import { namedParams } from '../../../src/db/named-params.js';

describe('namedParams', () => {
  it('numbers the placeholders in declaration order, with their types, and gives the values in that order', () => {
    const p = namedParams({ limit: 'int', sellers: 'int[]', from: 'timestamptz' });
    expect(p.ref).toEqual({ limit: '$1::int', sellers: '$2::int[]', from: '$3::timestamptz' });
    const at = new Date(0);
    expect(p.values({ from: at, limit: 5, sellers: [1, 2] })).toEqual([5, [1, 2], at]);
  });
});
