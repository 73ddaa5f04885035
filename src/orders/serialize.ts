import type { OrderBody } from '../contract/orders.js';
import type { OrderLineRow, OrderRow } from '../db/orders.js';

// The one Order body (api-contract.md "Order"): GET /orders/{orderId}, every poll item and the
// data of order.created / order.cancelled are this text, so they are byte-identical for the same
// state of the order. Objects are rebuilt key by key: jsonb does not keep key order, and the
// contract's order is the one a Platform sees everywhere.

function line(l: OrderLineRow): OrderBody['lines'][number] {
  const out: OrderBody['lines'][number] = {
    sku_id: l.skuId,
    product_id: l.productId,
    quantity: l.quantity,
    unit_price: l.unitPrice,
    name: l.name,
    set: l.setName,
    condition: l.condition,
    external_ref: l.externalRef,
    language: l.language,
    finish: l.finish,
  };
  const d = l.disclosures;
  if (d) {
    out.disclosures = {
      image_source: d.image_source,
      condition_source: d.condition_source,
      authenticity_source: d.authenticity_source,
      service_inspected: d.service_inspected,
      service_graded: d.service_graded,
      service_authenticated: d.service_authenticated,
      grading_standard: d.grading_standard,
      declared_grade: d.declared_grade,
      buyer_protection: d.buyer_protection,
    };
  }
  const f = l.fulfillmentObligation;
  if (f) out.fulfillment_obligation = { sku: f.sku, printing: f.printing, language: f.language, finish: f.finish, condition: f.condition };
  return out;
}

/** The Order body as an object, keys in the contract's order. */
export function orderBody(o: OrderRow, lines: readonly OrderLineRow[]): OrderBody {
  const a = o.customer.shipping_address;
  const body: OrderBody = {
    order_id: o.orderId,
    seller_id: o.sellerId,
    created_at: o.createdAt.toISOString(),
    currency: o.currency,
    customer: {
      name: o.customer.name,
      email: o.customer.email,
      shipping_address: { line1: a.line1, line2: a.line2, city: a.city, province: a.province, postal_code: a.postal_code, country: a.country },
    },
    // A line cancelled to 0 leaves the order's lines (its row stays for the record).
    lines: lines.filter((l) => l.quantity > 0).map(line),
  };
  if (o.hasMoney && o.subtotal !== null && o.tax !== null && o.grandTotal !== null && o.shippingCost !== null) {
    body.totals = { subtotal: o.subtotal, shipping: o.shippingCost, tax: o.tax, grand_total: o.grandTotal };
    if (o.tax !== 0) body.tax = { lines: o.taxLines.map((t) => ({ label: t.label, rate: t.rate, amount: t.amount })) };
    body.shipping = { method: o.shippingMethod ?? '', cost: o.shippingCost };
  }
  if (o.buyerNotes !== null) body.buyer_notes = o.buyerNotes;
  if (o.status !== 'created') body.status = o.status;
  if (o.trackingCompany !== null && o.trackingNumber !== null) {
    body.fulfillment = { tracking_company: o.trackingCompany, tracking_number: o.trackingNumber, tracking_url: o.trackingUrl };
  }
  return body;
}

/** The Order body's JSON text: what every transport sends. */
export function serializeOrder(o: OrderRow, lines: readonly OrderLineRow[]): string {
  return JSON.stringify(orderBody(o, lines));
}
