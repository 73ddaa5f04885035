import type { RouteModule } from '../../app.js';
import { sendOkJson } from '../../send-json.js';
import { parseOr400 } from '../../validate.js';
import { productParamsSchema, productQuerySchema } from '../../../contract/buyer.js';
import type { BuyerService } from '../../../search/buyer-service.js';

export const productRoutes =
  (service: BuyerService): RouteModule =>
  (app) => {
    app.get('/products/:productId', async (req, res) => {
      const { productId } = parseOr400(productParamsSchema, req.params);
      const q = parseOr400(productQuerySchema, req.query);
      const answer = await service.productPage(productId, q);
      sendOkJson(res, answer.body(), { degraded: answer.degraded });
    });
  };
