import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { notifyCardsWritten } from '../src/db/card-notices.js';
import { parseDocId } from '../src/search/documents/model.js';
import { writeSerialized, type BulkBody } from './bulk.js';
import { writeOrQuarantine, type QuarantineCounts } from './quarantine.js';
import { timed, type StepTimes } from './step-times.js';

/**
 * Writes prepared units of bulk bodies while the caller reads and builds the next: `write`
 * returns once the unit is sent. Documents are recomputed from PostgreSQL as it is when read, so
 * the one order that matters is per document: a unit that names a document of a unit still in
 * flight waits for it, and the index never gets an older state of a document over a newer one.
 * Units that share no document go side by side, up to `maxInFlight` (the cluster takes two bulk
 * requests at once about as fast as one; a small change need not wait for a burst's request).
 * A document Elasticsearch refuses for a reason of its own is quarantined within its unit
 * (quarantine.ts), so a later unit naming it also waits for its quarantine row, and the later
 * unit's accepted write releases it. Once a unit naming cards is written, the API processes hear
 * of those products (card-notices.ts: their suggestion catalogs read the cards again).
 */
export interface OrderedWriter {
  /**
   * `ids`: every document the unit writes or deletes; `cards`: how many of the first bodies are
   * cards (timed apart); `ahead`: a small lane's unit, which may take one request beyond
   * `maxInFlight` (it still waits for any unit naming one of its documents).
   */
  write(bodies: readonly BulkBody[], ids: readonly string[], cards?: number, ahead?: boolean): Promise<void>;
  /** Resolves (or throws the first failure) once every unit handed over is written. */
  flush(): Promise<void>;
  /** Resolves once nothing is in flight, whatever the outcome (before a failed batch is retried). */
  settled(): Promise<void>;
  /** Documents quarantined and released by the units written so far. */
  counts(): QuarantineCounts;
  /** Whether a unit handed over to this writer names the document (in flight, waiting or written). */
  named(id: string): boolean;
}

interface Unit {
  ids: ReadonlySet<string>;
  /** Sent: counts against `maxInFlight`. */
  started: boolean;
  done: Promise<void>;
}

export const MAX_UNITS_IN_FLIGHT = 2;

export function orderedWriter(pool: Pool, es: Client, index: string, times: StepTimes, maxInFlight = MAX_UNITS_IN_FLIGHT): OrderedWriter {
  // Every unit handed over and not finished, sent or still waiting: a unit is ordered behind the
  // ones handed over before it from the moment `write` is called, not when it gets a slot.
  const inFlight = new Set<Unit>();
  const named = new Set<string>();
  const counts: QuarantineCounts = { quarantined: 0, released: 0 };
  let failure: { err: unknown } | undefined;
  const shares = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    for (const id of small) if (large.has(id)) return true;
    return false;
  };
  const settled = () => Promise.all([...inFlight].map((u) => u.done)).then(() => undefined);
  return {
    async write(bodies, ids, cards = 0, ahead = false) {
      let finished!: () => void;
      const unit: Unit = { ids: new Set(ids), started: false, done: new Promise<void>((r) => (finished = r)) };
      const before = [...inFlight].filter((u) => shares(u.ids, unit.ids));
      inFlight.add(unit);
      for (const id of ids) named.add(id);
      try {
        for (;;) {
          if (failure) throw failure.err;
          const blocking = before.filter((u) => inFlight.has(u));
          const sent = [...inFlight].filter((u) => u.started);
          if (blocking.length === 0 && sent.length < maxInFlight + (ahead ? 1 : 0)) break;
          await Promise.race((blocking.length > 0 ? blocking : sent).map((u) => u.done));
        }
      } catch (err) {
        inFlight.delete(unit);
        finished();
        throw err;
      }
      unit.started = true;
      void (async () => {
        try {
          const send = (body: BulkBody, i: number) => timed(times, i < cards ? 'bulkCards' : 'bulk', () => writeSerialized(es, body));
          const q = await writeOrQuarantine(pool, es, index, bodies, ids, { send, times });
          counts.quarantined += q.quarantined;
          counts.released += q.released;
          const products = ids.flatMap((id) => {
            const d = parseDocId(id);
            return d?.type === 'card' ? [d.productId] : [];
          });
          if (products.length > 0) await timed(times, 'notify', () => notifyCardsWritten(pool, index, products));
        } catch (err) {
          failure ??= { err };
        } finally {
          inFlight.delete(unit);
          finished();
        }
      })();
    },
    async flush() {
      await settled();
      if (failure) throw failure.err;
    },
    settled,
    counts: () => ({ ...counts }),
    named: (id) => named.has(id),
  };
}
