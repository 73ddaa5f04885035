import type { RouteModule } from '../../app.js';
import { ok } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { lookupBodySchema } from '../../schemas/buyer.js';
import type { BuyerService } from '../../../search/buyer-service.js';

export const lookupRoutes =
  (service: BuyerService): RouteModule =>
  (app) => {
    app.post('/lines/lookup', async (req, res) => {
      const body = parseOr400(lookupBodySchema, req.body ?? {});
      const answer = await service.call('lookup', body);
      res.json(ok({ lines: answer.data }, { degraded: answer.degraded }));
    });
  };
