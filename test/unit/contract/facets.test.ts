import { describe, expect, it } from 'vitest';
import { FACETS, searchQuerySchema } from '../../../src/contract/buyer.js';
import { FACET_PARAMS } from '../../../src/contract/facets.js';

// The facet-to-parameter table agrees with GET /search's own schema: every facet is listed, its
// parameter is one /search takes, and a parameter said to take several values keeps them all.

describe('the facet-to-parameter table', () => {
  it('lists every facet, in the response order', () => {
    expect(Object.keys(FACET_PARAMS)).toEqual([...FACETS]);
  });

  it.each(FACETS)('%s: /search takes its parameter, with several values exactly when `multi`', (facet) => {
    const { param, multi } = FACET_PARAMS[facet];
    expect(searchQuerySchema.parse({ [param]: 'A' })).toMatchObject({ [param]: multi ? ['A'] : 'A' });
    const several = searchQuerySchema.safeParse({ [param]: ['A', 'B'] });
    expect(several.success).toBe(multi);
    if (several.success) expect(several.data).toMatchObject({ [param]: ['A', 'B'] });
  });
});
