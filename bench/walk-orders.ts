import type pg from 'pg';

/**
 * Bulk orders of one seller for the poll-walk benches, written in one statement (1 to 5 lines each,
 * the columns checkout writes): the walk reads them, so their totals need not be their lines'.
 * Lines point at skus `p * 100 + 1` (p = 0..4), which the caller's catalog must hold.
 */
export async function seedWalkOrders(pool: pg.Pool, count: number, sellerId: number, customer: unknown): Promise<void> {
  await pool.query(
    `WITH o AS (
       INSERT INTO orders (order_id, seller_id, currency, customer, shipping_method, shipping_cost, shipping_tracked, tax_rates,
                           subtotal, tax, grand_total, tax_lines)
       SELECT 'ord_walk_' || g, $2, 'CAD', $3::jsonb, 'Tracked', 1299, true, '[{"label":"HST","rate":0.15}]', 0, 0, 1299, '[]'
         FROM generate_series(1, $1) g
       RETURNING order_id)
     INSERT INTO order_lines (order_id, position, sku_id, product_id, quantity, ordered_quantity, unit_price, name, set_name,
                              condition, language, finish, external_ref, disclosures, fulfillment_obligation)
     SELECT o.order_id, p, k.sku_id, k.product_id, 1, 1, 250, 'Card ' || k.product_id, 'Set 1', 'Near Mint', 'English', NULL,
            'ref-' || k.sku_id,
            '{"image_source":"catalog","condition_source":"seller_declared","authenticity_source":"seller_attestation","service_inspected":false,"service_graded":false,"service_authenticated":false,"grading_standard":"service-magic-v1","declared_grade":null,"buyer_protection":"magic-grade-and-authenticity"}',
            '{"sku":"exact","printing":"exact","language":"exact","finish":"exact","condition":"declared-or-better"}'
       FROM o CROSS JOIN LATERAL generate_series(0, abs(hashtext(o.order_id)) % 5) p
       JOIN skus k ON k.sku_id = p * 100 + 1`,
    [count, sellerId, JSON.stringify(customer)],
  );
}
