import { describe, expect, it } from 'vitest';
import { useSellerApi } from '../../../support/seller-api.js';

// Seller writes bound every string they store (docs/seller-api.md, "Length limits"): a value over
// its bound is refused, naming the field, and nothing is written.

const api = useSellerApi();

describe('seller writes refuse over-long strings, naming the field', () => {
  it('a 40,000-character externalRef is rejected per item; the other items apply', async () => {
    const res = await api.post('/listings', [
      { skuId: 1001, productId: 101, price: 100, quantity: 1, externalRef: 'x'.repeat(40_000) },
      { skuId: 1002, productId: 101, price: 100, quantity: 1, externalRef: 'x'.repeat(255) },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.results[0]).toMatchObject({ skuId: 1001, status: 'rejected', reason: expect.stringContaining('externalRef') });
    expect(res.body.data.results[1]).toMatchObject({ skuId: 1002, status: 'applied' });
    const { rows } = await api.ctx.pool.query('SELECT sku_id FROM listings WHERE seller_id = 7 ORDER BY sku_id');
    expect(rows).toEqual([{ sku_id: 1002 }]);
  });

  it('a 40,000-character tracking number or order id is a 400 naming it', async () => {
    const fulfil = await api.patch('/orders/ord_x/fulfillment', { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1'.repeat(40_000) });
    expect(fulfil.status).toBe(400);
    expect(fulfil.body.error.code).toBe('INVALID_REQUEST');
    expect(JSON.stringify(fulfil.body.error)).toContain('trackingNumber');
    const longId = await api.patch(`/orders/${'o'.repeat(256)}/fulfillment`, { status: 'accepted' });
    expect(longId.status).toBe(400);
    expect(longId.body.error.code).toBe('INVALID_REQUEST');
    expect(JSON.stringify(longId.body.error)).toContain('orderId');
  });
});
