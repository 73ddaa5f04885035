// The order poll's checkpoint: where a walk stands, so a Platform that stores it after each
// change and resumes from it later gets every change exactly once.
//
// The API pages the feed in commit order and promises that a walk resumed from the cursor a page
// was fetched with misses nothing (a change committed late is held back, never passed over); the
// page's own changes come again. A checkpoint is therefore that cursor (or the starting `since`)
// plus a fingerprint of each change already handed over from that page, which the resumed walk
// skips. A changed order moves to the feed's end with a different body, so its new change is
// never mistaken for the old one.

export interface Checkpoint {
  /** The cursor the current page was fetched with; null for the walk's first page. */
  cursor: string | null;
  /** The walk's starting `since`, used only while cursor is null. */
  since: string | null;
  /** Fingerprints of the changes of this page already handed over. */
  seen: string[];
}

const VERSION = 1;

export const encodeCheckpoint = (c: Checkpoint): string => JSON.stringify({ v: VERSION, c: c.cursor, s: c.since, seen: c.seen });

export function decodeCheckpoint(text: string): Checkpoint {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = null;
  }
  const r = raw as { v?: unknown; c?: unknown; s?: unknown; seen?: unknown } | null;
  const nullableString = (v: unknown) => v === null || typeof v === 'string';
  if (!r || r.v !== VERSION || !nullableString(r.c) || !nullableString(r.s) || !Array.isArray(r.seen) || !r.seen.every((x) => typeof x === 'string')) {
    throw new TypeError('not an order poll checkpoint');
  }
  return { cursor: r.c as string | null, since: r.s as string | null, seen: r.seen as string[] };
}

/** One change of one order: its id and a 53-bit hash of its body's JSON text (cyrb53). */
export function changeFingerprint(orderId: string, bodyText: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < bodyText.length; i++) {
    const ch = bodyText.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${orderId}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}
