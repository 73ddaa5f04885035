import { describe, expect, it } from 'vitest';
import { suggestQuery } from '../../../storefront/views/keyword-box.js';

describe('the search box asks for suggestions', () => {
  it('for the trimmed text, in the game and store the search page shows', () => {
    const scope = new URLSearchParams('keyword=old&category=Pok%C3%A9mon&sellerCode=maple&condition=Near%20Mint');
    expect(suggestQuery('  charz ', scope)).toBe('?q=charz&category=Pok%C3%A9mon&sellerCode=maple');
    expect(suggestQuery('charz', new URLSearchParams())).toBe('?q=charz');
  });

  it('not at all for blank text or text longer than the API takes', () => {
    expect(suggestQuery('   ', new URLSearchParams())).toBeNull();
    expect(suggestQuery('a'.repeat(101), new URLSearchParams())).toBeNull();
    expect(suggestQuery(` ${'a'.repeat(100)} `, new URLSearchParams())).toBe(`?q=${'a'.repeat(100)}`);
  });
});
