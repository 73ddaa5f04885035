import type { Pool } from './pool.js';

// webhook_endpoint_health (migrations/1795718400000_webhook-endpoint-health.sql): what the
// dispatchers share about each seller's endpoint, and the standing they derive from it
// (docs/webhooks.md "Fairness and the breaker"). Written by the claim (the probe) and by the
// record of attempts, both in src/db/webhook-deliveries.ts.

/**
 * An endpoint's standing. `healthy`: its last attempt got a prompt answer. `untried`: nothing has
 * answered since its URL was set. `degraded`: its last attempt got no answer, or a slow one.
 * `breaker_open`: WEBHOOK_BREAKER_FAILURES attempts in a row got no answer; one probe at a time.
 */
export const ENDPOINT_STATES = ['healthy', 'untried', 'degraded', 'breaker_open'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/**
 * The standing of the endpoint whose health row is `h`, as SQL (`$breakerFailures` is the
 * parameter holding WEBHOOK_BREAKER_FAILURES). A missing row reads as untried.
 */
export function endpointStateSql(h: string, breakerFailures: string): string {
  return `CASE WHEN ${h}.failures >= ${breakerFailures} THEN 'breaker_open'
              WHEN ${h}.failures > 0 OR ${h}.slow THEN 'degraded'
              WHEN ${h}.answered_at IS NULL THEN 'untried'
              ELSE 'healthy' END`;
}

export interface EndpointGauges {
  /** Per state: endpoints, and their pending events. */
  byState: Record<EndpointState, { endpoints: number; pending: number }>;
  /** Sellers whose breaker is open, with their pending events (an operator's list of endpoints down). */
  breakerOpen: { sellerCode: string; pending: number }[];
}

export async function endpointGauges(pool: Pool, breakerFailures: number): Promise<EndpointGauges> {
  const { rows } = await pool.query<{ seller_code: string; state: EndpointState; pending: number }>(
    `SELECT s.seller_code, ${endpointStateSql('h', '$1')} AS state, p.n AS pending
     FROM seller_webhooks w
     JOIN sellers s ON s.seller_id = w.seller_id
     LEFT JOIN webhook_endpoint_health h ON h.seller_id = w.seller_id
     CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM webhook_events e WHERE e.seller_id = w.seller_id AND e.state = 'pending') p`,
    [breakerFailures],
  );
  const byState = Object.fromEntries(ENDPOINT_STATES.map((s) => [s, { endpoints: 0, pending: 0 }])) as EndpointGauges['byState'];
  for (const r of rows) {
    byState[r.state].endpoints += 1;
    byState[r.state].pending += r.pending;
  }
  const breakerOpen = rows
    .filter((r) => r.state === 'breaker_open')
    .map((r) => ({ sellerCode: r.seller_code, pending: r.pending }))
    .sort((a, b) => a.sellerCode.localeCompare(b.sellerCode));
  return { byState, breakerOpen };
}
