import { Client } from '@elastic/elasticsearch';

/** The nodes of ELASTICSEARCH_URL: one URL, or several separated by commas. */
export function esNodeUrls(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

// The v9 client has no default request timeout: a hung cluster must never hang a caller.
// With several nodes, a request that meets a dead one (refused, reset) is retried on the next:
// the pool lowers the dead node's weight, so later requests mostly avoid it until it answers again.
export function createEsClient(url: string, requestTimeoutMs = 2000): Client {
  const nodes = esNodeUrls(url);
  return new Client({ nodes, requestTimeout: requestTimeoutMs, maxRetries: Math.max(1, nodes.length - 1), compression: false });
}

/**
 * Retries that let one request try every other node of the pool once. Callers that must fail fast
 * (buyer reads, the cluster watcher) use this instead of no retry at all: a connection error on one
 * node of a cluster is not an outage. Timeouts are never retried (the client's default).
 */
export function failoverRetries(es: Client): number {
  return Math.max(0, es.connectionPool.size - 1);
}
