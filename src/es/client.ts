import { Client } from '@elastic/elasticsearch';

// The v9 client has no default request timeout: a hung cluster must never hang a caller.
export function createEsClient(url: string, requestTimeoutMs = 2000): Client {
  return new Client({ node: url, requestTimeout: requestTimeoutMs, maxRetries: 1, compression: false });
}
