import { z } from 'zod';
import { queryInt } from './query.js';

// Buyer-facing reads (api-contract.md): request schemas validate at the edge, response schemas
// give the TypeScript types and the OpenAPI document. One source for all three.
// Unknown query parameters (cache busters, tracking tags) are ignored; known ones are validated.

const filterString = z.string().min(1).max(255);
/** A filter given once or repeated (`condition=a&condition=b`); always an array after parsing. */
const multiFilter = z.union([filterString, z.array(filterString).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const productParamsSchema = z.object({
  productId: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'must be an integer > 0')
    .transform(Number)
    .pipe(z.number().int().max(2147483647)),
});

export const productQuerySchema = z.object({
  condition: multiFilter.optional(),
  language: multiFilter.optional(),
  finish: multiFilter.optional(),
  limit: queryInt(1, 100).default(50).describe('Page size, 1 to 100; default 50'),
  offset: z
    .union([queryInt(0), z.literal('null'), z.literal('')])
    .transform((v) => (typeof v === 'number' ? v : 0))
    .default(0),
});
export type ProductQuery = z.output<typeof productQuerySchema>;

export const searchQuerySchema = z.object({
  keyword: z.string().max(255).optional().describe('Every term must match a term of the product name'),
  category: filterString.optional(),
  set: filterString.optional(),
  rarity: filterString.optional(),
  sellerCode: z.string().min(1).max(64).optional(),
  condition: multiFilter.optional(),
  language: multiFilter.optional(),
  finish: multiFilter.optional(),
  collectorNumber: multiFilter.optional(),
  checkoutMode: z.enum(['express', 'manual', 'any']).default('any'),
  sort: z.enum(['name', 'name_desc']).default('name'),
  limit: queryInt(1, 100).default(24).describe('Page size, 1 to 100; default 24'),
  cursor: z.string().min(1).max(2048).optional(),
});
export type SearchQuery = z.output<typeof searchQuerySchema>;

/** The scope of a suggestion: /search's own `category` and `sellerCode`, with their meaning. */
export const suggestQuerySchema = z.object({
  q: z.string().trim().min(1).max(100).describe('What the buyer has typed so far: 1 to 100 characters after trimming'),
  limit: queryInt(1, 10).default(8).describe('Completions, 1 to 10; default 8'),
  category: searchQuerySchema.shape.category,
  sellerCode: searchQuerySchema.shape.sellerCode,
});
export type SuggestQuery = z.output<typeof suggestQuerySchema>;

export const MAX_LOOKUP_LINES = 500;
export const lookupBodySchema = z
  .object({
    lines: z.array(z.object({ sellerId: z.number().int().positive(), skuId: z.number().int().positive() }).strict()).max(MAX_LOOKUP_LINES),
  })
  .strict();
export type LookupBody = z.output<typeof lookupBodySchema>;

// ---- responses ----

export const disclosuresSchema = z.object({
  imageSource: z.literal('catalog'),
  conditionSource: z.literal('seller_declared'),
  authenticitySource: z.literal('seller_attestation'),
  serviceInspected: z.literal(false),
  serviceGraded: z.literal(false),
  serviceAuthenticated: z.literal(false),
  gradingStandard: z.enum(['service-magic-v1', 'seller-declared-no-specialist-promise']),
  declaredGrade: z.string().nullable(),
  buyerProtection: z.enum(['magic-grade-and-authenticity', 'genuine-and-as-described']),
});
export type Disclosures = z.infer<typeof disclosuresSchema>;

export const fulfillmentObligationSchema = z.object({
  sku: z.literal('exact'),
  printing: z.literal('exact'),
  language: z.literal('exact'),
  finish: z.literal('exact'),
  condition: z.literal('declared-or-better'),
});
export type FulfillmentObligation = z.infer<typeof fulfillmentObligationSchema>;

export const offerSchema = z.object({
  lane: z.enum(['native', 'handoff']),
  productId: z.number().int(),
  sellerId: z.number().int().nullable(),
  storeSlug: z.string().nullable(),
  variantId: z.number().int().nullable(),
  skuId: z.number().int(),
  sellerName: z.string().nullable(),
  condition: z.string().nullable(),
  language: z.string().nullable(),
  finish: z.string().nullable(),
  isSealed: z.boolean(),
  price: z.number().int(),
  available: z.number().int(),
  checkoutMode: z.enum(['express', 'manual']).nullable(),
  salesCount: z.number().int().nullable(),
  sellerCode: z.string().nullable(),
  reviewScore: z.object({ score: z.number().nullable(), count: z.number().int() }),
  poBoxDelivery: z.object({ status: z.enum(['available', 'seller_declines', 'platform_suspended']) }).nullable(),
  disclosures: disclosuresSchema.nullable(),
  fulfillmentObligation: fulfillmentObligationSchema.nullable(),
});
export type Offer = z.infer<typeof offerSchema>;

export const productSchema = z.object({
  productId: z.number().int(),
  name: z.string().nullable(),
  set: z.string().nullable(),
  rarity: z.string().nullable(),
  collectorNumber: z.string().nullable(),
  imageUrl: z.string().nullable(),
  details: z.array(z.object({ label: z.string(), value: z.string() })),
});
export type Product = z.infer<typeof productSchema>;

export const searchItemSchema = z.object({
  productId: z.number().int(),
  name: z.string().nullable(),
  set: z.string().nullable(),
  category: z.string().nullable(),
  rarity: z.string().nullable(),
  collectorNumber: z.string().nullable(),
  imageUrl: z.string().nullable(),
  isSealed: z.boolean(),
  fromPrice: z.number().int(),
  sellerCount: z.number().int(),
  disclosures: disclosuresSchema.nullable(),
  fulfillmentObligation: fulfillmentObligationSchema.nullable(),
});
export type SearchItem = z.infer<typeof searchItemSchema>;

/** The search facets, in the order of the response; the index and the PostgreSQL paths use this one list. */
export const FACETS = ['category', 'set', 'rarity', 'condition', 'language', 'finish', 'collectorNumber', 'seller'] as const;
export type FacetName = (typeof FACETS)[number];

const facetValues = z.array(z.object({ value: z.string(), count: z.number().int() }));
export const facetsSchema = z.object({
  category: facetValues,
  set: facetValues,
  rarity: facetValues,
  condition: facetValues,
  language: facetValues,
  finish: facetValues,
  collectorNumber: facetValues,
  seller: z.array(z.object({ sellerCode: z.string(), storeName: z.string(), count: z.number().int() })),
});
export type Facets = z.infer<typeof facetsSchema>;

export const cartLineSchema = z.object({
  sellerId: z.number().int(),
  skuId: z.number().int(),
  seller: z.object({ name: z.string() }).nullable(),
  product: z.object({ productId: z.number().int(), name: z.string().nullable(), set: z.string().nullable(), image: z.string().nullable() }).nullable(),
  sku: z.object({ condition: z.string().nullable(), language: z.string().nullable(), finish: z.string().nullable() }).nullable(),
  currentPrice: z.number().int().nullable(),
  available: z.number().int(),
  sellerUnavailable: z.object({ sellerId: z.number().int(), reason: z.enum(['SELLER_ON_VACATION', 'SELLER_UNAVAILABLE']) }).optional(),
  policy: z
    .object({
      status: z.enum(['eligible', 'blocked']),
      error: z.object({ code: z.string(), message: z.string(), action: z.string() }).nullable(),
    })
    .optional(),
  disclosures: disclosuresSchema.nullable().optional(),
  fulfillmentObligation: fulfillmentObligationSchema.nullable().optional(),
});
export type CartLine = z.infer<typeof cartLineSchema>;

export const productResponseSchema = z.object({ offers: z.array(offerSchema), product: productSchema.nullable() });
export const searchResponseSchema = z.object({
  items: z.array(searchItemSchema),
  facets: facetsSchema,
  nextCursor: z.string().nullable(),
});
export const suggestionsSchema = z.object({
  completions: z
    .array(
      z.object({
        text: z.string().describe('A product name, as it is written'),
        productCount: z.number().int().describe('Products GET /search?keyword=<text> lists in the same scope'),
      }),
    )
    .describe('Fewer typos first, then whole words before prefixes, then more products, then name'),
  correction: z.string().nullable().describe('When GET /search?keyword=<q> lists nothing: the closest spelling that lists products, else null'),
});
export type Suggestions = z.infer<typeof suggestionsSchema>;
export const lookupResponseSchema = z.object({ lines: z.array(cartLineSchema) });
