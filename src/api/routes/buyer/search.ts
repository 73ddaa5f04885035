import type { RouteModule } from '../../app.js';
import { ok } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { searchQuerySchema } from '../../../contract/buyer.js';
import type { BuyerService } from '../../../search/buyer-service.js';
import { decodeSearchCursor, encodeSearchCursor } from '../../../search/cursor.js';

export const searchRoutes =
  (service: BuyerService): RouteModule =>
  (app, deps) => {
    app.get('/search', async (req, res) => {
      const q = parseOr400(searchQuerySchema, req.query);
      const after = q.cursor === undefined ? null : decodeSearchCursor(deps.env.CURSOR_SECRET, q.sort, q.cursor);
      const answer = await service.search(q, after);
      const { items, facets, nextAfter } = answer.data;
      const nextCursor = nextAfter === null ? null : encodeSearchCursor(deps.env.CURSOR_SECRET, q.sort, nextAfter);
      res.json(ok({ items, facets, nextCursor }, { degraded: answer.degraded }));
    });
  };
