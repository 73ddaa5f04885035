import { z } from 'zod';
import type { Response } from 'express';
import type { RouteModule } from '../../app.js';
import { ApiError, okJson } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { sellerAuth, sellerOf } from '../../middleware/auth.js';
import { sellerRateLimit } from '../../middleware/rate-limit.js';
import { sendJson } from '../../send-json.js';
import { cancelBodySchema, DEFAULT_POLL_LIMIT, fulfillmentBodySchema, orderParamsSchema, ordersPollQuerySchema } from '../../../contract/orders.js';
import { orderNotFound } from '../../../orders/errors.js';
import { cancelOrder, moveFulfillment, orderJson, pollPage } from '../../../orders/service.js';
import { signCursor, verifyCursor } from '../../../lib/cursor.js';
import { isoToMicros, microsToIso } from '../../../lib/micros.js';

// The order routes of the seller API: detail, poll, fulfillment, cancel. The Order body comes
// from src/orders as JSON text and is spliced into the envelope unchanged, so detail, poll items
// and webhook data are the same bytes.

// The cursor's MAC covers the seller: another seller's cursor is as invalid as a forged one.
const cursorKind = (sellerId: number) => `orders-poll:${sellerId}`;

const cursorPayloadSchema = z.strictObject({
  x: z.string().regex(/^[0-9]{1,20}$/),
  q: z.int().nonnegative(),
  s: z.string().nullable(),
});
type CursorPayload = z.output<typeof cursorPayloadSchema>;

const badCursor = (message = 'Malformed or tampered cursor') => new ApiError(400, 'INVALID_REQUEST', message, [{ field: 'cursor', message }]);

export const sellerOrderRoutes: RouteModule = (app, deps) => {
  const guard = [sellerAuth(deps), sellerRateLimit(deps)];

  app.get('/orders', ...guard, async (req, res: Response) => {
    const q = parseOr400(ordersPollQuerySchema, req.query);
    const sellerId = sellerOf(req).sellerId;
    // since normalized to exact UTC text, so the cursor compares it across pages.
    let since: string | null = null;
    if (q.since !== undefined) {
      const us = isoToMicros(q.since);
      if (us === null) throw new ApiError(400, 'INVALID_REQUEST', 'Request failed validation', [{ field: 'since', message: 'Invalid date-time' }]);
      since = microsToIso(us);
    }
    let after: CursorPayload | null = null;
    if (q.cursor !== undefined) {
      const parsed = cursorPayloadSchema.safeParse(verifyCursor(deps.env.CURSOR_SECRET, cursorKind(sellerId), q.cursor));
      if (!parsed.success) throw badCursor();
      after = parsed.data;
      if (q.since !== undefined && since !== after.s) throw badCursor('cursor was issued for a different since');
      since = after.s;
    }
    const page = await pollPage(deps.pool, sellerId, {
      after: after && { xid: after.x, seq: after.q },
      since,
      limit: q.limit ?? DEFAULT_POLL_LIMIT,
    });
    const nextCursor = page.next
      ? signCursor(deps.env.CURSOR_SECRET, cursorKind(sellerId), { x: page.next.xid, q: page.next.seq, s: since } satisfies CursorPayload)
      : null;
    sendJson(res, okJson(`{"items":[${page.items.join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`));
  });

  app.get('/orders/:orderId', ...guard, async (req, res: Response) => {
    const { orderId } = parseOr400(orderParamsSchema, req.params);
    const json = await orderJson(deps.pool, sellerOf(req).sellerId, orderId);
    if (json === null) throw orderNotFound();
    sendJson(res, okJson(json));
  });

  app.patch('/orders/:orderId/fulfillment', ...guard, async (req, res: Response) => {
    // Checks of the body alone come first (400), then 404, then 422 (DECISIONS.md "Fine points").
    const body = parseOr400(fulfillmentBodySchema, req.body);
    const { orderId } = parseOr400(orderParamsSchema, req.params);
    const r = await moveFulfillment(deps.pool, sellerOf(req).sellerId, orderId, body);
    req.log.info({ orderId, from: r.from, to: r.to, changed: r.changed }, r.changed ? 'order moved' : 'order move repeated (unchanged)');
    sendJson(res, okJson(r.body));
  });

  app.post('/orders/:orderId/cancel', ...guard, async (req, res: Response) => {
    // No body (or an empty one) cancels the whole order.
    const body = parseOr400(cancelBodySchema, req.body ?? {});
    const { orderId } = parseOr400(orderParamsSchema, req.params);
    const r = await cancelOrder(deps.pool, sellerOf(req).sellerId, orderId, body);
    req.log.info(
      { orderId, from: r.from, to: r.to, changed: r.changed, lines: body.lines?.length ?? 'all' },
      r.changed ? 'order cancelled' : 'order cancel repeated (unchanged)',
    );
    sendJson(res, okJson(r.body));
  });
};
