import type { ProductFacts, SellerFacts, SkuFacts } from '../../src/db/offer-source.js';

// Source facts for unit tests of offer documents and their JSON, with values JSON must escape
// (quotes, backslashes, U+2028, characters beyond Latin-1 and beyond the BMP).

export const product = (over: Partial<ProductFacts> = {}): ProductFacts => ({
  productId: 7,
  name: 'Éowyn, "Shieldmaiden" \\ 盾',
  set: 'The Lord of the Rings',
  category: 'Magic: The Gathering',
  rarity: 'Mythic',
  collectorNumber: '102',
  imageUrl: 'https://img.example/7.jpg',
  details: [],
  ...over,
});

export const sku = (over: Partial<SkuFacts> = {}): SkuFacts => ({
  skuId: 70,
  productId: 7,
  condition: 'Near Mint',
  language: 'English',
  finish: 'Foil',
  ...over,
});

export const seller = (over: Partial<SellerFacts> = {}): SellerFacts => ({
  sellerId: 3,
  sellerCode: 'maple',
  storeName: 'Maple Cards\u2028 😀',
  vacation: false,
  browseEligible: true,
  poBoxDelivery: 'available',
  ...over,
});
