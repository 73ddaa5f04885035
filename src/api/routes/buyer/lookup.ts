import type { RouteModule } from '../../app.js';
import { sendOkJson } from '../../send-json.js';
import { parseOr400 } from '../../validate.js';
import { lookupBodySchema } from '../../../contract/buyer.js';
import type { BuyerService } from '../../../search/buyer-service.js';

export const lookupRoutes =
  (service: BuyerService): RouteModule =>
  (app) => {
    app.post('/lines/lookup', async (req, res) => {
      const body = parseOr400(lookupBodySchema, req.body ?? {});
      const answer = await service.lookup(body);
      // The text of res.json(ok({ lines: answer.data }, ...)), around the answer's own JSON.
      sendOkJson(res, answer.body(), { degraded: answer.degraded }, ['{"lines":', '}']);
    });
  };
