import { z } from 'zod';
import { fulfillmentObligationSchema, type Disclosures } from './buyer.js';

// Wire schemas of the order routes (api-contract.md "Order", the four order endpoints;
// DECISIONS.md "Orders and events"). Requests are validated with them; the OpenAPI document is
// generated from them; the Order schema describes what src/orders/serialize.ts writes.

export const ORDER_STATUSES = ['created', 'accepted', 'shipped', 'delivered', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const DEFAULT_POLL_LIMIT = 100;
export const MAX_POLL_LIMIT = 1000;

const INT4_MAX = 2_147_483_647;

// ---------------------------------------------------------------------------------------------
// Order body (response)

const shippingAddressSchema = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  city: z.string(),
  province: z.string().describe('Canadian province or territory'),
  postal_code: z.string().describe('Canadian postal code'),
  country: z.string().describe('ISO 3166-1 alpha-2'),
});

export const customerSchema = z.object({
  name: z.string(),
  email: z.string(),
  shipping_address: shippingAddressSchema,
});
export type Customer = z.output<typeof customerSchema>;

/**
 * An order line's disclosures: the offer's (`Disclosures`, buyer.ts) with snake_case keys, frozen
 * at entry. Looser than the offer's (grading_standard and buyer_protection are any string, as
 * api-contract.md "Order" allows), so a Platform's reader need not change when a value is added.
 */
export const lineDisclosuresSchema = z.object({
  image_source: z.literal('catalog'),
  condition_source: z.literal('seller_declared'),
  authenticity_source: z.literal('seller_attestation'),
  service_inspected: z.literal(false),
  service_graded: z.literal(false),
  service_authenticated: z.literal(false),
  grading_standard: z.string(),
  declared_grade: z.string().nullable(),
  buyer_protection: z.string(),
});
export type LineDisclosures = z.output<typeof lineDisclosuresSchema>;

/** The one mapping of an offer's disclosures to an order line's. */
export function lineDisclosures(d: Disclosures): LineDisclosures {
  return {
    image_source: d.imageSource,
    condition_source: d.conditionSource,
    authenticity_source: d.authenticitySource,
    service_inspected: d.serviceInspected,
    service_graded: d.serviceGraded,
    service_authenticated: d.serviceAuthenticated,
    grading_standard: d.gradingStandard,
    declared_grade: d.declaredGrade,
    buyer_protection: d.buyerProtection,
  };
}

export const orderLineSchema = z.object({
  sku_id: z.int(),
  product_id: z.int(),
  quantity: z.int().describe('Units still ordered (after line cancels)'),
  unit_price: z.int().describe('Minor units in the order currency, frozen at entry'),
  name: z.string().describe('Frozen at entry; empty string when the catalog had none'),
  set: z.string(),
  condition: z.string(),
  external_ref: z.string().nullable().describe("Echo of the seller's listing ref; null if none"),
  language: z.string().nullable().optional(),
  finish: z.string().nullable().optional(),
  disclosures: lineDisclosuresSchema.optional(),
  fulfillment_obligation: fulfillmentObligationSchema.optional(),
});

export const orderSchema = z
  .object({
    order_id: z.string().describe('Opaque public id; the reconcile key'),
    seller_id: z.int(),
    created_at: z.string().describe('ISO-8601 UTC instant, millisecond form'),
    currency: z.string().describe('ISO 4217'),
    customer: customerSchema,
    lines: z.array(orderLineSchema).min(1),
    totals: z
      .object({ subtotal: z.int(), shipping: z.int(), tax: z.int(), grand_total: z.int() })
      .optional()
      .describe('Absent on operator orders without money; grand_total = subtotal + shipping + tax'),
    tax: z
      .object({ lines: z.array(z.object({ label: z.string(), rate: z.number(), amount: z.int() })) })
      .optional()
      .describe('Absent if and only if totals.tax = 0'),
    shipping: z.object({ method: z.string(), cost: z.int() }).optional().describe('Frozen shipping option; absent with totals'),
    buyer_notes: z.string().optional(),
    status: z
      .enum(['accepted', 'shipped', 'delivered', 'cancelled', 'refunded'])
      .optional()
      .describe('Absent while the order is `created`; an order.created delivery never carries it'),
    fulfillment: z
      .object({ tracking_company: z.string(), tracking_number: z.string(), tracking_url: z.string().nullable() })
      .optional()
      .describe('Present once tracking has been attached'),
  })
  .describe('The shared order body: detail, poll items and order webhook data');
export type OrderBody = z.output<typeof orderSchema>;

// ---------------------------------------------------------------------------------------------
// Requests

export const orderParamsSchema = z.object({
  orderId: z.string().min(1).max(255).describe('Opaque order id (at most 255 characters)'),
});

/** Absolute http(s) URL (DECISIONS.md), at most 2048 characters. */
const trackingUrl = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
    } catch {
      return false;
    }
  }, 'trackingUrl must be an absolute http or https URL')
  .nullable();

export const fulfillmentBodySchema = z
  .strictObject({
    status: z
      .enum(['accepted', 'shipped', 'delivered'], {
        error: 'status must be one of accepted, shipped, delivered (cancel with POST /orders/{orderId}/cancel)',
      })
      .describe('Target status; `cancelled` and `refunded` are not reachable here (400)'),
    trackingCompany: z.string().min(1).max(255).optional(),
    trackingNumber: z.string().min(1).max(255).optional(),
    trackingUrl: trackingUrl.optional().describe('Absolute http or https URL, or null'),
  })
  // Checks of the body alone come before any lookup (DECISIONS.md "Fine points").
  .superRefine((b, ctx) => {
    if ((b.trackingCompany === undefined) !== (b.trackingNumber === undefined)) {
      const missing = b.trackingCompany === undefined ? 'trackingCompany' : 'trackingNumber';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'trackingCompany and trackingNumber go together' });
    }
    if (b.trackingUrl != null && (b.trackingCompany === undefined || b.trackingNumber === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['trackingUrl'], message: 'trackingUrl needs trackingCompany and trackingNumber' });
    }
  });
export type FulfillmentBody = z.output<typeof fulfillmentBodySchema>;

export const cancelBodySchema = z
  .strictObject({
    lines: z
      .array(
        z.strictObject({
          skuId: z.int().gt(0).max(INT4_MAX),
          quantity: z.int().gt(0).max(INT4_MAX).optional().describe('Units to cancel; omitted cancels the whole line'),
        }),
      )
      .min(1)
      .optional()
      .describe('Lines to cancel (each sku at most once); omitted cancels the whole order'),
  })
  .superRefine((b, ctx) => {
    const seen = new Set<number>();
    b.lines?.forEach((l, i) => {
      if (seen.has(l.skuId)) ctx.addIssue({ code: 'custom', path: ['lines', i, 'skuId'], message: `sku ${l.skuId} is named twice` });
      seen.add(l.skuId);
    });
  });
export type CancelBody = z.output<typeof cancelBodySchema>;

const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,10}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.int().min(min).max(max));

export const ordersPollQuerySchema = z.object({
  since: z.iso.datetime({ offset: true }).optional().describe('Only orders changed at or after this instant (inclusive); omitted: from the first order'),
  cursor: z.string().min(1).optional().describe('nextCursor of the previous page (or the last cursor used, to go on later)'),
  limit: intParam(1, MAX_POLL_LIMIT).optional().describe(`Page size, 1 to ${MAX_POLL_LIMIT}; default ${DEFAULT_POLL_LIMIT}`),
});

export const ordersPollResponseSchema = z.object({
  items: z.array(orderSchema).describe('Oldest change first; each item byte-identical to the webhook data of that moment'),
  nextCursor: z.string().nullable().describe('Cursor of the next page; null on the last page'),
});
