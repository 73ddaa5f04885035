import type { RouteModule } from '../../app.js';
import { sendOkJson } from '../../send-json.js';
import { parseOr400 } from '../../validate.js';
import { suggestQuerySchema } from '../../../contract/buyer.js';
import type { BuyerService } from '../../../search/buyer-service.js';

export const suggestRoutes =
  (service: BuyerService): RouteModule =>
  (app) => {
    app.get('/search/suggest', async (req, res) => {
      const q = parseOr400(suggestQuerySchema, req.query);
      const answer = await service.suggest(q);
      sendOkJson(res, answer.body(), { degraded: answer.degraded });
    });
  };
