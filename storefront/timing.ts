// The page's own User Timing: from a buyer's action (the input event's timestamp) to the frame
// that shows its results, as `performance.measure` entries with the API's share in `detail`.
// A real storefront would report these; `npm run bench:storefront` reads them.

let actionAt: number | null = null;

/** A navigation the buyer started (a facet click, a keyword submit) at this event timestamp. */
export function markAction(at: number): void {
  actionAt = at;
}

/**
 * Called when a view has committed new results to the DOM: measures from the pending action to
 * after the next paint (a task queued from requestAnimationFrame runs once the frame is drawn).
 */
export function resultsShown(name: string, apiMs: number): void {
  const start = actionAt;
  actionAt = null;
  if (start === null) return;
  requestAnimationFrame(() =>
    setTimeout(() => {
      performance.measure(name, { start, end: performance.now(), detail: { apiMs } });
    }, 0),
  );
}
