import { describe, expect, it } from 'vitest';
import { cardIds, catalogCard, catalogPageBody } from '../../../../src/search/queries/card-catalog.js';

// What the suggestion catalog asks of the index, exactly, and how it reads the answers.

describe('the card catalog reads', () => {
  it('pages every card by a point in time in _shard_doc order, doc values of three fields only', () => {
    expect(catalogPageBody('pit-1', null)).toEqual({
      size: 10_000,
      pit: { id: 'pit-1', keep_alive: '1m' },
      query: { term: { docType: 'card' } },
      _source: false,
      docvalue_fields: ['nameKey', 'category', 'sellerCode'],
      sort: ['_shard_doc'],
      track_total_hits: false,
    });
    expect(catalogPageBody('pit-1', [42, 7], 500)).toMatchObject({ size: 500, search_after: [42, 7] });
  });

  it('reads a card from doc values (arrays) and from _source (scalars), and nothing else', () => {
    expect(catalogCard('c:12', { nameKey: ['Charizard'], category: ['Pokémon'], sellerCode: ['birch', 'maple'] })).toEqual({
      productId: 12,
      name: 'Charizard',
      category: 'Pokémon',
      sellerCodes: ['birch', 'maple'],
    });
    expect(catalogCard('c:12', { nameKey: 'Charizard', category: null, sellerCode: 'birch' })).toEqual({
      productId: 12,
      name: 'Charizard',
      category: null,
      sellerCodes: ['birch'],
    });
    expect(catalogCard('c:13', {})).toEqual({ productId: 13, name: null, category: null, sellerCodes: [] });
    expect(catalogCard('n:1:2', { nameKey: ['x'] })).toBeNull();
    expect(cardIds([1, 2])).toEqual(['c:1', 'c:2']);
  });
});
