// Instants in microseconds (listing asOf, order poll `since`): PostgreSQL keeps microseconds, a
// JS Date only milliseconds, and truncating would make a repeated push with the same microsecond
// asOf look stale.

export type Micros = bigint;

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2})?)$/i;

// What a timestamptz stores and the API renders as RFC 3339: years 0001-9999 in UTC. An instant
// outside (e.g. 0001-01-01T00:00:00+01:00 is year 0000 in UTC) would make PostgreSQL fail the
// statement, so it is refused here, at the edge.
const MIN_MICROS = BigInt(Date.parse('0001-01-01T00:00:00Z')) * 1000n;
const MAX_MICROS = BigInt(Date.parse('9999-12-31T23:59:59.999Z')) * 1000n + 999n;

/**
 * Microseconds since the epoch of an RFC 3339 instant (fraction rounded to microseconds like
 * PostgreSQL), or null when malformed or outside years 0001-9999 UTC.
 */
export function isoToMicros(iso: string): Micros | null {
  const m = ISO.exec(iso);
  if (!m) return null;
  const [, base, fraction = '', zone] = m as unknown as [string, string, string | undefined, string];
  let offset = zone.toUpperCase();
  if (offset !== 'Z') {
    const digits = offset.replace(':', '');
    offset = `${digits.slice(0, 3)}:${digits.slice(3, 5) || '00'}`;
  }
  const ms = Date.parse(`${base}${offset}`);
  if (Number.isNaN(ms)) return null;
  const padded = (fraction + '0000000').slice(0, 7);
  let micros = BigInt(padded.slice(0, 6));
  if (Number(padded[6]) >= 5) micros += 1n;
  const us = BigInt(ms) * 1000n + micros;
  return us < MIN_MICROS || us > MAX_MICROS ? null : us;
}

/** RFC 3339 UTC rendering with six fraction digits (exact input for timestamptz). */
export function microsToIso(us: Micros): string {
  let ms = us / 1000n;
  let rest = us % 1000n;
  if (rest < 0n) {
    ms -= 1n;
    rest += 1000n;
  }
  const iso = new Date(Number(ms)).toISOString(); // ...HH:MM:SS.mmmZ
  return `${iso.slice(0, -1)}${rest.toString().padStart(3, '0')}Z`;
}
