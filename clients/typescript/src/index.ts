// @marketplace/client: the typed client of the marketplace API.
import { buyerClient, type BuyerClient } from './buyer.js';
import { sellerClient, type SellerClient } from './seller.js';
import { createTransport, type ClientOptions } from './transport.js';

export type MarketplaceClient = BuyerClient & SellerClient;

/** The whole API behind one set of options (give `apiKey` for the seller methods). */
export function createClient(options: ClientOptions = {}): MarketplaceClient {
  const transport = createTransport(options);
  return { ...buyerClient(transport), ...sellerClient(transport) };
}

export { createBuyerClient, LOOKUP_MAX_PAIRS, type BuyerClient, type SuggestOptions, type SuggestResult } from './buyer.js';
export { WRITE_MAX_ITEMS, type OrderChange, type PollOptions, type SellerClient } from './seller.js';
export { createTransport, type CallOptions, type ClientOptions, type RequestSpec, type RetrySafety, type Transport } from './transport.js';
export { ApiError, ConnectionError, MarketplaceError, TimeoutError } from './errors.js';
export { DEFAULT_RETRY, type RetryPolicy } from './backoff.js';
export { verifyWebhook, WebhookVerificationError, type InventoryAdjusted, type WebhookEvent, type WebhookFailure } from './webhooks.js';
export { API_VERSION, type Components, type Operations } from './generated/openapi.js';
export type * from './types.js';
