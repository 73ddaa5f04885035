// Catalog and store text is shown to buyers as it is stored, so two kinds of value must not reach
// them: bidirectional-formatting characters (a right-to-left override makes "gpj.exe" read as
// "exe.jpg", a spoofed store name) and image URLs a browser would run or that are not a fetch of
// an image over HTTP(S) (`javascript:`, `data:`, relative or protocol-relative paths).

// The explicit embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), the implicit
// marks (U+200E, U+200F, U+061C). Letters of right-to-left scripts are untouched: only the
// invisible controls that reorder text around them go.
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` without bidirectional-formatting characters (null stays null). */
export function displayText<T extends string | null>(text: T): T {
  if (text === null) return text;
  BIDI_CONTROLS.lastIndex = 0;
  return (BIDI_CONTROLS.test(text) ? text.replace(BIDI_CONTROLS, '') : text) as T;
}

/** An absolute http(s) URL with a host, as written; anything else (javascript:, data:, relative, malformed) is null. */
export function safeImageUrl(url: string | null): string | null {
  if (url === null) return null;
  const trimmed = url.trim();
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    const u = new URL(trimmed);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' ? trimmed : null;
  } catch {
    return null;
  }
}
