import { Client, errors } from '@elastic/elasticsearch';

/**
 * The nodes of ELASTICSEARCH_URL: one URL, or several separated by commas. Commas inside a
 * password are not separators: a URL with a scheme and no `@` yet runs on to the next part holding
 * an `@`, when one comes before the next scheme.
 */
export function esNodeUrls(value: string): string[] {
  const parts = value.split(',');
  const nodes: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let node = parts[i]!;
    if (node.includes('://') && !node.includes('@')) {
      let j = i + 1;
      while (j < parts.length && !parts[j]!.includes('://') && !parts[j]!.includes('@')) j++;
      if (j < parts.length && !parts[j]!.includes('://')) {
        node = parts.slice(i, j + 1).join(',');
        i = j;
      }
    }
    nodes.push(node);
  }
  return nodes.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * `url` fit for a log or an error message: everything between the scheme and the last `@` replaced
 * by `***` (parseable or not: a password may hold `/`, `#` or `?` unencoded).
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/|\/\/)?.*@/is, (_m, scheme: string | undefined) => `${scheme ?? ''}***@`);
}

// The v9 client has no default request timeout: a hung cluster must never hang a caller.
// With several nodes, a request that meets a dead one (refused, reset) is retried on the next:
// the pool lowers the dead node's weight, so later requests mostly avoid it until it answers again.
export function createEsClient(url: string, requestTimeoutMs = 2000): Client {
  const nodes = esNodeUrls(url);
  return new Client({ nodes, requestTimeout: requestTimeoutMs, maxRetries: Math.max(1, nodes.length - 1), compression: false });
}

/**
 * Retries enough for one request to try every other node of the pool once, as far as the pool's
 * picks allow (they may return to a node that just failed: buyer reads add one retry of their own,
 * readRetryingLeavingNode in ./node-leaving.ts). Callers that must fail fast
 * (buyer reads, the cluster watcher) use this instead of no retry at all: a connection error on one
 * node of a cluster is not an outage. Timeouts are never retried (the client's default).
 */
export function failoverRetries(es: Client): number {
  return Math.max(0, es.connectionPool.size - 1);
}

/**
 * "METHOD /path" of the request a timeout or a lost connection is about (an error answer names
 * its own cause): "Request timed out" alone does not say which of a batch's requests waited.
 */
export function failedRequest(err: unknown): string | undefined {
  const withRequest = err instanceof errors.TimeoutError || err instanceof errors.ConnectionError;
  const params = withRequest ? err.meta?.meta.request.params : undefined;
  return params ? `${params.method} ${params.path}` : undefined;
}
