import { z } from 'zod';
import { queryInt } from './query.js';

// Wire schemas of the seller integration routes (listings writes/export, store status), from
// api-contract.md and DECISIONS.md. Types are derived from them; the descriptions feed the
// OpenAPI document.

/** Largest value of a PostgreSQL integer column: larger ids/amounts are refused per item, not as a 500. */
const INT4_MAX = 2_147_483_647;

export const MAX_WRITE_ITEMS = 1000;

// ---------------------------------------------------------------------------------------------
// Listing write items

const skuId = z.int().gt(0).max(INT4_MAX).describe('Canonical catalog sku id (exclusive minimum 0)');
const productId = z
  .int()
  .gt(0)
  .max(INT4_MAX)
  .describe('Canonical catalog product id; must agree with the catalog sku when the sku is known. Required for a new listing');
const price = z.int().min(0).max(INT4_MAX).describe("Minor units in the seller's currency (minimum 0). Required for a new listing");
const quantity = z
  .int()
  .min(0, 'quantity must not be negative')
  .max(INT4_MAX)
  .describe('On-hand quantity; negative is rejected. Required for a new listing');
const externalRef = z
  .string()
  .max(255)
  .refine((s) => !s.includes('\u0000'), 'externalRef must not contain NUL characters')
  .nullable()
  .describe("The Platform's own reference, echoed on orders. Omitted keeps the stored value; null clears it");
const asOf = z.iso
  .datetime({ offset: true })
  .refine((s) => !s.startsWith('0000'), 'asOf year must be at least 0001')
  .describe(
    "When the Platform's stock snapshot was taken. A write whose asOf is earlier than the stored listing's asOf is stale and rejected; omitted keeps the stored value and is never stale",
  );

const upsertFields = {
  skuId,
  productId: productId.optional(),
  price: price.optional(),
  quantity: quantity.optional(),
  externalRef: externalRef.optional(),
  asOf: asOf.optional(),
};

/** One item of POST /listings (desired-state upsert). `op` is bulk-only but `upsert` is tolerated. */
export const listingUpsertItemSchema = z
  .strictObject({
    op: z.literal('upsert').optional().describe('Optional here; only `upsert` is meaningful on POST /listings'),
    ...upsertFields,
  })
  .describe('Desired state of one listing. Unknown fields are rejected so a misspelt field never silently keeps a stored value');

const bulkUpsertItemSchema = z.strictObject({
  op: z.literal('upsert').describe('Create or update the listing'),
  ...upsertFields,
});

// A delete needs only skuId; listing fields a Platform may send along (productId, price,
// quantity) are tolerated and ignored, anything else unknown is still dropped silently.
const bulkDeleteItemSchema = z.object({
  op: z.literal('delete').describe('Soft-delete the listing (absent or already deleted: still applied)'),
  skuId,
  externalRef: externalRef.optional(),
  asOf: asOf.optional(),
});

/** One item of POST /listings/bulk. */
export const bulkItemSchema = z.discriminatedUnion('op', [bulkUpsertItemSchema, bulkDeleteItemSchema]);

/** POST /listings body: one item or an array (items are validated one by one). */
export const listingsPostBodySchema = z
  .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .describe('One listing object, or an array of at most 1000 listing objects');

/** POST /listings/bulk body (items are validated one by one). */
export const bulkBodySchema = z.strictObject({
  items: z.array(z.unknown()).describe('At most 1000 items, each with op `upsert` or `delete`'),
});

// ---------------------------------------------------------------------------------------------
// Listing write results

export const writeStatusSchema = z.enum(['applied', 'unmatched', 'rejected']);

export const listingWriteResultSchema = z.object({
  skuId: z.int().describe("The item's skuId; 0 when the item carried no usable integer skuId"),
  op: z.enum(['upsert', 'delete']),
  status: writeStatusSchema.describe(
    '`applied`; `unmatched` (UNMATCHED: persisted, sku not in the catalog, not browsable); `rejected` (REJECTED: not persisted, see reason)',
  ),
  reason: z.string().optional().describe('Present only when status is `rejected`'),
  externalRef: z.string().optional().describe('Echo of the pushed externalRef when one was supplied'),
});
export type ListingWriteResult = z.output<typeof listingWriteResultSchema>;

export const listingWriteResponseSchema = z.object({
  results: z.array(listingWriteResultSchema).describe('One result per request item, in request order'),
});

export const purgeResponseSchema = z.object({
  purged: z.int().describe('Number of live listings soft-deleted'),
});

// ---------------------------------------------------------------------------------------------
// Export

// Unknown query parameters are ignored, as on the buyer routes (cache busters, tracing tags).
export const listingsExportQuerySchema = z.object({
  limit: queryInt(1, 1000, 10).optional().describe('Page size, 1 to 1000; default 100'),
  cursor: z.string().min(1).optional().describe('nextCursor of the previous page'),
  updated_since: z.iso.datetime({ offset: true }).optional().describe('Only listings updated at or after this instant (inclusive)'),
  include_deleted: z.enum(['true', 'false']).optional().describe('Include soft-deleted listings; default false'),
});

export const listingSchema = z.object({
  skuId: z.int(),
  productId: z.int(),
  matchStatus: z.enum(['matched', 'unmatched']),
  quantity: z.int().describe('On-hand quantity as pushed'),
  available: z.int().describe('quantity minus outstanding holds, never negative'),
  price: z.int().describe("Minor units in the seller's currency"),
  externalRef: z.string().nullable(),
  browsable: z.boolean().describe('Seller browse-eligible, listing live and matched'),
  deletedAt: z.string().nullable().describe('Soft-delete instant; null while live'),
  updatedAt: z.string(),
});
export type Listing = z.output<typeof listingSchema>;

export const listingsExportResponseSchema = z.object({
  items: z.array(listingSchema),
  nextCursor: z.string().nullable().describe('Cursor of the next page; null on the last page'),
});

// ---------------------------------------------------------------------------------------------
// Store status

export const PREREQUISITE_CODES = [
  'SELLER_ACTIVE',
  'VACATION_DISABLED',
  'SHIPPING_OPTION_CONFIGURED',
  'CONNECTED_ACCOUNT_CANADIAN',
  'PAYOUTS_READY',
  'CURRENT_SELLER_TERMS_ACCEPTED',
  'TAX_PROFILE_COMPLETE',
  'CANADIAN_SHIPMENT_ORIGIN_CONFIRMED',
  'AUTHENTICATOR_ENROLLED',
  'AUTHENTICATOR_RECOVERY_VERIFIED',
  'OPERATOR_REVIEW_APPROVED',
  'SHOP_LINK_ACTIVE',
  'BILLING_TERMS_ACCEPTED',
] as const;
export type PrerequisiteCode = (typeof PREREQUISITE_CODES)[number];

export const prerequisiteSchema = z.object({
  code: z.enum(PREREQUISITE_CODES),
  message: z.string(),
  action: z.object({
    type: z.string().describe('What to do, e.g. toggle_vacation'),
    method: z.enum(['GET', 'POST', 'PATCH']),
    href: z.string().describe('Relative API path'),
  }),
});
export type Prerequisite = z.output<typeof prerequisiteSchema>;

export const storeStatusSchema = z.object({
  sellerCode: z.string(),
  storeName: z.string(),
  currency: z.string().describe('ISO 4217'),
  region: z.string().describe('Market region'),
  active: z.boolean().describe('False while the seller is suspended'),
  vacation: z.boolean().describe('True while all listings are hidden from browse'),
  counts: z.object({
    total: z.int().describe('Live listings'),
    matched: z.int(),
    unmatched: z.int(),
    browsable: z.int().describe('Live matched listings while browse-eligible; 0 otherwise'),
  }),
  readiness: z.object({
    browseEligible: z.boolean(),
    effectiveTermsVersion: z.string().describe("The seller's accepted terms version; empty string when none was accepted"),
    incompletePrerequisites: z.array(prerequisiteSchema).describe('In the contract order'),
  }),
});
export type StoreStatus = z.output<typeof storeStatusSchema>;

export const patchMeBodySchema = z.strictObject({
  vacation: z.boolean().describe('true hides every listing from browse; false shows them again'),
});
