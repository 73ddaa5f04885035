// The order poll's checkpoint: where a walk stands, so a Platform that stores it after each
// change and resumes from it later gets every change exactly once.
//
// The API pages the feed in commit order and promises that a walk resumed from the cursor a page
// was fetched with misses nothing (a change committed late is held back, never passed over); the
// page's own changes come again. A checkpoint is therefore that cursor (or the starting `since`)
// plus a fingerprint of each change already handed over from that page, which the resumed walk
// skips. A changed order moves to the feed's end with a different body, so its new change is
// never mistaken for the old one. Fingerprints are computed only when a checkpoint is asked for
// (a walk that stores only its last checkpoint pays for one page's), and the checkpoint text of a
// page grows by appending, so asking for every change's checkpoint stays linear.

export interface Checkpoint {
  /** The cursor the current page was fetched with; null for the walk's first page. */
  cursor: string | null;
  /** The walk's starting `since`, used only while cursor is null. */
  since: string | null;
  /** Fingerprints of the changes of this page already handed over. */
  seen: string[];
}

const VERSION = 1;

export const encodeCheckpoint = (c: Checkpoint): string => checkpointHead(c) + c.seen.join(',') + '"}';

/** The checkpoint text before its fingerprints (which are base-36 digits: no JSON escaping). */
export const checkpointHead = (c: Pick<Checkpoint, 'cursor' | 'since'>): string =>
  `{"v":${VERSION},"c":${JSON.stringify(c.cursor)},"s":${JSON.stringify(c.since)},"seen":"`;

export function decodeCheckpoint(text: string): Checkpoint {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = null;
  }
  const r = raw as { v?: unknown; c?: unknown; s?: unknown; seen?: unknown } | null;
  const nullableString = (v: unknown) => v === null || typeof v === 'string';
  if (!r || r.v !== VERSION || !nullableString(r.c) || !nullableString(r.s) || typeof r.seen !== 'string' || !/^([0-9a-z]+(,[0-9a-z]+)*)?$/.test(r.seen)) {
    throw new TypeError('not an order poll checkpoint');
  }
  return { cursor: r.c as string | null, since: r.s as string | null, seen: r.seen === '' ? [] : r.seen.split(',') };
}

/** One change of one order: a 53-bit hash (cyrb53) of its id and its body's JSON text, in base 36. */
export function changeFingerprint(orderId: string, bodyText: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const text = `${orderId}\n${bodyText}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * The checkpoints of one page's handed-over changes: the k-th is the page's cursor with the
 * fingerprints of the resumed walk's skipped changes and the first k handed over. Built on demand.
 */
export function pageCheckpoints(at: Checkpoint, fingerprintOf: (handedIndex: number) => string): (k: number) => string {
  const head = checkpointHead(at);
  // texts[k]: the fingerprint list after k changes handed over; extended as asked.
  const texts: string[] = [at.seen.join(',')];
  return (k) => {
    for (let j = texts.length; j <= k; j++) {
      const prev = texts[j - 1]!;
      texts.push(prev === '' ? fingerprintOf(j - 1) : `${prev},${fingerprintOf(j - 1)}`);
    }
    return `${head}${texts[k]!}"}`;
  };
}
